// Hooks in the real VS Code (code-server + Chromium), issue 29: the workspace's .claude/settings.json
// defines a PreToolUse hook on Bash that refuses `rm -rf` (exit 2, the reason on stderr), written as
// Claude Code users write it.
// - The consent modal names the hook and shows its command as written; Allow runs it (in the sandbox).
// - The model's `rm -rf` through run_shell never runs: its tool card shows the refusal, the model
//   reads the hook's reason, and the chat has the hook's line (event, command, outcome) that opens
//   its output.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/hooks.e2e.ts
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { sendFromComposer, showChat, withFailureReport, openChatWorkbench, type ChatWorkbench } from '../support/e2eChat';
import { reply, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-hooks-failure.png');

/** Claude Code's block-a-command hook, in node (the machine may lack jq): exit 2 with the reason. */
const BLOCK_RM = `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (input.tool_name === 'Bash' && /rm -rf/.test(input.tool_input.command)) {
  console.error('rm -rf is not allowed in this repository');
  process.exit(2);
}
`;
const HOOK_COMMAND = `${JSON.stringify(process.execPath)} "$CLAUDE_PROJECT_DIR/.claude/hooks/block-rm.js"`;
const SETTINGS = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: HOOK_COMMAND }] }] } }, null, 2);

describe('hooks in the chat webview (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let chat: Frame;

  before(async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    rmSync(FAILURE_SCREENSHOT, { force: true });
    bench = await openChatWorkbench({
      prefix: 'e2e-hooks',
      files: { '.claude/settings.json': SETTINGS, '.claude/hooks/block-rm.js': BLOCK_RM, 'build/out.txt': 'built\n' },
      viewport: { width: 1400, height: 1000 },
    });
    ({ server, page, fake } = bench);
    chat = await showChat(page);
  });

  after(async () => {
    await bench?.close();
  });

  const step = (body: () => Promise<void>): Promise<void> => withFailureReport({ page, server }, FAILURE_SCREENSHOT, body);

  it('asks consent showing the command, then the hook refuses rm -rf: the card says why, the model reads it, the hook line opens its output', async () => {
    await step(async () => {
      fake.enqueue(reply.toolUse('run_shell', { command: 'rm -rf build' }, { id: 'toolu_hook_e2e' }), reply.text('Understood, I left the build folder alone.'));
      await sendFromComposer(chat, 'Clean the build folder.');

      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 30_000 });
      assert.equal(await dialog.locator('.dialog-message-text').innerText(), 'Run the hook that this workspace defines?');
      const detail = await dialog.locator('.dialog-message-detail').innerText();
      assert.ok(detail.includes(HOOK_COMMAND), detail);
      assert.ok(detail.includes('never approve anything for you'), detail);
      await dialog.getByRole('button', { name: 'Allow' }).click();

      await chat.locator('.eg-assistant', { hasText: 'Understood, I left the build folder alone.' }).waitFor({ timeout: 60_000 });
      const requests = fake.messageRequests();
      assert.equal(requests.length, 2);
      const results = JSON.stringify((requests[1]!.body as MessagesRequestBody).messages);
      assert.match(results, /Blocked by a PreToolUse hook: rm -rf is not allowed in this repository/, 'the model reads the reason');
      assert.ok(existsSync(path.join(bench!.workspace, 'build', 'out.txt')), 'the command never ran');

      const toolCard = chat.locator('.eg-tool').last();
      assert.equal(await toolCard.locator('summary .eg-tool-name').innerText(), 'run_shell');
      await toolCard.locator('summary').click();
      await toolCard.getByText('rm -rf is not allowed in this repository').first().waitFor({ timeout: 15_000 });

      const line = chat.locator('.eg-hook').first();
      await line.waitFor({ timeout: 15_000 });
      assert.equal(await line.locator('.eg-hook-event').innerText(), 'PreToolUse hook');
      assert.ok((await line.locator('.eg-hook-command').innerText()).includes('block-rm.js'));
      assert.equal(await line.locator('.eg-hook-outcome').innerText(), 'denied the call (exit 2)');
      await line.locator('summary').click();
      assert.match(await line.locator('.eg-hook-output').innerText(), /rm -rf is not allowed in this repository/);
      assert.match(await line.innerText(), /the workspace's, run in the sandbox/);
    });
  });
});

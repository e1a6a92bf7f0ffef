// A persisted tool result's note in the real chat webview (code-server + Chromium): the note names
// the tool and what it saved, with a short "saved output" link instead of the whole storage path;
// the link opens the full output in a read-only editor, and a link forged inside the webview to a
// file outside the session's tool-results folder is refused by the host. Screenshot:
// test-results/e2e-saved-output.png.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/savedOutput.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { findChatFrame, openChatWorkbench, type ChatWorkbench, openChatPanel } from '../support/e2eChat';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-saved-output.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-saved-output-failure.png');
/**
 * ~27,000 characters, under run_shell's 30,000-character cap so it arrives whole, but ~45 KB (the
 * box-drawing characters take 3 bytes each): over tier 0's 30 KB, so it is saved to the session's tool-results folder.
 */
const STEPS = 450;
const BIG_LOG = Array.from({ length: STEPS }, (_, i) => `✓ step ${String(i + 1).padStart(4, '0')} compiled module_${i % 37}.ts in ${(i * 7) % 300} ms `.padEnd(60, '─')).join('\n');

describe('a persist note in the chat webview (code-server + Chromium)', function () {
  this.timeout(180_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let workspace: string;
  const pageErrors: string[] = [];

  before(async function () {
    // Shell commands run without asking, so the turn needs no approval click.
    bench = await openChatWorkbench({ prefix: 'e2e-saved-output', files: { 'build.log': `${BIG_LOG}\n` }, settings: { 'evergreen.approvals.shell': 'auto' }, viewport: { width: 1400, height: 900 }, onPage: (opened) => opened.on('pageerror', (error) => pageErrors.push(error.message)) });
    ({ server, page, fake } = bench);
    workspace = bench.workspace;
  });

  const chatFrame = (): Promise<Frame> => findChatFrame(page, 100);

  after(async () => {
    await bench?.close();
  });

  it('shows "saved output" instead of the storage path, opens the full output read-only, and refuses a forged link', async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    fake.enqueue(reply.toolUse('run_shell', { command: 'cat build.log' }, { id: 'toolu_build_log', preamble: 'Reading the build log.' }), reply.text(`The build compiled **${STEPS} steps**.`));
    try {
      const { webview, input } = await openChatPanel(page);
      await input.fill('How many steps did the build compile?');
      await input.press('Enter');
      await webview.locator('.eg-assistant strong', { hasText: `${STEPS} steps` }).waitFor({ timeout: 60_000 });

      // The model was sent the preview naming the full path (it reads the rest with read_file).
      const answered = JSON.stringify(fake.messageRequests().at(-1)?.body);
      const saved = /The full output is saved at (\S+?toolu_build_log\.txt)/.exec(answered)?.[1]?.replace(/\\\\/g, '\\');
      assert.ok(saved, 'the model sees where the output is saved');
      assert.ok(readFileSync(saved, 'utf8').includes(BIG_LOG), 'the whole output is in the file');

      const note = webview.locator('.eg-note', { hasText: 'Context persist' });
      await note.waitFor({ timeout: 15_000 });
      const text = await note.innerText();
      assert.match(text, /^Context persist: run_shell output moved out of the context — saved ~[\d,.k]+ tokens \(~[\d,.k]+ → ~[\d,.k]+\) · saved output$/);
      assert.ok(!text.includes('tool-results') && !text.includes('workspaceStorage'), `no storage path in the chat: ${text}`);
      const link = note.getByRole('button', { name: 'Open the saved run_shell output, read-only' });
      assert.equal(await link.innerText(), 'saved output');
      assert.ok(((await link.getAttribute('title')) ?? '').endsWith(saved), 'the full path is on hover');

      await link.click();
      const tab = page.locator('.tabs-container .tab.active', { hasText: 'toolu_build_log.txt' });
      await tab.waitFor({ timeout: 30_000 });
      await page.locator('.editor-instance .view-lines', { hasText: /step\s+0001\s+compiled/ }).waitFor({ timeout: 15_000 });
      // Read-only: typing into the editor changes nothing (VS Code says the editor is read-only).
      await page.locator('.editor-instance .view-lines').first().click();
      await page.keyboard.type('TYPED');
      await page.getByText('Editor is read-only').first().waitFor({ timeout: 10_000 });
      assert.equal(await page.locator('.editor-instance .view-lines', { hasText: 'TYPED' }).count(), 0, 'the saved output took a keystroke');
      assert.ok(!readFileSync(saved, 'utf8').includes('TYPED'));

      await note.scrollIntoViewIfNeeded();
      await page.mouse.move(900, 880);
      await page.waitForTimeout(300);
      await page.screenshot({ path: SCREENSHOT });

      // The host decides what opens: a note forged inside the webview (as a compromised page could)
      // that links a file outside this session's tool-results folder is refused, with a message.
      const chat = await chatFrame();
      await chat.evaluate((file) => {
        window.postMessage({ type: 'agentEvent', event: { type: 'tier', tier: 'persist', items: 1, tokensBefore: 9_000, tokensAfter: 1_000, detail: 'forged', savedOutput: { toolName: 'forged_tool', file } } }, '*');
      }, path.join(workspace, 'build.log'));
      await webview.getByRole('button', { name: 'Open the saved forged_tool output, read-only' }).click();
      await page.locator('.notifications-toasts', { hasText: "only files in this session's tool-results folder open from the chat" }).waitFor({ timeout: 15_000 });
      assert.equal(await page.locator('.tabs-container .tab', { hasText: 'build.log' }).count(), 0, 'the forged link opened a file');
      assert.deepEqual(pageErrors, []);
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => {});
      throw new Error(`${(err as Error).message}\nscreenshot: ${FAILURE_SCREENSHOT}\n${pageErrors.join('\n')}\n${server?.logTail() ?? ''}`);
    }
  });
});

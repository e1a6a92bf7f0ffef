// Checkpoints in the real chat (code-server + Chromium), issue 17: a first message whose turn edits
// three files with write_file and, through a shell command, deletes one and creates one; a second
// message edits again. "Restore…" on the first message, "files and conversation", the file list
// confirmed: every byte of every file is back (a Windows-1252 file and CRLF line ends included),
// the chat is empty again, and the next message is sent without the rewound turns.
// Screenshot of the file list: test-results/e2e-checkpoint-restore.png.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/checkpoints.e2e.ts
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { evergreenLogTail, openChatWorkbench, type ChatWorkbench, openChatPanel, sendFromComposer } from '../support/e2eChat';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-checkpoint-restore.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-checkpoint-restore-failure.png');

const ORIGINAL: Record<string, Buffer> = {
  'a.txt': Buffer.from('alpha\n'),
  'b.txt': Buffer.from('beta\r\nwith CRLF\r\n'),
  'c.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), // "café" in Windows-1252
  'd.txt': Buffer.from('deleted by a command\n'),
};

describe('checkpoints in the chat webview (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let workspace: string;
  const pageErrors: string[] = [];

  before(async function () {
    bench = await openChatWorkbench({
      prefix: 'e2e-checkpoints',
      files: {},
      settings: { 'evergreen.approvals.shell': 'auto', 'evergreen.approvals.writes': 'auto' },
      onPage: (opened) => opened.on('pageerror', (error) => pageErrors.push(error.message)),
    });
    ({ server, page, fake } = bench);
    workspace = bench.workspace;
    for (const [name, bytes] of Object.entries(ORIGINAL)) writeFileSync(path.join(workspace, name), bytes);
  });

  after(async () => {
    await bench?.close();
  });

  const read = (name: string): Buffer | undefined => (existsSync(path.join(workspace, name)) ? readFileSync(path.join(workspace, name)) : undefined);

  it('restores files and conversation from the first message: every byte, and the chat starts over', async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    fake.enqueue(
      reply.toolUse('write_file', { path: 'a.txt', content: 'alpha rewritten\n' }, { id: 'toolu_a' }),
      reply.toolUse('write_file', { path: 'b.txt', content: 'beta rewritten\n' }, { id: 'toolu_b' }),
      reply.toolUse('write_file', { path: 'c.txt', content: 'cafe\n' }, { id: 'toolu_c' }),
      reply.toolUse('run_shell', { command: 'rm d.txt && printf "made by a command\\n" > e.txt' }, { id: 'toolu_sh' }),
      reply.text('First change done.'),
      reply.toolUse('write_file', { path: 'a.txt', content: 'alpha, second turn\n' }, { id: 'toolu_a2' }),
      reply.text('Second change done.'),
      reply.text('Starting over.'),
    );
    try {
      const { webview, input } = await openChatPanel(page);
      await sendFromComposer(webview, 'Rewrite the three files and clean up');
      await webview.locator('.eg-assistant', { hasText: 'First change done.' }).waitFor({ timeout: 90_000 });
      await sendFromComposer(webview, 'One more change to a.txt');
      await webview.locator('.eg-assistant', { hasText: 'Second change done.' }).waitFor({ timeout: 60_000 });
      assert.equal(read('a.txt')?.toString(), 'alpha, second turn\n');
      assert.equal(read('d.txt'), undefined);
      assert.equal(read('e.txt')?.toString(), 'made by a command\n');

      const first = webview.locator('.eg-user', { hasText: 'Rewrite the three files' });
      await first.hover();
      await first.getByRole('button', { name: 'Restore…' }).click();
      const quickInput = page.locator('.quick-input-widget');
      await quickInput.locator('.quick-input-list-row', { hasText: 'Restore files and conversation' }).first().waitFor({ timeout: 30_000 });
      await quickInput.locator('.quick-input-list-row', { hasText: 'Restore files and conversation' }).first().click();
      // The file list: each file that will change, the restore action first.
      await quickInput.locator('.quick-input-list-row', { hasText: 'e.txt' }).first().waitFor({ timeout: 30_000 });
      const rows = await quickInput.locator('.quick-input-list-row').allInnerTexts();
      for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']) assert.ok(rows.some((row) => row.includes(name)), `${name} is listed: ${rows.join(' | ')}`);
      await page.screenshot({ path: SCREENSHOT });
      await quickInput.locator('.quick-input-list-row', { hasText: 'Restore 5 files' }).first().click();
      await page.locator('.notifications-toasts', { hasText: '5 files restored' }).waitFor({ timeout: 60_000 });

      for (const [name, bytes] of Object.entries(ORIGINAL)) assert.deepEqual(read(name), bytes, `${name} has its bytes back`);
      assert.equal(read('e.txt'), undefined, 'the file the command created is gone');
      // The conversation went back before the first message: the chat is empty, the next message starts over.
      await webview.locator('.eg-user').first().waitFor({ state: 'detached', timeout: 30_000 });
      await sendFromComposer(webview, 'Let us try another way');
      await webview.locator('.eg-assistant', { hasText: 'Starting over.' }).waitFor({ timeout: 60_000 });
      const messages = (fake.messageRequests().at(-1)?.body as { messages?: unknown[] } | undefined)?.messages ?? [];
      assert.equal(messages.length, 1, `only the new message is sent: ${JSON.stringify(messages).slice(0, 400)}`);

      // Edit on the last message: the conversation goes back before it and its text is in the box again.
      const last = webview.locator('.eg-user', { hasText: 'Let us try another way' });
      await last.hover();
      await last.getByRole('button', { name: 'Edit' }).click();
      await webview.locator('.eg-user').first().waitFor({ state: 'detached', timeout: 30_000 });
      assert.equal(await input.inputValue(), 'Let us try another way');
      await page.locator('.notifications-toasts', { hasText: 'the conversation is back before that message' }).waitFor({ timeout: 30_000 });
      assert.deepEqual(pageErrors, []);
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => {});
      throw new Error(`${(err as Error).message}\nscreenshot: ${FAILURE_SCREENSHOT}\n${pageErrors.join('\n')}\n${evergreenLogTail(bench?.tmp && path.join(bench.tmp, 'user-data'))}\n${server?.logTail() ?? ''}`);
    }
  });
});

// Several chats at once in the real workbench (code-server + Chromium), issue 31: chat A asks to
// write a file, but its reply comes late, when New Chat has put chat B in the panel. A's approval
// waits in A: a notification says so, with Open Chat, the views get a badge, the Chats list reads
// "waiting for approval", and B's panel never shows A's card while B answers its own message. Open
// Chat shows A with its card; Apply lets A finish. Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/multipleChats.e2e.ts
// Screenshot: test-results/e2e-multiple-chats.png (the list with A waiting and B done; docs/screenshot-multiple-chats.png is a copy).
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';
import { openChatWorkbench, runPaletteCommand, sendFromComposer, showChat, withFailureReport, type ChatWorkbench } from '../support/e2eChat';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-multiple-chats-failure.png');

describe('several chats at once in the workbench (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  let chat: Frame;

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    rmSync(FAILURE_SCREENSHOT, { force: true });
    bench = await openChatWorkbench({ prefix: 'e2e-multiple-chats', files: { 'README.md': '# two chats\n' }, viewport: { width: 1400, height: 1000 } });
    ({ server, page, fake } = bench);
    chat = await showChat(page);
    await expandChatsView();
  });

  after(async () => {
    await bench?.close();
  });

  /** The Chats view starts collapsed, so the chat keeps the side bar's height: opened as a user would. */
  async function expandChatsView(): Promise<void> {
    const header = page.locator('.pane-header[aria-label^="Chats"]');
    await header.waitFor({ timeout: 30_000 });
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  }

  const step = (body: () => Promise<void>): Promise<void> => withFailureReport({ page, server }, FAILURE_SCREENSHOT, body);
  /** The Chats tree's rows (the view beside the chat in the Evergreen side bar). */
  const chatRows = () => page.locator('.pane:has(.pane-header[aria-label^="Chats"]) .monaco-list-row');
  const row = (title: string) => chatRows().filter({ hasText: title });

  it('keeps chat A waiting for its approval while chat B works, calls for A with a notification and a badge, and shows A\'s card when opened', async () => {
    await step(async () => {
      const target = path.join(bench!.workspace, 'from-a.txt');
      // Each chat gets its own replies whatever the order of their requests: A's first comes 4 s late, when the panel shows chat B.
      fake.setResponder((body) => {
        const conversation = JSON.stringify(body.messages);
        if (!conversation.includes('Chat A')) return reply.text('B answered.');
        return conversation.includes('tool_result') ? reply.text('A is done.') : reply.toolUse('write_file', { path: 'from-a.txt', content: 'written by chat A\n' }, { delayMs: 4000 });
      });
      await sendFromComposer(chat, 'Chat A: write from-a.txt');
      await chat.locator('#evergreen-root[data-status="busy"]').waitFor({ timeout: 30_000 });
      await runPaletteCommand(page, 'Evergreen: New Chat');
      // B's panel: empty and idle, A's turn goes on out of sight.
      await chat.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 30_000 });
      assert.equal(await chat.locator('.eg-user').count(), 0, 'the new chat shows the old chat\'s messages');

      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'is waiting for your approval' });
      await toast.waitFor({ timeout: 30_000 });
      assert.match((await toast.textContent()) ?? '', /Chat A: write from-a\.txt/);
      // The badge on the Evergreen icon in the activity bar (the views' badges add up there).
      const badge = page.locator('.activitybar .action-item:has(a[aria-label^="Evergreen"]) .badge-content');
      await badge.filter({ hasText: /^\s*1\s*$/ }).waitFor({ timeout: 15_000 });
      await row('Chat A').filter({ hasText: 'waiting for approval' }).waitFor({ timeout: 15_000 });

      // B works and answers while A waits; A's card never shows in B.
      await sendFromComposer(chat, 'Chat B: hello');
      await chat.locator('.eg-assistant', { hasText: 'B answered.' }).waitFor({ timeout: 30_000 });
      assert.equal(await chat.locator('.eg-approval').count(), 0, 'chat A\'s approval card showed in chat B');
      await row('Chat B').filter({ hasText: 'done' }).waitFor({ timeout: 15_000 });
      assert.equal(existsSync(target), false, 'A wrote before its approval');
      await page.screenshot({ path: path.join(RESULTS_DIR, 'e2e-multiple-chats.png') });

      // Open Chat: A comes back with its card; Apply lets it finish, and the badge goes.
      await toast.locator('.monaco-button', { hasText: 'Open Chat' }).click();
      const card = chat.locator('.eg-approval').last();
      await card.waitFor({ timeout: 30_000 });
      assert.equal(await chat.locator('.eg-assistant', { hasText: 'B answered.' }).count(), 0, 'chat B\'s reply showed in chat A');
      await badge.filter({ hasText: /\d/ }).waitFor({ state: 'detached', timeout: 15_000 });
      await card.getByRole('button', { name: /^Apply the change to from-a\.txt/ }).click();
      await chat.locator('.eg-assistant', { hasText: 'A is done.' }).waitFor({ timeout: 30_000 });
      assert.equal(readFileSync(target, 'utf8'), 'written by chat A\n');
      await row('Chat A').filter({ hasText: 'done' }).waitFor({ timeout: 15_000 });

      // A click on B's row switches the panel back to B, its conversation intact.
      await row('Chat B').click();
      await chat.locator('.eg-assistant', { hasText: 'B answered.' }).waitFor({ timeout: 15_000 });
      assert.equal(await chat.locator('.eg-approval').count(), 0);
    });
  });

  it('opens a chat in an editor tab: the same page, its own conversation, listed beside the others', async () => {
    await step(async () => {
      fake.setResponder(() => reply.text('Answered in the tab.'));
      await runPaletteCommand(page, 'Evergreen: Open Chat in Editor');
      const tab = await editorChatFrame(page);
      await sendFromComposer(tab, 'Chat C: in an editor tab');
      await tab.locator('.eg-assistant', { hasText: 'Answered in the tab.' }).waitFor({ timeout: 30_000 });
      assert.equal(await tab.locator('.eg-assistant', { hasText: 'B answered.' }).count(), 0, 'the tab shows another chat\'s conversation');
      await row('Chat C').filter({ hasText: 'editor tab' }).waitFor({ timeout: 15_000 });
      await page.locator('.tab', { hasText: 'Chat C: in an editor tab' }).waitFor({ timeout: 15_000 });
      // The sidebar still shows chat B.
      await chat.locator('.eg-assistant', { hasText: 'B answered.' }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: path.join(RESULTS_DIR, 'e2e-chat-in-editor.png') });
    });
  });

  it('lists the sidebar\'s chats again after the window reloads, the one shown shown again, says which turn the reload stopped, and starts the others when shown', async () => {
    await step(async () => {
      // Chat B's next turn is still waiting for its reply when the window goes.
      fake.setResponder(() => reply.text('Too late.', { delayMs: 60_000 }));
      await sendFromComposer(chat, 'Chat B: a long one');
      await row('Chat B').filter({ hasText: 'working' }).waitFor({ timeout: 15_000 });
      await page.reload();
      chat = await showChat(page);
      await expandChatsView();
      await row('Chat A').filter({ hasText: 'done' }).waitFor({ timeout: 60_000 });
      await row('Chat B').filter({ hasText: 'stopped' }).waitFor({ timeout: 60_000 });
      // B was shown: it is again, with its conversation and a line on the stopped turn.
      await chat.locator('.eg-assistant', { hasText: 'B answered.' }).waitFor({ timeout: 30_000 });
      await chat.getByText('VS Code closed while this chat was working').waitFor({ timeout: 15_000 });
      assert.equal(await chat.locator('.eg-assistant', { hasText: 'A is done.' }).count(), 0, 'chat A\'s conversation shows in chat B');
      // It goes on when the user sends.
      fake.setResponder(() => reply.text('Going on.'));
      await sendFromComposer(chat, 'go on');
      await chat.locator('.eg-assistant', { hasText: 'Going on.' }).waitFor({ timeout: 30_000 });
      // A was listed without starting; shown, it resumes with its own conversation.
      await row('Chat A').click();
      await chat.locator('.eg-assistant', { hasText: 'A is done.' }).waitFor({ timeout: 30_000 });
      assert.equal(await chat.locator('.eg-assistant', { hasText: 'Going on.' }).count(), 0, 'chat B\'s conversation shows in chat A');
    });
  });
});

/** The chat page of an editor tab: a chat frame that is not the sidebar view's. */
async function editorChatFrame(page: Page): Promise<Frame> {
  for (let attempt = 0; attempt < 300; attempt++) {
    for (const frame of page.frames()) {
      const inSidebar = frame.parentFrame()?.url().includes('purpose=webviewView') === true;
      if (!inSidebar && (await frame.locator('#evergreen-root textarea.eg-input').count().catch(() => 0))) return frame;
    }
    await page.waitForTimeout(100);
  }
  throw new Error('the editor tab\'s chat page never rendered');
}

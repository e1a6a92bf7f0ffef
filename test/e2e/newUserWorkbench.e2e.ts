// What a new user tripped over (issue 33, item 5), in the real workbench: code-server with
// Evergreen, the fake Messages API as the model, Chromium. (The panel-only checks are in
// newUser.e2e.ts.) Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/newUserWorkbench.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { findChatFrame, openChatPanel, openChatWorkbench, runPaletteCommand, sendFromComposer, withFailureReport, type ChatWorkbench } from '../support/e2eChat';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';

const RESULTS_DIR = path.resolve(__dirname, '..', '..', 'test-results');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-new-user-failure.png');

describe('what a new user tripped over, in the workbench (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench;
  let page: Page;
  let fake: FakeAnthropic;

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    bench = await openChatWorkbench({ prefix: 'e2e-new-user', files: { 'notes.txt': 'hello\n' } });
    ({ page, fake } = bench);
  });

  after(async () => {
    await bench?.close();
  });

  const step = (body: () => Promise<void>) => withFailureReport(bench, FAILURE_SCREENSHOT, body);
  const quickInput = () => page.locator('.quick-input-widget');
  /** A button of the view's title bar (a view alone in its container shows them on the container's title). */
  // A command with a key binding is labelled with it too ("New Chat (Ctrl+K N)").
  const titleButton = (label: string) => page.locator(`a.action-label[aria-label="${label}"], a.action-label[aria-label^="${label} ("] >> visible=true`).first();

  it("the view's clock resumes a past chat, its list marking the chat already open", () =>
    step(async () => {
      fake.enqueue(reply.text('First chat answered.'), reply.text('Second chat answered.'));
      const { webview } = await openChatPanel(page);
      await sendFromComposer(webview, 'The first chat of the day');
      await webview.locator('.eg-assistant', { hasText: 'First chat answered.' }).waitFor({ timeout: 90_000 });
      // The reply is drawn before the turn ends; New Chat during a turn asks first (a loaded machine shows it).
      await webview.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
      await titleButton('New Chat').click();
      await webview.locator('.eg-user').first().waitFor({ state: 'detached', timeout: 30_000 });
      await sendFromComposer(webview, 'The second chat of the day');
      await webview.locator('.eg-assistant', { hasText: 'Second chat answered.' }).waitFor({ timeout: 60_000 });

      await titleButton('Resume Session…').click();
      const row = (text: string) => quickInput().locator('.quick-input-list-row', { hasText: text }).first();
      await row('The first chat of the day').waitFor({ timeout: 30_000 });
      assert.match(await row('The second chat of the day').innerText(), /open in the chat/);
      assert.doesNotMatch(await row('The first chat of the day').innerText(), /open in the chat/);
      await row('The first chat of the day').click();
      await webview.locator('.eg-user', { hasText: 'The first chat of the day' }).waitFor({ timeout: 60_000 });
      assert.equal(await webview.locator('.eg-user', { hasText: 'The second chat of the day' }).count(), 0);
    }));

  /** Waits until the chat's message box has the focus (the page's focus inside the webview's frame). */
  async function expectInputFocused(what: string): Promise<void> {
    const frame = await findChatFrame(page);
    for (let waited = 0; ; waited += 100) {
      if (await frame.evaluate(() => document.hasFocus() && document.activeElement?.classList.contains('eg-input') === true).catch(() => false)) return;
      if (waited > 15_000) throw new Error(`after ${what} the focus is not in the message box`);
      await page.waitForTimeout(100);
    }
  }

  it('after Set API Key, a Restore and its Undo the focus is back in the message box', () =>
    step(async () => {
      await runPaletteCommand(page, 'Evergreen: Set API Key');
      const box = page.locator('.quick-input-widget .quick-input-box input');
      await box.waitFor({ timeout: 15_000 });
      await box.fill(fake.apiKey);
      await box.press('Enter');
      await expectInputFocused('Set API Key');

      const { webview } = await openChatPanel(page);
      const message = webview.locator('.eg-user', { hasText: 'The first chat of the day' });
      await message.hover();
      await message.getByRole('button', { name: 'Restore…' }).click();
      await quickInput().locator('.quick-input-list-row', { hasText: 'Restore conversation only' }).first().waitFor({ timeout: 30_000 });
      assert.match(await quickInput().locator('.quick-input-title').innerText(), /restore before “The first chat of the day”/, 'the picker names the message, not a checkpoint number');
      await quickInput().locator('.quick-input-list-row', { hasText: 'Restore conversation only' }).first().click();
      await message.waitFor({ state: 'detached', timeout: 30_000 });
      await expectInputFocused('a Restore');
      const { input } = await openChatPanel(page);
      assert.equal(await input.inputValue(), 'The first chat of the day', 'the restored message is back in the box');
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'the conversation is back before that message' });
      await toast.getByRole('button', { name: 'Undo Restore' }).click();
      await webview.locator('.eg-user', { hasText: 'The first chat of the day' }).waitFor({ timeout: 30_000 });
      await expectInputFocused('Undo Restore');
    }));
});

describe('a new user without an API key (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench;
  let page: Page;
  let fake: FakeAnthropic;

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    bench = await openChatWorkbench({ prefix: 'e2e-no-key', files: { 'notes.txt': 'hello\n' }, withoutApiKey: true });
    ({ page, fake } = bench);
  });

  after(async () => {
    await bench?.close();
  });

  it('cannot send or compact an empty chat; sets the key from the welcome, with no warning left behind, and chats', () =>
    withFailureReport(bench, FAILURE_SCREENSHOT, async () => {
      fake.enqueue(reply.text('Hello, new user.'));
      const { webview, input } = await openChatPanel(page);
      const setKey = webview.getByRole('button', { name: 'Set API Key' });
      await setKey.waitFor({ timeout: 60_000 });
      const send = webview.getByRole('button', { name: 'Send' });
      const compact = webview.getByRole('button', { name: /^Compact conversation/ });
      assert.equal(await send.isDisabled(), true, 'Send waits for a key');
      assert.equal(await compact.isDisabled(), true, 'an empty chat has nothing to compact');
      await input.fill('Hello there');
      await input.press('Enter');
      await page.waitForTimeout(1_000);
      assert.equal(await input.inputValue(), 'Hello there', 'nothing was sent: the words stay in the box');
      assert.equal(fake.messageRequests().length, 0);
      assert.equal(await page.locator('.notifications-toasts .notification-toast').count(), 0, 'no notification besides the panel');

      await setKey.click();
      const box = page.locator('.quick-input-widget .quick-input-box input');
      await box.waitFor({ timeout: 15_000 });
      await box.fill(fake.apiKey);
      await box.press('Enter');
      await webview.locator('button.eg-button[type="submit"]:not([disabled])').waitFor({ timeout: 30_000 });
      assert.equal(await page.locator('.notifications-toasts .notification-toast', { hasText: 'needs an' }).count(), 0);
      await sendFromComposer(webview, 'Hello there');
      await webview.locator('.eg-assistant', { hasText: 'Hello, new user.' }).waitFor({ timeout: 60_000 });
      assert.equal(await compact.isDisabled(), false, 'a chat with messages can be compacted');
    }));
});

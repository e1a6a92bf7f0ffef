// Model text is untrusted: markdown-injected HTML, <img onerror>, <script>, javascript: and
// command: links must not execute anything in the chat webview, and the links that remain open
// only through the host (web links after a prompt, workspace files directly).
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { evergreenLogTail, findChatFrame, openChatWorkbench, type ChatWorkbench, showEvergreenView } from '../support/e2eChat';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

const HOSTILE = [
  'Look: <img src=x onerror="document.title=\'pwned-img\'"> and <script>document.title=\'pwned-script\'</script>',
  '<a href="command:evergreen.newChat">html command link</a> <iframe src="javascript:alert(1)"></iframe>',
  '',
  '[js link](javascript:document.title=\'pwned-js\') [cmd link](command:workbench.action.terminal.new) [vscode link](vscode://file/etc/passwd)',
  '[web link](https://example.com/docs) [file link](README.md:1) ![image](https://example.com/x.png)',
].join('\n');

describe('chat webview against hostile model text (code-server + Chromium)', function () {
  this.timeout(180_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;

  before(async function () {
    bench = await openChatWorkbench({ prefix: 'e2e-sec', files: { 'README.md': '# hostile text workspace\n' }, viewport: { width: 1400, height: 900 } });
    ({ server, page, fake } = bench);
  });

  after(async () => {
    await bench?.close();
  });

  const evergreenLog = (): string => evergreenLogTail(server?.userDataDir, 30);

  const chatFrame = (): Promise<Frame> => findChatFrame(page, 600);

  it('renders hostile markdown inert and opens links only through the host', async () => {
    try {
      await showEvergreenView(page);
      const chat = await chatFrame();
      fake.enqueue(reply.text(HOSTILE));
      await chat.locator('textarea.eg-input').fill('Show me something');
      await chat.locator('textarea.eg-input').press('Enter');
      const assistant = chat.locator('.eg-assistant').last();
      await assistant.locator('a', { hasText: 'file link' }).waitFor({ timeout: 30_000 });

      // Nothing ran, nothing executable was created.
      assert.doesNotMatch(await chat.evaluate(() => document.title), /pwned/);
      assert.equal(await assistant.locator('img, script, iframe, object, embed').count(), 0);
      // Raw HTML stays text; scripted and non-web schemes lose their href.
      assert.match(await assistant.innerText(), /<a href="command:evergreen\.newChat">html command link<\/a>/);
      // (markdown-it leaves javascript: links as text; the sanitizer strips the other schemes' href.)
      assert.match(await assistant.innerText(), /cmd link/);
      for (const label of ['js link', 'cmd link', 'vscode link']) {
        assert.equal(await assistant.locator('a[href]', { hasText: label }).count(), 0, `${label} is a live link`);
      }
      assert.equal(await assistant.locator('a[href^="command:"], a[href^="javascript:"], a[href^="vscode:"]').count(), 0);
      assert.equal(await assistant.locator('a', { hasText: 'web link' }).getAttribute('href'), 'https://example.com/docs');

      // A workspace file opens in an editor.
      await assistant.locator('a', { hasText: 'file link' }).click();
      await page.locator('.tabs-container .tab', { hasText: 'README.md' }).waitFor({ timeout: 15_000 });
      // A web link asks first; declining opens nothing.
      await assistant.locator('a', { hasText: 'web link' }).click();
      const dialog = page.locator('.monaco-dialog-box', { hasText: 'Open this link from the chat in your browser?' });
      await dialog.waitFor({ timeout: 15_000 });
      assert.match(await dialog.innerText(), /https:\/\/example\.com\/docs/);
      await dialog.locator('a.monaco-button, .monaco-button', { hasText: 'Cancel' }).first().click();
      await dialog.waitFor({ state: 'detached', timeout: 15_000 });
      // Still the chat and no terminal: the command: link did nothing.
      assert.equal(await page.locator('.terminal-outer-container').count(), 0);
    } catch (error) {
      mkdirSync(RESULTS_DIR, { recursive: true });
      await page.screenshot({ path: path.join(RESULTS_DIR, 'webview-security-failure.png') }).catch(() => {});
      throw new Error(`${(error as Error).message}\nscreenshot: test-results/webview-security-failure.png\n${evergreenLog()}\n${server?.logTail() ?? ''}`);
    }
  });
});

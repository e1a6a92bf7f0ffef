// The composer's attachments in the real chat webview (code-server + Chromium), issue 17, driven by
// the keyboard only: "@" opens the picker, typing narrows it, arrows and Enter choose, Escape
// closes it, Backspace at the start of the box removes the last chip; the message goes out with
// the file before the words, and the chat shows what it carried. Screenshot of the open picker:
// test-results/e2e-composer-picker.png.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/composer.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { imageSize } from 'image-size';
import { evergreenLogTail, findChatFrame, openChatWorkbench, type ChatWorkbench, openChatPanel, runPaletteCommand, sendFromComposer } from '../support/e2eChat';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-composer-picker.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-composer-failure.png');

describe('attaching context in the composer (code-server + Chromium)', function () {
  this.timeout(180_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let fake: FakeAnthropic;
  const pageErrors: string[] = [];

  before(async function () {
    bench = await openChatWorkbench({ prefix: 'e2e-composer', files: { 'README.md': '# Demo\n' }, permissions: ['clipboard-read', 'clipboard-write'], onPage: (opened) => opened.on('pageerror', (error) => pageErrors.push(error.message)) });
    ({ server, page, fake } = bench);
    mkdirSync(path.join(bench.workspace, 'src'));
    writeFileSync(path.join(bench.workspace, 'src', 'app.ts'), 'export function start(): string {\n  return "app started";\n}\n');
    writeFileSync(path.join(bench.workspace, 'src', 'util.ts'), 'export const util = 1;\n');
  });

  after(async () => {
    await bench?.close();
  });

  it('picks a file and a folder with the keyboard, removes a chip with Backspace, and sends the file before the words', async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    fake.enqueue(reply.text('It starts the app.'));
    try {
      const { webview, input } = await openChatPanel(page);
      await input.focus();

      // "@" alone offers the kinds VS Code gathers first.
      await page.keyboard.type('@');
      const picker = webview.locator('#eg-picker');
      await picker.locator('.eg-picker-row', { hasText: '@selection' }).waitFor({ timeout: 15_000 });
      await page.keyboard.press('Escape');
      await picker.waitFor({ state: 'hidden', timeout: 5_000 });
      // The host's answer to "@" may arrive after Escape: it must not open the picker again.
      await page.waitForTimeout(1_500);
      assert.equal(await picker.isHidden(), true, 'a late answer reopened the picker the user closed');
      await page.keyboard.press('Backspace');

      // A file, by a fuzzy query: the host's rows arrive, Enter takes the active one.
      await page.keyboard.type('@appts');
      await picker.locator('.eg-picker-row', { hasText: 'src/app.ts' }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: SCREENSHOT });
      await page.keyboard.press('Enter');
      const chips = webview.locator('.eg-chip');
      await chips.filter({ hasText: 'src/app.ts' }).waitFor({ timeout: 5_000 });
      assert.equal(await input.inputValue(), '', 'the typed @query became the chip');

      // A folder: ArrowDown moves through the rows until the folder is the active one.
      await page.keyboard.type('@src');
      await picker.locator('.eg-picker-row', { hasText: 'src/' }).first().waitFor({ timeout: 15_000 });
      for (let step = 0; step < 10 && !(await picker.locator('.eg-picker-row.eg-active', { hasText: /^src\/ folder/ }).count()); step++) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await webview.locator('.eg-chip-label', { hasText: /^src\/$/ }).waitFor({ timeout: 5_000 });
      assert.equal(await chips.count(), 2);
      // Backspace at the start of an empty box removes the last chip (the folder).
      await page.keyboard.press('Backspace');
      const labels = webview.locator('.eg-chip-label');
      await labels.filter({ hasText: /^src\/$/ }).waitFor({ state: 'detached', timeout: 5_000 });
      assert.deepEqual(await labels.allInnerTexts(), ['src/app.ts']);
      assert.match(await webview.locator('.eg-estimate').innerText(), /this message: ~\d+ tokens/);

      await page.keyboard.type('What does this do?');
      await page.keyboard.press('Enter');
      await webview.locator('.eg-assistant', { hasText: 'It starts the app.' }).waitFor({ timeout: 60_000 });
      const sent = JSON.stringify((fake.messageRequests().at(-1)?.body as { messages: unknown[] }).messages[0]);
      assert.match(sent, /<attachment kind=\\"file\\" label=\\"src\/app\.ts\\">[^]*app started/);
      assert.ok(sent.indexOf('What does this do?') > sent.lastIndexOf('</attachment>'));
      assert.match(await webview.locator('.eg-user').innerText(), /src\/app\.ts/);
      assert.equal(await chips.count(), 0, 'the chips went with the message');

      // A pasted screenshot too wide for the models (9000 px) is resized in the panel and sent as an image.
      fake.enqueue(reply.text('A wide picture.'));
      const chat = await findChatFrame(page, 100);
      await chat.evaluate(async () => {
        const canvas = document.createElement('canvas');
        canvas.width = 9000;
        canvas.height = 60;
        const context = canvas.getContext('2d')!;
        context.fillStyle = '#3a7';
        context.fillRect(0, 0, 9000, 60);
        const blob = await new Promise<Blob>((resolve) => canvas.toBlob((made) => resolve(made!), 'image/png'));
        const transfer = new DataTransfer();
        transfer.items.add(new File([blob], 'wide.png', { type: 'image/png' }));
        document.querySelector('textarea.eg-input')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
      });
      await webview.locator('.eg-chip-label', { hasText: 'image: wide.png (resized 9000x60 → 1568x10 PNG)' }).waitFor({ timeout: 15_000 });
      await sendFromComposer(webview, 'What is this?');
      await webview.locator('.eg-assistant', { hasText: 'A wide picture.' }).waitFor({ timeout: 60_000 });
      const blocks = (fake.messageRequests().at(-1)?.body as { messages: { content: { type: string; source?: { data: string; media_type: string } }[] }[] }).messages.at(-1)!.content;
      const image = blocks.find((block) => block.type === 'image');
      assert.equal(image?.source?.media_type, 'image/png');
      assert.deepEqual(imageSize(Buffer.from(image!.source!.data, 'base64')), { height: 10, width: 1568, type: 'png' });
      // The message shows the picture the model got as a thumbnail: loaded (the panel's CSP lets data: images in), bounded, and enlarged by a click.
      const thumbnail = webview.locator('.eg-user').last().locator('img.eg-thumbnail');
      await thumbnail.waitFor({ timeout: 15_000 });
      assert.equal(await thumbnail.getAttribute('alt'), 'wide.png (resized 9000x60 → 1568x10 PNG)');
      const shown = await thumbnail.evaluate(async (img: HTMLImageElement) => {
        await img.decode();
        return { natural: img.naturalWidth, width: img.getBoundingClientRect().width };
      });
      assert.equal(shown.natural, 1568, 'the bytes the model got');
      assert.ok(shown.width <= 96, `a thumbnail, not the full picture: ${shown.width}px`);
      await thumbnail.click();
      assert.ok((await thumbnail.evaluate((img) => img.getBoundingClientRect().width)) > 96, 'a click enlarges it');
      assert.deepEqual(pageErrors, []);
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => {});
      throw new Error(`${(err as Error).message}\nscreenshot: ${FAILURE_SCREENSHOT}\n${pageErrors.join('\n')}\n${evergreenLogTail(bench?.tmp && path.join(bench.tmp, 'user-data'))}\n${server?.logTail() ?? ''}`);
    }
  });

  it('@terminal attaches the last command of the active terminal, read through its shell integration, as the screen showed it, and leaves the clipboard as it was', async function () {
    fake.enqueue(reply.text('It printed a greeting.'));
    try {
      // VS Code may lose a fast command's output on its way to Evergreen, which then reads the
      // workbench's own copy through the clipboard (test/integration covers that path for sure).
      await page.evaluate(() => navigator.clipboard.writeText('the user’s own clipboard'));
      // A real terminal of the workbench: bash with VS Code's shell integration injected.
      await runPaletteCommand(page, 'Terminal: Create New Terminal');
      await page.locator('.terminal-wrapper.active .xterm').waitFor({ timeout: 30_000 });
      const { webview, input } = await openChatPanel(page);
      const chips = webview.locator('.eg-chip-label');
      const attached = webview.locator('.eg-user').last();
      await input.fill('');
      // The shell reports its integration, and then each command's end, a moment after the fact:
      // until Evergreen has heard of one, @terminal says so and the message stays in the box.
      for (let attempt = 0; ; attempt++) {
        await page.locator('.terminal-wrapper.active .xterm').click();
        await page.keyboard.type("printf 'hello %s\\n' e2e-terminal; printf '\\033[31mred\\033[0m\\n'");
        await page.keyboard.press('Enter');
        await page.waitForTimeout(1_500);
        await input.focus();
        await page.keyboard.type('@terminal');
        await webview.locator('.eg-picker-row', { hasText: '@terminal' }).first().waitFor({ timeout: 15_000 });
        await page.keyboard.press('Enter');
        await chips.filter({ hasText: 'terminal' }).waitFor({ timeout: 5_000 });
        await page.keyboard.type('What did it print?');
        // The composer takes Enter once the last turn is over (its reply is drawn before it ends).
        await webview.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
        const refusals = webview.getByText(/no command has finished|has no shell integration/);
        const refusedBefore = await refusals.count();
        await page.keyboard.press('Enter');
        let outcome: 'sent' | 'refused' | undefined;
        for (let waited = 0; !outcome && waited < 15_000; waited += 250) {
          if (await attached.filter({ hasText: 'What did it print?' }).count()) outcome = 'sent';
          else if ((await refusals.count()) > refusedBefore) outcome = 'refused';
          else await page.waitForTimeout(250);
        }
        if (outcome === 'sent') break;
        assert.ok(outcome === 'refused' && attempt < 8, `Evergreen never heard of a finished terminal command (${outcome ?? 'no answer'})`);
        await input.fill('');
        while ((await chips.count()) > 0) await webview.locator('.eg-chip-remove').first().click();
      }
      await webview.locator('.eg-assistant', { hasText: 'It printed a greeting.' }).waitFor({ timeout: 60_000 });
      const sent = JSON.stringify((fake.messageRequests().at(-1)?.body as { messages: unknown[] }).messages.at(-1));
      assert.match(sent, /<attachment kind=\\"terminal\\" label=\\"terminal: printf/);
      assert.match(sent, /hello e2e-terminal\\nred\\n\[exit code: 0\]/, `the output as the screen showed it, no escapes: ${sent}`);
      assert.doesNotMatch(sent, /\\u001b|633;/, 'no colour codes or shell-integration marks reach the model');
      assert.match(await attached.innerText(), /terminal: printf/);
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'the user’s own clipboard');
      assert.deepEqual(pageErrors, []);
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => {});
      throw new Error(`${(err as Error).message}\nscreenshot: ${FAILURE_SCREENSHOT}\n${pageErrors.join('\n')}\n${evergreenLogTail(bench?.tmp && path.join(bench.tmp, 'user-data'))}\n${server?.logTail() ?? ''}`);
    }
  });
});

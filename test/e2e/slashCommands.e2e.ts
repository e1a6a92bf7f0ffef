// The `/` picker in the real chat webview (code-server + Chromium), issue 28, driven by the keyboard
// only: "/" offers the built-ins, the workspace's command files and its skills, typing narrows,
// Escape closes, Enter writes the chosen command into the box; sent, a command file is expanded as
// the CLI expands it (its arguments filled in, its @ reference attached), an unknown one sends
// nothing and gives the words back, and /memory opens the memory picker; a memory write shows as a
// card that asked nothing, whose Open memory lists the note. Screenshot of the open picker: test-results/e2e-slash-picker.png.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/slashCommands.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openChatWorkbench, openChatPanel, withFailureReport, type ChatWorkbench } from '../support/e2eChat';
import { reply, type FakeAnthropic } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-slash-picker.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-slash-failure.png');

describe('slash commands in the composer (code-server + Chromium)', function () {
  this.timeout(180_000);
  let bench: ChatWorkbench | undefined;
  let page: Page;
  let fake: FakeAnthropic;

  before(async function () {
    bench = await openChatWorkbench({
      prefix: 'e2e-slash',
      files: {
        'README.md': '# Demo\n',
        'src/app.ts': 'export function start(): string {\n  return "app started";\n}\n',
        '.claude/commands/review.md': '---\ndescription: Review a file with care\nargument-hint: [file]\n---\nReview $ARGUMENTS carefully; the entry point is @src/app.ts\n',
        '.claude/skills/tidy-imports/SKILL.md': '---\nname: tidy-imports\ndescription: Sort and prune imports\n---\nSort the imports.\n',
      },
    });
    ({ page, fake } = bench);
  });

  after(async () => {
    await bench?.close();
  });

  it('offers commands and skills by keyboard, writes the chosen one into the box, and sends it expanded with its reference attached', async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    fake.enqueue(reply.text('Reviewed.'));
    await withFailureReport(bench!, FAILURE_SCREENSHOT, async () => {
      const { webview, input } = await openChatPanel(page);
      await input.focus();
      const picker = webview.locator('#eg-slash-picker');
      const rows = picker.locator('.eg-picker-row');

      // "/" alone: the built-ins, the workspace's command file and its skill, each saying where it comes from.
      await page.keyboard.type('/');
      await rows.filter({ hasText: '/compact' }).waitFor({ timeout: 15_000 });
      await rows.filter({ hasText: '(.claude/commands/review.md)' }).waitFor({ timeout: 15_000 });
      await rows.filter({ hasText: '/tidy-imports' }).filter({ hasText: '.claude/skills/tidy-imports/SKILL.md' }).waitFor({ timeout: 15_000 });
      // The box names the open listbox and its active row (a textarea may not carry aria-expanded).
      assert.equal(await input.getAttribute('aria-controls'), 'eg-slash-picker');
      assert.match((await input.getAttribute('aria-activedescendant')) ?? '', /^eg-slash-picker/);
      await page.keyboard.press('Escape');
      await picker.waitFor({ state: 'hidden', timeout: 5_000 });
      assert.equal(await input.inputValue(), '/', 'Escape closes the picker and keeps what was typed');
      await page.keyboard.press('Backspace');

      // Typing narrows; Enter writes the active command into the box, ready for its arguments.
      await page.keyboard.type('/revi');
      await rows.first().filter({ hasText: '/review' }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: SCREENSHOT });
      assert.equal(await rows.count(), 1, `only /review matches: ${(await rows.allInnerTexts()).join(' | ')}`);
      await page.keyboard.press('Enter');
      await picker.waitFor({ state: 'hidden', timeout: 5_000 });
      assert.equal(await input.inputValue(), '/review ');

      // Sent: expanded as the CLI expands it, its @ reference attached before the words.
      await page.keyboard.type('README.md');
      await page.keyboard.press('Enter');
      await webview.locator('.eg-assistant', { hasText: 'Reviewed.' }).waitFor({ timeout: 60_000 });
      const sent = JSON.stringify((fake.messageRequests().at(-1)?.body as { messages: unknown[] }).messages[0]);
      assert.match(sent, /Review README\.md carefully; the entry point is @src\/app\.ts/);
      assert.match(sent, /<attachment kind=\\"file\\" label=\\"src\/app\.ts\\">[^]*app started/);
      assert.doesNotMatch(sent, /Sort the imports/, 'a skill listed in the prompt is not loaded until it is called');

      // An unknown command sends nothing: the error names the near one, and the words come back to the box.
      const requests = fake.messageRequests().length;
      await page.keyboard.type('/reviw main.ts');
      await page.keyboard.press('Enter');
      await webview.locator('.eg-notice.eg-error', { hasText: 'Unknown command /reviw. Did you mean /review?' }).waitFor({ timeout: 15_000 });
      assert.equal(await input.inputValue(), '/reviw main.ts');
      assert.equal(fake.messageRequests().length, requests, 'nothing went to the model');
      await input.fill('');

      // /memory from the box opens the memory picker (empty in a new workspace).
      await page.keyboard.type('/memory');
      await rows.filter({ hasText: '/memory' }).waitFor({ timeout: 15_000 });
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'memory is empty' }).waitFor({ timeout: 15_000 });
      await page.keyboard.press('Escape');
      assert.deepEqual(bench!.pageErrors, []);
    });
  });

  it("shows a memory write as a card without asking, and its Open memory lists the note to open", async function () {
    fake.enqueue(reply.toolUse('memory', { command: 'create', path: '/memories/build.md', file_text: 'Build with npm run build.\nTests: npm test.\n' }), reply.text('Noted.'));
    await withFailureReport(bench!, FAILURE_SCREENSHOT, async () => {
      const { webview, input } = await openChatPanel(page);
      // The composer takes Enter once the last turn is over (its reply is drawn before it ends).
      await webview.locator('#evergreen-root[data-status="idle"]').waitFor({ timeout: 60_000 });
      await input.focus();
      await page.keyboard.type('Remember how to build this.');
      await page.keyboard.press('Enter');
      await webview.locator('.eg-assistant', { hasText: 'Noted.' }).waitFor({ timeout: 60_000 });
      const card = webview.locator('.eg-memory', { hasText: 'Memory saved /memories/build.md' });
      await card.waitFor({ timeout: 15_000 });
      assert.match(await card.locator('.eg-memory-preview').innerText(), /Build with npm run build\./);
      assert.equal(await webview.locator('.eg-approval, .eg-tool-awaiting-approval').count(), 0, 'a memory write never asks');
      await card.locator('.eg-memory-open').click();
      const pick = page.locator('.quick-input-widget');
      await pick.locator('.quick-input-list', { hasText: '/memories/build.md' }).waitFor({ timeout: 15_000 });
      assert.match(await pick.innerText(), /memory of this workspace \(1 file\)/);
      await page.keyboard.press('Escape');
      assert.deepEqual(bench!.pageErrors, []);
    });
  });
});

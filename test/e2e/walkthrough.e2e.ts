// The walkthrough "Get started with Evergreen" in the real workbench (code-server + Chromium),
// issue 33 item 1: opened from the palette as a user finds it, it lists the seven steps; two
// steps' buttons run their commands: "Set API Key" asks for the key (a password box), and
// "Attach a File" focuses the chat's message box with "@" typed, so the file picker is open.
// Screenshot: test-results/e2e-walkthrough.png. Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/walkthrough.e2e.ts
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { WALKTHROUGH } from '../../src/extension/manifest';
import { findChatFrame, openChatWorkbench, runPaletteCommand, withFailureReport, type ChatWorkbench } from '../support/e2eChat';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-walkthrough.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-walkthrough-failure.png');

const stepTitle = (id: (typeof WALKTHROUGH.steps)[number]['id']): string => WALKTHROUGH.steps.find((step) => step.id === id)!.title;

describe('the walkthrough (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    bench = await openChatWorkbench({ prefix: 'e2e-walkthrough', files: { 'README.md': '# walkthrough\n', 'src/app.ts': 'export const answer = 42;\n' } });
    ({ server, page } = bench);
    // The workbench is ready once its activity bar shows Evergreen.
    await page.locator('.activitybar .action-item a[aria-label="Evergreen"]').waitFor({ timeout: 120_000 });
  });

  after(async () => {
    await bench?.close();
  });

  const step = (body: () => Promise<void>): Promise<void> => withFailureReport({ page, server }, FAILURE_SCREENSHOT, body);

  /** The walkthrough's own page, its steps listed on the left. */
  const walkthrough = () => page.locator('.gettingStartedContainer');

  /** Expands a step by its title and clicks its button `label`. */
  async function clickStepButton(title: string, label: string): Promise<void> {
    await walkthrough().locator('button.getting-started-step', { hasText: title }).click();
    const button = walkthrough().locator('.getting-started-step.expanded').getByRole('button', { name: label, exact: true });
    await button.waitFor({ timeout: 15_000 });
    await button.click();
  }

  it('opens from the palette with its seven steps', () =>
    step(async () => {
      await runPaletteCommand(page, 'Welcome: Open Walkthrough...');
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: WALKTHROUGH.title }).click();
      await walkthrough().locator('h2.category-title', { hasText: WALKTHROUGH.title }).waitFor({ timeout: 30_000 });
      const titles = await walkthrough().locator('button.getting-started-step .step-title').allTextContents();
      assert.deepEqual(titles.map((title) => title.trim()), WALKTHROUGH.steps.map((item) => item.title));
      await page.screenshot({ path: SCREENSHOT });
    }));

  it('"Set API Key" asks for the key in a password box', () =>
    step(async () => {
      await clickStepButton(stepTitle('key'), 'Set API Key');
      const box = page.locator('.quick-input-widget .quick-input-box input');
      await box.waitFor({ timeout: 15_000 });
      assert.equal(await box.getAttribute('type'), 'password', 'the key is typed unseen');
      assert.match((await page.locator('.quick-input-widget').textContent()) ?? '', /API key/i);
      await page.keyboard.press('Escape');
      await box.waitFor({ state: 'hidden', timeout: 15_000 });
    }));

  it('"Attach a File" opens the chat with "@" typed in its message box and the picker open', () =>
    step(async () => {
      await clickStepButton(stepTitle('attach'), 'Attach a File');
      const chat = await findChatFrame(page, 600);
      const input = chat.locator('textarea.eg-input');
      await chat.locator('.eg-picker .eg-picker-row').first().waitFor({ timeout: 30_000 });
      assert.equal(await input.inputValue(), '@');
      assert.equal(await input.evaluate((element) => element === document.activeElement), true, 'the message box has the focus');
      // Typing goes on where the button left off: the picker narrows to the file.
      await page.keyboard.type('app');
      await chat.locator('.eg-picker-row', { hasText: 'src/app.ts' }).waitFor({ timeout: 15_000 });
    }));
});

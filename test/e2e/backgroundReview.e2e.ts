// A background chat's changes reviewed hunk by hunk in the real workbench (code-server + Chromium),
// issue 31: the chat edits two far-apart lines of long.txt in its worktree; its row in the
// Background Chats view opens on its Changes (the file, then its two hunks); a hunk's row opens
// the diff editor; one hunk is accepted and the other rejected with their inline buttons; Apply
// Accepted Changes brings only the accepted one into the checkout, as an uncommitted change.
// Writes test-results/e2e-background-review.png (docs/screenshot-background-review.png is a copy).
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/backgroundReview.e2e.ts
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/vscode-harness.mjs';
import { reply } from '../fake-anthropic/server';
import { openChatWorkbench, showEvergreenView, withFailureReport, type ChatWorkbench } from '../support/e2eChat';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-background-review-failure.png');
/** The Changes with one hunk accepted and one rejected, beside the diff (docs/screenshot-background-review.png is a copy). */
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-background-review.png');

const LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
const EDITED = LINES.map((line, index) => (index === 1 ? 'line 2 by the chat' : index === 27 ? 'line 28 by the chat' : line));

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Evergreen Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
}

describe('a background chat’s changes, hunk by hunk (code-server + Chromium)', function () {
  this.timeout(240_000);
  let bench: ChatWorkbench | undefined;
  let server: CodeServer | undefined;
  let page: Page;
  let workspace: string;

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    rmSync(FAILURE_SCREENSHOT, { force: true });
    bench = await openChatWorkbench({
      prefix: 'e2e-background-review',
      files: { 'long.txt': `${LINES.join('\n')}\n` },
      // Writes that do not ask are what lets a background chat edit (it is refused whatever would ask).
      settings: { 'evergreen.approvals.writes': 'auto' },
      onFake: (fake) => fake.enqueue(reply.toolUse('write_file', { path: 'long.txt', content: `${EDITED.join('\n')}\n` }, { preamble: 'Editing.' }), reply.text('Done.')),
    });
    ({ server, page, workspace } = bench);
    git(workspace, 'init', '--quiet');
    git(workspace, 'add', 'long.txt');
    git(workspace, 'commit', '--quiet', '-m', 'Start');
  });

  after(async () => {
    await bench?.close();
  });

  const step = (body: () => Promise<void>): Promise<void> => withFailureReport({ page, server }, FAILURE_SCREENSHOT, body);
  const pane = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Background Chats' }) });
  const row = (text: string) => pane().locator('.monaco-list-row', { hasText: text }).first();
  /** Clicks a row's inline button (shown when the pointer is on the row). */
  async function inline(target: Locator, action: string): Promise<void> {
    await target.hover();
    await target.locator(`.action-label[aria-label="${action}"]`).click({ timeout: 15_000 });
  }

  it('runs the chat in its worktree and lists what it changed under its row: the file, then its hunks', () =>
    step(async () => {
      await showEvergreenView(page);
      const header = pane().locator('.pane-header');
      await header.waitFor({ timeout: 60_000 });
      if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
      // The view's + (New Background Chat…), shown on its title bar.
      await header.hover();
      await header.locator('.action-label[aria-label="New Background Chat…"]').click({ timeout: 30_000 });
      const box = page.locator('.quick-input-widget .quick-input-box input');
      await page.locator('.quick-input-widget', { hasText: 'What should the chat do?' }).waitFor({ timeout: 60_000 });
      await box.fill('Change lines 2 and 28 of long.txt');
      await box.press('Enter');
      await page.locator('.notifications-toasts', { hasText: /background chat .* finished/ }).waitFor({ timeout: 90_000 });
      const chat = row('1 file changed');
      await chat.waitFor({ timeout: 30_000 });
      assert.equal(readFileSync(path.join(workspace, 'long.txt'), 'utf8'), `${LINES.join('\n')}\n`, 'the checkout is untouched while the chat works');
      await chat.click();
      await row('long.txt').waitFor({ timeout: 30_000 });
      await row('Lines 1–5').waitFor({ timeout: 30_000 });
      await row('Lines 25–30').waitFor({ timeout: 30_000 });
      assert.match((await row('long.txt').textContent()) ?? '', /modified · 0 of 2 accepted/);
    }));

  it('opens a hunk in the diff editor, the base against the worktree', () =>
    step(async () => {
      await row('Lines 25–30').click();
      await page.locator('.tabs-container .tab', { hasText: 'base ↔ worktree' }).waitFor({ timeout: 30_000 });
      await page.locator('.monaco-diff-editor .editor.modified', { hasText: 'line 28 by the chat' }).waitFor({ timeout: 30_000 });
    }));

  it('accepts one hunk and rejects the other with their inline buttons, then applies only the accepted one', () =>
    step(async () => {
      await inline(row('Lines 1–5'), 'Accept');
      await row('accepted').waitFor({ timeout: 15_000 });
      await inline(row('Lines 25–30'), 'Reject');
      await row('rejected').waitFor({ timeout: 15_000 });
      assert.match((await row('Lines 1–5').textContent()) ?? '', /\+1 −1 · accepted/);
      assert.match((await row('Lines 25–30').textContent()) ?? '', /\+1 −1 · rejected/);
      assert.match((await row('long.txt').textContent()) ?? '', /1 of 2 accepted/);
      // The toasts so far (the chat finished, Git's own prompt) would cover the diff in the picture.
      for (const clear of await page.locator('.notification-toast .action-label[aria-label^="Clear Notification"]').all()) await clear.click().catch(() => {});
      await page.mouse.move(900, 700);
      await page.screenshot({ path: SCREENSHOT });

      await inline(row('1 file changed'), 'Apply Accepted Changes');
      await page.locator('.notifications-toasts', { hasText: 'Applied 1 accepted change(s)' }).waitFor({ timeout: 30_000 });
      const now = readFileSync(path.join(workspace, 'long.txt'), 'utf8').split('\n');
      assert.equal(now[1], 'line 2 by the chat', 'the accepted hunk is in the checkout');
      assert.equal(now[27], 'line 28', 'the rejected hunk is not');
      assert.equal(git(workspace, 'status', '--porcelain'), ' M long.txt\n', 'an uncommitted change, nothing staged');
      await row('applied').waitFor({ timeout: 15_000 });
    }));
});

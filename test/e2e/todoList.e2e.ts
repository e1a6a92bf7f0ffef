// The task list as the panel draws it (issue 10): the real bundle (dist/webview.js) and
// media/chat.css in headless Chromium, in the webview benchmark's page (bench/webview/page.ts).
// Build first (node esbuild.mjs). A compact, collapsible list right above the composer, statuses in
// words, reachable and opened by keyboard, model text shown as text, replaced whole by each
// todos event and hidden when cleared.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { standalonePanelForSuite, type StandalonePanel } from '../support/standalonePanel';


describe('the task list in the chat panel (Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[] = [];
  let post: StandalonePanel['post'];
  standalonePanelForSuite((panel) => ({ page, errors, post } = panel));

  const list = () => page.locator('details.eg-todos');
  const rows = () => list().locator('li.eg-todo');

  it('shows nothing until a list is written, then a collapsed one-line summary right above the composer', async () => {
    await post({ type: 'turn_started', turnId: 't1', userText: 'Port the parser.' });
    assert.equal(await list().isVisible(), false);
    await post({
      type: 'todos',
      turnId: 't1',
      items: [
        { id: '1', text: 'Read the parser', status: 'done' },
        { id: '2', text: 'Write the failing test', status: 'in_progress' },
        { id: '3', text: '<img src=x onerror="window.__owned=1">Fix the bug', status: 'pending' },
      ],
    });
    assert.equal(await list().isVisible(), true);
    assert.equal(await page.evaluate(() => document.querySelector('details.eg-todos')?.nextElementSibling?.classList.contains('eg-composer')), true, 'directly above the composer');
    assert.equal(await list().evaluate((element) => (element as HTMLDetailsElement).open), false, 'collapsed by default');
    assert.equal(await list().locator('summary').textContent(), 'Tasks 1/3 done · now: Write the failing test');
    const box = await list().boundingBox();
    assert.ok(box && box.height < 40, `the collapsed list is one line (${box?.height}px)`);
  });

  it('opens from the keyboard and says each status in words; model text stays text', async () => {
    await list().locator('summary').focus();
    await page.keyboard.press('Enter');
    assert.equal(await list().evaluate((element) => (element as HTMLDetailsElement).open), true);
    assert.deepEqual(await rows().locator('.eg-todo-status').allTextContents(), ['done', 'in progress', 'pending']);
    assert.equal(await rows().nth(1).getAttribute('aria-current'), 'step');
    assert.equal(await rows().nth(2).locator('.eg-todo-text').textContent(), '<img src=x onerror="window.__owned=1">Fix the bug');
    assert.equal(await list().locator('img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned), undefined);
  });

  it('is replaced whole by the next list and hidden when the list is cleared', async () => {
    await post({ type: 'todos', turnId: 't1', items: [{ id: 'a', text: 'Ship it', status: 'in_progress' }] });
    assert.deepEqual(await rows().locator('.eg-todo-text').allTextContents(), ['Ship it']);
    assert.equal(await list().locator('summary').textContent(), 'Tasks 0/1 done · now: Ship it');
    await post({ type: 'todos', turnId: 't1', items: [] });
    assert.equal(await list().isVisible(), false);
    assert.deepEqual(errors, []);
  });
});

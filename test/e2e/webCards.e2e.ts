// A web fetch's cards as the panel draws them: the real bundle (dist/webview.js) and media/chat.css
// in headless Chromium, in the page the webview benchmark uses (bench/webview/page.ts: a stubbed
// acquireVsCodeApi records what the panel posts to the host). Build first (node esbuild.mjs).
// The approval card shows the whole URL with its host set apart (a long one cut like a long
// command, Allow waiting until all of it was shown), where a redirect came from, and three answers a
// keyboard reaches; the finished card shows the final URL, status, type and size, and opens the
// saved copy. Screenshots: test-results/e2e-web-approval.png, test-results/e2e-web-card.png.
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { lastPanelRequest, standalonePanelForSuite, type StandalonePanel } from '../support/standalonePanel';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

describe('web fetch cards in the chat panel (Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[] = [];
  let post: StandalonePanel['post'];
  standalonePanelForSuite((panel) => ({ page, errors, post } = panel));

  const lastRequest = () => lastPanelRequest(page);

  it('asks with the whole URL, its host apart; a long URL must be shown whole before Allow works; the keyboard reaches every answer', async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    // A URL that carries a workspace's text out in its query: long enough to be cut at first.
    const leak = 'x'.repeat(2_400);
    const url = `https://docs.example.com:8443/search?q=${leak}&end=1`;
    await post(
      { type: 'turn_started', turnId: 't1', userText: 'Read the docs.' },
      { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu1', name: 'web_fetch', input: { url }, headline: url },
      { type: 'approval_needed', turnId: 't1', toolUseId: 'tu1', request: { kind: 'web', url, host: 'docs.example.com', redirectedFrom: 'https://example.com/docs' } },
    );
    const box = page.locator('.eg-approval');
    assert.equal(await box.locator('.eg-approval-title').textContent(), 'Fetch a page from docs.example.com?');
    const shown = box.locator('pre.eg-web-url').first();
    assert.equal(await shown.locator('.eg-web-host').textContent(), 'docs.example.com:8443', 'the host and port set apart');
    const firstLook = (await shown.textContent()) ?? '';
    assert.ok(url.startsWith(firstLook) && firstLook.length === 2_000, `a first look of 2,000 characters (${firstLook.length})`);
    assert.match((await box.textContent()) ?? '', /came from:https:\/\/example\.com\/docs/);
    const once = box.getByRole('button', { name: 'Allow this one fetch from docs.example.com' });
    const always = box.getByRole('button', { name: 'Allow fetches from docs.example.com in this workspace from now on' });
    const decline = box.getByRole('button', { name: 'Decline the fetch from docs.example.com' });
    assert.equal(await once.isDisabled(), true, 'Allow once waits for the whole URL');
    assert.equal(await always.isDisabled(), true, 'so does Always');
    assert.equal(await decline.isDisabled(), false, 'Decline never waits');
    assert.equal(await always.textContent(), 'Always allow docs.example.com here');

    // Keyboard only: reveal the URL, then Tab to "Always allow" and press Enter.
    const more = box.getByRole('button', { name: /not shown: show the whole URL/ });
    assert.match((await more.textContent()) ?? '', /^\+\d{3} more characters not shown: show the whole URL$/);
    await more.focus();
    await page.keyboard.press('Enter');
    assert.equal(await shown.textContent(), url, 'the whole URL, exactly');
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('eg-web-url')), true, 'focus on the URL, not on Allow');
    assert.equal(await once.isDisabled(), false);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Allow once');
    await page.keyboard.press('Tab');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'e2e-web-approval.png') });
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastRequest(), { type: 'approvalDecision', toolUseId: 'tu1', approved: true, always: true });

    await post({ type: 'approval_resolved', turnId: 't1', toolUseId: 'tu1', approved: true, always: true });
    assert.match((await box.textContent()) ?? '', /Allowed, and from now on for docs\.example\.com in this workspace$/);
    assert.equal(await box.getByRole('button').count(), 0, 'no answer left to give');
    assert.deepEqual(errors, []);
  });

  it('shows the fetched page under its card: final URL, status, type, size, redirects, and opens the saved copy', async () => {
    const file = '/storage/sessions/s1/tool-results/tu2.txt';
    await post(
      { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu2', name: 'web_fetch', input: { url: 'http://127.0.0.1:8080/old' }, headline: 'http://127.0.0.1:8080/old' },
      { type: 'tier', tier: 'persist', items: 1, tokensBefore: 12_000, tokensAfter: 900, detail: 'web_fetch output tu2 saved', savedOutput: { toolName: 'web_fetch', file, toolUseId: 'tu2' } },
      { type: 'tool_call_finished', turnId: 't1', toolUseId: 'tu2', name: 'web_fetch', isError: false, content: 'URL: http://127.0.0.1:8080/guide (HTTP 200 OK)', durationMs: 420, web: { url: 'http://127.0.0.1:8080/guide', status: 200, contentType: 'text/html; charset=utf-8', bytes: 49_357, truncated: false, redirects: ['http://127.0.0.1:8080/old'] } },
      { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu3', name: 'web_fetch', input: { url: 'http://127.0.0.1:8080/gone' }, headline: 'http://127.0.0.1:8080/gone' },
      { type: 'tool_call_finished', turnId: 't1', toolUseId: 'tu3', name: 'web_fetch', isError: true, content: 'URL: http://127.0.0.1:8080/gone (HTTP 404 Not Found)', durationMs: 30, web: { url: 'http://127.0.0.1:8080/gone', status: 404, contentType: 'text/html', bytes: 312, truncated: false } },
    );
    const [found, missing] = [page.locator('.eg-web').nth(0), page.locator('.eg-web').nth(1)];
    assert.equal(await page.locator('.eg-web').count(), 2);
    assert.equal(await found.getAttribute('role'), 'group');
    assert.equal(await found.getAttribute('aria-label'), 'Fetched page http://127.0.0.1:8080/guide: HTTP 200, text/html, 48.2 KB');
    assert.equal(await found.locator('.eg-web-url').textContent(), 'http://127.0.0.1:8080/guide');
    assert.equal(await found.locator('.eg-web-facts').textContent(), 'HTTP 200 · text/html · 48.2 KB');
    assert.equal(await found.locator('.eg-web-facts').getAttribute('title'), '49,357 bytes read');
    assert.equal(await found.locator('.eg-web-redirects').textContent(), 'after 1 redirect');
    assert.equal(await found.locator('summary .eg-tool-status').textContent(), '0.4s');
    // The card body still opens on the result the model got.
    await found.locator('summary').click();
    assert.match((await found.locator('.eg-tool-output').textContent()) ?? '', /HTTP 200 OK/);
    assert.equal(await missing.locator('.eg-web-facts').textContent(), 'HTTP 404 · text/html · 312 bytes');
    assert.equal(await missing.locator('.eg-web-error').count(), 1, 'an error status is marked (and said in words)');
    assert.equal(await missing.locator('.eg-saved-output').count(), 0, 'a page kept whole in the context has no saved copy to open');

    const saved = found.getByRole('button', { name: 'Open the saved copy of the page, read-only' });
    assert.equal(await saved.textContent(), 'saved copy');
    assert.ok(((await saved.getAttribute('title')) ?? '').endsWith(file), 'the path on hover');
    await saved.focus();
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastRequest(), { type: 'openSavedOutput', file });
    await found.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'e2e-web-card.png') });
    assert.deepEqual(errors, []);
  });
});

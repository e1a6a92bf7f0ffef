// web_fetch in the real VS Code workbench (code-server + Chromium), against a local HTTP server on
// 127.0.0.1 that the test's user settings allow by address (evergreen.web.allowedDomains), reached
// as `localhost`, a host nobody allowed: the per-domain approval card asks, "Always allow localhost
// here" is remembered so the second fetch does not ask, and the fetched page's card shows its final
// URL, status and size and opens the saved copy (tier 0 kept the page whole) read-only.
// "Evergreen: Web Access" then lists the host, forgets it, and the next fetch asks again.
// Screenshots: test-results/e2e-web-approval-workbench.png, test-results/e2e-web-fetch.png.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/webFetch.e2e.ts
import * as assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openChatPanel, openChatWorkbench, runPaletteCommand, sendFromComposer, withFailureReport, type ChatWorkbench } from '../support/e2eChat';
import { startWebServer, type WebServer } from '../support/webServer';
import { reply } from '../fake-anthropic/server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-web-fetch.png');
/** About 60 KB of article: its markdown is over tier 0's 30 KB, so the page is saved whole. */
const GUIDE = `<!doctype html><html><head><title>Retry guide</title><script>var tracking = 1;</script></head><body><nav><a href="/">Home</a></nav><main><article><h1>Retry guide</h1><h2>Retries</h2>${Array.from({ length: 700 }, (_, i) => `<p>Step ${i + 1}: each call retries three times before it gives up, and says why it stopped.</p>`).join('')}</article></main></body></html>`;

describe('web_fetch in the workbench (code-server + Chromium)', function () {
  this.timeout(300_000);
  let bench: ChatWorkbench | undefined;
  let site: WebServer;
  let page: Page;
  const pageErrors: string[] = [];

  before(async function () {
    // The page is served on 127.0.0.1 and reached as localhost: the name must resolve there first.
    const first = await lookup('localhost');
    assert.equal(first.address, '127.0.0.1', `this test needs localhost to resolve to 127.0.0.1 first (it resolves to ${first.address})`);
    site = await startWebServer((req, res) => {
      if (req.url === '/guide') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(GUIDE);
      else res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`The FAQ at ${req.url}: retries are on by default.`);
    });
    // 127.0.0.1 (and ::1) allowed by address, as a user with a local server would: localhost itself is not, so it asks.
    bench = await openChatWorkbench({ prefix: 'e2e-web-fetch', files: { 'README.md': '# project\n' }, settings: { 'evergreen.web.allowedDomains': ['127.0.0.1', '::1'] }, onPage: (opened) => opened.on('pageerror', (error) => pageErrors.push(error.message)) });
    page = bench.page;
  });

  after(async () => {
    await bench?.close();
    await site?.close();
  });

  const url = (route: string) => `http://localhost:${site.port}${route}`;

  it('asks once per host (Always allow, then no question), shows the page on its card and opens its saved copy; Web Access forgets the host', async function () {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const fake = bench!.fake;
    await withFailureReport({ page, server: bench!.server, pageErrors }, path.join(RESULTS_DIR, 'e2e-web-fetch-failure.png'), async () => {
      const { webview } = await openChatPanel(page);

      // 1. A host nobody allowed: the card asks, with the whole URL; "Always allow localhost here".
      fake.enqueue(reply.toolUse('web_fetch', { url: url('/guide') }, { id: 'toolu_guide' }), reply.text('The guide says **three retries**.'));
      await sendFromComposer(webview, 'What does the retry guide say?');
      const approval = webview.locator('.eg-approval', { hasText: 'Fetch a page from localhost?' });
      await approval.waitFor({ timeout: 60_000 });
      assert.equal(await approval.locator('pre.eg-web-url').first().textContent(), url('/guide'));
      assert.equal(await approval.locator('.eg-web-host').textContent(), `localhost:${site.port}`);
      assert.equal(site.requests.length, 0, 'nothing is fetched before the answer');
      await page.mouse.move(900, 880);
      await page.screenshot({ path: path.join(RESULTS_DIR, 'e2e-web-approval-workbench.png') });
      await approval.getByRole('button', { name: 'Allow fetches from localhost in this workspace from now on' }).click();
      await webview.locator('.eg-assistant strong', { hasText: 'three retries' }).waitFor({ timeout: 60_000 });
      assert.deepEqual(site.requests.map((request) => request.url), ['/guide']);

      // 2. The page's card: final URL, status, type, size; the approval said what was allowed.
      const guide = webview.locator('.eg-web', { has: webview.locator('.eg-web-url', { hasText: url('/guide') }) });
      await guide.waitFor({ timeout: 15_000 });
      assert.match((await guide.locator('.eg-web-facts').textContent()) ?? '', /^HTTP 200 · text\/html · \d+\.\d KB$/);
      assert.match((await guide.textContent()) ?? '', /Allowed, and from now on for localhost in this workspace/);
      await guide.scrollIntoViewIfNeeded();
      await page.mouse.move(900, 880);
      await page.screenshot({ path: SCREENSHOT });

      // 3. Its saved copy opens read-only: the page whole, as the model got it.
      await guide.getByRole('button', { name: 'Open the saved copy of the page, read-only' }).click();
      await page.locator('.tabs-container .tab.active', { hasText: 'toolu_guide.txt' }).waitFor({ timeout: 30_000 });
      await page.locator('.editor-instance .view-lines', { hasText: /Retry\s+guide/ }).waitFor({ timeout: 15_000 });
      const saved = (await guide.getByRole('button', { name: 'Open the saved copy of the page, read-only' }).getAttribute('title'))?.replace(/^.*\(read-only\): /, '') ?? '';
      const copy = readFileSync(saved, 'utf8');
      assert.ok(copy.includes('Step 700: each call retries three times'), 'the whole page is in the saved copy');
      assert.ok(!copy.includes('tracking'), 'the script is not');

      // 4. The same host again: no question.
      fake.enqueue(reply.toolUse('web_fetch', { url: url('/faq') }, { id: 'toolu_faq' }), reply.text('The FAQ **agrees**.'));
      await sendFromComposer(webview, 'And the FAQ?');
      await webview.locator('.eg-assistant strong', { hasText: 'agrees' }).waitFor({ timeout: 60_000 });
      assert.deepEqual(site.requests.map((request) => request.url), ['/guide', '/faq']);
      const faq = webview.locator('.eg-web', { has: webview.locator('.eg-web-url', { hasText: url('/faq') }) });
      assert.equal(await faq.locator('.eg-approval').count(), 0, 'remembered: no approval card');
      assert.match((await faq.locator('.eg-web-facts').textContent()) ?? '', /^HTTP 200 · text\/plain · \d+ bytes$/);

      // 5. "Evergreen: Web Access": localhost (this workspace) and the setting's entries, marked; forget localhost.
      await runPaletteCommand(page, 'Evergreen: Web Access');
      const rows = page.locator('.quick-input-widget .monaco-list-row');
      await rows.filter({ hasText: 'localhost' }).first().waitFor({ timeout: 15_000 });
      const listed = (await rows.allTextContents()).join('\n');
      assert.match(listed, /localhost.*allowed in this workspace/);
      assert.match(listed, /127\.0\.0\.1.*your setting evergreen\.web\.allowedDomains/);
      await rows.filter({ hasText: 'localhost' }).first().click();
      const dialog = page.locator('.monaco-dialog-box', { hasText: 'Forget localhost?' });
      await dialog.waitFor({ timeout: 15_000 });
      await dialog.getByRole('button', { name: 'Forget' }).click();
      await page.locator('.notifications-toasts', { hasText: 'localhost is no longer allowed in this workspace' }).waitFor({ timeout: 15_000 });
      await page.keyboard.press('Escape'); // the list shows again; close it

      // 6. The next fetch from localhost asks again; declined, nothing is fetched.
      fake.enqueue(reply.toolUse('web_fetch', { url: url('/faq?again') }, { id: 'toolu_again' }), reply.text('Not fetched.'));
      await sendFromComposer(webview, 'Once more?');
      const asked = webview.locator('.eg-approval', { hasText: url('/faq?again') });
      await asked.waitFor({ timeout: 60_000 });
      await asked.getByRole('button', { name: 'Decline the fetch from localhost' }).click();
      await webview.locator('.eg-assistant', { hasText: 'Not fetched.' }).waitFor({ timeout: 60_000 });
      assert.deepEqual(site.requests.map((request) => request.url), ['/guide', '/faq'], 'declined: not fetched');
      assert.deepEqual(pageErrors, []);
    });
  });
});

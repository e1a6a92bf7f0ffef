// The session insights panel as Chromium draws it (issue 33): the real bundle (dist/insights.js)
// and media/insights.css under the panel's CSP, given a 300-request session the core built from a
// generated transcript. Screenshots in test-results/insights-300-<theme>.png. Build first
// (node esbuild.mjs). Checks the drawing against the data, the keyboard path (toolbar, chart
// cursor, the data table's pages), the CSV buttons, and axe-core in a dark and a light theme.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadInsightsPage, type HostWindow, type ThemeName } from '../../bench/insights/page';
import { launchChromium } from '../../scripts/vscode-harness.mjs';
import { buildSessionInsights } from '../../src/core/insights/sessionInsights';
import { priceFor } from '../../src/core/model/models';
import type { InsightsView } from '../../src/protocol';
import { describeFindings, seriousAxeViolations } from '../support/axe';
import { SYNTHETIC_BUDGET, syntheticSession } from '../support/insightsSession';
import { wordInsights } from '../../src/frontends/words/wordInsights';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

function view300(): InsightsView {
  const insights = wordInsights(buildSessionInsights(syntheticSession({ requests: 300 }), { budget: SYNTHETIC_BUDGET, priceOf: (model) => priceFor(model) }));
  return { sessionId: 'generated', title: 'Fix the failing tests', current: false, budgetNote: 'A generated session.', insights };
}

describe('the session insights panel (Chromium)', function () {
  this.timeout(120_000);
  let browser: Browser;
  const view = view300();
  const files = { bundle: readFileSync(path.join(REPO_ROOT, 'dist', 'insights.js'), 'utf8'), css: readFileSync(path.join(REPO_ROOT, 'media', 'insights.css'), 'utf8') };

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close().catch(() => {});
  });

  async function open(theme: ThemeName): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
    const opened = await loadInsightsPage(context, files, theme);
    await opened.page.evaluate((shown) => (window as unknown as HostWindow).__host.show(shown), view);
    return opened;
  }

  const readout = (page: Page, chart: string) => page.locator(`.eg-figure[data-chart="${chart}"] + .eg-readout`);

  it('draws a 300-request session: four charts, a marker per action, the threshold, and says what each shows', async () => {
    const { page, errors } = await open('dark');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'insights-300-dark.png'), fullPage: true });
    const { insights } = view;
    assert.equal(insights.requests.count, 300);
    assert.equal(await page.locator('h1').textContent(), 'Insights: Fix the failing tests');
    assert.match((await page.locator('.eg-sub').textContent()) ?? '', /^300 requests · \$\d+\.\d{2} · \d+ summar(y|ies) · peak \d+% of the window$/);
    assert.deepEqual(await page.locator('.eg-chart h2').allTextContents(), ['How full the context was', 'Tokens per request', 'Cost so far', 'What making room removed']);
    // Each chart is drawn, one shape per pixel column at most.
    const context = page.locator('.eg-figure[data-chart="context"]');
    const line = (await context.locator('path.eg-line-context').getAttribute('d')) ?? '';
    assert.equal((line.match(/[ML]/g) ?? []).length, 300, 'one point per request (300 fit the width)');
    assert.ok(((await context.locator('path.eg-threshold').getAttribute('d')) ?? '').length > 0);
    assert.equal(await context.locator('g.eg-marker').count(), insights.actions.length, 'a marker for every action');
    assert.equal(await context.locator('g.eg-marker-summary').count(), insights.actions.filter((action) => action.kind === 'compaction').length);
    // A marker's hover text says what happened and what it saved.
    const firstSummary = insights.actions.find((action) => action.kind === 'compaction')!;
    assert.match((await context.locator('g.eg-marker-summary title').first().textContent()) ?? '', new RegExp(`^Summarized older messages: ${firstSummary.label}.*\\nRemoved .* tokens; reading them again in the next \\d+ requests would have cost \\$`, 's'));
    for (const layer of ['cache-read', 'cache-write', 'uncached', 'output']) assert.ok(((await page.locator(`path.eg-stack-${layer}`).getAttribute('d')) ?? '').startsWith('M'), layer);
    assert.ok(((await page.locator('path.eg-line-cost').getAttribute('d')) ?? '').startsWith('M'));
    assert.ok(((await page.locator('path.eg-removed-summary').getAttribute('d')) ?? '').startsWith('M'));
    // The summaries read before each chart: its figures in words.
    assert.match((await page.locator('#eg-s-context').textContent()) ?? '', /^How full the context window was at each of 300 requests: at most \d+%/);
    assert.match((await page.locator('#eg-s-removed').textContent()) ?? '', /would have cost \$\d/);
    assert.equal(await page.locator('.eg-by-kind tr').count(), 1 + new Set(insights.actions.filter((action) => action.removedTokens > 0).map((action) => action.kind)).size);
    assert.deepEqual(errors, [], 'no script error and no CSP violation');
    await page.context().close();
  });

  it('reads with the keyboard alone: toolbar, a chart’s cursor and its readout, [ and ] between actions, the data table a page at a time', async () => {
    const { page } = await open('dark');
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-chart') ?? document.activeElement?.textContent?.trim() ?? document.activeElement?.tagName);
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Other Session…', 'a saved session has no Refresh');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Requests as CSV');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    assert.deepEqual(await page.evaluate(() => (window as unknown as HostWindow).__host.posted.filter((message) => message.type === 'openCsv')), [
      { type: 'openCsv', table: 'requests' },
      { type: 'openCsv', table: 'actions' },
    ]);
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'context', 'the first chart takes focus');
    const chart = page.locator('.eg-figure[data-chart="context"]');
    assert.equal(await chart.getAttribute('aria-roledescription'), 'chart');
    assert.equal(await page.locator(`#${await chart.getAttribute('aria-describedby')}`).count(), 1);
    await page.keyboard.press('Home');
    assert.match((await readout(page, 'context').textContent()) ?? '', /^Request 1 of 300: \d+% of the window/);
    await page.keyboard.press('ArrowRight');
    assert.match((await readout(page, 'context').textContent()) ?? '', /^Request 2 of 300/);
    // The cursor is shared: the other charts read the same request.
    assert.match((await readout(page, 'tokens').textContent()) ?? '', /^Request 2 of 300: uncached /);
    await page.keyboard.press('End');
    assert.match((await readout(page, 'cost').textContent()) ?? '', /^Request 300 of 300: .* so far/);
    await page.keyboard.press('Home');
    await page.keyboard.press(']');
    const first = view.insights.actions[0]!;
    const text = (await readout(page, 'context').textContent()) ?? '';
    assert.ok(text.startsWith(`Request ${first.atRequest + 1} of 300`) && text.includes(`Before it: ${first.label}`), text);
    await page.keyboard.press('[');
    assert.equal(await readout(page, 'context').textContent(), text, 'no action before the first: [ stays');
    await page.keyboard.press(']');
    const second = view.insights.actions.find((action) => action.atRequest > first.atRequest)!;
    assert.match((await readout(page, 'context').textContent()) ?? '', new RegExp(`^Request ${second.atRequest + 1} of 300`));
    await page.keyboard.press('[');
    assert.equal(await readout(page, 'context').textContent(), text, '[ goes back to the previous action');
    assert.equal(await readout(page, 'context').getAttribute('aria-live'), 'polite');
    // On to the chart's data table: opened with Enter, paged with its buttons.
    await page.keyboard.press('Tab');
    assert.match((await focused()) ?? '', /^Data table \(300 rows\)$/);
    await page.keyboard.press('Enter');
    const table = page.locator('.eg-chart').first().locator('table');
    // Enter draws the table on the panel's next frame.
    await table.locator('tbody tr').first().waitFor({ timeout: 15_000 });
    assert.equal(await table.locator('tbody tr').count(), 100);
    assert.equal(await table.locator('caption').textContent(), 'Context window use per request');
    assert.equal(await table.locator('th[scope="col"]').count(), 6);
    const status = page.locator('.eg-chart').first().locator('.eg-page-status');
    assert.equal(await status.textContent(), 'Rows 1–100 of 300');
    // On the first page Previous is disabled, so Tab skips it.
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Next rows');
    await page.keyboard.press('Enter');
    assert.equal(await status.textContent(), 'Rows 101–200 of 300');
    assert.equal((await table.locator('tbody tr').first().locator('td').first().textContent())?.replace(' (undone)', ''), '101');
    await page.context().close();
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`has no serious or critical accessibility violation in the ${theme} theme (axe-core)`, async () => {
      const { page } = await open(theme);
      // The tables too: open every one.
      for (const summary of await page.locator('details.eg-data > summary').all()) await summary.click();
      const findings = await seriousAxeViolations(page);
      if (theme === 'light') await page.screenshot({ path: path.join(RESULTS_DIR, 'insights-300-light.png'), fullPage: true });
      assert.equal(findings.length, 0, describeFindings(findings));
      await page.context().close();
    });
  }
});

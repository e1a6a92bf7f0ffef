/**
 * The session insights panel (issue 33): four charts of one session, each with its summary, a
 * keyboard cursor with a spoken readout and the full data table behind it, and the data as CSV
 * one click away (the host opens it). Browser code only; it sees the host through src/protocol.ts.
 */
import { formatTokens, type InsightsCsvTable, type InsightsHostToWebview, type InsightsView, type InsightsWebviewToHost } from '../../protocol';
import { chartKeydown, drawChart, markerGroup, SharedCursor } from './charts';
import { actionsByRequest, chartSummary, dataTable, headline, removedByKind, rereadCost, type ChartId } from './insightsText';
import { t } from '../strings';

interface VsCodeApi {
  postMessage(message: InsightsWebviewToHost): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('insights-root')!;
/** Rows of a data table per page: a 10,000-request table opens at once and pages on. */
const PAGE_ROWS = 100;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

function button(label: string, onClick: () => void, description?: string): HTMLButtonElement {
  const element = el('button', 'eg-button', label);
  element.type = 'button';
  if (description) element.title = description;
  element.addEventListener('click', onClick);
  return element;
}

const CHARTS: ReadonlyArray<{ id: ChartId; title: string; legend?: ReadonlyArray<[string, string]> }> = [
  {
    id: 'context',
    title: t('insights.chartContext'),
    legend: [
      ['line-context', t('insights.legendContext')],
      ['threshold', t('insights.legendThreshold')],
      ['marker-summary', t('insights.legendSummary')],
      ['marker-tier', t('insights.legendTier')],
      ['marker-saved', t('insights.legendSaved')],
      ['marker-other', t('insights.legendOther')],
    ],
  },
  {
    id: 'tokens',
    title: t('insights.chartTokens'),
    legend: [
      ['stack-cache-read', t('insights.legendCacheRead')],
      ['stack-cache-write', t('insights.legendCacheWrite')],
      ['stack-uncached', t('insights.legendUncached')],
      ['stack-output', t('insights.legendOutput')],
    ],
  },
  { id: 'cost', title: t('insights.chartCost'), legend: [['line-cost', t('insights.legendCost')]] },
  {
    id: 'removed',
    title: t('insights.chartRemoved'),
    legend: [
      ['removed-summary', t('insights.legendRemovedSummary')],
      ['removed-tier', t('insights.legendTier')],
      ['removed-saved', t('insights.legendRemovedSaved')],
    ],
  },
];

let current: InsightsView | undefined;
const cursor = new SharedCursor();
/** Redraws the charts at the panel's width (after a resize). */
let redraw: (() => void) | undefined;

function post(message: InsightsWebviewToHost): void {
  vscode.postMessage(message);
}

function toolbar(view: InsightsView): HTMLElement {
  const bar = el('div', 'eg-toolbar');
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', t('insights.toolbar'));
  if (view.current) bar.append(button(t('insights.refresh'), () => post({ type: 'refresh' }), t('insights.refreshTitle')));
  const csv = (table: InsightsCsvTable, label: string) => button(label, () => post({ type: 'openCsv', table }), t('insights.csvTitle', table));
  bar.append(button(t('insights.otherSession'), () => post({ type: 'pickSession' }), t('insights.otherSessionTitle')), csv('requests', t('insights.requestsCsv')), csv('actions', t('insights.actionsCsv')));
  return bar;
}

function legend(items: ReadonlyArray<[string, string]>): HTMLElement {
  const list = el('ul', 'eg-legend');
  for (const [key, text] of items) {
    const item = el('li');
    const swatch = el('span', `eg-swatch eg-swatch-${key}`);
    swatch.setAttribute('aria-hidden', 'true');
    item.append(swatch, document.createTextNode(text));
    list.append(item);
  }
  return list;
}

/** The table behind a chart, a page at a time, drawn when first opened. */
function dataDetails(chart: ChartId, view: InsightsView): HTMLElement {
  const table = dataTable(chart, view.insights);
  const details = el('details', 'eg-data');
  const summary = el('summary', undefined, table.rows === 1 ? t('insights.dataTableOne') : t('insights.dataTable', table.rows.toLocaleString('en-US')));
  details.append(summary);
  let page = 0;
  const pages = Math.max(1, Math.ceil(table.rows / PAGE_ROWS));
  const status = el('span', 'eg-page-status');
  status.setAttribute('aria-live', 'polite');
  const element = el('table');
  const previous = button(t('insights.previousRows'), () => show(page - 1));
  const next = button(t('insights.nextRows'), () => show(page + 1));
  const show = (target: number) => {
    page = Math.min(pages - 1, Math.max(0, target));
    const caption = el('caption', undefined, table.caption);
    const head = el('thead');
    const headRow = el('tr');
    for (const column of table.columns) {
      const cell = el('th', column.numeric ? 'eg-num' : undefined, column.header);
      cell.scope = 'col';
      headRow.append(cell);
    }
    head.append(headRow);
    const body = el('tbody');
    const from = page * PAGE_ROWS;
    const to = Math.min(table.rows, from + PAGE_ROWS);
    for (let index = from; index < to; index++) {
      const row = el('tr');
      table.row(index).forEach((text, column) => row.append(el('td', table.columns[column]!.numeric ? 'eg-num' : undefined, text)));
      body.append(row);
    }
    element.replaceChildren(caption, head, body);
    status.textContent = table.rows === 0 ? t('insights.noRows') : t('insights.rows', (from + 1).toLocaleString('en-US'), to.toLocaleString('en-US'), table.rows.toLocaleString('en-US'));
    previous.disabled = page === 0;
    next.disabled = page >= pages - 1;
  };
  details.addEventListener('toggle', () => {
    if (details.open && !element.hasChildNodes()) show(0);
  });
  const pager = el('div', 'eg-pager');
  pager.append(previous, next, status);
  const scroller = el('div', 'eg-table-scroll');
  scroller.append(element);
  details.append(pages > 1 ? pager : status, scroller);
  return details;
}

function removedSummary(view: InsightsView): HTMLElement {
  const rows = removedByKind(view.insights.actions);
  const table = el('table', 'eg-by-kind');
  table.append(el('caption', undefined, t('insights.byKind')));
  const head = el('tr');
  for (const [text, numeric] of [[t('insights.byKindAction'), false], [t('insights.byKindTimes'), true], [t('insights.byKindTokens'), true], [t('insights.byKindReread'), true]] as const) {
    const cell = el('th', numeric ? 'eg-num' : undefined, text);
    cell.scope = 'col';
    head.append(cell);
  }
  table.append(head);
  for (const row of rows) {
    const line = el('tr');
    const name = el('th');
    name.scope = 'row';
    const swatch = el('span', `eg-swatch eg-swatch-removed-${markerGroup(row.kind)}`);
    swatch.setAttribute('aria-hidden', 'true');
    name.append(swatch, document.createTextNode(row.name));
    line.append(name, el('td', 'eg-num', row.count.toLocaleString('en-US')), el('td', 'eg-num', formatTokens(row.tokens)), el('td', 'eg-num', rereadCost(row.rereadCostUsd, row.partial)));
    table.append(line);
  }
  return table;
}

function render(view: InsightsView): void {
  current = view;
  cursor.reset();
  cursor.index = Math.max(0, Math.min(cursor.index, view.insights.requests.count - 1));
  const byRequest = actionsByRequest(view.insights.actions);
  const actionRequests = [...new Set(view.insights.actions.map((action) => action.atRequest))].sort((a, b) => a - b);
  const parts = { insights: view.insights, byRequest, cursor, actionRequests };

  const header = el('header', 'eg-insights-header');
  const title = el('h1', undefined, `Insights: ${view.title}`);
  const sub = el('p', 'eg-sub', headline(view));
  const note = el('p', 'eg-note', t('insights.keys', view.budgetNote));
  header.append(title, sub, note, toolbar(view));

  const sections: HTMLElement[] = [];
  const draws: Array<() => void> = [];
  for (const chart of CHARTS) {
    const section = el('section', 'eg-chart');
    const heading = el('h2', undefined, chart.title);
    heading.id = `eg-h-${chart.id}`;
    const summary = el('p', 'eg-summary', chartSummary(chart.id, view.insights));
    summary.id = `eg-s-${chart.id}`;
    const figure = el('div', 'eg-figure');
    figure.tabIndex = 0;
    figure.setAttribute('role', 'group');
    figure.setAttribute('aria-roledescription', 'chart');
    figure.setAttribute('aria-labelledby', heading.id);
    figure.setAttribute('aria-describedby', summary.id);
    figure.dataset.chart = chart.id;
    const readoutElement = el('p', 'eg-readout');
    readoutElement.setAttribute('role', 'status');
    readoutElement.setAttribute('aria-live', 'polite');
    figure.addEventListener('keydown', (event) => chartKeydown(event, parts));
    section.append(heading, summary, figure, readoutElement);
    if (chart.legend) section.append(legend(chart.legend));
    if (chart.id === 'removed' && view.insights.actions.some((action) => action.removedTokens > 0)) section.append(removedSummary(view));
    section.append(dataDetails(chart.id, view));
    sections.push(section);
    draws.push(() => drawChart(chart.id, figure, readoutElement, parts));
  }
  root.replaceChildren(header, ...sections);
  redraw = () => {
    cursor.reset();
    for (const draw of draws) draw();
  };
  redraw();
  drawnWidth = root.clientWidth;
  document.body.dataset.requests = String(view.insights.requests.count);
  document.body.dataset.actions = String(view.insights.actions.length);
}

function message(text: string, role: 'status' | 'alert'): void {
  current = undefined;
  redraw = undefined;
  const box = el('p', role === 'alert' ? 'eg-error' : 'eg-loading', text);
  box.setAttribute('role', role);
  root.replaceChildren(box);
}

window.addEventListener('message', (event: MessageEvent<InsightsHostToWebview>) => {
  const data = event.data;
  if (data.type === 'insights') render(data.view);
  else if (data.type === 'insightsLoading') message(t('insights.loading', data.title), 'status');
  else if (data.type === 'insightsError') message(data.message, 'alert');
});

// Charts follow the panel's width; one redraw per frame however many resize events come, and
// none when only the height changed (drawing the charts changes it).
let pending = false;
let drawnWidth = 0;
new ResizeObserver(() => {
  if (pending || !current || root.clientWidth === drawnWidth) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    drawnWidth = root.clientWidth;
    redraw?.();
  });
}).observe(root);

post({ type: 'ready' });

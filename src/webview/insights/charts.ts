/**
 * The insights charts as SVG drawn from the data (no charting library: four kinds of chart, one
 * shape per pixel column, theme colours from VS Code's `--vscode-charts-*` variables). Each chart
 * is one focusable group: the arrow keys move a cursor over the requests (shared by every chart),
 * `[` and `]` jump to the previous or next action, and the readout under the chart says what the
 * cursor is on (a polite live region). The pointer moves the same cursor; a marker's hover text
 * says what happened there.
 */
import { formatCost, formatTokens, type InsightsAction, type InsightsActionKind, type SessionInsights } from '../../protocol';
import { columnStarts, columnsPath, cursorMove, indexAt, lastOfColumns, linePath, nextActionRequest, niceTicks, peakOfColumns, stepPath, xOf, yOf, type Plot } from './chartMath';
import { actionTitle, readout, utilization, type ChartId } from './insightsText';

const SVG = 'http://www.w3.org/2000/svg';
const MARGIN = { left: 56, right: 14, top: 20, bottom: 24 };

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number> = {}, className?: string): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (className) element.setAttribute('class', className);
  return element;
}

/** How each kind of action is coloured: summaries, tier edits, saved outputs, the rest. */
export function markerGroup(kind: InsightsActionKind): 'summary' | 'tier' | 'saved' | 'other' {
  if (kind === 'compaction' || kind === 'drop') return 'summary';
  if (kind === 'trim' || kind === 'snip' || kind === 'clear') return 'tier';
  return kind === 'saved' ? 'saved' : 'other';
}

/** The cursor every chart shares, and who to tell when it moves. */
export class SharedCursor {
  private listeners: Array<(index: number) => void> = [];
  index = 0;

  listen(listener: (index: number) => void): void {
    this.listeners.push(listener);
  }

  reset(): void {
    this.listeners = [];
  }

  move(index: number): void {
    this.index = index;
    for (const listener of this.listeners) listener(index);
  }
}

interface ChartParts {
  insights: SessionInsights;
  byRequest: ReadonlyMap<number, InsightsAction[]>;
  /** Requests with an action just before them, in order (`[` and `]`). */
  actionRequests: readonly number[];
  cursor: SharedCursor;
}

/** Sets the y axis to end on the round tick at or above `max`, and draws both axes' ticks. */
function axes(group: SVGGElement, plot: Plot, max: number, label: (value: number) => string): void {
  const ticks = niceTicks(max);
  plot.yMax = Math.max(max, ticks.at(-1) ?? max);
  for (const value of ticks) {
    const y = yOf(plot, value);
    group.append(svg('line', { x1: plot.left, x2: plot.left + plot.width, y1: y, y2: y }, 'eg-grid'));
    const text = svg('text', { x: plot.left - 6, y: y + 4, 'text-anchor': 'end' }, 'eg-tick');
    text.textContent = label(value);
    group.append(text);
  }
  for (const value of niceTicks(plot.count, 6)) {
    if (value < 1 || value > plot.count) continue;
    const text = svg('text', { x: xOf(plot, value - 1), y: plot.top + plot.height + 16, 'text-anchor': 'middle' }, 'eg-tick');
    text.textContent = value.toLocaleString('en-US');
    group.append(text);
  }
}

function markers(group: SVGGElement, plot: Plot, actions: readonly InsightsAction[], kinds: (kind: InsightsActionKind) => boolean): void {
  const layer = svg('g', { 'aria-hidden': 'true' }, 'eg-markers');
  for (const action of actions) {
    if (!kinds(action.kind)) continue;
    const x = Math.min(plot.left + plot.width, xOf(plot, Math.min(action.atRequest, plot.count) - 0.5));
    const marker = svg('g', {}, `eg-marker eg-marker-${markerGroup(action.kind)}`);
    const title = svg('title');
    title.textContent = actionTitle(action);
    marker.append(title);
    if (markerGroup(action.kind) === 'summary') marker.append(svg('line', { x1: x, x2: x, y1: plot.top, y2: plot.top + plot.height }, 'eg-marker-rule'));
    // A downward triangle above the plot: hover it for what happened.
    marker.append(svg('path', { d: `M${x - 5} ${plot.top - 12}h10l-5 8z` }));
    layer.append(marker);
  }
  group.append(layer);
}

/** Draws one chart into `host` at its width; returns what the cursor updates. */
export function drawChart(chart: ChartId, host: HTMLElement, readoutElement: HTMLElement, parts: ChartParts): void {
  const { insights, cursor } = parts;
  const { requests } = insights;
  const width = Math.max(320, Math.floor(host.clientWidth || 640));
  const height = chart === 'removed' ? 150 : 190;
  const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, focusable: 'false', 'aria-hidden': 'true' }, 'eg-chart-svg');
  const plot: Plot = { left: MARGIN.left, top: MARGIN.top, width: width - MARGIN.left - MARGIN.right, height: height - MARGIN.top - MARGIN.bottom, count: Math.max(1, requests.count), yMax: 1 };
  const starts = columnStarts(requests.count, plot.width);
  const columnWidth = Math.max(1, (plot.width / Math.max(1, starts.length)) * 0.8);
  const body = svg('g');
  root.append(body);

  if (chart === 'context') {
    axes(body, plot, Math.max(1, insights.totals.peakUtilization), (value) => `${Math.round(value * 100)}%`);
    const peaks = peakOfColumns(starts, requests.count, (index) => utilization(insights, index));
    body.append(svg('path', { d: linePath(peaks.map((index) => [xOf(plot, index), yOf(plot, utilization(insights, index))])) }, 'eg-line eg-line-context'));
    const threshold = peaks.map((index) => [xOf(plot, index), yOf(plot, requests.threshold[index]! / Math.max(1, requests.window[index]!))] as const);
    body.append(svg('path', { d: stepPath(threshold, plot.width / Math.max(1, starts.length) / 2) }, 'eg-threshold'));
    markers(body, plot, insights.actions, () => true);
  } else if (chart === 'tokens') {
    const total = (index: number) => requests.promptTokens[index]! + requests.output[index]!;
    const peaks = peakOfColumns(starts, requests.count, total);
    axes(body, plot, Math.max(1, ...peaks.map(total)), formatTokens);
    // Bottom to top: what the cache served, what it stored, what it did not, and the reply.
    const layers = [
      ['cache-read', requests.cacheRead],
      ['cache-write', requests.cacheWrite],
      ['uncached', requests.uncached],
      ['output', requests.output],
    ] as const;
    const base = peaks.map(() => 0);
    for (const [name, column] of layers) {
      const rects = peaks.map((index, position) => {
        const bottom = base[position]!;
        base[position] = bottom + column[index]!;
        return [xOf(plot, index), yOf(plot, base[position]!), yOf(plot, bottom)] as const;
      });
      body.append(svg('path', { d: columnsPath(rects, columnWidth) }, `eg-stack eg-stack-${name}`));
    }
  } else if (chart === 'cost') {
    const lasts = lastOfColumns(starts, requests.count);
    axes(body, plot, Math.max(0.01, requests.cumulativeCostUsd[requests.count - 1] ?? 0), (value) => formatCost(value));
    const line = lasts.map((index) => [xOf(plot, index), yOf(plot, requests.cumulativeCostUsd[index]!)] as const);
    if (line.length > 0) body.append(svg('path', { d: `${linePath(line)}V${plot.top + plot.height}H${line[0]![0]}Z` }, 'eg-area-cost'));
    body.append(svg('path', { d: linePath(line) }, 'eg-line eg-line-cost'));
  } else {
    const removing = insights.actions.filter((action) => action.removedTokens > 0);
    axes(body, plot, Math.max(1, ...removing.map((action) => action.removedTokens)), formatTokens);
    for (const group of ['summary', 'tier', 'saved'] as const) {
      const rects = removing.filter((action) => markerGroup(action.kind) === group).map((action) => [xOf(plot, Math.min(action.atRequest, plot.count) - 0.5), yOf(plot, action.removedTokens), yOf(plot, 0)] as const);
      body.append(svg('path', { d: columnsPath(rects, Math.max(2, columnWidth)) }, `eg-removed eg-removed-${group}`));
    }
  }

  const cursorLine = svg('line', { y1: plot.top, y2: plot.top + plot.height }, 'eg-cursor');
  const cursorDot = svg('circle', { r: 3.5 }, 'eg-cursor-dot');
  root.append(cursorLine, cursorDot);
  const place = (index: number) => {
    if (requests.count === 0) {
      cursorLine.setAttribute('visibility', 'hidden');
      cursorDot.setAttribute('visibility', 'hidden');
      return;
    }
    const x = xOf(plot, index);
    cursorLine.setAttribute('x1', String(x));
    cursorLine.setAttribute('x2', String(x));
    const y = chart === 'context' ? yOf(plot, utilization(insights, index)) : chart === 'tokens' ? yOf(plot, requests.promptTokens[index]! + requests.output[index]!) : chart === 'cost' ? yOf(plot, requests.cumulativeCostUsd[index]!) : plot.top + plot.height;
    cursorDot.setAttribute('cx', String(x));
    cursorDot.setAttribute('cy', String(y));
  };
  host.replaceChildren(root);
  place(cursor.index);
  cursor.listen((index) => {
    place(index);
    if (requests.count > 0) readoutElement.textContent = readout(chart, insights, index, parts.byRequest.get(index));
  });
  if (requests.count > 0) readoutElement.textContent = readout(chart, insights, cursor.index, parts.byRequest.get(cursor.index));
  root.addEventListener('pointermove', (event) => {
    if (requests.count === 0) return;
    const bounds = root.getBoundingClientRect();
    const index = indexAt(plot, ((event.clientX - bounds.left) / Math.max(1, bounds.width)) * width);
    if (index !== cursor.index) cursor.move(index);
  });
}

/** The keys a focused chart answers: arrows, Page Up/Down, Home/End, and [ ] between actions. */
export function chartKeydown(event: KeyboardEvent, parts: ChartParts): void {
  const count = parts.insights.requests.count;
  if (count === 0) return;
  const target = event.key === '[' || event.key === ']' ? nextActionRequest(parts.actionRequests, parts.cursor.index, event.key === ']') : cursorMove(event.key, parts.cursor.index, count);
  if (target === undefined) return;
  event.preventDefault();
  parts.cursor.move(Math.min(count - 1, target));
}

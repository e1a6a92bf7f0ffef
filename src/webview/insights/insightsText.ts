/**
 * What the insights panel says, apart from the DOM so it is tested in node: each chart's summary
 * (its accessible description), the readout for the request under the cursor, and the rows of the
 * data table behind each chart. Numbers read as they do in the chat (formatTokens, formatCost).
 */
import { formatCost, formatTokens, type InsightsAction, type InsightsActionKind, type InsightsView, type SessionInsights } from '../../protocol';
import { t } from '../strings';

export type ChartId = 'context' | 'tokens' | 'cost' | 'removed';

const percent = (share: number) => `${Math.round(share * 100)}%`;
// A count's words are whole entries of the table, so a language words its own plurals.
const requestCount = (count: number) => (count === 1 ? t('insights.oneRequest') : t('insights.requests', count.toLocaleString('en-US')));
const actionCount = (count: number) => (count === 1 ? t('insights.oneAction') : t('insights.actions', count.toLocaleString('en-US')));
const time = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toLocaleString() : t('insights.timeUnknown'));

/** A kind of action as the legend and the hover name it. */
function actionName(kind: InsightsActionKind): string {
  return t(`insights.action.${kind}`);
}

export function utilization(insights: SessionInsights, index: number): number {
  const { requests } = insights;
  return requests.promptTokens[index]! / Math.max(1, requests.window[index]!);
}

/** The actions that came just before each request (by request index). */
export function actionsByRequest(actions: readonly InsightsAction[]): Map<number, InsightsAction[]> {
  const byRequest = new Map<number, InsightsAction[]>();
  for (const action of actions) {
    const list = byRequest.get(action.atRequest) ?? [];
    list.push(action);
    byRequest.set(action.atRequest, list);
  }
  return byRequest;
}

/** Actions that change the context's size (the context chart's markers and the removed chart). */
export const SHRINKING_KINDS: ReadonlySet<InsightsActionKind> = new Set(['trim', 'snip', 'clear', 'saved', 'compaction', 'drop']);

export function headline(view: InsightsView): string {
  const { totals } = view.insights;
  const summaries = totals.compactions === 1 ? t('insights.oneSummary') : t('insights.summaries', totals.compactions.toLocaleString('en-US'));
  return [requestCount(totals.requests), formatCost(totals.costUsd, totals.unpricedRequests, undefined, t('insights.priceUnknown')), summaries, t('insights.peak', percent(totals.peakUtilization))].join(' · ');
}

/** Each chart's description: what it shows and its main figures, read before the chart itself. */
export function chartSummary(chart: ChartId, insights: SessionInsights): string {
  const { requests, totals, actions } = insights;
  const n = requests.count;
  if (n === 0 && chart !== 'removed') return t('insights.noRequests');
  switch (chart) {
    case 'context': {
      const last = n - 1;
      const threshold = requests.threshold[last]! / Math.max(1, requests.window[last]!);
      const shrinking = actions.filter((action) => SHRINKING_KINDS.has(action.kind)).length;
      const markers = shrinking === 1 ? t('insights.oneMarker') : t('insights.markers', shrinking.toLocaleString('en-US'));
      return t('insights.summaryContext', requestCount(n), percent(totals.peakUtilization), percent(utilization(insights, last)), percent(threshold), markers);
    }
    case 'tokens': {
      let uncached = 0;
      let write = 0;
      let read = 0;
      let output = 0;
      for (let index = 0; index < n; index++) {
        uncached += requests.uncached[index]!;
        write += requests.cacheWrite[index]!;
        read += requests.cacheRead[index]!;
        output += requests.output[index]!;
      }
      const input = uncached + write + read;
      return t('insights.summaryTokens', formatTokens(uncached), formatTokens(write), formatTokens(read), percent(read / Math.max(1, input)), formatTokens(output));
    }
    case 'cost': {
      const all = formatCost(totals.costUsd, totals.unpricedRequests, undefined, t('insights.priceUnknown'));
      const subagents = formatCost(totals.subagentCostUsd);
      const summaries = formatCost(totals.summaryCostUsd);
      if (totals.subagentCostUsd > 0 && totals.summaryCostUsd > 0) return t('insights.summaryCostBoth', all, subagents, summaries);
      if (totals.subagentCostUsd > 0) return t('insights.summaryCostSubagents', all, subagents);
      if (totals.summaryCostUsd > 0) return t('insights.summaryCostSummaries', all, summaries);
      return t('insights.summaryCost', all);
    }
    case 'removed': {
      const removing = actions.filter((action) => action.removedTokens > 0);
      if (removing.length === 0) return t('insights.nothingRemoved');
      return t('insights.summaryRemoved', formatTokens(totals.removedTokens), actionCount(removing.length), rereadCost(totals.rereadCostUsd, totals.rereadPartial));
    }
  }
}

export function rereadCost(usd: number, partial: boolean): string {
  return partial ? t('insights.rereadPartial', formatCost(usd)) : formatCost(usd);
}

/** The readout for request `index` in a chart: its figures, then what happened just before it. */
export function readout(chart: ChartId, insights: SessionInsights, index: number, before: readonly InsightsAction[] = []): string {
  const { requests } = insights;
  const position = [(index + 1).toLocaleString('en-US'), requests.count.toLocaleString('en-US')] as const;
  let figures: string;
  switch (chart) {
    case 'context':
      figures = t('insights.readoutContext', percent(utilization(insights, index)), formatTokens(requests.promptTokens[index]!), formatTokens(requests.window[index]!), formatTokens(requests.threshold[index]!));
      break;
    case 'tokens':
      figures = t('insights.readoutTokens', formatTokens(requests.uncached[index]!), formatTokens(requests.cacheWrite[index]!), formatTokens(requests.cacheRead[index]!), formatTokens(requests.output[index]!));
      break;
    case 'cost':
      figures = t('insights.readoutCost', requests.priceUnknown[index] ? t('insights.priceUnknown') : formatCost(requests.costUsd[index]!), formatCost(requests.cumulativeCostUsd[index]!));
      break;
    case 'removed': {
      const removed = before.reduce((sum, action) => sum + action.removedTokens, 0);
      figures = removed > 0 ? t('insights.readoutRemoved', formatTokens(removed)) : t('insights.readoutNothingRemoved');
      break;
    }
  }
  const head = requests.rewound[index] ? t('insights.readoutRewound', ...position) : t('insights.readoutHead', ...position);
  return before.length > 0 ? t('insights.readoutBefore', head, figures, before.map((action) => action.label).join('; ')) : t('insights.readout', head, figures);
}

/** A marker's hover text: what happened, and what it saved. */
export function actionTitle(action: InsightsAction): string {
  const saved = action.removedTokens > 0 ? `\n${t('insights.actionRemoved', formatTokens(action.removedTokens), requestCount(action.rereadRequests), rereadCost(action.rereadCostUsd, action.rereadPartial))}` : '';
  const cost = action.costUsd > 0 ? `\n${t('insights.actionCost', formatCost(action.costUsd))}` : '';
  return `${actionName(action.kind)}: ${action.detail}${saved}${cost}`;
}

export interface TableColumn {
  header: string;
  /** Right-aligned numbers. */
  numeric: boolean;
}

export interface DataTable {
  caption: string;
  columns: readonly TableColumn[];
  rows: number;
  /** The cells of row `index`, as text. */
  row(index: number): string[];
}

const num = (header: string): TableColumn => ({ header, numeric: true });
const text = (header: string): TableColumn => ({ header, numeric: false });

/** The table behind a chart: every request (or action), nothing left out by the drawing. */
export function dataTable(chart: ChartId, insights: SessionInsights): DataTable {
  const { requests, actions } = insights;
  const byRequest = actionsByRequest(actions);
  const events = (index: number) => (byRequest.get(index) ?? []).map((action) => action.label).join('; ');
  const request = (index: number) => (requests.rewound[index] ? t('insights.rowUndone', index + 1) : String(index + 1));
  switch (chart) {
    case 'context':
      return {
        caption: t('insights.tableContext'),
        columns: [num(t('insights.colRequest')), num(t('insights.colUsed')), num(t('insights.colTokens')), num(t('insights.colWindow')), num(t('insights.colSummarizingAt')), text(t('insights.colBeforeIt'))],
        rows: requests.count,
        row: (index) => [request(index), percent(utilization(insights, index)), requests.promptTokens[index]!.toLocaleString('en-US'), requests.window[index]!.toLocaleString('en-US'), requests.threshold[index]!.toLocaleString('en-US'), events(index)],
      };
    case 'tokens':
      return {
        caption: t('insights.tableTokens'),
        columns: [num(t('insights.colRequest')), num(t('insights.colUncached')), num(t('insights.colCacheWrite')), num(t('insights.colCacheRead')), num(t('insights.colOutput')), text(t('insights.colModel'))],
        rows: requests.count,
        row: (index) => [request(index), ...[requests.uncached, requests.cacheWrite, requests.cacheRead, requests.output].map((column) => column[index]!.toLocaleString('en-US')), requests.model[index]!],
      };
    case 'cost':
      return {
        caption: t('insights.tableCost'),
        columns: [num(t('insights.colRequest')), text(t('insights.colTime')), num(t('insights.colThisRequest')), num(t('insights.colSoFar'))],
        rows: requests.count,
        row: (index) => [request(index), time(requests.atMs[index]!), requests.priceUnknown[index] ? t('insights.priceUnknown') : formatCost(requests.costUsd[index]!, 0, 4), formatCost(requests.cumulativeCostUsd[index]!, 0, 4)],
      };
    case 'removed':
      return {
        caption: t('insights.tableActions'),
        columns: [text(t('insights.colBeforeRequest')), text(t('insights.colWhat')), num(t('insights.colRemoved')), num(t('insights.colLater')), num(t('insights.colReread')), num(t('insights.colItCost'))],
        rows: actions.length,
        row: (index) => {
          const action = actions[index]!;
          return [
            action.atRequest < requests.count ? String(action.atRequest + 1) : t('insights.afterLast'),
            action.detail,
            action.removedTokens > 0 ? action.removedTokens.toLocaleString('en-US') : '—',
            action.removedTokens > 0 ? action.rereadRequests.toLocaleString('en-US') : '—',
            action.removedTokens > 0 ? rereadCost(action.rereadCostUsd, action.rereadPartial) : '—',
            action.costUsd > 0 ? formatCost(action.costUsd, 0, 4) : '—',
          ];
        },
      };
  }
}

/** Removed tokens and re-read cost per kind of action, largest first: the removed chart's legend. */
export function removedByKind(actions: readonly InsightsAction[]): Array<{ kind: InsightsActionKind; name: string; count: number; tokens: number; rereadCostUsd: number; partial: boolean }> {
  const byKind = new Map<InsightsActionKind, { count: number; tokens: number; rereadCostUsd: number; partial: boolean }>();
  for (const action of actions) {
    if (action.removedTokens <= 0) continue;
    const entry = byKind.get(action.kind) ?? { count: 0, tokens: 0, rereadCostUsd: 0, partial: false };
    entry.count++;
    entry.tokens += action.removedTokens;
    entry.rereadCostUsd += action.rereadCostUsd;
    entry.partial ||= action.rereadPartial;
    byKind.set(action.kind, entry);
  }
  return [...byKind].map(([kind, entry]) => ({ kind, name: actionName(kind), ...entry })).sort((a, b) => b.tokens - a.tokens);
}


/**
 * What the insights panel says, apart from the DOM so it is tested in node: each chart's summary
 * (its accessible description), the readout for the request under the cursor, and the rows of the
 * data table behind each chart. Numbers read as they do in the chat (formatTokens, formatCost).
 */
import { formatCost, formatTokens, INSIGHTS_ACTION_NAMES, type InsightsAction, type InsightsActionKind, type InsightsView, type SessionInsights } from '../../protocol';

export type ChartId = 'context' | 'tokens' | 'cost' | 'removed';

const percent = (share: number) => `${Math.round(share * 100)}%`;
const plural = (count: number, word: string) => `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
const time = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toLocaleString() : 'time unknown');

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
  const summaries = `${totals.compactions.toLocaleString('en-US')} ${totals.compactions === 1 ? 'summary' : 'summaries'}`;
  return [plural(totals.requests, 'request'), formatCost(totals.costUsd, totals.unpricedRequests), summaries, `peak ${percent(totals.peakUtilization)} of the window`].join(' · ');
}

/** Each chart's description: what it shows and its main figures, read before the chart itself. */
export function chartSummary(chart: ChartId, insights: SessionInsights): string {
  const { requests, totals, actions } = insights;
  const n = requests.count;
  if (n === 0 && chart !== 'removed') return 'No requests yet: the chart fills in after the first reply.';
  switch (chart) {
    case 'context': {
      const last = n - 1;
      const threshold = requests.threshold[last]! / Math.max(1, requests.window[last]!);
      const shrinking = actions.filter((action) => SHRINKING_KINDS.has(action.kind)).length;
      return `How full the context window was at each of ${plural(n, 'request')}: at most ${percent(totals.peakUtilization)}, last ${percent(utilization(insights, last))}. Automatic summarizing starts at ${percent(threshold)} (the dashed line). ${shrinking.toLocaleString('en-US')} ${shrinking === 1 ? 'marker shows' : 'markers show'} where Evergreen made room.`;
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
      return `Tokens of each request, stacked: uncached input ${formatTokens(uncached)}, written to the cache ${formatTokens(write)}, read from the cache ${formatTokens(read)} (${percent(read / Math.max(1, input))} of all input), output ${formatTokens(output)}.`;
    }
    case 'cost': {
      const parts = [`What the session had cost after each request: ${formatCost(totals.costUsd, totals.unpricedRequests)} in all`];
      if (totals.subagentCostUsd > 0) parts.push(`${formatCost(totals.subagentCostUsd)} of it by subagents`);
      if (totals.summaryCostUsd > 0) parts.push(`${formatCost(totals.summaryCostUsd)} by summaries`);
      return `${parts.join(', ')}.`;
    }
    case 'removed': {
      const removing = actions.filter((action) => action.removedTokens > 0);
      if (removing.length === 0) return 'Nothing was removed from the context in this session.';
      return `What making room removed: ${formatTokens(totals.removedTokens)} tokens in ${plural(removing.length, 'action')}. Reading them again in every later request would have cost ${rereadCost(totals.rereadCostUsd, totals.rereadPartial)}.`;
    }
  }
}

export function rereadCost(usd: number, partial: boolean): string {
  return partial ? `${formatCost(usd)} or more (some models had no known price)` : formatCost(usd);
}

/** The readout for request `index` in a chart: its figures, then what happened just before it. */
export function readout(chart: ChartId, insights: SessionInsights, index: number, before: readonly InsightsAction[] = []): string {
  const { requests } = insights;
  const head = `Request ${(index + 1).toLocaleString('en-US')} of ${requests.count.toLocaleString('en-US')}`;
  let figures: string;
  switch (chart) {
    case 'context':
      figures = `${percent(utilization(insights, index))} of the window (${formatTokens(requests.promptTokens[index]!)} of ${formatTokens(requests.window[index]!)} tokens; summarizing at ${formatTokens(requests.threshold[index]!)})`;
      break;
    case 'tokens':
      figures = `uncached ${formatTokens(requests.uncached[index]!)}, cache write ${formatTokens(requests.cacheWrite[index]!)}, cache read ${formatTokens(requests.cacheRead[index]!)}, output ${formatTokens(requests.output[index]!)}`;
      break;
    case 'cost':
      figures = `${requests.priceUnknown[index] ? 'price unknown' : formatCost(requests.costUsd[index]!)} for this request, ${formatCost(requests.cumulativeCostUsd[index]!)} so far`;
      break;
    case 'removed': {
      const removed = before.reduce((sum, action) => sum + action.removedTokens, 0);
      figures = removed > 0 ? `${formatTokens(removed)} tokens removed just before it` : 'nothing removed just before it';
      break;
    }
  }
  const rewound = requests.rewound[index] ? ' (later undone by a restore)' : '';
  const events = before.length > 0 ? ` Before it: ${before.map((action) => action.label).join('; ')}.` : '';
  return `${head}${rewound}: ${figures}.${events}`;
}

/** A marker's hover text: what happened, and what it saved. */
export function actionTitle(action: InsightsAction): string {
  const saved = action.removedTokens > 0 ? `\nRemoved ${formatTokens(action.removedTokens)} tokens; reading them again in the next ${plural(action.rereadRequests, 'request')} would have cost ${rereadCost(action.rereadCostUsd, action.rereadPartial)}.` : '';
  const cost = action.costUsd > 0 ? `\nIt cost ${formatCost(action.costUsd)}.` : '';
  return `${INSIGHTS_ACTION_NAMES[action.kind]}: ${action.detail}${saved}${cost}`;
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
  const request = (index: number) => `${index + 1}${requests.rewound[index] ? ' (undone)' : ''}`;
  switch (chart) {
    case 'context':
      return {
        caption: 'Context window use per request',
        columns: [num('Request'), num('Used'), num('Tokens'), num('Window'), num('Summarizing at'), text('Before it')],
        rows: requests.count,
        row: (index) => [request(index), percent(utilization(insights, index)), requests.promptTokens[index]!.toLocaleString('en-US'), requests.window[index]!.toLocaleString('en-US'), requests.threshold[index]!.toLocaleString('en-US'), events(index)],
      };
    case 'tokens':
      return {
        caption: 'Tokens per request',
        columns: [num('Request'), num('Uncached input'), num('Cache write'), num('Cache read'), num('Output'), text('Model')],
        rows: requests.count,
        row: (index) => [request(index), ...[requests.uncached, requests.cacheWrite, requests.cacheRead, requests.output].map((column) => column[index]!.toLocaleString('en-US')), requests.model[index]!],
      };
    case 'cost':
      return {
        caption: 'Cost per request and so far',
        columns: [num('Request'), text('Time'), num('This request'), num('So far')],
        rows: requests.count,
        row: (index) => [request(index), time(requests.atMs[index]!), requests.priceUnknown[index] ? 'price unknown' : formatCost(requests.costUsd[index]!, 0, 4), formatCost(requests.cumulativeCostUsd[index]!, 0, 4)],
      };
    case 'removed':
      return {
        caption: 'What each action did',
        columns: [text('Before request'), text('What happened'), num('Tokens removed'), num('Later requests'), num('Re-reading would have cost'), num('It cost')],
        rows: actions.length,
        row: (index) => {
          const action = actions[index]!;
          return [
            action.atRequest < requests.count ? String(action.atRequest + 1) : 'after the last',
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
  return [...byKind].map(([kind, entry]) => ({ kind, name: INSIGHTS_ACTION_NAMES[kind], ...entry })).sort((a, b) => b.tokens - a.tokens);
}


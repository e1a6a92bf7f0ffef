/**
 * The insights as CSV (RFC 4180: comma-separated, CRLF line ends, a field quoted when it holds a
 * comma, a quote or a line break), one row per request and one per action, for a spreadsheet.
 * Ten lines of quoting are not worth a dependency. Text fields can hold words from the user or the
 * model (a compaction's focus, a tool's file name): one that a spreadsheet would run as a formula
 * (it starts with =, +, -, @, a tab or a carriage return) is prefixed with a quote (OWASP's advice).
 */
import type { Worded } from '../texts/userText';
import type { SessionInsights as CoreSessionInsights } from './sessionInsights';

/** The insights as the panel shows them: the actions' labels and details in the user's words (the CSV's cells are what the panel's tables show). */
type SessionInsights = Worded<CoreSessionInsights>;

type Cell = string | number | boolean | undefined;

function field(value: Cell): string {
  if (value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csv(header: readonly string[], rows: Iterable<readonly Cell[]>): string {
  const lines = [header.map(field).join(',')];
  for (const row of rows) lines.push(row.map(field).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

const usd = (value: number) => Number(value.toFixed(6));
const isoTime = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : undefined);

export const REQUEST_CSV_HEADER = ['request', 'time', 'model', 'prompt_tokens', 'window_tokens', 'window_used_percent', 'auto_compact_at_tokens', 'uncached_input_tokens', 'cache_write_tokens', 'cache_read_tokens', 'output_tokens', 'cost_usd', 'price_unknown', 'cumulative_cost_usd', 'undone_by_restore', 'before_it'] as const;

/** One row per request; `before_it` lists the actions that came just before the request. */
export function requestsCsv(insights: SessionInsights): string {
  const { requests, actions } = insights;
  const before = new Map<number, string[]>();
  for (const action of actions) {
    const labels = before.get(action.atRequest) ?? [];
    labels.push(action.label);
    before.set(action.atRequest, labels);
  }
  function* rows(): Iterable<Cell[]> {
    for (let index = 0; index < requests.count; index++) {
      const prompt = requests.promptTokens[index]!;
      const window = requests.window[index]!;
      yield [
        index + 1,
        isoTime(requests.atMs[index]!),
        requests.model[index],
        prompt,
        window,
        Number(((prompt / Math.max(1, window)) * 100).toFixed(2)),
        requests.threshold[index],
        requests.uncached[index],
        requests.cacheWrite[index],
        requests.cacheRead[index],
        requests.output[index],
        usd(requests.costUsd[index]!),
        requests.priceUnknown[index],
        usd(requests.cumulativeCostUsd[index]!),
        requests.rewound[index],
        before.get(index)?.join('; '),
      ];
    }
  }
  return csv(REQUEST_CSV_HEADER, rows());
}

export const ACTION_CSV_HEADER = ['before_request', 'time', 'kind', 'what', 'detail', 'tokens_before', 'tokens_after', 'removed_tokens', 'reread_requests', 'reread_cost_usd', 'reread_cost_partial', 'own_cost_usd'] as const;

/** One row per action; `before_request` is 1-based, empty when no request came after it. */
export function actionsCsv(insights: SessionInsights): string {
  const { requests } = insights;
  return csv(
    ACTION_CSV_HEADER,
    insights.actions.map((action) => [
      action.atRequest < requests.count ? action.atRequest + 1 : undefined,
      isoTime(action.atMs),
      action.kind,
      action.label,
      action.detail,
      action.tokensBefore,
      action.tokensAfter,
      action.removedTokens,
      action.rereadRequests,
      usd(action.rereadCostUsd),
      action.rereadPartial,
      usd(action.costUsd),
    ]),
  );
}

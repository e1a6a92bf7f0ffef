import { formatCost } from '../model/cost';
import { settingRef, userText, type UserText } from '../texts/userText';
import type { UsageCounts } from '../model/models';
import type { ContextBreakdown } from './breakdown';
import { CONTEXT_DEFAULTS } from './defaults';
import { formatTokens, promptTokensFromUsage } from '../model/usage';

// The one definition lives with the other usage arithmetic; re-exported for the engine's callers.
export { promptTokensFromUsage };

/** The numbers behind the token gauge (docs/architecture.md, "Context engine": token accounting), before they are read. */
export interface GaugeNumbers {
  window: number;
  outputReserve: number;
  usedTokens: number;
  autoCompactThreshold: number;
  cacheReadShare: number;
  sessionCostUsd: number;
  /** The part of sessionCostUsd the session's subagents spent (absent or 0: none). */
  subagentCostUsd?: number;
  /** Requests whose model had no known price, left out of sessionCostUsd (absent or 0: none). */
  unpricedRequests?: number;
  /** Server-side web searches the session ran, each priced in sessionCostUsd (absent or 0: none). */
  webSearches?: number;
  /** Where the tokens go (estimates scaled to the measured total). */
  breakdown?: ContextBreakdown;
  /** True when usedTokens includes an estimate of what was appended since the last response. */
  estimated?: boolean;
}

/**
 * ok: below the warning band; near: within `GAUGE_NEAR_SHARE` of the window under the auto-compact
 * threshold; past: over the threshold (compaction runs before the next request); over: more than
 * the whole window is in use (the next request fails unless compaction frees room).
 */
export type GaugeLevel = 'ok' | 'near' | 'past' | 'over';

/**
 * How every front end shows the gauge, computed here once so the panel, the status bar, the
 * breakdown document and the CLI agree (the webview may not import core code, so it gets these
 * values in the event instead of recomputing them).
 */
export interface GaugeReading {
  /** Used tokens as a percent of the whole window (rounded; above 100 only when they exceed it). */
  percent: number;
  /** Bar segments as shares of the whole window; they add up to 1. */
  usedShare: number;
  reserveShare: number;
  freeShare: number;
  /** Where the auto-compact marker sits, as a share of the window. */
  thresholdShare: number;
  level: GaugeLevel;
  /** "62% · 124k / 200k" */
  label: UserText;
  /** "cache 80% · $0.42" */
  secondary: UserText;
  /**
   * The hover: paragraphs of lines, the numbers, the breakdown and the spending (each front end
   * words them, joins them with gaugeTooltipText and adds what a click does).
   */
  tooltip: ReadonlyArray<readonly UserText[]>;
}

// The panel's bundle takes it from a module of its own, which imports nothing (no zod reaches the panel).
export { gaugeTooltipText } from './gaugeTooltip';

/** The payload of `context` events: the numbers plus their one reading. */
export interface ContextGauge extends GaugeNumbers {
  reading: GaugeReading;
}

/** The warning band below the auto-compact threshold, as a share of the window. */
export const GAUGE_NEAR_SHARE = 0.1;

/** The window's split: reserve for the reply, the effective window, and the auto-compact threshold. */
export interface ContextBudget {
  window: number;
  outputReserve: number;
  effective: number;
  threshold: number;
}

/**
 * reserve = maxOutputTokens, capped at 20% of the window; threshold = effective window minus
 * 13k, the margin capped at 7% of the window (a 40k window: reserve 8k, threshold ~29k); or a
 * percent of the effective window when configured.
 */
export function contextBudget(window: number, maxOutputTokens: number, autoCompactPercent?: number): ContextBudget {
  const outputReserve = Math.max(1, Math.min(maxOutputTokens, Math.floor(window * CONTEXT_DEFAULTS.maxReserveShare)));
  const effective = Math.max(0, window - outputReserve);
  const margin = Math.min(CONTEXT_DEFAULTS.autoCompactMargin, Math.floor(window * CONTEXT_DEFAULTS.maxMarginShare));
  const threshold =
    autoCompactPercent !== undefined ? Math.round((effective * Math.min(100, Math.max(1, autoCompactPercent))) / 100) : Math.max(0, effective - margin);
  return { window, outputReserve, effective, threshold };
}

/** Builds the gauge payload: the numbers and their reading, always together. */
export function contextGauge(numbers: GaugeNumbers): ContextGauge {
  const { reading: _stale, ...plain } = numbers as GaugeNumbers & { reading?: unknown };
  return { ...plain, reading: gaugeReading(plain) };
}

/** Percent of the whole window in use — the one definition the panel, status bar and document show. */
export function usedPercent(gauge: Pick<GaugeNumbers, 'usedTokens' | 'window'>): number {
  return Math.round((Math.max(0, gauge.usedTokens) / Math.max(1, gauge.window)) * 100);
}

export function gaugeLevel(gauge: Pick<GaugeNumbers, 'usedTokens' | 'window' | 'autoCompactThreshold'>): GaugeLevel {
  if (gauge.usedTokens > gauge.window) return 'over';
  if (gauge.usedTokens > gauge.autoCompactThreshold) return 'past';
  if (gauge.usedTokens >= gauge.autoCompactThreshold - gauge.window * GAUGE_NEAR_SHARE) return 'near';
  return 'ok';
}

/** How a token count reads (one definition, with the other token arithmetic: the webviews show it too). */
export { formatTokens };

/** How costs read (one definition of "price unknown", cost.ts). */
export { formatCost } from '../model/cost';

/** A category of the breakdown. */
type BreakdownPart = Exclude<keyof ContextBreakdown, 'total'>;

/** A category's name, as every front end words it (`gauge.part.*`). */
export function breakdownPartText(part: BreakdownPart): UserText {
  return userText(`gauge.part.${part}`, {});
}

/**
 * The breakdown's categories in display order (their names: breakdownPartText). `whenPresent`:
 * a line only while it holds tokens (thinking is in the context only while its turn runs).
 */
export const BREAKDOWN_CATEGORIES = [
  { key: 'system' },
  { key: 'instructions' },
  { key: 'skills', whenPresent: true },
  { key: 'memory', whenPresent: true },
  { key: 'tools' },
  { key: 'mcpTools' },
  { key: 'messages' },
  { key: 'thinking', whenPresent: true },
  { key: 'toolResults' },
  { key: 'summaries' },
  { key: 'persistedPreviews' },
  { key: 'subagents' },
] as const satisfies ReadonlyArray<{ key: BreakdownPart; whenPresent?: true }>;

/** The categories a breakdown shows a line for, in order. */
export function breakdownLines(breakdown: ContextBreakdown): ReadonlyArray<(typeof BREAKDOWN_CATEGORIES)[number]> {
  return BREAKDOWN_CATEGORIES.filter((category) => !('whenPresent' in category) || breakdown[category.key] > 0);
}

export function gaugeReading(gauge: GaugeNumbers): GaugeReading {
  const window = Math.max(1, gauge.window);
  // used + reserve + free = window: used past the usable part eats into the reply's reserve.
  const used = Math.min(Math.max(0, gauge.usedTokens), window);
  const reserve = Math.min(Math.max(0, gauge.outputReserve), window - used);
  const free = window - used - reserve;
  const percent = usedPercent(gauge);
  const level = gaugeLevel(gauge);
  const shown = level === 'over' ? userText('gauge.percentOver', {}) : userText('gauge.percent', { percent });
  const label = userText('gauge.label', { shown, used: formatTokens(gauge.usedTokens), window: formatTokens(gauge.window) });
  const cachePercent = Math.round(gauge.cacheReadShare * 100);
  const cost = costText(gauge.sessionCostUsd, gauge.unpricedRequests);
  const secondary = userText('gauge.secondary', { cachePercent, cost });
  const state = level === 'over' ? userText('gauge.levelOver', {}) : level === 'past' ? userText('gauge.levelPast', {}) : level === 'near' ? userText('gauge.levelNear', {}) : undefined;
  const share = (tokens: number) => Math.round((tokens / window) * 100);
  const numbers = [
    userText(gauge.estimated ? 'gauge.usedEstimated' : 'gauge.used', { used: gauge.usedTokens, window: gauge.window, shown }),
    userText('gauge.reserve', { reserve: gauge.outputReserve, free }),
    userText('gauge.threshold', { threshold: gauge.autoCompactThreshold, percent: share(gauge.autoCompactThreshold) }),
    ...(state ? [state] : []),
  ];
  const parts = gauge.breakdown
    ? [breakdownLines(gauge.breakdown).map(({ key }) => userText('gauge.partLine', { part: breakdownPartText(key), tokens: formatTokens(gauge.breakdown![key]), percent: share(gauge.breakdown![key]) }))]
    : [];
  const hint = priceUnknownHintText(gauge.unpricedRequests);
  const spending = [userText('gauge.spending', { cachePercent, cost: sessionCostText(gauge) }), ...(hint ? [hint] : [])];
  return {
    percent,
    usedShare: used / window,
    reserveShare: reserve / window,
    freeShare: free / window,
    thresholdShare: Math.min(1, Math.max(0, gauge.autoCompactThreshold / window)),
    level,
    label,
    secondary,
    tooltip: [numbers, ...parts, spending],
  };
}

/** "$0.42", "price unknown" when no request had a price, "$0.42 + price unknown" when some had none (formatCost's rule). */
function costText(usd: number, unpricedRequests = 0): UserText {
  if (unpricedRequests <= 0) return userText('gauge.cost', { dollars: formatCost(usd) });
  return usd > 0 ? userText('gauge.costPartlyUnknown', { dollars: formatCost(usd) }) : userText('gauge.costUnknown', {});
}

/**
 * The session's cost with what subagents spent of it ("(subagents $0.12)") and the server-side web
 * searches it ran ("(3 web searches)": billed per search, apart from tokens), where there were any.
 */
export function sessionCostText(gauge: Pick<GaugeNumbers, 'sessionCostUsd' | 'unpricedRequests' | 'subagentCostUsd' | 'webSearches'>): UserText {
  let cost = costText(gauge.sessionCostUsd, gauge.unpricedRequests);
  if (gauge.subagentCostUsd) cost = userText('gauge.costWithSubagents', { cost, subagents: costText(gauge.subagentCostUsd) });
  const searches = gauge.webSearches ?? 0;
  if (searches > 0) cost = userText('gauge.costWithSearches', { cost, count: searches });
  return cost;
}

/** The next step beside an unknown price (where it is set); undefined when every request had a price. */
export function priceUnknownHintText(unpricedRequests = 0): UserText | undefined {
  return unpricedRequests > 0 ? userText('gauge.priceUnknownHint', { count: unpricedRequests, setting: settingRef('pricing') }) : undefined;
}

/** What a request's usage says the context holds: everything sent plus what the model wrote back. */
export function contextTokensFromUsage(usage: UsageCounts): number {
  return promptTokensFromUsage(usage) + usage.outputTokens;
}

export function cacheReadShare(usage: UsageCounts): number {
  const prompt = promptTokensFromUsage(usage);
  return prompt === 0 ? 0 : usage.cacheReadTokens / prompt;
}

/** Rough, fast token estimate for text not yet counted by the API (chars / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CONTEXT_DEFAULTS.charsPerToken);
}

/** What the session has spent, as the gauge shows it. */
export interface GaugeCosts {
  sessionCostUsd: number;
  subagentCostUsd: number | undefined;
  unpricedRequests: number;
  webSearches?: number | undefined;
}

function costFields(costs: GaugeCosts): { sessionCostUsd: number; subagentCostUsd?: number; unpricedRequests?: number; webSearches?: number } {
  const searches = costs.webSearches ?? 0;
  return { sessionCostUsd: costs.sessionCostUsd, ...(costs.subagentCostUsd !== undefined ? { subagentCostUsd: costs.subagentCostUsd } : {}), ...(costs.unpricedRequests > 0 ? { unpricedRequests: costs.unpricedRequests } : {}), ...(searches > 0 ? { webSearches: searches } : {}) };
}

/** The engine's gauge: the window split, what is used (and what of it is what), and the spending. */
export function gaugeOf(budget: ContextBudget, usedTokens: number, breakdown: ContextGauge['breakdown'], cacheReadShare: number, costs: GaugeCosts, estimated: boolean): ContextGauge {
  return contextGauge({ window: budget.window, outputReserve: budget.outputReserve, usedTokens, autoCompactThreshold: budget.threshold, cacheReadShare, ...costFields(costs), ...(breakdown ? { breakdown } : {}), estimated });
}

/**
 * A gauge plus `pending` tokens streamed since it was taken: `pendingThinking` of them are thinking
 * (its own line: it stays in the context while the turn runs), the rest count as messages.
 */
export function withStreamedTokens(base: ContextGauge, pending: number, costs: GaugeCosts, pendingThinking = 0): ContextGauge {
  const thinking = Math.min(Math.max(0, pendingThinking), pending);
  const breakdown = base.breakdown
    ? { ...base.breakdown, messages: base.breakdown.messages + pending - thinking, thinking: base.breakdown.thinking + thinking, total: base.breakdown.total + pending }
    : undefined;
  return contextGauge({ ...base, usedTokens: base.usedTokens + pending, ...(breakdown ? { breakdown } : {}), ...costFields(costs), estimated: true });
}

import { formatCost, priceUnknownHint } from '../model/cost';
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
  label: string;
  /** "cache 80% · $0.42" */
  secondary: string;
  /** Multi-line hover text: the numbers and the breakdown (each front end adds what a click does). */
  tooltip: string;
}

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

/** Previews of tool outputs too large for the conversation, saved whole on disk (tier 0), in the user's words. */
export const PERSISTED_PREVIEWS_LABEL = 'Previews of large outputs';

/**
 * The breakdown's categories in display order, with the names every front end uses. `whenPresent`:
 * a line only while it holds tokens (thinking is in the context only while its turn runs).
 */
export const BREAKDOWN_CATEGORIES = [
  { key: 'system', label: 'System prompt' },
  { key: 'instructions', label: 'Instructions' },
  { key: 'skills', label: 'Skills', whenPresent: true },
  { key: 'memory', label: 'Memory', whenPresent: true },
  { key: 'tools', label: 'Tool definitions' },
  { key: 'mcpTools', label: 'MCP tools' },
  { key: 'messages', label: 'Messages' },
  { key: 'thinking', label: 'Thinking', whenPresent: true },
  { key: 'toolResults', label: 'Tool results' },
  { key: 'summaries', label: 'Summaries and task list' },
  { key: 'persistedPreviews', label: PERSISTED_PREVIEWS_LABEL },
  { key: 'subagents', label: 'Subagent reports' },
] as const satisfies ReadonlyArray<{ key: Exclude<keyof ContextBreakdown, 'total'>; label: string; whenPresent?: true }>;

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
  const shown = level === 'over' ? '>100%' : `${percent}%`;
  const label = `${shown} · ${formatTokens(gauge.usedTokens)} / ${formatTokens(gauge.window)}`;
  const secondary = `cache ${Math.round(gauge.cacheReadShare * 100)}% · ${formatCost(gauge.sessionCostUsd, gauge.unpricedRequests)}`;
  const state =
    level === 'over'
      ? 'Over the window: the next request fails unless compaction frees room.'
      : level === 'past'
        ? 'Past the auto-compact threshold: the conversation is summarized before the next request.'
        : level === 'near'
          ? 'Near the auto-compact threshold.'
          : undefined;
  const share = (tokens: number) => `${Math.round((tokens / window) * 100)}%`;
  const lines = [
    `Context: ${gauge.estimated ? '~' : ''}${gauge.usedTokens.toLocaleString('en-US')} of ${gauge.window.toLocaleString('en-US')} tokens (${shown})`,
    `Reserved for the reply: ${gauge.outputReserve.toLocaleString('en-US')} · free: ${free.toLocaleString('en-US')}`,
    `Auto-compact at ${gauge.autoCompactThreshold.toLocaleString('en-US')} (${share(gauge.autoCompactThreshold)})`,
    ...(state ? [state] : []),
  ];
  if (gauge.breakdown) {
    lines.push('');
    for (const { key, label: name } of breakdownLines(gauge.breakdown)) lines.push(`${name}: ${formatTokens(gauge.breakdown[key])} (${share(gauge.breakdown[key])})`);
  }
  lines.push('', `Cache reads: ${Math.round(gauge.cacheReadShare * 100)}% of the last prompt · session cost ${formatCost(gauge.sessionCostUsd, gauge.unpricedRequests)}${subagentCost(gauge)}${webSearchCount(gauge)}`);
  const hint = priceUnknownHint(gauge.unpricedRequests);
  if (hint) lines.push(hint);
  return {
    percent,
    usedShare: used / window,
    reserveShare: reserve / window,
    freeShare: free / window,
    thresholdShare: Math.min(1, Math.max(0, gauge.autoCompactThreshold / window)),
    level,
    label,
    secondary,
    tooltip: lines.join('\n'),
  };
}

/** " (subagents $0.12)" when subagents spent part of the session's cost. */
export function subagentCost(gauge: Pick<GaugeNumbers, 'subagentCostUsd'>): string {
  return gauge.subagentCostUsd ? ` (subagents ${formatCost(gauge.subagentCostUsd)})` : '';
}

/** " (3 web searches)" when the session ran server-side searches: billed per search, apart from tokens. */
export function webSearchCount(gauge: Pick<GaugeNumbers, 'webSearches'>): string {
  const searches = gauge.webSearches ?? 0;
  return searches > 0 ? ` (${searches} web search${searches === 1 ? '' : 'es'})` : '';
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

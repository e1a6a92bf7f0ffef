import type { UsageCounts } from '../model/models';
import type { ContextBreakdown } from './breakdown';
import { CONTEXT_DEFAULTS } from './defaults';

/** The numbers behind the token gauge (DESIGN.md §2, token accounting), carried by `context` events. */
export interface ContextGauge {
  window: number;
  outputReserve: number;
  usedTokens: number;
  autoCompactThreshold: number;
  cacheReadShare: number;
  sessionCostUsd: number;
  /** Where the tokens go (estimates scaled to the measured total). */
  breakdown?: ContextBreakdown;
  /** True when usedTokens includes an estimate of what was appended since the last response. */
  estimated?: boolean;
}

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

/** Percent of the effective window (window minus output reserve) in use. */
export function usedPercent(gauge: ContextGauge): number {
  return Math.round((gauge.usedTokens / Math.max(1, gauge.window - gauge.outputReserve)) * 100);
}

/** Tokens a request's prompt held: uncached input plus cache reads and writes. */
export function promptTokensFromUsage(usage: UsageCounts): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
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

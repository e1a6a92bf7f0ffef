import type { UsageCounts } from '../model/models';

/** The numbers behind the token gauge (DESIGN.md §2, token accounting). */
export interface ContextGauge {
  window: number;
  outputReserve: number;
  usedTokens: number;
  autoCompactThreshold: number;
  cacheReadShare: number;
  sessionCostUsd: number;
}

export const AUTO_COMPACT_MARGIN = 13_000;

/** Percent of the effective window (window minus output reserve) in use. */
export function usedPercent(gauge: ContextGauge): number {
  return Math.round((gauge.usedTokens / Math.max(1, gauge.window - gauge.outputReserve)) * 100);
}

/** effective window - 13k by default, or a percent of the effective window when configured. */
export function autoCompactThreshold(window: number, outputReserve: number, percent?: number): number {
  const effective = Math.max(0, window - outputReserve);
  if (percent !== undefined) return Math.round((effective * Math.min(100, Math.max(1, percent))) / 100);
  return Math.max(0, effective - AUTO_COMPACT_MARGIN);
}

/** What a request's usage says the context holds: everything sent plus what the model wrote back. */
export function contextTokensFromUsage(usage: UsageCounts): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

export function cacheReadShare(usage: UsageCounts): number {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return prompt === 0 ? 0 : usage.cacheReadTokens / prompt;
}

/** Rough, fast token estimate for text not yet counted by the API (chars / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

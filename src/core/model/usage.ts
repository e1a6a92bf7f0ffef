/**
 * One definition each for arithmetic on a request's token counts: a zero, a running total, the
 * prompt's size, and the check that a decoded record is one. Totals (the session's meta, the fold,
 * a subagent's stats) and gauges (the engine's anchor, the bench) use these.
 */
import type { UsageCounts } from './models';

export const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const satisfies readonly (keyof UsageCounts)[];

export function zeroUsage(): UsageCounts {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/** Adds `usage` into `totals` (any record that counts tokens, e.g. one that also counts cost); returns `totals`. */
export function addUsage<T extends UsageCounts>(totals: T, usage: UsageCounts): T {
  for (const key of USAGE_KEYS) totals[key] += usage[key];
  // Searches are counted only where some ran, so totals without any keep their shape.
  if (usage.webSearchRequests) totals.webSearchRequests = (totals.webSearchRequests ?? 0) + usage.webSearchRequests;
  return totals;
}

/** Tokens a request's prompt held: uncached input plus cache reads and writes. */
export function promptTokensFromUsage(usage: UsageCounts): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Whether a decoded value (a transcript line, an event) carries all four counts as numbers. */
export function isUsageCounts(value: unknown): value is UsageCounts {
  if (typeof value !== 'object' || value === null) return false;
  const usage = value as Record<string, unknown>;
  return USAGE_KEYS.every((key) => typeof usage[key] === 'number');
}

/** How a token count reads everywhere: "950", "9.5k", "95k", "1.2M". */
export function formatTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 10_000) return `${Math.round(tokens / 1000)}k`;
  if (tokens >= 1000) return `${(tokens / 1000).toFixed(1)}k`;
  return String(Math.round(tokens));
}

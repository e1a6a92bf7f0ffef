/**
 * What each compression tier would free if it ran now, for the context breakdown document
 * (src/frontends/contextBreakdown.ts renders it). Pure:
 * tiers 1-3 are planned with `planTierEdits` one tier at a time (its utilization gate forced
 * open), so the user sees each tier's effect alone and whether its gate is met. Nothing is applied.
 */
import type { ContextDefaults } from './defaults';
import { EDIT_TIERS, type TierName, type ToolResultRef } from './tiers';
import type { UserText } from '../texts/userText';

export interface TierPreview {
  tier: TierName;
  /** 1 budget, 2 snip, 3 microcompact: the tier numbers the breakdown and the docs use. */
  level: number;
  /** Tool results the tier would edit. */
  items: number;
  /** Estimated tokens it would free. */
  tokens: number;
  /** True when its gate is met now (the engine still batches it by cache economics). */
  due: boolean;
  /** When the tier runs (its thresholds as a kind with data). */
  when: UserText;
}

/**
 * Tier 4 as automatic compaction would run now. The summary's length is only known once the model
 * writes it, so what remains is a range: without it (min) and with a summary of its full reply budget (max).
 */
export type SummarySavings =
  | {
      possible: true;
      messagesSummarized: number;
      messagesKept: number;
      /** The live view from the kept messages on (system and tools included). */
      keptTokens: number;
      /** Recently read files restored after the summary, estimated from their last reads. */
      restoredTokens: number;
      summaryMaxTokens: number;
      tokensAfter: { min: number; max: number };
      frees: { min: number; max: number };
    }
  | { possible: false; reason: UserText };

export interface TierSavings {
  usedTokens: number;
  tiers: TierPreview[];
  summary: SummarySavings;
}

/** Tiers 1-3, each planned alone with its gate forced open. `utilization` is used / (window - reserve), as the engine's gates use it. */
export function previewTierSavings(
  refs: readonly ToolResultRef[],
  utilization: number,
  cacheCold: boolean,
  settings: ContextDefaults,
  originalText: (ref: ToolResultRef) => string,
  tokensPerChar: number,
): TierPreview[] {
  const candidates = refs.slice(0, Math.max(0, refs.length - settings.keepRecentResults));
  return [...EDIT_TIERS]
    .sort((a, b) => a.level - b.level)
    .map((tier) => {
      const { forced, due, when } = tier.preview(settings, utilization, cacheCold);
      // Planned alone (no other tier competes for a result), as if the cache were warm.
      const plan = tier.plan({ refs, candidates, utilization, cacheCold: false, settings: { ...settings, ...forced }, originalText }).filter((item) => item !== undefined);
      const chars = plan.reduce((sum, item) => sum + item.savedChars, 0);
      return { tier: tier.name, level: tier.level, items: plan.length, tokens: Math.round(chars * tokensPerChar), due, when };
    });
}

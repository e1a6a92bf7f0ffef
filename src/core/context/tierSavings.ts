/**
 * What each compression tier would free if it ran now, for the context breakdown document. Pure:
 * tiers 1-3 are planned with `planTierEdits` one tier at a time (its utilization gate forced
 * open), so the user sees each tier's effect alone and whether its gate is met. Nothing is applied.
 */
import type { ContextDefaults } from './defaults';
import { planTierEdits, type TierName, type TierSettings, type ToolResultRef } from './tiers';

export interface TierPreview {
  tier: TierName;
  /** 1 budget, 2 snip, 3 microcompact: the tier numbers the breakdown and the docs use. */
  level: 1 | 2 | 3;
  /** Tool results the tier would edit. */
  items: number;
  /** Estimated tokens it would free. */
  tokens: number;
  /** True when its gate is met now (the engine still batches it by cache economics). */
  due: boolean;
  /** When the tier runs, in words. */
  when: string;
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
  | { possible: false; reason: string };

export interface TierSavings {
  usedTokens: number;
  tiers: TierPreview[];
  summary: SummarySavings;
}

const NEVER = Number.POSITIVE_INFINITY;
const ALWAYS = -1;

/** Tiers 1-3, each planned alone. `utilization` is used / (window - reserve), as the engine's gates use it. */
export function previewTierSavings(
  refs: readonly ToolResultRef[],
  utilization: number,
  cacheCold: boolean,
  settings: ContextDefaults,
  originalText: (ref: ToolResultRef) => string,
  tokensPerChar: number,
): TierPreview[] {
  const base: TierSettings = {
    budgetSoftUtilization: settings.budgetSoftUtilization,
    budgetSoftChars: settings.budgetSoftChars,
    budgetHardUtilization: settings.budgetHardUtilization,
    budgetHardChars: settings.budgetHardChars,
    snipUtilization: settings.snipUtilization,
    snipKeepPerSearchKind: settings.snipKeepPerSearchKind,
    keepRecentResults: settings.keepRecentResults,
    clearUtilization: settings.clearUtilization,
  };
  const only = (overrides: Partial<TierSettings>): TierSettings => ({
    ...base,
    budgetSoftUtilization: NEVER,
    budgetHardUtilization: NEVER,
    snipUtilization: NEVER,
    clearUtilization: NEVER,
    ...overrides,
  });
  const pct = (share: number) => `${Math.round(share * 100)}%`;
  const run = (tier: TierName, level: 1 | 2 | 3, tierSettings: TierSettings, due: boolean, when: string): TierPreview => {
    const plan = planTierEdits(refs, utilization, false, tierSettings, originalText).filter((item) => item.tier === tier);
    const chars = plan.reduce((sum, item) => sum + item.savedChars, 0);
    return { tier, level, items: plan.length, tokens: Math.round(chars * tokensPerChar), due, when };
  };
  // Tier 1 trims to the size the current utilization selects (the soft size below the hard gate).
  const hard = utilization > settings.budgetHardUtilization;
  const trimTo = (hard ? settings.budgetHardChars : settings.budgetSoftChars).toLocaleString('en-US');
  return [
    run(
      'budget',
      1,
      only({ budgetSoftUtilization: ALWAYS, budgetHardUtilization: hard ? ALWAYS : NEVER }),
      utilization > settings.budgetSoftUtilization,
      `above ${pct(settings.budgetSoftUtilization)} / ${pct(settings.budgetHardUtilization)} of the usable window; trims old results to ${trimTo} characters`,
    ),
    run('snip', 2, only({ snipUtilization: ALWAYS }), utilization > settings.snipUtilization, `above ${pct(settings.snipUtilization)} of the usable window`),
    run(
      'microcompact',
      3,
      only({ clearUtilization: ALWAYS }),
      cacheCold || utilization > settings.clearUtilization,
      `when the prompt cache is cold, or above ${pct(settings.clearUtilization)} of the usable window; keeps the ${settings.keepRecentResults} newest`,
    ),
  ];
}

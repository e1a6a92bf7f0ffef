/** What the core says about the context engine: tier actions, compactions, undo, a learned window, as kinds with data (src/core/texts/userText.ts); src/frontends/words/context.ts words them. */
import type { NestedText, NoData } from './value';

export interface ContextTexts {
  /** Tier 0 cut a result to its head and tail. */
  'context.truncated': { tool: string };
  /** Tier 0 saved a result to a file; `recall`: the call that returns it. */
  'context.persisted': { tool: string; id: string; file: string; recall: string };
  /** Tiers 1-3 edited old results, and why (a `context.why…` kind). */
  'context.cleared': { count: number; reason: NestedText };
  'context.snipped': { count: number; reason: NestedText };
  'context.trimmed': { count: number; reason: NestedText };
  'context.whyCacheCold': NoData;
  'context.whyOverThreshold': NoData;
  'context.whyReadsPaid': NoData;
  /** A tier's edits as a resumed chat shows them (the transcript keeps no reason). */
  'context.tierReplayed': { count: number };
  /** A compaction failed: `reason` is a kind, or the error's own words. */
  'context.compactionFailed': { trigger: string; reason: NestedText };
  'context.compactionWaiting': NoData;
  /** Why a summary could not be made (a compaction's failure reason). */
  'context.summaryNoSection': NoData;
  'context.summaryEmptySection': NoData;
  'context.summaryCannotFit': NoData;
  'context.summaryDidNotFit': { tries: number };
  /** The failure's next step: the circuit breaker is open (it names each front end's way to compact). */
  'context.breakerOpenHint': { failures: number };
  'context.compactionRetryHint': NoData;
  /** A manual compaction's failure and its next step, as /compact and the dialog show it. */
  'context.compactionFailedOutcome': { failure: NestedText; hint: NestedText };
  'context.compactionCancelled': NoData;
  'context.compacted': { trigger: string; before: number; after: number; summarized: number; kept: number; restored: number };
  /** The preview of a manual compaction, in one line. */
  'context.compactPreview': { before: number; after: number; summarized: number; kept: number; restored: number };
  'context.conversationEmpty': NoData;
  'context.nothingToCompact': NoData;
  'context.compactWhenTurnEnds': NoData;
  'context.nothingToUndo': NoData;
  /** The undo would put the view over the auto-compact threshold. */
  'context.undoOverThreshold': { tokens: number; threshold: number; window: number };
  'context.undone': { before: number; after: number };
  'context.undoWhileWorking': NoData;
  'context.undoUnsupported': NoData;
  /** The server proved a smaller window; `value`: the number to set (as typed, not formatted). */
  'context.windowLearned': { window: number; assumed: number; value: string; setting: NestedText };
  /** The window cannot hold the system prompt, the tools and the reply reserve. */
  'context.windowTooSmall': { window: number; reserve: number; base: number; windowSetting: NestedText; outputSetting: NestedText };
  'context.windowTooSmallHint': NoData;
  /** What tiers 1-3 do, as the context breakdown names its steps. */
  'context.tierClearTitle': NoData;
  'context.tierSnipTitle': NoData;
  'context.tierTrimTitle': NoData;
  /** When each tier runs (the breakdown's "when it runs"): percents of the usable window, as whole numbers. */
  'context.tierClearWhen': { percent: number; keep: number };
  'context.tierSnipWhen': { percent: number };
  'context.tierTrimWhen': { soft: number; hard: number; chars: number };
  /** Why the breakdown cannot preview a summary now. */
  'context.summaryWaitsForTool': NoData;
  'context.summaryNothingYet': NoData;
}

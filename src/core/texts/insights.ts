/** What the core says about the session's insights: actions, labels, details, as kinds with data (src/core/texts/userText.ts); src/frontends/words/insights.ts words them. */
import type { NestedText, NoData } from './value';

/** A context's size before and after an action (estimated tokens). */
type Sizes = { before: number; after: number };

/**
 * Each action the insights panel marks: a one-line label and a detail for the hover and the table
 * (the panel's legend names each kind itself, in its own table).
 */
export interface InsightTexts {
  // A tier's edits: the label counts the results; the detail names the tier and the sizes.
  'insights.trimmed': { count: number };
  'insights.snipped': { count: number };
  'insights.cleared': { count: number };
  'insights.tier.budget': NoData;
  'insights.tier.snip': NoData;
  'insights.tier.microcompact': NoData;
  /** `label` is the action's label, `tier` an `insights.tier.*`. */
  'insights.tierEditDetail': Sizes & { label: NestedText; tier: NestedText };
  // A large output saved to a file (`tool`: the tool's name; `file`: where it went).
  'insights.saved': { tool: string };
  'insights.savedDetail': { tool: string; count: number; file: string };
  'insights.savedDetailSized': Sizes & { tool: string; count: number; file: string };
  // A compaction (summary) or a drop of the oldest messages.
  'insights.summarized': { count: number };
  'insights.dropped': { count: number };
  'insights.messages': { count: number };
  'insights.files': { count: number };
  /** `trigger` is an `insights.trigger.*`, `kept` an `insights.messages`. */
  'insights.compactionDetail': Sizes & { label: NestedText; trigger: NestedText; kept: NestedText };
  /** The same with the files read again after it (`files`: an `insights.files`). */
  'insights.compactionDetailRestored': Sizes & { label: NestedText; trigger: NestedText; kept: NestedText; files: NestedText };
  /** A detail and the focus the user (or the model) gave the summary: their words, shown as given. */
  'insights.withFocus': { detail: NestedText; focus: string };
  'insights.trigger.auto': NoData;
  'insights.trigger.manual': NoData;
  'insights.trigger.tool': NoData;
  'insights.trigger.reactive': NoData;
  'insights.trigger.drop': NoData;
  'insights.undo': NoData;
  'insights.undoDetail': Sizes;
  'insights.failed': NoData;
  /** `reason`: what the failure said (the API's or the summary's text, shown as it came). */
  'insights.failedDetail': { trigger: NestedText; reason: string };
  'insights.window': { window: number };
  'insights.windowDetail': { window: number; assumed: number };
  'insights.restore': { checkpoint: string };
  'insights.restoreDetailWithFiles': { checkpoint: string };
  'insights.restoreDetailFilesKept': { checkpoint: string };
}

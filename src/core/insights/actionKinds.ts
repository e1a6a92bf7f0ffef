/**
 * The kinds of action the insights panel marks, and how each reads in its legend: the user's words,
 * not the engine's tier numbers. A leaf (no imports), so the panel's bundle can show them.
 */
export const INSIGHTS_ACTION_KINDS = ['trim', 'snip', 'clear', 'saved', 'compaction', 'drop', 'undo', 'failed', 'window', 'restore'] as const;
export type InsightsActionKind = (typeof INSIGHTS_ACTION_KINDS)[number];

export const INSIGHTS_ACTION_NAMES: Readonly<Record<InsightsActionKind, string>> = {
  trim: 'Trimmed old tool results',
  snip: 'Snipped superseded reads and searches',
  clear: 'Cleared old tool results',
  saved: 'Saved a large output to a file',
  compaction: 'Summarized older messages',
  drop: 'Dropped the oldest messages',
  undo: 'Undid a summary',
  failed: 'A summary failed',
  window: 'Learned a smaller window',
  restore: 'Restored a checkpoint',
};

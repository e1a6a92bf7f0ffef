/**
 * The kinds of action the insights panel marks (its legend names each in the panel's own words,
 * WEBVIEW_STRINGS' `insights.action.*`). A leaf (no imports), so the panel's bundle can use them.
 */
export const INSIGHTS_ACTION_KINDS = ['trim', 'snip', 'clear', 'saved', 'compaction', 'drop', 'undo', 'failed', 'window', 'restore'] as const;
export type InsightsActionKind = (typeof INSIGHTS_ACTION_KINDS)[number];

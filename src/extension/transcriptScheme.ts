/**
 * The URI scheme of the archived-transcript tabs (transcriptDocuments.ts), which the manifest's
 * when-clauses test (manifest.ts). Its own module, so the extension's bundle does not take in the
 * manifest's tables with it.
 */
export const TRANSCRIPT_SCHEME = 'evergreen-transcript';

/** The rendered transcript's webview type: `activeWebviewPanelId` in the manifest's when-clauses. */
export const TRANSCRIPT_VIEW_TYPE = 'evergreen-transcript-view';

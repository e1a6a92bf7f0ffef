/**
 * What a manual compaction would do, said before it runs ("Compact Conversation" shows it), and
 * the undo point that lets the newest compaction be taken back. Estimates only: the preview sends
 * no request and records nothing.
 */
import type { CompactionRecord } from '../storage/transcript';

export interface CompactionPreview {
  /** False when there is nothing to compact; `message` says why. */
  ok: boolean;
  message: string;
  focus: string | undefined;
  /** Estimated tokens of the context now. */
  tokensBefore: number;
  /** Messages (and their tokens) the summary replaces; an earlier summary counts among them. */
  summarized: { messages: number; tokens: number };
  /** The newest messages, sent verbatim after the summary. */
  kept: { messages: number; tokens: number };
  /** Recently read files re-read from disk after the summary (each capped). */
  restoredFiles: Array<{ path: string; tokens: number }>;
  /** The summary is written by the model: at most this many tokens. */
  summaryMaxTokens: number;
  /** Estimated tokens after: system + tools + kept messages + restored files, without the summary. */
  tokensAfter: number;
}

/**
 * The boundary a compaction replaced, so it can be undone. One level only: the newest compaction
 * (not a drop of old rounds, which only happens when the API refused the context as too long).
 */
export interface UndoPoint {
  compactionId: string;
  /** The boundary in effect before that compaction (undefined: the conversation was whole). */
  previous: CompactionRecord | undefined;
}

export interface UndoOutcome {
  ok: boolean;
  message: string;
}

const tokens = (value: number): string => `~${Math.round(value).toLocaleString('en-US')}`;

/** The preview as lines of plain text (the VS Code dialog's detail, the CLI). */
export function describeCompactionPreview(preview: CompactionPreview): string {
  if (!preview.ok) return preview.message;
  const lines = [
    `Context now: ${tokens(preview.tokensBefore)} tokens.`,
    `Summarized: ${preview.summarized.messages} message(s), ${tokens(preview.summarized.tokens)} tokens.`,
    `Kept verbatim: ${preview.kept.messages === 0 ? 'none (everything is summarized)' : `the newest ${preview.kept.messages} message(s), ${tokens(preview.kept.tokens)} tokens`}.`,
    `Restored: ${preview.restoredFiles.length === 0 ? 'no files' : preview.restoredFiles.map((file) => `${file.path} (${tokens(file.tokens)})`).join(', ')}.`,
    `After: ${tokens(preview.tokensAfter)} tokens + the summary (at most ${preview.summaryMaxTokens.toLocaleString('en-US')}).`,
  ];
  if (preview.focus) lines.push(`Focus: ${preview.focus}`);
  lines.push('The full conversation stays in the transcript; "Undo Last Compaction" brings it back while it still fits.');
  return lines.join('\n');
}

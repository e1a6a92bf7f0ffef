/**
 * What a manual compaction would do, said before it runs ("Compact Conversation" shows it), and
 * the undo point that lets the newest compaction be taken back. Estimates only: the preview sends
 * no request and records nothing.
 */
import type { CompactionRecord } from '../storage/transcript';
import type { UserText } from '../texts/userText';

/** Why nothing can be compacted now: an empty conversation, a tool call still waiting, nothing left to shorten. */
export type CompactionBlocker = 'empty' | 'waiting' | 'nothing';

/**
 * The preview is data, and each front end words it (VS Code's dialog: extension/compactDialog.ts);
 * `message` is the preview, or why it cannot run, in one line.
 */
export interface CompactionPreview {
  /** False when there is nothing to compact; `blocker` says why (and `message`, in a sentence). */
  ok: boolean;
  blocker?: CompactionBlocker;
  message: UserText;
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
  message: UserText;
}

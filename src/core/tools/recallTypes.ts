/**
 * The shapes `recall` (tools/recall.ts) and the history it reads (recall/recallIndex.ts) share. A
 * module of its own with no imports, so tools/types.ts can name them without an import cycle.
 */

/** Where a recalled text lives: the transcript can store a reference to it instead of a second copy. */
export type RecalledSource =
  /** The tool result `toolUseId` in this session's own transcript, as its message entry holds it. */
  | { kind: 'message'; toolUseId: string }
  /** A saved output (tier 0's tool-results/ file), whole. */
  | { kind: 'file'; file: string }
  /** Anywhere else (a subagent's transcript): the transcript keeps a copy. */
  | { kind: 'copy' };

/** What a recall result is made of: `content === head + text(source).slice(start, end) + tail`. */
export interface RecalledSlice {
  source: RecalledSource;
  start: number;
  end: number;
  head: string;
  tail: string;
}

/** One earlier tool result, found. */
export interface RecallFound {
  kind: 'found';
  toolUseId: string;
  /** The tool that produced it, when its call is in the history. */
  toolName?: string;
  ts: string;
  /** The complete content as text (non-text parts as `[image]`). */
  text: string;
  /** Where `text` lives, so the transcript can store a reference instead of a copy. */
  source: RecalledSource;
  /** Said before the content (a deleted saved output, a cut result): empty when the content is simply exact. */
  notes: string[];
}

export type RecallLookup = RecallFound | { kind: 'missing'; message: string };

/** A search: plain text (case-insensitive) or a JavaScript regular expression. */
export type RecallQuery = { kind: 'text'; text: string } | { kind: 'regex'; pattern: string; flags: string };

export interface RecallHit {
  /** How to name the place: a tool-use id, or a message position such as `message #12`. */
  ref: string;
  /** Set when the place is a tool call or result: recall {"id": toolUseId} returns it whole. */
  toolUseId?: string;
  what: 'user' | 'assistant' | 'tool call' | 'tool result' | 'summary';
  toolName?: string;
  /** A subagent's transcript (its child id), absent for the session's own. */
  subagent?: string;
  ts: string;
  /** Matching lines in this place. */
  matches: number;
  excerpt: string;
}

export interface RecallSearchOutcome {
  /** Matching lines in the whole history. */
  totalMatches: number;
  /** Places (messages, calls, results, summaries) with at least one match. */
  totalPlaces: number;
  /** The best `limit` places, best first. */
  hits: RecallHit[];
  /** Lines of a transcript that could not be read and were skipped. */
  problems: string[];
}

/** The session's history as `recall` reads it; the agent provides it (ToolContext.recall). */
export interface RecallSource {
  lookup(toolUseId: string, signal: AbortSignal): Promise<RecallLookup>;
  search(query: RecallQuery, limit: number, signal: AbortSignal): Promise<RecallSearchOutcome>;
}


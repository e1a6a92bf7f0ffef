/**
 * The typed transcript (docs/architecture.md, "Storage layout"): one JSON object a line, append-only. Every engine
 * decision is an entry, so `foldTranscript(entries)` rebuilds exactly what the model saw.
 */
import { IMAGE_MEDIA_TYPES } from '../model/images';
import type { MessageParam } from '../model/messages';
import type { UsageCounts } from '../model/models';
import type { TodoItem } from '../todos/todos';
import type { RecalledSlice } from '../tools/recallTypes';

/** A lossy edit of one old tool result in the live view (tiers 1-3); the canonical result stays whole. */
export type ToolResultEdit =
  | { toolUseId: string; action: 'trim'; maxChars: number }
  | { toolUseId: string; action: 'snip'; reason: string }
  | { toolUseId: string; action: 'clear' };

/** The tiers that edit old tool results (context/tiers.ts has each one's planner). */
export const TIER_NAMES = ['budget', 'snip', 'microcompact'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export type CompactionTrigger = 'auto' | 'manual' | 'tool' | 'reactive' | 'drop';

export interface RestoredFile {
  path: string;
  content: string;
}

export interface CompactionStats {
  tokensBefore: number;
  tokensAfter: number;
  /** Canonical messages no longer sent verbatim after this boundary. */
  messagesSummarized: number;
  messagesKept: number;
  /** Requests the summary took (fitting retries included); 0 for a deterministic drop. */
  summaryRequests: number;
}

/**
 * A compaction boundary: from now on the live view is the summary (plus restored files) followed
 * by the canonical messages from `keptFrom` on. A `drop` boundary (prompt-too-long recovery)
 * carries the previous summary forward and only moves `keptFrom`.
 */
export interface CompactionRecord {
  id: string;
  trigger: CompactionTrigger;
  focus?: string;
  /** The summary text without its <analysis> part; absent when nothing was ever summarized. */
  summary?: string;
  keptFrom: number;
  restoredFiles: RestoredFile[];
  /** A drop's dropped user prompts, carried verbatim so the live view never loses what the user asked. */
  userMessages?: string[];
  /** The task list (todo_write) as of this boundary, restored next to the summary; absent when there was none. */
  todos?: TodoItem[];
  /**
   * A drop's dropped tool calls (id and tool name), listed in the live view so each stays one
   * `recall` away; past a bound only the newest are listed and `omitted` counts the rest.
   */
  droppedCalls?: { calls: Array<{ id: string; name: string }>; omitted: number };
  stats: CompactionStats;
}

/** Where a request stood, so a resumed session places its cache breakpoints and token anchor as before. */
export interface RequestMark {
  /** Canonical messages that existed when the request was sent. */
  canonicalCount: number;
  /** Messages in the live view that was sent. */
  liveCount: number;
  /** Characters of that live view (the token anchor's denominator). */
  liveChars: number;
  /** Cache reads already paid on tokens pending tier edits would free (the batching rule's account). */
  pendingWaste?: number;
}

/**
 * A `recall` result stored as a reference (storage/recalledEntries.ts): the message entry's tool_result
 * `toolUseId` holds a short stub, and reading the transcript puts back `head + source.slice(start, end) + tail`.
 */
export type RecallReference = RecalledSlice & { toolUseId: string };

export type TranscriptEntry =
  /** provider and model: who wrote an assistant message (absent in transcripts older than the provider seam, and on user messages). */
  /** `recalls`: tool results of this message stored as references to text already on disk, not as copies. */
  /** `checkpoint`: on a user message, the checkpoint taken just before it (what its Restore goes back to). */
  | { type: 'message'; ts: string; message: MessageParam; provider?: string; model?: string; checkpoint?: number; recalls?: RecallReference[] }
  /** `childId`: a subagent's request, counted in its parent's totals too (the child's transcript has it with its request mark). */
  /** `priceUnknown`: the model had no known price (costUsd is 0, not a figure). */
  | { type: 'usage'; ts: string; model: string; usage: UsageCounts; costUsd: number; priceUnknown?: true; request?: RequestMark; childId?: string }
  | { type: 'compaction'; ts: string; compaction: CompactionRecord }
  /**
   * "Undo Last Compaction": the live view goes back to the boundary in effect before compaction
   * `compactionId` (the canonical history never changed); tokens are the estimates before -> after.
   */
  | { type: 'compaction_undo'; ts: string; compactionId: string; tokensBefore: number; tokensAfter: number }
  | { type: 'tier_edit'; ts: string; tier: TierName; edits: ToolResultEdit[]; tokensBefore: number; tokensAfter: number }
  /** `tokensBefore`/`tokensAfter`: the chat note's figures (absent in transcripts written before they were recorded). */
  | { type: 'persisted_output'; ts: string; toolUseId: string; toolName: string; file: string; bytes: number; lines: number; tokensBefore?: number; tokensAfter?: number }
  | { type: 'repair'; ts: string; repairs: number; reason: string }
  /** The session's system prompt, as sent (a resume sends the same bytes, so the cached prefix stays). */
  | { type: 'system_prompt'; ts: string; text: string }
  /** The API counted a prompt (a compacted view, or a refused request): the token estimate re-anchors on it. */
  | { type: 'token_anchor'; ts: string; anchor: TokenAnchor }
  /** A compaction failed; `counts`: it counts toward the circuit breaker (automatic ones do, asked-for ones do not). */
  | { type: 'compaction_failed'; ts: string; trigger: CompactionTrigger; reason: string; counts: boolean }
  /** A server proved a smaller window than the `assumed` one (its "prompt is too long" named it); the budget shrinks to it. */
  | { type: 'window_learned'; ts: string; window: number; assumed: number }
  /** The model's `compact` tool asked for a compaction: it runs before the next request, once every tool call has its result. */
  | { type: 'compact_scheduled'; ts: string; focus?: string }
  /**
   * The conversation went back to checkpoint `checkpoint` (issue 17): every entry from index
   * `toEntry` (0-based among the transcript's valid entries) up to this one is no longer part of
   * the conversation. They stay on disk and in the archived transcript; their cost stays counted.
   * `files`: whether the workspace's files were restored too.
   */
  | { type: 'rewind'; ts: string; checkpoint: number; toEntry: number; files: 'restored' | 'kept' }
  /** "Undo" right after a restore: the rewind at entry index `rewindEntry` no longer applies (only while nothing came after it). */
  | { type: 'rewind_undone'; ts: string; rewindEntry: number }
  /** Display-only records (they change no state): what the chat showed about subagents. */
  | { type: 'event'; ts: string; name: DisplayRecordName; data: Record<string, unknown> };

/** The names of display-only `event` entries; each is decoded with a validator where it is shown. */
export const DISPLAY_RECORD_NAMES = ['subagent_started', 'subagent_finished', 'subagent_of'] as const;
export type DisplayRecordName = (typeof DISPLAY_RECORD_NAMES)[number];

/** The token estimate's anchor: the mark of a request and the prompt tokens the API counted for it. */
export interface TokenAnchor {
  mark: RequestMark;
  promptTokens: number;
  atMs: number;
}

export type TranscriptEntryType = TranscriptEntry['type'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/** An image block's source as the APIs take it (a wrong one would fail every later request). */
function isImageSource(source: unknown): boolean {
  if (!isRecord(source)) return false;
  if (source.type === 'url') return typeof source.url === 'string';
  return source.type === 'base64' && typeof source.data === 'string' && (IMAGE_MEDIA_TYPES as readonly unknown[]).includes(source.media_type);
}

/** A tool_result's content: a string or text/image blocks. */
function isToolResultContent(value: unknown): boolean {
  if (value === undefined || typeof value === 'string') return true;
  return Array.isArray(value) && value.every((part) => isRecord(part) && ((part.type === 'text' && typeof part.text === 'string') || (part.type === 'image' && isImageSource(part.source))));
}

/**
 * Every block a message of ours can hold, with the fields the API (and our code) rely on: a block
 * of the wrong shape would fail every later request, or throw while the history is rebuilt.
 */
function isContentBlock(block: unknown, role: 'user' | 'assistant'): boolean {
  if (!isRecord(block)) return false;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' && (block.citations === undefined || (role === 'assistant' && Array.isArray(block.citations) && block.citations.every(isWebCitation)));
    case 'image':
      return role === 'user' && isImageSource(block.source);
    // Anthropic's web search (issue 30): kept exactly, so a resumed turn can send them back.
    case 'server_tool_use':
      return role === 'assistant' && typeof block.id === 'string' && block.name === 'web_search' && isRecord(block.input);
    case 'web_search_tool_result':
      return role === 'assistant' && typeof block.tool_use_id === 'string' && isWebSearchContent(block.content);
    case 'tool_use':
      return role === 'assistant' && typeof block.id === 'string' && TOOL_USE_ID.test(block.id) && typeof block.name === 'string' && isRecord(block.input);
    case 'tool_result':
      return (
        role === 'user' &&
        typeof block.tool_use_id === 'string' &&
        TOOL_USE_ID.test(block.tool_use_id) &&
        (block.is_error === undefined || typeof block.is_error === 'boolean') &&
        isToolResultContent(block.content)
      );
    case 'thinking':
      return role === 'assistant' && typeof block.thinking === 'string' && typeof block.signature === 'string';
    case 'redacted_thinking':
      return role === 'assistant' && typeof block.data === 'string';
    default:
      return false;
  }
}

function isWebCitation(value: unknown): boolean {
  return isRecord(value) && value.type === 'web_search_result_location' && typeof value.url === 'string' && typeof value.encrypted_index === 'string' && typeof value.cited_text === 'string' && (value.title === null || typeof value.title === 'string');
}

function isWebSearchContent(value: unknown): boolean {
  if (isRecord(value)) return value.type === 'web_search_tool_result_error' && typeof value.error_code === 'string';
  return Array.isArray(value) && value.every((result) => isRecord(result) && result.type === 'web_search_result' && typeof result.url === 'string' && typeof result.title === 'string' && typeof result.encrypted_content === 'string');
}

function isMessage(value: unknown): value is MessageParam {
  if (!isRecord(value)) return false;
  const role = value.role;
  if (role !== 'user' && role !== 'assistant') return false;
  if (typeof value.content === 'string') return true;
  return Array.isArray(value.content) && value.content.every((block) => isContentBlock(block, role));
}

function isRecallReference(value: unknown): value is RecallReference {
  if (!isRecord(value) || typeof value.toolUseId !== 'string' || typeof value.head !== 'string' || typeof value.tail !== 'string') return false;
  const { start, end, source } = value;
  if (typeof start !== 'number' || typeof end !== 'number' || !Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start) return false;
  if (!isRecord(source)) return false;
  return (source.kind === 'message' && typeof source.toolUseId === 'string') || (source.kind === 'file' && typeof source.file === 'string');
}

function isEdit(value: unknown): value is ToolResultEdit {
  if (!isRecord(value) || typeof value.toolUseId !== 'string') return false;
  if (value.action === 'trim') return typeof value.maxChars === 'number' && value.maxChars >= 0;
  if (value.action === 'snip') return typeof value.reason === 'string';
  return value.action === 'clear';
}

/** Checks an entry's shape on read; a wrong one is reported and skipped, never fatal. Returns a problem or undefined. */
export function transcriptEntryProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'not a JSON object';
  if (typeof value.ts !== 'string') return 'missing "ts"';
  switch (value.type) {
    case 'message':
      if (!isMessage(value.message)) return 'a message entry without a valid message';
      if (value.provider !== undefined && typeof value.provider !== 'string') return 'a message entry whose "provider" is not a string';
      if (value.model !== undefined && typeof value.model !== 'string') return 'a message entry whose "model" is not a string';
      if (value.recalls !== undefined && !(Array.isArray(value.recalls) && value.recalls.every(isRecallReference))) return 'a message entry with a malformed recall reference';
      return undefined;
    case 'usage':
      return isRecord(value.usage) && typeof value.costUsd === 'number' ? undefined : 'a usage entry without usage';
    case 'compaction': {
      const record = value.compaction;
      if (!isRecord(record) || typeof record.keptFrom !== 'number' || !Array.isArray(record.restoredFiles) || !isRecord(record.stats)) return 'a malformed compaction entry';
      return undefined;
    }
    case 'compaction_undo':
      return typeof value.compactionId === 'string' && typeof value.tokensBefore === 'number' && typeof value.tokensAfter === 'number' ? undefined : 'a malformed compaction-undo entry';
    case 'tier_edit':
      if (typeof value.tier !== 'string' || !(TIER_NAMES as readonly string[]).includes(value.tier)) return `a tier edit of an unknown tier ${JSON.stringify(value.tier)}`;
      return Array.isArray(value.edits) && value.edits.every(isEdit) ? undefined : 'a malformed tier edit';
    case 'persisted_output':
      return typeof value.toolUseId === 'string' && typeof value.file === 'string' ? undefined : 'a malformed persisted-output entry';
    case 'repair':
      return typeof value.repairs === 'number' ? undefined : 'a malformed repair entry';
    case 'system_prompt':
      return typeof value.text === 'string' ? undefined : 'a system-prompt entry without its text';
    case 'token_anchor':
      return tokenAnchorOf(value.anchor) ? undefined : 'a malformed token-anchor entry';
    case 'compaction_failed':
      return typeof value.trigger === 'string' && COMPACTION_TRIGGERS.includes(value.trigger as CompactionTrigger) && typeof value.reason === 'string' && typeof value.counts === 'boolean'
        ? undefined
        : 'a malformed compaction-failed entry';
    case 'window_learned':
      return isPositive(value.window) && isPositive(value.assumed) ? undefined : 'a malformed window-learned entry';
    case 'compact_scheduled':
      return value.focus === undefined || typeof value.focus === 'string' ? undefined : 'a compact-scheduled entry whose focus is not a string';
    case 'rewind':
      return Number.isInteger(value.checkpoint) && Number.isInteger(value.toEntry) && (value.toEntry as number) >= 0 && (value.files === 'restored' || value.files === 'kept')
        ? undefined
        : 'a malformed rewind entry';
    case 'rewind_undone':
      return Number.isInteger(value.rewindEntry) && (value.rewindEntry as number) >= 0 ? undefined : 'a malformed rewind-undone entry';
    case 'event':
      if (typeof value.name !== 'string' || !isRecord(value.data)) return 'a malformed event entry';
      return (DISPLAY_RECORD_NAMES as readonly string[]).includes(value.name) || LEGACY_EVENT_NAMES.has(value.name) ? undefined : `unknown event ${JSON.stringify(value.name)}`;
    default:
      return `unknown entry type ${JSON.stringify(value.type)}`;
  }
}

const COMPACTION_TRIGGERS: readonly CompactionTrigger[] = ['auto', 'manual', 'tool', 'reactive', 'drop'];

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/** A recorded anchor, checked field by field (undefined when malformed). */
export function tokenAnchorOf(value: unknown): TokenAnchor | undefined {
  if (!isRecord(value) || !isRecord(value.mark)) return undefined;
  const { promptTokens, atMs, mark } = value;
  if (typeof promptTokens !== 'number' || typeof atMs !== 'number') return undefined;
  if (typeof mark.canonicalCount !== 'number' || typeof mark.liveCount !== 'number' || typeof mark.liveChars !== 'number') return undefined;
  const pendingWaste = typeof mark.pendingWaste === 'number' ? { pendingWaste: mark.pendingWaste } : {};
  return { mark: { canonicalCount: mark.canonicalCount, liveCount: mark.liveCount, liveChars: mark.liveChars, ...pendingWaste }, promptTokens, atMs };
}

/**
 * Transcripts written before the state-changing records got entry types of their own kept them as
 * `event` entries with these names; `parseTranscriptEntry` turns them into the typed entries.
 */
const LEGACY_EVENT_NAMES: ReadonlySet<string> = new Set(['system_prompt', 'token_anchor', 'compaction_failed', 'context_window_learned']);

/** A legacy `event` entry as its typed entry; undefined when its data is malformed (reported and skipped like any bad line). */
function upgradeLegacyEvent(ts: string, name: string, data: Record<string, unknown>): TranscriptEntry | undefined {
  switch (name) {
    case 'system_prompt':
      return typeof data.text === 'string' ? { type: 'system_prompt', ts, text: data.text } : undefined;
    case 'token_anchor': {
      const anchor = tokenAnchorOf(data);
      return anchor ? { type: 'token_anchor', ts, anchor } : undefined;
    }
    case 'compaction_failed': {
      const trigger = typeof data.trigger === 'string' && COMPACTION_TRIGGERS.includes(data.trigger as CompactionTrigger) ? (data.trigger as CompactionTrigger) : 'auto';
      return { type: 'compaction_failed', ts, trigger, reason: typeof data.reason === 'string' ? data.reason : 'unknown', counts: data.counts === true };
    }
    case 'context_window_learned':
      return isPositive(data.window) && isPositive(data.assumed) ? { type: 'window_learned', ts, window: data.window, assumed: data.assumed } : undefined;
    default:
      return undefined;
  }
}

/**
 * One line of a transcript, checked (`transcriptEntryProblem`) and, when written by an older
 * version, upgraded to today's typed entry: the fold and every reader see only current entries.
 */
export function parseTranscriptEntry(value: unknown): { entry: TranscriptEntry } | { problem: string } {
  const problem = transcriptEntryProblem(value);
  if (problem) return { problem };
  const entry = value as TranscriptEntry;
  if (entry.type !== 'event' || !LEGACY_EVENT_NAMES.has(entry.name)) return { entry };
  const upgraded = upgradeLegacyEvent(entry.ts, entry.name, entry.data);
  return upgraded ? { entry: upgraded } : { problem: `a malformed ${entry.name} event` };
}

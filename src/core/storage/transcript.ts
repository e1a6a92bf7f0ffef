/**
 * The typed transcript (docs/architecture.md, "Storage layout"): one JSON object a line, append-only. Every engine
 * decision is an entry, so `foldTranscript(entries)` rebuilds exactly what the model saw.
 *
 * Each entry type is a zod schema and its type is inferred from it, so what a line is checked for on
 * read and what the code believes it holds cannot drift apart. Older entries are upgraded by the
 * schemas themselves (transforms), so every reader sees only today's entries.
 */
import { IMAGE_MEDIA_TYPES } from '../model/imageLimits';
import type { MessageParam } from '../model/messages';
import type { UsageCounts } from '../model/models';
import { recordedTodos } from '../todos/todos';
import type { RecalledSlice } from '../tools/recallTypes';
import * as z from '../zod';

/** Token counts, sizes and other amounts: never negative (JSON has no NaN or Infinity, and zod refuses them). */
const amount = z.number().nonnegative();
/** Positions in a list: whole and never negative. */
const index = z.number().int().nonnegative();

// ---- Messages: every block a message of ours can hold, with the fields the APIs (and our code) rely
// on. A block of the wrong shape would fail every later request, or throw while the history is rebuilt.

const ToolUseId = z.string().regex(/^[a-zA-Z0-9_-]+$/, 'is not a tool-use id ([a-zA-Z0-9_-])');
const ImageSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.enum(IMAGE_MEDIA_TYPES), data: z.string() }),
  z.object({ type: z.literal('url'), url: z.string() }),
]);
const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
// Anthropic's web search (issue 30): kept exactly, so a resumed turn can send them back; a reply's text may cite its results.
const WebSearchCitation = z.object({ type: z.literal('web_search_result_location'), url: z.string(), title: z.string().nullable(), encrypted_index: z.string(), cited_text: z.string() });
const CitedTextBlock = TextBlock.extend({ citations: z.array(WebSearchCitation).optional() });
const ServerToolUseBlock = z.object({ type: z.literal('server_tool_use'), id: z.string(), name: z.literal('web_search'), input: z.record(z.string(), z.unknown()) });
const WebSearchResult = z.object({ type: z.literal('web_search_result'), url: z.string(), title: z.string(), encrypted_content: z.string(), page_age: z.string().nullable().optional() });
const WebSearchToolResultBlock = z.object({
  type: z.literal('web_search_tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.array(WebSearchResult), z.object({ type: z.literal('web_search_tool_result_error'), error_code: z.enum(['invalid_tool_input', 'unavailable', 'max_uses_exceeded', 'too_many_requests', 'query_too_long', 'request_too_large']) })]),
});
const ImageBlock = z.object({ type: z.literal('image'), source: ImageSource });
const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: ToolUseId,
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [TextBlock, ImageBlock]))]).optional(),
  is_error: z.boolean().optional(),
});
const ToolUseBlock = z.object({ type: z.literal('tool_use'), id: ToolUseId, name: z.string(), input: z.record(z.string(), z.unknown()) });
const ThinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
const RedactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() });
/** Only the blocks each role may send: an image or a tool result in a reply, a tool call from the user, is refused. */
const contentOf = <const Blocks extends readonly [z.ZodObject, ...z.ZodObject[]]>(blocks: Blocks) => z.union([z.string(), z.array(z.discriminatedUnion('type', blocks))]);
/** model/messages.ts's `MessageParam`, stricter: its type lets either role hold any block. */
const MessageSchema: z.ZodType<MessageParam> = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: contentOf([TextBlock, ImageBlock, ToolResultBlock]) }),
  z.object({ role: z.literal('assistant'), content: contentOf([CitedTextBlock, ToolUseBlock, ThinkingBlock, RedactedThinkingBlock, ServerToolUseBlock, WebSearchToolResultBlock]) }),
]);

// ---- The context engine's records.

const TrimEdit = z.object({ toolUseId: z.string(), action: z.literal('trim'), maxChars: amount });
const SnipEdit = z.object({ toolUseId: z.string(), action: z.literal('snip'), reason: z.string() });
const ClearEdit = z.object({ toolUseId: z.string(), action: z.literal('clear') });
/** A lossy edit of one old tool result in the live view (tiers 1-3); the canonical result stays whole. */
export type ToolResultEdit = z.infer<typeof ToolResultEditSchema>;
const ToolResultEditSchema = z.discriminatedUnion('action', [TrimEdit, SnipEdit, ClearEdit]);

/** The tiers that edit old tool results (context/tiers.ts has each one's planner). */
export const TIER_NAMES = ['budget', 'snip', 'microcompact'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export const COMPACTION_TRIGGERS = ['auto', 'manual', 'tool', 'reactive', 'drop'] as const;
export type CompactionTrigger = (typeof COMPACTION_TRIGGERS)[number];
/** The first transcripts also wrote `proactive`, an automatic summary before the threshold: read as `auto`. */
const CompactionTriggerSchema = z.enum([...COMPACTION_TRIGGERS, 'proactive']).transform((trigger): CompactionTrigger => (trigger === 'proactive' ? 'auto' : trigger));

const RestoredFileSchema = z.object({ path: z.string(), content: z.string() });
export type RestoredFile = z.infer<typeof RestoredFileSchema>;

const CompactionStatsSchema = z.object({
  tokensBefore: amount,
  tokensAfter: amount,
  /** Canonical messages no longer sent verbatim after this boundary. */
  messagesSummarized: index,
  messagesKept: index,
  /** Requests the summary took (fitting retries included); 0 for a deterministic drop. */
  summaryRequests: index,
});
export type CompactionStats = z.infer<typeof CompactionStatsSchema>;

/**
 * A compaction boundary: from now on the live view is the summary (plus restored files) followed
 * by the canonical messages from `keptFrom` on. A `drop` boundary (prompt-too-long recovery)
 * carries the previous summary forward and only moves `keptFrom`.
 */
const CompactionRecordSchema = z.object({
  id: z.string(),
  trigger: CompactionTriggerSchema,
  focus: z.string().optional(),
  /** The summary text without its <analysis> part; absent when nothing was ever summarized. */
  summary: z.string().optional(),
  keptFrom: index,
  restoredFiles: z.array(RestoredFileSchema),
  /** A drop's dropped user prompts, carried verbatim so the live view never loses what the user asked. */
  userMessages: z.array(z.string()).optional(),
  /**
   * The task list (todo_write) as of this boundary, restored next to the summary; absent when there
   * was none. A damaged list is read as none: the boundary itself must still load.
   */
  todos: z.unknown().transform(recordedTodos).optional(),
  /**
   * A drop's dropped tool calls (id and tool name), listed in the live view so each stays one
   * `recall` away; past a bound only the newest are listed and `omitted` counts the rest.
   */
  droppedCalls: z.object({ calls: z.array(z.object({ id: z.string(), name: z.string() })), omitted: index }).optional(),
  stats: CompactionStatsSchema,
});
export type CompactionRecord = z.infer<typeof CompactionRecordSchema>;

/** Where a request stood, so a resumed session places its cache breakpoints and token anchor as before. */
const RequestMarkSchema = z.object({
  /** Canonical messages that existed when the request was sent. */
  canonicalCount: index,
  /** Messages in the live view that was sent. */
  liveCount: index,
  /** Characters of that live view (the token anchor's denominator). */
  liveChars: amount,
  /** Cache reads already paid on tokens pending tier edits would free (the batching rule's account). */
  pendingWaste: amount.optional(),
});
export type RequestMark = z.infer<typeof RequestMarkSchema>;

/** The token estimate's anchor: the mark of a request and the prompt tokens the API counted for it. */
const TokenAnchorSchema = z.object({ mark: RequestMarkSchema, promptTokens: amount, atMs: z.number() });
export type TokenAnchor = z.infer<typeof TokenAnchorSchema>;

/** Every count a number: a missing one once turned the session's totals into NaN. */
const UsageCountsSchema = z.object({ inputTokens: amount, outputTokens: amount, cacheReadTokens: amount, cacheWriteTokens: amount, webSearchRequests: amount.optional() });
z.sameType<z.infer<typeof UsageCountsSchema>, UsageCounts>(true);

/**
 * A `recall` result stored as a reference (storage/recalledEntries.ts): the message entry's tool_result
 * `toolUseId` holds a short stub, and reading the transcript puts back `head + source.slice(start, end) + tail`.
 * Only references to this session's own texts are stored (a copy is never a reference).
 */
export type RecallReference = RecalledSlice & { toolUseId: string };
const RecallReferenceSchema: z.ZodType<RecallReference> = z
  .object({
    toolUseId: z.string(),
    source: z.discriminatedUnion('kind', [z.object({ kind: z.literal('message'), toolUseId: z.string() }), z.object({ kind: z.literal('file'), file: z.string() })]),
    start: index,
    end: index,
    head: z.string(),
    tail: z.string(),
  })
  .refine((ref) => ref.end >= ref.start, { message: 'ends before it starts', path: ['end'] });

/** The names of display-only `event` entries; each is decoded with a validator where it is shown. */
export const DISPLAY_RECORD_NAMES = ['subagent_started', 'subagent_finished', 'subagent_of', 'hook_run', 'hook_notice', 'tool_card'] as const;
export type DisplayRecordName = (typeof DISPLAY_RECORD_NAMES)[number];

/** The fields every entry has, and its type. */
const entry = <const Type extends string, const Shape extends z.ZodRawShape>(type: Type, shape: Shape) => z.object({ type: z.literal(type), ts: z.string(), ...shape });

const messageEntry = entry('message', {
  message: MessageSchema,
  /** Who wrote an assistant message (absent in transcripts older than the provider seam, and on user messages). */
  provider: z.string().optional(),
  model: z.string().optional(),
  /** On a user message, the checkpoint taken just before it (what its Restore goes back to). */
  checkpoint: index.optional(),
  /** Tool results of this message stored as references to text already on disk, not as copies. */
  recalls: z.array(RecallReferenceSchema).optional(),
});

const usageEntry = entry('usage', {
  model: z.string(),
  usage: UsageCountsSchema,
  costUsd: amount,
  /** The model had no known price (costUsd is 0, not a figure). */
  priceUnknown: z.literal(true).optional(),
  request: RequestMarkSchema.optional(),
  /** A subagent's request, counted in its parent's totals too (the child's transcript has it with its request mark). */
  childId: z.string().optional(),
});

/**
 * "Undo Last Compaction": the live view goes back to the boundary in effect before compaction
 * `compactionId` (the canonical history never changed); tokens are the estimates before -> after.
 */
const compactionUndoEntry = entry('compaction_undo', { compactionId: z.string(), tokensBefore: amount, tokensAfter: amount });

const tierEditEntry = entry('tier_edit', { tier: z.enum(TIER_NAMES), edits: z.array(ToolResultEditSchema), tokensBefore: amount, tokensAfter: amount });

const persistedOutputEntry = entry('persisted_output', {
  toolUseId: z.string(),
  toolName: z.string(),
  file: z.string(),
  bytes: amount,
  lines: amount,
  /** The chat note's figures (absent in transcripts written before they were recorded). */
  tokensBefore: amount.optional(),
  tokensAfter: amount.optional(),
});

/** The session's system prompt, as sent (a resume sends the same bytes, so the cached prefix stays). */
const systemPromptFields = { text: z.string() };
const systemPromptEntry = entry('system_prompt', systemPromptFields);
/** The API counted a prompt (a compacted view, or a refused request): the token estimate re-anchors on it. */
const tokenAnchorEntry = entry('token_anchor', { anchor: TokenAnchorSchema });
/** A compaction failed; `counts`: it counts toward the circuit breaker (automatic ones do, asked-for ones do not). */
const compactionFailedEntry = entry('compaction_failed', { trigger: CompactionTriggerSchema, reason: z.string(), counts: z.boolean() });
/** A server proved a smaller window than the `assumed` one (its "prompt is too long" named it); the budget shrinks to it. */
const windowLearnedFields = { window: z.number().positive(), assumed: z.number().positive() };
const windowLearnedEntry = entry('window_learned', windowLearnedFields);

/**
 * The conversation went back to checkpoint `checkpoint` (issue 17): every entry from index
 * `toEntry` (0-based among the transcript's valid entries) up to this one is no longer part of
 * the conversation. They stay on disk and in the archived transcript; their cost stays counted.
 * `files`: whether the workspace's files were restored too.
 */
const rewindEntry = entry('rewind', { checkpoint: z.number().int(), toEntry: index, files: z.enum(['restored', 'kept']) });

/**
 * The session's mode from here on (issue 28): `start` when a session began (or resumed) in it,
 * `switch` when the user picked it, `build` when the user built a proposed plan. A resume continues
 * in the newest one. The model is told in the next user message (agent/modes.ts), not here.
 */
export const MODE_CHANGE_REASONS = ['start', 'switch', 'build'] as const;
const modeEntry = entry('mode', { mode: z.string().min(1).max(200), reason: z.enum(MODE_CHANGE_REASONS) });

/** Display-only records (they change no state): what the chat showed about subagents and hook runs, and a tool card's details (agent/toolCards.ts). */
const displayEventEntry = entry('event', { name: z.enum(DISPLAY_RECORD_NAMES), data: z.record(z.string(), z.unknown()) });

/**
 * Transcripts written before the state-changing records got entry types of their own kept them as
 * `event` entries with these names; each is read as its typed entry (upgradeLegacyEvent).
 * compaction_failed was lenient then: an unknown trigger is `auto`, a missing reason `unknown`, and
 * only `counts: true` counts.
 */
const legacyEvent = <const Name extends string, const Data extends z.ZodType>(name: Name, data: Data) => entry('event', { name: z.literal(name), data });
const EventEntrySchema = z.discriminatedUnion('name', [
  displayEventEntry,
  legacyEvent('system_prompt', z.object(systemPromptFields)),
  legacyEvent('token_anchor', TokenAnchorSchema),
  legacyEvent('compaction_failed', z.object({ trigger: CompactionTriggerSchema.catch('auto'), reason: z.string().catch('unknown'), counts: z.unknown().transform((counts) => counts === true) })),
  legacyEvent('context_window_learned', z.object(windowLearnedFields)),
]);

type DisplayEventEntry = z.infer<typeof displayEventEntry>;
type UpgradedEntry = z.infer<typeof systemPromptEntry | typeof tokenAnchorEntry | typeof compactionFailedEntry | typeof windowLearnedEntry>;

function upgradeLegacyEvent(event: z.infer<typeof EventEntrySchema>): DisplayEventEntry | UpgradedEntry {
  const { ts } = event;
  switch (event.name) {
    case 'system_prompt':
      return { type: 'system_prompt', ts, ...event.data };
    case 'token_anchor':
      return { type: 'token_anchor', ts, anchor: event.data };
    case 'compaction_failed':
      return { type: 'compaction_failed', ts, ...event.data };
    case 'context_window_learned':
      return { type: 'window_learned', ts, ...event.data };
    default:
      return event;
  }
}

/** Each entry type's schema, by its `type` (an `event` by its `name`, legacy ones upgraded). */
const ENTRY_SCHEMAS = {
  message: messageEntry,
  usage: usageEntry,
  compaction: entry('compaction', { compaction: CompactionRecordSchema }),
  compaction_undo: compactionUndoEntry,
  tier_edit: tierEditEntry,
  persisted_output: persistedOutputEntry,
  repair: entry('repair', { repairs: index, reason: z.string() }),
  system_prompt: systemPromptEntry,
  token_anchor: tokenAnchorEntry,
  compaction_failed: compactionFailedEntry,
  window_learned: windowLearnedEntry,
  /** The model's `compact` tool asked for a compaction: it runs before the next request, once every tool call has its result. */
  compact_scheduled: entry('compact_scheduled', { focus: z.string().optional() }),
  rewind: rewindEntry,
  /** "Undo" right after a restore: the rewind at entry index `rewindEntry` no longer applies (only while nothing came after it). */
  rewind_undone: entry('rewind_undone', { rewindEntry: index }),
  mode: modeEntry,
  event: EventEntrySchema.transform(upgradeLegacyEvent),
};

type EntrySchemas = typeof ENTRY_SCHEMAS;
export type TranscriptEntry = z.infer<EntrySchemas[keyof EntrySchemas]>;
export type TranscriptEntryType = TranscriptEntry['type'];

const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const schemaOf = (type: unknown) => (typeof type === 'string' && Object.hasOwn(ENTRY_SCHEMAS, type) ? ENTRY_SCHEMAS[type as keyof EntrySchemas] : undefined);

/**
 * One line of a transcript, checked against its entry type's schema and, when written by an older
 * version, upgraded to today's typed entry: the fold and every reader see only current entries.
 * A wrong line gets a problem naming the field (reported and skipped by the reader, never fatal).
 */
export function parseTranscriptEntry(value: unknown): { entry: TranscriptEntry } | { problem: string } {
  if (!isJsonObject(value)) return { problem: 'not a JSON object' };
  const schema = schemaOf(value.type);
  if (!schema) return { problem: `unknown entry type ${JSON.stringify(value.type)}` };
  const parsed = schema.safeParse(value);
  return parsed.success ? { entry: parsed.data } : { problem: `a malformed ${String(value.type).replace(/_/g, '-')} entry: ${z.zodIssueText(parsed.error, value)}` };
}

/** The problem with an entry's shape on read, or undefined when it is valid (see parseTranscriptEntry). */
export function transcriptEntryProblem(value: unknown): string | undefined {
  const parsed = parseTranscriptEntry(value);
  return 'problem' in parsed ? parsed.problem : undefined;
}

/** The context engine's public types: its events, its collaborators (model, transcript) and what it hands the session. */
import type { ErrorAction } from '../model/errorActions';
import type { ModelRequest, ModelResponse, StreamHandlers } from '../model/backend';
import type { MessageParam, ServerTools, ToolParam } from '../model/messages';
import type { RequestCost } from '../model/cost';
import type { UsageCounts } from '../model/models';
import type { Logger } from '../logger';
import type { CompactionRecord, CompactionTrigger, RequestMark, TranscriptEntry } from '../storage/transcript';
import type { ToolTraitsLookup } from '../tools/types';
import type { Workspace } from '../workspace/workspace';
import type { ContextDefaults } from './defaults';
import type { ContextGauge } from './gauge';
import type { EngineState } from './state';
import type { SavedOutput } from './tier0';
import type { TierName } from './tiers';
import type { UserText } from '../texts/userText';
/** The part of the model client the engine needs: one streamed request (summaries). */
export interface SummaryModel {
  stream(request: ModelRequest, handlers?: StreamHandlers, signal?: AbortSignal): Promise<ModelResponse>;
  /** The API's own count (free): after a compaction the estimate is re-anchored on it. */
  countTokens?(request: Omit<ModelRequest, 'maxTokens'>, signal?: AbortSignal): Promise<number>;
}

/** Where the engine writes its decisions (the session's transcript). */
export interface TranscriptSink {
  append(entry: TranscriptEntry): void;
  readonly toolResultsDir?: string;
  readonly transcriptPath?: string;
}

export type ContextEvent =
  | { type: 'context'; gauge: ContextGauge }
  /** `savedOutput`: a persisted result's file (its full path), as data, so a front end can link to it rather than print the path; `toolUseId`: the call whose result it is (its card links it too). */
  | { type: 'tier'; tier: 'persist' | 'truncate' | TierName; items: number; tokensBefore: number; tokensAfter: number; detail: UserText; savedOutput?: SavedOutput & { toolUseId?: string } }
  | {
      type: 'compaction';
      /** The boundary's id (the transcript's compaction entry; what an undo names). */
      compactionId: string;
      trigger: CompactionTrigger;
      focus?: string;
      tokensBefore: number;
      tokensAfter: number;
      messagesSummarized: number;
      messagesKept: number;
      summary: string | undefined;
      restoredFiles: string[];
    }
  /** "Undo Last Compaction": the live view is the one before compaction `compactionId` again. */
  | { type: 'compaction_undone'; compactionId: string; tokensBefore: number; tokensAfter: number }
  | { type: 'compaction_failed'; trigger: CompactionTrigger; message: UserText; consecutiveFailures: number; breakerOpen: boolean; hint: UserText; actions: ErrorAction[] }
  /** The server refused a prompt and named a window smaller than the one assumed: the engine now compacts for it (`message` is the user's notice). */
  | { type: 'context_window_learned'; window: number; assumed: number; message: UserText };

/** What the session sends: the live view plus where the cache breakpoints go. */
export interface PreparedRequest {
  messages: MessageParam[];
  cache: { system: boolean; messageIndexes: number[] };
  maxTokens: number;
  mark: RequestMark;
  /** Estimated prompt tokens of this request. */
  estimatedTokens: number;
}

/** The engine's state (state.ts): what `foldTranscript` rebuilds and a resumed engine starts from. */
export type EngineSnapshot = EngineState;

export interface ContextEngineOptions {
  /** The session's canonical history (append-only; the engine only reads it). */
  history: () => readonly MessageParam[];
  system: string;
  tools: readonly ToolParam[];
  /** Server-side tools every request offers (web search): counts and summary requests offer them too, so their prefix and their web search blocks stay valid. */
  serverTools?: ServerTools | undefined;
  /** What each tool declared about its results (tools/registry `toolTraitsLookup`); absent: the built-in tools'. */
  toolTraits?: ToolTraitsLookup | undefined;
  model: SummaryModel;
  window: number;
  maxOutputTokens: number;
  autoCompactPercent?: number | undefined;
  settings?: Partial<ContextDefaults>;
  transcript?: TranscriptSink | undefined;
  workspace?: Workspace | undefined;
  logger: Logger;
  now?: () => number;
  emit: (event: ContextEvent) => void;
  /** Usage of the engine's own requests (summaries), so totals and cost include them. */
  onModelUsage?: (usage: UsageCounts, cost: RequestCost) => void;
  /** Session cost so far, for the gauge. */
  sessionCostUsd?: () => number;
  /** The part of it the session's subagents spent. */
  subagentCostUsd?: () => number;
  /** Requests so far whose model had no known price (the gauge says the cost is unknown). */
  unpricedRequests?: () => number;
  /** Server-side web searches so far (billed per search; the gauge names them beside the cost). */
  webSearches?: () => number;
  /** State rebuilt by foldTranscript for a resumed session (fields left out keep a new session's values). */
  initial?: Partial<EngineState> | undefined;
  /** The PreCompact and PostCompact hooks around each summary (agent/hooks.ts); absent: none. */
  compactionHooks?: CompactionHooks | undefined;
}

/** What the engine asks around a summary: the session's hooks answer (PreCompact, PostCompact). */
export interface CompactionHooks {
  /** Before the summary request: the focus to use (the hooks' text added to it), or a reason to skip this compaction. */
  before(trigger: CompactionTrigger, focus: string | undefined, signal: AbortSignal): Promise<{ focus: string | undefined } | { skip: string }>;
  /** After it: told the summary. */
  after(trigger: CompactionTrigger, summary: string, signal: AbortSignal): Promise<void>;
}

export interface CompactionOutcome {
  ok: boolean;
  /** What the user reads (the CLI's stderr, the dialog's notification). */
  message: UserText;
  record?: CompactionRecord;
}

/** The window cannot hold a conversation: `message` in English (logs), `text` for the user. */
export class ContextWindowTooSmallError extends Error {
  override name = 'ContextWindowTooSmallError';
  constructor(
    message: string,
    readonly text: UserText,
  ) {
    super(message);
  }
}

/** The chat's view of a compaction boundary (live and replayed alike). */
export function compactionEvent(record: CompactionRecord): Extract<ContextEvent, { type: 'compaction' }> {
  return {
    type: 'compaction',
    compactionId: record.id,
    trigger: record.trigger,
    ...(record.focus ? { focus: record.focus } : {}),
    tokensBefore: record.stats.tokensBefore,
    tokensAfter: record.stats.tokensAfter,
    messagesSummarized: record.stats.messagesSummarized,
    messagesKept: record.stats.messagesKept,
    summary: record.summary,
    restoredFiles: record.restoredFiles.map((file) => file.path),
  };
}

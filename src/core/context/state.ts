/**
 * The context engine's state and the one function that changes it. The engine writes every
 * decision as a transcript entry and applies it with `applyEntry`; `foldTranscript` applies the
 * same function to the saved entries. Live state and a resumed one therefore cannot differ: there
 * is no second copy of any rule to drift.
 */
import { cacheReadShare, promptTokensFromUsage } from './gauge';
import type { UsageCounts } from '../model/models';
import type { RequestMark, TokenAnchor, TranscriptEntry } from '../storage/transcript';
import type { UndoPoint } from './compactionPreview';
import type { LiveState } from './liveView';

export interface EngineState {
  /** The compaction boundary and the tier edits the live view applies. */
  live: LiveState;
  /** The token estimate's anchor: the newest request the API counted. */
  lastRequest: TokenAnchor | undefined;
  /** Automatic compactions that failed in a row (the circuit breaker opens at a limit). */
  consecutiveFailures: number;
  /** Cache reads already paid on what pending tier edits would free (the ski-rental account). */
  pendingWaste: number;
  /** The newest compaction, while it can still be undone. */
  undoable: UndoPoint | undefined;
  /** The smallest window a server proved (learned from a refusal); undefined when none was. */
  learnedWindow: number | undefined;
  /** Requests answered since the newest compaction (Infinity before the first one). */
  requestsSinceCompaction: number;
  /** A compaction the model's `compact` tool asked for, not yet run. */
  scheduledCompaction: { focus: string | undefined } | undefined;
  /** The share of the last request's prompt read from the cache (the gauge shows it). */
  cacheReadShare: number;
  /**
   * Tool results edited since the last response (tool-use ids): the next request's cache
   * breakpoints go just before the first of them, so the prefix before the edit is read, not rewritten.
   */
  editedSinceRequest: readonly string[];
}

/** The state of a new session, with `overrides` (a resumed or test state; undefined fields keep their defaults). */
export function initialEngineState(overrides: Partial<EngineState> = {}): EngineState {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) as Partial<EngineState>;
  return {
    live: { boundary: undefined, edits: new Map() },
    lastRequest: undefined,
    consecutiveFailures: 0,
    pendingWaste: 0,
    undoable: undefined,
    learnedWindow: undefined,
    requestsSinceCompaction: Number.POSITIVE_INFINITY,
    scheduledCompaction: undefined,
    cacheReadShare: 0,
    editedSinceRequest: [],
    ...defined,
  };
}

/**
 * The state after `entry`. Pure: `state` is never modified (the edits map is copied when it
 * changes). Entries that change no engine state (messages, persisted outputs, display records)
 * return `state` itself.
 */
export function applyEntry(state: EngineState, entry: TranscriptEntry): EngineState {
  switch (entry.type) {
    case 'usage':
      // A subagent's request (childId) is counted in totals only: it did not send this context.
      return entry.request && entry.childId === undefined ? applyResponse(state, entry.request, entry.usage, Date.parse(entry.ts)) : state;
    case 'token_anchor':
      return { ...state, lastRequest: entry.anchor };
    case 'compaction': {
      const record = entry.compaction;
      // A drop happens only when the API refused the context: the view before it cannot come back,
      // and it is no successful summary, so the breaker's failure count stays.
      const drop = record.trigger === 'drop';
      return {
        ...state,
        live: { boundary: record, edits: state.live.edits },
        undoable: drop ? undefined : { compactionId: record.id, previous: state.live.boundary },
        consecutiveFailures: drop ? state.consecutiveFailures : 0,
        requestsSinceCompaction: drop ? state.requestsSinceCompaction : 0,
        scheduledCompaction: drop ? state.scheduledCompaction : undefined,
      };
    }
    case 'compaction_undo': {
      // Only an undo of the newest compaction takes effect.
      const undoable = state.undoable;
      if (!undoable || undoable.compactionId !== entry.compactionId || state.live.boundary?.id !== entry.compactionId) return state;
      return { ...state, live: { boundary: undoable.previous, edits: state.live.edits }, undoable: undefined, scheduledCompaction: undefined };
    }
    case 'compaction_failed':
      return {
        ...state,
        consecutiveFailures: entry.counts ? state.consecutiveFailures + 1 : state.consecutiveFailures,
        // The model's request was taken up, and failed: it is not retried on every request.
        scheduledCompaction: entry.trigger === 'tool' ? undefined : state.scheduledCompaction,
      };
    case 'tier_edit': {
      const edits = new Map(state.live.edits);
      for (const edit of entry.edits) edits.set(edit.toolUseId, edit);
      // Applied edits close the batching account.
      return { ...state, live: { boundary: state.live.boundary, edits }, pendingWaste: 0, editedSinceRequest: [...state.editedSinceRequest, ...entry.edits.map((edit) => edit.toolUseId)] };
    }
    case 'window_learned':
      // A learned window only ever shrinks the budget.
      return state.learnedWindow !== undefined && state.learnedWindow <= entry.window ? state : { ...state, learnedWindow: entry.window };
    case 'compact_scheduled':
      return { ...state, scheduledCompaction: { focus: entry.focus } };
    // A rewind changes state only by what it discards: the fold cuts those entries before applying any (agent/fold.ts).
    case 'rewind':
    case 'rewind_undone':
    case 'message':
    case 'persisted_output':
    case 'repair':
    case 'system_prompt':
    case 'event':
    case 'mode':
      return state;
  }
}

/**
 * A response to the request sent with `mark`: its usage becomes the token anchor. The session writes
 * the usage entry; the engine applies the response through this same function the entry's fold uses.
 */
export function applyResponse(state: EngineState, mark: RequestMark, usage: UsageCounts, atMs: number): EngineState {
  return {
    ...state,
    lastRequest: anchorAfter(state.lastRequest, mark, promptTokensFromUsage(usage), atMs),
    // The reads of what deferred edits would free were paid with this request.
    pendingWaste: mark.pendingWaste ?? 0,
    requestsSinceCompaction: state.requestsSinceCompaction + 1,
    cacheReadShare: cacheReadShare(usage),
    editedSinceRequest: [],
  };
}

/**
 * The estimate's anchor after a reply. A count of 0 is a server that reported no usage (an
 * OpenAI-compatible one without stream_options.include_usage), not an empty prompt: anchoring on it
 * would make the whole context look empty, so the previous anchor stays (only the clock moves).
 */
function anchorAfter(previous: TokenAnchor | undefined, mark: TokenAnchor['mark'], promptTokens: number, atMs: number): TokenAnchor | undefined {
  if (promptTokens > 0) return { mark, promptTokens, atMs };
  return previous ? { ...previous, atMs } : undefined;
}

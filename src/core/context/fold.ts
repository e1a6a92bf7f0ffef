/**
 * foldTranscript: the one pure function from transcript entries to the session's state — the
 * canonical history, the live view's state (boundary + edits), the token anchor, the chat's
 * display items and the totals. Resume, the transcript tab and the tests all use it, so "what the
 * model saw at request N" is reproducible from the transcript alone.
 */
import type { AgentEvent } from '../agent/events';
import { SUBAGENT_EVENT_NAMES, subagentEventFromRecord } from '../agent/subagentEvents';
import type { MessageParam } from '../model/messages';
import { blocksOf, toolResultText } from '../model/content';
import type { CompactionRecord, RequestMark, ToolResultEdit, TranscriptEntry } from '../storage/transcript';
import { TODO_WRITE_TOOL, todosOfInput, type TodoItem } from '../tools/todos';
import type { UndoPoint } from './compactionPreview';
import type { ContextEvent, EngineSnapshot } from './engineTypes';
import type { LiveState } from './liveView';
import { CONTEXT_DEFAULTS } from './defaults';
import { estimateTokens } from './gauge';
import { learnedWindowOf, windowLearnedMessage, WINDOW_LEARNED_EVENT } from './learnedWindow';
import { persistNote } from './persistNote';

export const SYSTEM_PROMPT_EVENT = 'system_prompt';
export const COMPACTION_FAILED_EVENT = 'compaction_failed';
/** The API counted a rejected ("prompt is too long") request: the engine re-anchors its token estimate on that count. */
export const TOKEN_ANCHOR_EVENT = 'token_anchor';

export interface FoldTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  requests: number;
  /** The part of costUsd the session's subagents spent (their usage entries carry a childId). */
  subagentCostUsd: number;
}

export interface FoldResult {
  canonical: MessageParam[];
  live: LiveState;
  lastRequest: EngineSnapshot['lastRequest'];
  consecutiveFailures: number;
  pendingWaste: number;
  systemPrompt: string | undefined;
  totals: FoldTotals;
  /** The chat as it was shown: messages, tool cards, compaction dividers, tier notes. */
  display: AgentEvent[];
  compactions: number;
  /** The newest compaction while it can still be undone (as the engine's snapshot has it). */
  undoable: UndoPoint | undefined;
  persistedOutputs: Array<{ toolUseId: string; file: string }>;
  /** The task list: the newest accepted todo_write call's (undefined when none was accepted). */
  todos: TodoItem[] | undefined;
  /** The smallest window a server proved (learned from a refusal); the engine's budget uses it. */
  learnedWindow: number | undefined;
}

/** Builds display events from messages, one at a time (each user text opens a turn). */
export class DisplayBuilder {
  readonly events: AgentEvent[] = [];
  private readonly names = new Map<string, string>();
  /** todo_write inputs waiting for their result: an accepted call replaces the task list. */
  private readonly todoInputs = new Map<string, unknown>();
  private todoList: TodoItem[] | undefined;
  private turn = 0;
  private turnId = 'replay-0';

  get currentTurnId(): string {
    return this.turnId;
  }

  get todos(): TodoItem[] | undefined {
    return this.todoList;
  }

  message(message: MessageParam): void {
    for (const block of blocksOf(message)) {
      if (message.role === 'user' && block.type === 'text') {
        if (this.turn > 0) this.events.push({ type: 'turn_finished', turnId: this.turnId, stopReason: 'end_turn' });
        this.turnId = `replay-${++this.turn}`;
        this.events.push({ type: 'turn_started', turnId: this.turnId, userText: block.text });
      } else if (block.type === 'text') {
        this.events.push({ type: 'text_delta', turnId: this.turnId, text: block.text });
      } else if (block.type === 'tool_use') {
        this.names.set(block.id, block.name);
        if (block.name === TODO_WRITE_TOOL) this.todoInputs.set(block.id, block.input);
        this.events.push({ type: 'tool_call_started', turnId: this.turnId, toolUseId: block.id, name: block.name, input: block.input });
      } else if (block.type === 'tool_result') {
        this.events.push({
          type: 'tool_call_finished',
          turnId: this.turnId,
          toolUseId: block.tool_use_id,
          name: this.names.get(block.tool_use_id) ?? 'tool',
          isError: block.is_error === true,
          content: toolResultText(block),
          durationMs: 0,
        });
        const todoInput = this.todoInputs.get(block.tool_use_id);
        this.todoInputs.delete(block.tool_use_id);
        const items = todoInput === undefined || block.is_error === true ? undefined : todosOfInput(todoInput);
        if (items) {
          this.todoList = items;
          this.events.push({ type: 'todos', turnId: this.turnId, items });
        }
      }
    }
  }

  push(event: AgentEvent): void {
    this.events.push(event);
  }

  finish(): AgentEvent[] {
    if (this.turn > 0) this.events.push({ type: 'turn_finished', turnId: this.turnId, stopReason: 'end_turn' });
    this.turn = 0;
    return this.events;
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

export function foldTranscript(entries: readonly TranscriptEntry[]): FoldResult {
  const canonical: MessageParam[] = [];
  let edits = new Map<string, ToolResultEdit>();
  let live: LiveState = { boundary: undefined, edits };
  let lastRequest: EngineSnapshot['lastRequest'];
  let consecutiveFailures = 0;
  let pendingWaste = 0;
  let systemPrompt: string | undefined;
  let compactions = 0;
  let undoable: UndoPoint | undefined;
  let learnedWindow: number | undefined;
  const totals: FoldTotals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, requests: 0, subagentCostUsd: 0 };
  const display = new DisplayBuilder();
  const persistedOutputs: FoldResult['persistedOutputs'] = [];
  /** Persisted outputs recorded without the note's token figures, until their tool result arrives. */
  const unsizedPersists = new Map<string, Extract<TranscriptEntry, { type: 'persisted_output' }>>();
  for (const entry of entries) {
    switch (entry.type) {
      case 'message':
        canonical.push(entry.message);
        for (const block of blocksOf(entry.message)) {
          const older = block.type === 'tool_result' ? unsizedPersists.get(block.tool_use_id) : undefined;
          if (block.type !== 'tool_result' || !older) continue;
          // A transcript from before the note's figures were recorded: estimated from the sizes.
          unsizedPersists.delete(block.tool_use_id);
          const tokensBefore = Math.ceil(older.bytes / CONTEXT_DEFAULTS.charsPerToken);
          display.push({ ...persistNote({ toolName: older.toolName, file: older.file, tokensBefore, tokensAfter: estimateTokens(toolResultText(block)) }), turnId: display.currentTurnId });
        }
        display.message(entry.message);
        break;
      case 'usage': {
        totals.inputTokens += entry.usage.inputTokens;
        totals.outputTokens += entry.usage.outputTokens;
        totals.cacheReadTokens += entry.usage.cacheReadTokens;
        totals.cacheWriteTokens += entry.usage.cacheWriteTokens;
        totals.costUsd += entry.costUsd;
        totals.requests++;
        if (entry.childId !== undefined) totals.subagentCostUsd += entry.costUsd;
        const mark: RequestMark | undefined = entry.request;
        if (mark) {
          lastRequest = anchorAfter(lastRequest, mark, entry.usage.inputTokens + entry.usage.cacheReadTokens + entry.usage.cacheWriteTokens, Date.parse(entry.ts));
          pendingWaste = mark.pendingWaste ?? 0;
        }
        break;
      }
      case 'compaction': {
        undoable = entry.compaction.trigger === 'drop' ? undefined : { compactionId: entry.compaction.id, previous: live.boundary };
        live = { boundary: entry.compaction, edits };
        // A deterministic drop is no successful summary: like the engine, it leaves the
        // circuit breaker's failure count alone (a resumed session must not re-arm auto-compaction).
        if (entry.compaction.trigger !== 'drop') {
          consecutiveFailures = 0;
          compactions++;
        }
        display.push({ ...compactionEvent(entry.compaction), turnId: display.currentTurnId });
        break;
      }
      case 'compaction_undo':
        // As the engine: only an undo of the newest compaction takes effect.
        if (undoable && undoable.compactionId === entry.compactionId && live.boundary?.id === entry.compactionId) {
          live = { boundary: undoable.previous, edits };
          undoable = undefined;
          display.push({ type: 'compaction_undone', turnId: display.currentTurnId, compactionId: entry.compactionId, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter });
        }
        break;
      case 'tier_edit': {
        edits = new Map(edits);
        for (const edit of entry.edits) edits.set(edit.toolUseId, edit);
        live = { boundary: live.boundary, edits };
        pendingWaste = 0; // applied edits close the batching account
        display.push({ type: 'tier', turnId: display.currentTurnId, tier: entry.tier, items: entry.edits.length, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter, detail: `${entry.edits.length} old tool result(s)` });
        break;
      }
      case 'persisted_output':
        persistedOutputs.push({ toolUseId: entry.toolUseId, file: entry.file });
        // The chat's note with its "saved output" link, where the live chat showed it (before the result).
        if (typeof entry.tokensBefore === 'number' && typeof entry.tokensAfter === 'number') {
          display.push({ ...persistNote({ toolName: entry.toolName, file: entry.file, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter }), turnId: display.currentTurnId });
        } else {
          unsizedPersists.set(entry.toolUseId, entry);
        }
        break;
      case 'event':
        if (entry.name === SYSTEM_PROMPT_EVENT && typeof entry.data.text === 'string') systemPrompt = entry.data.text;
        else if (entry.name === COMPACTION_FAILED_EVENT && entry.data.counts === true) consecutiveFailures++;
        else if (entry.name === TOKEN_ANCHOR_EVENT) lastRequest = tokenAnchor(entry.data) ?? lastRequest;
        else if (entry.name === WINDOW_LEARNED_EVENT) {
          const learned = learnedWindowOf(entry.data);
          // As the engine: a learned window only ever shrinks the budget.
          if (learned && (learnedWindow === undefined || learned.window < learnedWindow)) {
            learnedWindow = learned.window;
            display.push({ type: 'context_window_learned', turnId: display.currentTurnId, window: learned.window, assumed: learned.assumed, message: windowLearnedMessage(learned.window, learned.assumed) });
          }
        } else if (SUBAGENT_EVENT_NAMES.has(entry.name)) {
          const event = subagentEventFromRecord(entry.name, entry.data, display.currentTurnId);
          if (event) display.push(event);
        }
        break;
      case 'repair':
        break;
    }
  }
  return { canonical, live, lastRequest, consecutiveFailures, pendingWaste, systemPrompt, totals, display: display.finish(), compactions, undoable, persistedOutputs, todos: display.todos, learnedWindow };
}

function tokenAnchor(data: Record<string, unknown>): EngineSnapshot['lastRequest'] {
  const mark = data.mark as Partial<RequestMark> | undefined;
  const { promptTokens, atMs } = data;
  if (typeof promptTokens !== 'number' || typeof atMs !== 'number' || typeof mark !== 'object' || mark === null) return undefined;
  if (typeof mark.canonicalCount !== 'number' || typeof mark.liveCount !== 'number' || typeof mark.liveChars !== 'number') return undefined;
  const pendingWaste = typeof mark.pendingWaste === 'number' ? { pendingWaste: mark.pendingWaste } : {};
  return { mark: { canonicalCount: mark.canonicalCount, liveCount: mark.liveCount, liveChars: mark.liveChars, ...pendingWaste }, promptTokens, atMs };
}

/**
 * The estimate's anchor after a reply. A count of 0 is a server that reported no usage (an
 * OpenAI-compatible one without stream_options.include_usage), not an empty prompt: anchoring on it
 * would make the whole context look empty, so the previous anchor stays (only the clock moves).
 */
export function anchorAfter(previous: EngineSnapshot['lastRequest'], mark: RequestMark, promptTokens: number, atMs: number): EngineSnapshot['lastRequest'] {
  if (promptTokens > 0) return { mark, promptTokens, atMs };
  return previous ? { ...previous, atMs } : undefined;
}

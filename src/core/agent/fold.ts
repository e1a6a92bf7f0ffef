/**
 * foldTranscript: the one pure function from transcript entries to the session's state — the
 * canonical history, the context engine's state (through the engine's own reducer, `applyEntry`),
 * the chat's display items and the totals. Resume, the transcript tab and the tests all use it, so
 * "what the model saw at request N" is reproducible from the transcript alone.
 */
import { compactionEvent } from '../context/engineTypes';
import { userText } from '../texts/userText';
import { CONTEXT_DEFAULTS } from '../context/defaults';
import { estimateTokens } from '../context/gauge';
import { windowLearnedText } from '../context/learnedWindow';
import { applyEntry, initialEngineState, type EngineState } from '../context/state';
import { persistNote } from '../context/persistNote';
import { blocksOf, toolResultText } from '../model/content';
import type { MessageParam } from '../model/messages';
import type { UsageCounts } from '../model/models';
import { addUsage, zeroUsage } from '../model/usage';
import type { TranscriptEntry } from '../storage/transcript';
import type { TodoItem } from '../todos/todos';
import { opensTurn } from '../todos/planDecision';
import { AGENT_MODE } from '../modes/modes';
import type { AgentEvent } from './events';
import { DisplayBuilder } from './replay';
import { SUBAGENT_EVENT_NAMES, subagentEventFromRecord } from './subagentEvents';
import { TOOL_CARD_RECORD, toolCardFromRecord } from './toolCards';
import { hookEventFromRecord } from './hookRuns';
import type { MessageOrigin } from './thinkingTurn';

export interface FoldTotals extends UsageCounts {
  costUsd: number;
  requests: number;
  /** The part of costUsd the session's subagents spent (their usage entries carry a childId). */
  subagentCostUsd: number;
}

export interface FoldResult {
  canonical: MessageParam[];
  /** Who wrote each canonical message (assistant replies record their provider and model): a resume under another model leaves their thinking out. */
  origins: (MessageOrigin | undefined)[];
  /** The context engine's state after every entry (the live view's boundary and edits, the anchor, the undo point, a learned window, …): what a resumed engine starts from. */
  engine: EngineState;
  systemPrompt: string | undefined;
  totals: FoldTotals;
  /** The chat as it was shown: messages, tool cards, compaction dividers, tier notes. */
  display: AgentEvent[];
  compactions: number;
  persistedOutputs: Array<{ toolUseId: string; file: string }>;
  /** The task list: the newest accepted todo_write call's or built plan's (undefined when there is none). */
  todos: TodoItem[] | undefined;
  /** The newest `mode` entry's mode, and the mode the model was last told of (the one on when the newest turn opened); undefined: none recorded (agent). */
  mode: FoldedMode | undefined;
}

/** A session's mode after its transcript (agent/modes.ts continues from it). */
export interface FoldedMode {
  current: string;
  /** The session tells the model of a switch at the start of the next turn's message: until then it still works by this one. */
  told: string;
}

/** What the chat showed for an entry that changed the engine's state (`before` -> `after`). */
function displayOf(entry: TranscriptEntry, before: EngineState, after: EngineState, turnId: string): AgentEvent | undefined {
  switch (entry.type) {
    case 'compaction':
      return { ...compactionEvent(entry.compaction), turnId };
    case 'compaction_undo':
      // Only an undo that took effect was shown.
      return after.live === before.live ? undefined : { type: 'compaction_undone', turnId, compactionId: entry.compactionId, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter };
    case 'tier_edit':
      return { type: 'tier', turnId, tier: entry.tier, items: entry.edits.length, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter, detail: userText('context.tierReplayed', { count: entry.edits.length }) };
    case 'window_learned':
      return after.learnedWindow === before.learnedWindow ? undefined : { type: 'context_window_learned', turnId, window: entry.window, assumed: entry.assumed, message: windowLearnedText(entry.window, entry.assumed) };
    case 'persisted_output':
      // The chat's note with its "saved output" link, where the live chat showed it (before the result).
      if (typeof entry.tokensBefore !== 'number' || typeof entry.tokensAfter !== 'number') return undefined;
      return { ...persistNote({ toolName: entry.toolName, toolUseId: entry.toolUseId, file: entry.file, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter }), turnId };
    case 'event':
      if (entry.name === 'hook_run' || entry.name === 'hook_notice') return hookEventFromRecord(entry.name, entry.data, turnId);
      return SUBAGENT_EVENT_NAMES.has(entry.name) ? subagentEventFromRecord(entry.name, entry.data, turnId) : undefined;
    case 'mode':
      return { type: 'mode_changed', turnId, mode: entry.mode, reason: entry.reason };
    default:
      return undefined;
  }
}

/**
 * The entries a conversation is made of after its rewinds (issue 17): a rewind discards every entry
 * from its cut up to itself. The discarded requests were still paid for: their usage entries are
 * returned apart, for the totals.
 */
export function rewoundEntries(entries: readonly TranscriptEntry[]): { kept: TranscriptEntry[]; discardedUsage: Extract<TranscriptEntry, { type: 'usage' }>[] } {
  // An undo cancels its rewind only when nothing but bookkeeping came between them (the chat offers it right after).
  const undone = new Set<number>();
  for (const [index, entry] of entries.entries()) {
    if (entry.type !== 'rewind_undone' || entries[entry.rewindEntry]?.type !== 'rewind') continue;
    if (entries.slice(entry.rewindEntry + 1, index).every((between) => between.type !== 'message')) undone.add(entry.rewindEntry);
  }
  let kept: { index: number; entry: TranscriptEntry }[] = [];
  const discardedUsage: Extract<TranscriptEntry, { type: 'usage' }>[] = [];
  for (const [index, entry] of entries.entries()) {
    if (entry.type === 'rewind' && !undone.has(index)) {
      for (const item of kept) if (item.index >= entry.toEntry && item.entry.type === 'usage') discardedUsage.push(item.entry);
      kept = kept.filter((item) => item.index < entry.toEntry);
    }
    kept.push({ index, entry });
  }
  return { kept: kept.map((item) => item.entry), discardedUsage };
}

function countUsage(totals: FoldTotals, entry: Extract<TranscriptEntry, { type: 'usage' }>): void {
  addUsage(totals, entry.usage);
  totals.costUsd += entry.costUsd;
  totals.requests++;
  if (entry.childId !== undefined) totals.subagentCostUsd += entry.costUsd;
}

export function foldTranscript(allEntries: readonly TranscriptEntry[]): FoldResult {
  const { kept: entries, discardedUsage } = rewoundEntries(allEntries);
  const canonical: MessageParam[] = [];
  const origins: (MessageOrigin | undefined)[] = [];
  let engine = initialEngineState();
  let systemPrompt: string | undefined;
  let compactions = 0;
  const totals: FoldTotals = { ...zeroUsage(), costUsd: 0, requests: 0, subagentCostUsd: 0 };
  const display = new DisplayBuilder();
  const persistedOutputs: FoldResult['persistedOutputs'] = [];
  /** Persisted outputs recorded without the note's token figures, until their tool result arrives. */
  const unsizedPersists = new Map<string, Extract<TranscriptEntry, { type: 'persisted_output' }>>();
  for (const entry of discardedUsage) countUsage(totals, entry);
  let mode: FoldedMode | undefined;
  for (const entry of entries) {
    const before = engine;
    engine = applyEntry(engine, entry);
    switch (entry.type) {
      case 'message':
        canonical.push(entry.message);
        origins.push(entry.model !== undefined ? { provider: entry.provider, model: entry.model } : undefined);
        for (const block of blocksOf(entry.message)) {
          const older = block.type === 'tool_result' ? unsizedPersists.get(block.tool_use_id) : undefined;
          if (block.type !== 'tool_result' || !older) continue;
          // A transcript from before the note's figures were recorded: estimated from the sizes.
          unsizedPersists.delete(block.tool_use_id);
          const tokensBefore = Math.ceil(older.bytes / CONTEXT_DEFAULTS.charsPerToken);
          display.push({ ...persistNote({ toolName: older.toolName, toolUseId: older.toolUseId, file: older.file, tokensBefore, tokensAfter: estimateTokens(toolResultText(block)) }), turnId: display.currentTurnId });
        }
        display.message(entry.message, entry.checkpoint);
        // A turn's message carries any switch the model had not been told of (agent/modes.ts).
        if (mode && opensTurn(entry.message)) mode = { current: mode.current, told: mode.current };
        continue;
      case 'usage':
        countUsage(totals, entry);
        break;
      case 'compaction':
        if (entry.compaction.trigger !== 'drop') compactions++;
        break;
      case 'persisted_output':
        persistedOutputs.push({ toolUseId: entry.toolUseId, file: entry.file });
        if (typeof entry.tokensBefore !== 'number' || typeof entry.tokensAfter !== 'number') unsizedPersists.set(entry.toolUseId, entry);
        break;
      case 'system_prompt':
        systemPrompt = entry.text;
        break;
      case 'mode':
        mode = { current: entry.mode, told: mode?.told ?? AGENT_MODE };
        break;
      case 'event': {
        // A tool card's details: shown on the card when the call's result comes.
        const card = entry.name === TOOL_CARD_RECORD ? toolCardFromRecord(entry.data) : undefined;
        if (card) display.card(card);
        break;
      }
      default:
        break;
    }
    const shown = displayOf(entry, before, engine, display.currentTurnId);
    if (shown) display.push(shown);
  }
  return {
    canonical,
    origins,
    engine,
    systemPrompt,
    totals,
    display: display.finish(),
    compactions,
    persistedOutputs,
    todos: display.todos,
    mode,
  };
}

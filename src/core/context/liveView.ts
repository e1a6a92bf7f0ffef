/**
 * The live view: what the model is sent, computed from the append-only canonical history plus the
 * engine's recorded decisions (compaction boundary, tool-result edits). Pure, so the engine, the
 * transcript fold, resume and the tests all compute it the same way.
 */
import type { ContentBlockParam, MessageParam } from '../model/messages';
import { blocksOf, toolResultText, type ToolResultBlock } from '../model/content';
import { withSearchesAsNotes } from '../model/webSearch';
import type { CompactionRecord, ToolResultEdit } from '../storage/transcript';
import { RECALL_TOOL, recallCall } from '../tools/recallRef';
import { recordedTodos, todoListText } from '../todos/todos';
import { SUMMARY_MARK } from './summary';
import { headTail } from './text';

export interface LiveState {
  boundary: CompactionRecord | undefined;
  edits: ReadonlyMap<string, ToolResultEdit>;
}

export const SNIP_PREFIX = '[Snipped to save context:';
/** Opens a cleared result's placeholder. */
export const CLEARED_MARK = '[Cleared:';

/**
 * A cleared result's placeholder: tiny (it is re-read on every request, and a long session holds
 * a thousand of them) and naming the call that brings the exact output back.
 */
export function clearedText(toolUseId: string): string {
  return `${CLEARED_MARK} ${recallCall(toolUseId)}]`;
}

/** The text an edited tool result shows instead of its original; each names the way back to the whole. */
export function editedResultText(original: string, edit: ToolResultEdit): string {
  switch (edit.action) {
    case 'trim':
      return original.length <= edit.maxChars ? original : headTail(original, edit.maxChars, `trimmed to save context; ${recallCall(edit.toolUseId)} returns all of it`);
    case 'snip':
      return `${SNIP_PREFIX} ${edit.reason}; ${recallCall(edit.toolUseId)}]`;
    case 'clear':
      return clearedText(edit.toolUseId);
  }
}

function editBlock(block: ToolResultBlock, edit: ToolResultEdit): ToolResultBlock {
  const text = editedResultText(toolResultText(block), edit);
  return { type: 'tool_result', tool_use_id: block.tool_use_id, content: text, ...(block.is_error ? { is_error: true } : {}) };
}

/** A user message with its edited tool results replaced (the same object when nothing applies). */
export function applyEdits(message: MessageParam, edits: ReadonlyMap<string, ToolResultEdit>): MessageParam {
  if (message.role !== 'user' || typeof message.content === 'string' || edits.size === 0) return message;
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== 'tool_result') return block;
    const edit = edits.get(block.tool_use_id);
    if (!edit) return block;
    changed = true;
    return editBlock(block, edit);
  });
  return changed ? { role: 'user', content } : message;
}

export function summaryPreamble(record: CompactionRecord, transcriptPath: string | undefined): string {
  const where = transcriptPath ? ` The full transcript of everything before it is saved at ${transcriptPath}.` : '';
  const focus = record.focus ? ` (summary focus: ${record.focus})` : '';
  return (
    `${SUMMARY_MARK} to free context space${focus}.${where} ` +
    `Continue the work from where it stands; do not redo steps the summary reports as done.\n\n<summary>\n${record.summary ?? ''}\n</summary>\n` +
    RECALL_LINE
  );
}

/** The last line of every summary: nothing it left out is lost. */
export const RECALL_LINE = `The full history before this summary is searchable: ${RECALL_TOOL} {"query":"…"} finds any earlier message or tool result, ${recallCall('…')} returns one exactly.`;

/** The dropped rounds' tool calls, grouped by tool: the ids are what `recall` needs. */
export function droppedCallsText(dropped: NonNullable<CompactionRecord['droppedCalls']>): string {
  const byTool = new Map<string, string[]>();
  for (const call of dropped.calls) byTool.set(call.name, [...(byTool.get(call.name) ?? []), call.id]);
  const list = [...byTool].map(([name, ids]) => `${name}: ${ids.join(', ')}`).join('; ');
  const more = dropped.omitted > 0 ? ` (and ${dropped.omitted} older ones: ${RECALL_TOOL} {"query":"…"} finds them)` : '';
  return `Tool calls of the dropped rounds, each one ${recallCall('<id>')} away${more}: ${list}`;
}

export function restoredFileText(file: { path: string; content: string }): string {
  return `Contents of ${file.path} as restored after the summary (re-read it with read_file before editing if it may have changed):\n\n${file.content}`;
}

/** The blocks that stand in for everything before the boundary. */
export function summaryBlocks(record: CompactionRecord, transcriptPath: string | undefined): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  if (record.summary !== undefined) blocks.push({ type: 'text', text: summaryPreamble(record, transcriptPath) });
  // The plan survives every compaction: the list as of this boundary, next to the summary (a
  // malformed list in a hand-edited transcript is left out rather than breaking every request).
  const todos = record.todos === undefined ? undefined : recordedTodos(record.todos);
  if (todos && todos.length > 0) blocks.push({ type: 'text', text: todoListText(todos) });
  if (record.userMessages && record.userMessages.length > 0) {
    blocks.push({ type: 'text', text: `Earlier messages of the user (older context was dropped to fit the window; these are kept verbatim):\n\n${record.userMessages.map((text) => `- ${text}`).join('\n')}` });
  }
  if (record.droppedCalls && record.droppedCalls.calls.length > 0) blocks.push({ type: 'text', text: droppedCallsText(record.droppedCalls) });
  for (const file of record.restoredFiles) blocks.push({ type: 'text', text: restoredFileText(file) });
  if (blocks.length === 0 && record.keptFrom > 0) {
    blocks.push({ type: 'text', text: `[Older messages were dropped to fit the context window; ${RECALL_TOOL} {"query":"…"} searches them.]` });
  }
  return blocks;
}

/** True when a message can start the kept part of a compacted history without breaking tool pairing. */
export function isCleanStart(message: MessageParam): boolean {
  if (message.role === 'assistant') return true;
  return !blocksOf(message).some((block) => block.type === 'tool_result');
}

/**
 * canonical -> live view. The summary blocks open the view: merged into the first kept message
 * when that is a plain user message (no tool_result), otherwise as their own user message.
 */
export function buildLiveView(canonical: readonly MessageParam[], state: LiveState, transcriptPath?: string): MessageParam[] {
  const start = state.boundary ? Math.min(state.boundary.keptFrom, canonical.length) : 0;
  const out: MessageParam[] = [];
  const turnStart = currentTurnStart(canonical);
  for (let index = start; index < canonical.length; index++) out.push(sendableThinking(applyEdits(canonical[index]!, state.edits), index < turnStart));
  if (!state.boundary) return out;
  const head = summaryBlocks(state.boundary, transcriptPath);
  if (head.length === 0) return out;
  const first = out[0];
  if (first && first.role === 'user' && isCleanStart(first)) {
    out[0] = { role: 'user', content: [...head, ...blocksOf(first)] };
  } else {
    out.unshift({ role: 'user', content: head });
  }
  return out;
}

/** What an assistant message whose every block was thinking that is not sent back holds instead (the API refuses empty content). */
export const THINKING_ONLY_TEXT = '[This reply held only thinking, which is not sent back.]';

/**
 * Where the current turn starts: the newest user message that is not tool results (a tool loop's
 * results continue the turn that called the tools). Thinking before it belongs to completed turns.
 */
export function currentTurnStart(messages: readonly MessageParam[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user' && !blocksOf(message).some((block) => block.type === 'tool_result')) return index;
  }
  return 0;
}

/** A thinking block that can be sent back: signed (a gateway's or a compatible server's unsigned reasoning never is). */
export function isSignedThinking(block: ContentBlockParam): boolean {
  return block.type === 'redacted_thinking' || (block.type === 'thinking' && typeof block.signature === 'string' && block.signature.length > 0);
}

/**
 * An assistant message as it may be sent: a completed turn's thinking is left out (the API ignores
 * it, so the estimate should too), and so is unsigned thinking anywhere; a signed block of the
 * current turn goes back as the very object the history holds, byte for byte. A completed turn's
 * web searches become notes (withSearchesAsNotes); the current turn's go back exactly. The same
 * object when nothing is left out.
 */
export function sendableThinking(message: MessageParam, completedTurn: boolean): MessageParam {
  if (message.role !== 'assistant' || typeof message.content === 'string') return message;
  // Memoized per message (history messages are never mutated): the same object on every view keeps the size memo and the cache prefix stable.
  const memo = completedTurn ? COMPLETED_TURN_VIEW : CURRENT_TURN_VIEW;
  let view = memo.get(message);
  if (!view) {
    view = withoutUnsendableThinking(message.content, completedTurn) ?? message;
    memo.set(message, view);
  }
  return view;
}

const COMPLETED_TURN_VIEW = new WeakMap<MessageParam, MessageParam>();
const CURRENT_TURN_VIEW = new WeakMap<MessageParam, MessageParam>();

function withoutUnsendableThinking(content: ContentBlockParam[], completedTurn: boolean): MessageParam | undefined {
  const searched = completedTurn && content.some((block) => block.type === 'server_tool_use' || block.type === 'web_search_tool_result');
  const kept = content.filter((block) => (block.type !== 'thinking' && block.type !== 'redacted_thinking') || (!completedTurn && isSignedThinking(block)));
  if (kept.length === content.length && !searched) return undefined;
  const sent = searched ? withSearchesAsNotes(kept) : kept;
  return { role: 'assistant', content: sent.length > 0 ? sent : [{ type: 'text', text: THINKING_ONLY_TEXT }] };
}

/** The live-view index of a canonical message (undefined when it is before the boundary). */
export function liveIndexOf(state: LiveState, canonicalIndex: number, liveLength: number, canonicalLength: number): number | undefined {
  const keptFrom = state.boundary ? Math.min(state.boundary.keptFrom, canonicalLength) : 0;
  if (canonicalIndex < keptFrom) return undefined;
  return canonicalIndex - keptFrom + liveLength - (canonicalLength - keptFrom);
}

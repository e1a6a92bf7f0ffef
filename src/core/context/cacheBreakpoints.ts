/**
 * Where a request's cache breakpoints go (docs/architecture.md, "Context engine", cache economics).
 * The API writes a cache entry only at a breakpoint and, reading, looks back at most ~20 blocks
 * from each breakpoint for an earlier entry. So:
 *
 * - every request: the newest message, and the previous request's newest message (a round that
 *   adds more than 20 blocks would otherwise miss the entry written last time);
 * - a request after tier edits: instead of the previous newest (its prefix just changed), one
 *   breakpoint on the last user message before the first edited block — the prefix up to there
 *   is unchanged and was written by an earlier request, so only what follows it is written again —
 *   and one on the "frontier": the last user message before the first result not yet cleared or
 *   snipped. The next batch of edits starts after that frontier, so its prefix is read then.
 *   Without them every edit rewrote the whole conversation from the system prompt on.
 *
 * Pure: it reads the live view and the engine's state, so a resumed engine places the same ones.
 */
import type { MessageParam } from '../model/messages';
import { blocksOf } from '../model/content';
import { liveIndexOf, type LiveState } from './liveView';
import type { EngineState } from './state';

export function cacheBreakpoints(messages: readonly MessageParam[], canonicalLength: number, state: Pick<EngineState, 'live' | 'lastRequest' | 'editedSinceRequest'>): number[] {
  const indexes = new Set<number>();
  if (messages.length === 0) return [];
  const newest = messages.length - 1;
  indexes.add(newest);
  const edited = new Set(state.editedSinceRequest);
  const firstEdited = edited.size > 0 ? firstIndexWith(messages, (id) => edited.has(id)) : undefined;
  if (firstEdited !== undefined) {
    const before = lastUserBefore(messages, firstEdited);
    if (before !== undefined) indexes.add(before);
    const open = firstIndexWith(messages, (id) => !isFinal(state.live, id));
    const frontier = lastUserBefore(messages, open ?? newest);
    if (frontier !== undefined) indexes.add(frontier);
  } else {
    const last = state.lastRequest;
    const previous = last ? liveIndexOf(state.live, last.mark.canonicalCount - 1, messages.length, canonicalLength) : undefined;
    if (previous !== undefined && previous >= 0 && previous < newest) indexes.add(previous);
  }
  return [...indexes].sort((a, b) => a - b);
}

/** Cleared and snipped results stay as they are; a trimmed one may still be cleared later. */
function isFinal(live: LiveState, toolUseId: string): boolean {
  const action = live.edits.get(toolUseId)?.action;
  return action === 'clear' || action === 'snip';
}

/** The first message holding a tool result whose id matches. */
function firstIndexWith(messages: readonly MessageParam[], match: (toolUseId: string) => boolean): number | undefined {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role !== 'user') continue;
    if (blocksOf(message).some((block) => block.type === 'tool_result' && match(block.tool_use_id))) return index;
  }
  return undefined;
}

function lastUserBefore(messages: readonly MessageParam[], index: number): number | undefined {
  for (let at = index - 1; at >= 0; at--) if (messages[at]!.role === 'user') return at;
  return undefined;
}

import type { ContentBlockParam, MessageParam } from '../model/messages';
import { blocksOf, toolUsesOf, type ToolUseBlock } from '../model/content';

export const INTERRUPTED_RESULT = 'Interrupted: the session ended before this tool call finished, so it did not run to completion.';

function toolUseIds(message: MessageParam): string[] {
  return toolUsesOf(message).map((block) => block.id);
}

/**
 * Makes a history valid for the API: every tool_use answered by a tool_result in the next user
 * message, no orphan tool_result. Histories we wrote are already valid; this guards resumed
 * transcripts of a crashed session (a tool_use written, its result never) so resume always works.
 * Returns the same array when nothing needed repair.
 */
export function repairHistory(original: readonly MessageParam[], interruptedResult?: InterruptedResult): { messages: MessageParam[]; repairs: number } {
  const deduplicated = uniqueToolUseIds(original);
  return repairPairs(deduplicated.messages, deduplicated.repairs, interruptedResult);
}

/** A better answer than INTERRUPTED_RESULT for some calls (a subagent's names its transcript); undefined keeps the default. */
export type InterruptedResult = (toolUse: ToolUseBlock) => string | undefined;

/**
 * The API rejects a history that repeats a tool_use id anywhere; a transcript written before
 * replies were checked may hold such repeats. A repeated id is renamed, and so is the tool_result
 * answering that occurrence (results are matched to uses in order).
 */
function uniqueToolUseIds(messages: readonly MessageParam[]): { messages: readonly MessageParam[]; repairs: number } {
  const seen = new Set<string>();
  const out: MessageParam[] = [];
  let repairs = 0;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || typeof message.content === 'string') {
      out.push(message);
      continue;
    }
    const renames: { from: string; to: string }[] = [];
    const content = message.content.map((block) => {
      if (block.type !== 'tool_use') return block;
      let id = block.id;
      for (let n = 2; seen.has(id); n++) id = `${block.id.slice(0, 120)}_${n}`;
      seen.add(id);
      renames.push({ from: block.id, to: id });
      return id === block.id ? block : { ...block, id };
    });
    const renamed = renames.filter((rename) => rename.from !== rename.to).length;
    if (renamed === 0) {
      out.push(message);
      continue;
    }
    repairs += renamed;
    out.push({ role: 'assistant', content });
    const next = messages[index + 1];
    if (next?.role === 'user' && typeof next.content !== 'string') {
      const pool = [...renames];
      const answers = next.content.map((block) => {
        if (block.type !== 'tool_result') return block;
        const at = pool.findIndex((rename) => rename.from === block.tool_use_id);
        if (at < 0) return block;
        const [rename] = pool.splice(at, 1);
        return rename && rename.to !== block.tool_use_id ? { ...block, tool_use_id: rename.to } : block;
      });
      out.push({ role: 'user', content: answers });
      index++;
    }
  }
  return { messages: repairs === 0 ? messages : out, repairs };
}

function repairPairs(original: readonly MessageParam[], earlierRepairs: number, interruptedResult: InterruptedResult | undefined): { messages: MessageParam[]; repairs: number } {
  const out: MessageParam[] = [];
  let repairs = earlierRepairs;
  // Whitespace-only text blocks and empty messages are rejected by the API on every later request.
  const cleaned: MessageParam[] = [];
  for (const message of original) {
    const blocks = blocksOf(message);
    const kept = blocks.filter((block) => block.type !== 'text' || block.text.trim().length > 0);
    if (kept.length === blocks.length && kept.length > 0) cleaned.push(message);
    else {
      repairs++;
      if (kept.length > 0) cleaned.push(message.role === 'user' ? { role: 'user', content: kept } : { role: 'assistant', content: kept });
    }
  }
  const messages = cleaned;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === 'user') {
      const previous = out.at(-1);
      const allowed = new Set(previous ? toolUseIds(previous) : []);
      const blocks = blocksOf(message);
      const kept = blocks.filter((block) => block.type !== 'tool_result' || allowed.has(block.tool_use_id));
      if (kept.length !== blocks.length) {
        repairs += blocks.length - kept.length;
        if (kept.length === 0) continue;
        out.push({ role: 'user', content: kept });
      } else {
        out.push(message);
      }
      continue;
    }
    out.push(message);
    const ids = toolUseIds(message);
    if (ids.length === 0) continue;
    const next = messages[index + 1];
    const answered = new Set(
      next?.role === 'user' ? blocksOf(next).flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])) : [],
    );
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length === 0) continue;
    repairs += missing.length;
    const uses = new Map(toolUsesOf(message).map((block) => [block.id, block]));
    const answerFor = (id: string) => {
      const use = uses.get(id);
      return (use && interruptedResult?.(use)) ?? INTERRUPTED_RESULT;
    };
    const fillers: ContentBlockParam[] = missing.map((id) => ({ type: 'tool_result', tool_use_id: id, content: answerFor(id), is_error: true }));
    if (next?.role === 'user') {
      // tool_result blocks go first in a user message; the API wants them before any text.
      const nextBlocks = blocksOf(next);
      const results = nextBlocks.filter((block) => block.type === 'tool_result' && ids.includes(block.tool_use_id));
      repairs += nextBlocks.filter((block) => block.type === 'tool_result').length - results.length;
      const rest = nextBlocks.filter((block) => block.type !== 'tool_result');
      out.push({ role: 'user', content: [...results, ...fillers, ...rest] });
      index++;
    } else {
      out.push({ role: 'user', content: fillers });
    }
  }
  return { messages: repairs === 0 ? messages.slice() : out, repairs };
}

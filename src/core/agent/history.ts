import type { ContentBlockParam, MessageParam } from '../model/client';

export const INTERRUPTED_RESULT = 'Interrupted: the session ended before this tool call finished, so it did not run to completion.';

function blocksOf(message: MessageParam): ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

export function toolUseIds(message: MessageParam): string[] {
  if (message.role !== 'assistant') return [];
  return blocksOf(message).flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
}

/**
 * Makes a history valid for the API: every tool_use answered by a tool_result in the next user
 * message, no orphan tool_result. Histories we wrote are already valid; this guards resumed
 * transcripts of a crashed session (a tool_use written, its result never) so resume always works.
 * Returns the same array when nothing needed repair.
 */
export function repairHistory(original: readonly MessageParam[]): { messages: MessageParam[]; repairs: number } {
  const out: MessageParam[] = [];
  let repairs = 0;
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
    const fillers: ContentBlockParam[] = missing.map((id) => ({ type: 'tool_result', tool_use_id: id, content: INTERRUPTED_RESULT, is_error: true }));
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

/**
 * A model response turned into what the history holds: its blocks as request params (tool_use ids
 * made unique and valid), its stop reason as the turn's, and the result for a tool call whose input
 * was not valid JSON. Pure functions; the session appends what they return.
 */
import type { InvalidToolInput } from '../model/backend';
import type { ContentBlock, ContentBlockParam, MessageParam } from '../model/messages';
import type { TurnStopReason } from './events';
import { toolUsesOf } from '../model/content';

/** What the model wrote is echoed (bounded) so it can see the mistake; its tool_use carries {}. */
export function invalidToolInputResult(invalid: InvalidToolInput): string {
  const text = invalid.text.length > 2000 ? `${invalid.text.slice(0, 2000)}… (${invalid.text.length} characters)` : invalid.text;
  return `Not run: the input of this tool call was not valid JSON (${invalid.problem}). Call the tool again with a JSON object. What you wrote:\n${text}`;
}

export function turnStopReason(reason: string | null): TurnStopReason {
  switch (reason) {
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
      return reason;
    case 'model_context_window_exceeded':
      return 'context_window_exceeded';
    default:
      return 'end_turn';
  }
}

/**
 * The response's blocks as request params: empty text removed (the API rejects it), server fields
 * dropped; a web search's call, its result and the citations of text go in exactly as they came
 * (the API refuses them edited; the live view decides whether they are sent back).
 */
export function toParams(content: ContentBlock[], usedIds: Set<string>): ContentBlockParam[] {
  const params: ContentBlockParam[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        // The API rejects whitespace-only text blocks in later requests ("must contain non-whitespace text").
        if (block.text.trim().length > 0) params.push({ type: 'text', text: block.text, ...(block.citations && block.citations.length > 0 ? { citations: block.citations } : {}) });
        break;
      case 'server_tool_use':
      case 'web_search_tool_result':
        params.push(block);
        break;
      case 'tool_use':
        params.push({ type: 'tool_use', id: uniqueToolUseId(block.id, usedIds), name: block.name, input: block.input });
        break;
      case 'thinking':
        params.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        break;
      case 'redacted_thinking':
        params.push({ type: 'redacted_thinking', data: block.data });
        break;
    }
  }
  return params;
}

const TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,128}$/;

/** Every tool_use id of the history: the API wants them unique across the whole request. */
export function toolUseIdsIn(messages: readonly MessageParam[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) for (const block of toolUsesOf(message)) ids.add(block.id);
  return ids;
}

/**
 * The API rejects a history whose tool_use ids repeat or break its pattern, so one such reply (a
 * faulty gateway, a hostile server) would make every later request fail: such ids are replaced
 * before the message enters the history, and the results answer the replacements.
 */
function uniqueToolUseId(id: string, used: Set<string>): string {
  let unique = TOOL_USE_ID.test(id) ? id : `toolu_evergreen_${used.size + 1}`;
  for (let n = 2; used.has(unique); n++) unique = `${TOOL_USE_ID.test(id) ? id.slice(0, 120) : 'toolu_evergreen'}_${n}`;
  used.add(unique);
  return unique;
}

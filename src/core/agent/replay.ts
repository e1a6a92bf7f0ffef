import type { ContentBlockParam, MessageParam } from '../model/client';
import type { AgentEvent } from './events';

function blocksOf(message: MessageParam): ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function resultText(block: Extract<ContentBlockParam, { type: 'tool_result' }>): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

/**
 * Rebuilds display events from a stored history, so a resumed session shows in the chat (and in
 * `stream-json`) exactly as if it had been watched live. Each user text message opens a turn.
 */
export function eventsFromHistory(messages: readonly MessageParam[]): AgentEvent[] {
  const events: AgentEvent[] = [];
  const names = new Map<string, string>();
  let turn = 0;
  let turnId = 'replay-0';
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (message.role === 'user' && block.type === 'text') {
        if (turn > 0) events.push({ type: 'turn_finished', turnId, stopReason: 'end_turn' });
        turnId = `replay-${++turn}`;
        events.push({ type: 'turn_started', turnId, userText: block.text });
      } else if (block.type === 'text') {
        events.push({ type: 'text_delta', turnId, text: block.text });
      } else if (block.type === 'tool_use') {
        names.set(block.id, block.name);
        events.push({ type: 'tool_call_started', turnId, toolUseId: block.id, name: block.name, input: block.input });
      } else if (block.type === 'tool_result') {
        events.push({
          type: 'tool_call_finished',
          turnId,
          toolUseId: block.tool_use_id,
          name: names.get(block.tool_use_id) ?? 'tool',
          isError: block.is_error === true,
          content: resultText(block),
          durationMs: 0,
        });
      }
    }
  }
  if (turn > 0) events.push({ type: 'turn_finished', turnId, stopReason: 'end_turn' });
  return events;
}

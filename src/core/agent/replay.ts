import type { MessageParam } from '../model/messages';
import { DisplayBuilder } from '../context/fold';
import type { AgentEvent } from './events';

/**
 * Rebuilds display events from a stored history, so a resumed session shows in the chat (and in
 * `stream-json`) exactly as if it had been watched live. Each user text message opens a turn.
 */
export function eventsFromHistory(messages: readonly MessageParam[]): AgentEvent[] {
  const builder = new DisplayBuilder();
  for (const message of messages) builder.message(message);
  return builder.finish();
}

/**
 * What a core event's UserText reads as in the CLI's words (English): tests match sentences the
 * user reads. A string (an event the CLI already worded, from stream-json) reads as itself.
 */
import type { AgentEvent } from '../../src/core/agent/events';
import type { UserText } from '../../src/core/texts/userText';
import { word } from '../../src/frontends/words';
import { wordEvent, type WordedEvent } from '../../src/frontends/words/wordEvent';

export function said(text: UserText | string): string;
export function said(text: UserText | string | undefined): string | undefined;
export function said(text: UserText | string | undefined): string | undefined {
  return text === undefined || typeof text === 'string' ? text : word(text);
}

/** Core events as a front end shows them (the panel's model takes these). */
export function worded(events: readonly AgentEvent[]): WordedEvent[] {
  return events.map(wordEvent);
}

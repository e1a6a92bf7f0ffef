/** What a core event's UserText reads as in the CLI's words (English): tests match sentences the user reads. */
import type { AgentEvent } from '../../src/core/agent/events';
import type { UserText } from '../../src/core/userText';
import { word } from '../../src/frontends/words';
import { wordEvent, type WordedEvent } from '../../src/frontends/words/wordEvent';

export function said(text: UserText): string;
export function said(text: UserText | undefined): string | undefined;
export function said(text: UserText | undefined): string | undefined {
  return text === undefined ? undefined : word(text);
}

/** Core events as a front end shows them (the panel's model takes these). */
export function worded(events: readonly AgentEvent[]): WordedEvent[] {
  return events.map(wordEvent);
}

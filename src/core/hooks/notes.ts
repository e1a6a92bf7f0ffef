/**
 * What a hook adds for the model, as the conversation carries it: a text block of a user message
 * (the prompt's, or the one after a round's tool results, or the instruction a Stop hook gives)
 * that opens with a mark, so the display, the breakdown and the compaction can tell it from the
 * user's own words. Part of the recorded message: a resume sends exactly the same.
 */
import type { HookEventName } from './events';

export const HOOK_NOTE_MARK = '<hook-output event="';
const CLOSE = '</hook-output>';

/** The note for one hook's text: which event and command produced it, then the text (already through tier 0). */
export function hookNoteText(event: HookEventName, command: string, text: string): string {
  // The command is shown as JSON text: a quote or a newline in it cannot end the header early.
  return `${HOOK_NOTE_MARK}${event}" command=${JSON.stringify(command)}>\n${text}\n${CLOSE}`;
}

/** The event a note came from; undefined for any other text. */
export function hookNoteEvent(text: string): string | undefined {
  if (!text.startsWith(HOOK_NOTE_MARK)) return undefined;
  const end = text.indexOf('"', HOOK_NOTE_MARK.length);
  return end < 0 ? undefined : text.slice(HOOK_NOTE_MARK.length, end);
}

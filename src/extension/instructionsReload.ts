// What "Evergreen: Reload Instructions" says: the controller rebuilds the session, these are its words.
import type { StartedSession } from '../core/agent/factory';
import { instructionsOf } from '../core/agent/systemPrompt';

export type Outcome = { ok: boolean; message: string };

export const NO_CHAT_TO_RELOAD = 'No chat is open: the next chat reads the instruction files as they are then.';

/** Why the open chat cannot be rebuilt now (undefined: it can, or there is none). */
export function reloadRefusal(active: StartedSession | undefined, sending: boolean): Outcome | undefined {
  if (sending || active?.session.busy) return { ok: false, message: 'Evergreen is working: reload the instructions when the turn has ended (or cancel it first).' };
  // Rebuilding from an incomplete transcript would lose what only lives in memory.
  if (active?.handle.transcriptWriteError) return { ok: false, message: 'This conversation could not be saved, so it cannot be rebuilt on its transcript: start a New Chat to use the changed instructions.' };
  return undefined;
}

export function reloadedOutcome(started: StartedSession): Outcome {
  const found = instructionsOf(started.session.systemPrompt) !== undefined;
  return { ok: true, message: `Instructions reloaded: ${found ? 'the next message uses them' : 'no instruction file was found'}.` };
}

import { errorMessage } from '../logger';
import { ContextWindowTooSmallError } from '../context/engineTypes';
import { errorActionsFor } from '../model/errorActions';
import { userText, verbatim } from '../texts/userText';
import { isErrorHint, ModelError } from '../model/errors';
import type { AgentEvent } from './events';

/** The `error` event for a failed turn: its kind, the words, the next step as a hint kind, and the actions the front ends offer. */
export function errorEventFor(turnId: string, error: unknown): Extract<AgentEvent, { type: 'error' }> {
  if (error instanceof ContextWindowTooSmallError) {
    const kind = 'context_window_too_small';
    return { type: 'error', turnId, kind, message: error.text, hint: userText('context.windowTooSmallHint', {}), actions: errorActionsFor(kind) };
  }
  if (error instanceof ModelError && error.kind !== 'cancelled') {
    const hint = error.hint === undefined ? {} : isErrorHint(error.hint) ? { errorHint: error.hint } : { hint: error.hint };
    return { type: 'error', turnId, kind: error.kind, message: error.text, ...hint, actions: errorActionsFor(error.kind) };
  }
  // Not ours to word: whatever failed said it in its own message.
  return { type: 'error', turnId, kind: 'internal', message: verbatim(errorMessage(error)), actions: errorActionsFor('internal') };
}

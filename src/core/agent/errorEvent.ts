import { ContextWindowTooSmallError } from '../context/engineTypes';
import { errorActionsFor } from '../model/errorActions';
import { verbatim } from '../texts/userText';
import { ModelError } from '../model/errors';
import type { AgentEvent } from './events';

/** The `error` event for a failed turn: its kind, the words, the next step as a hint kind, and the actions the front ends offer. */
export function errorEventFor(turnId: string, error: unknown): Extract<AgentEvent, { type: 'error' }> {
  if (error instanceof ContextWindowTooSmallError) {
    const kind = 'context_window_too_small';
    return { type: 'error', turnId, kind, message: verbatim(error.message), hint: verbatim('Change the setting, then send your message again.'), actions: errorActionsFor(kind) };
  }
  if (error instanceof ModelError && error.kind !== 'cancelled') {
    const hint = typeof error.hint === 'string' ? { hint: verbatim(error.hint) } : error.hint ? { errorHint: error.hint } : {};
    return { type: 'error', turnId, kind: error.kind, message: verbatim(error.message), ...hint, actions: errorActionsFor(error.kind) };
  }
  return { type: 'error', turnId, kind: 'internal', message: verbatim(error instanceof Error ? error.message : String(error)), actions: errorActionsFor('internal') };
}

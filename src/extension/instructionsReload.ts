// What "Evergreen: Reload Instructions" says: the controller rebuilds the session, these are its words.
import * as vscode from 'vscode';
import type { StartedSession } from '../core/agent/factory';
import { instructionsOf } from '../core/agent/systemPrompt';

export type Outcome = { ok: boolean; message: string };

/** What a reload says when no chat is open. */
export function noChatToReload(): string {
  return vscode.l10n.t('No chat is open: the next chat reads the instruction files as they are then.');
}

/** What rebuilding the chat would do: reload the instructions, or switch its model or thinking (/model, /thinking). */
export type Rebuild = 'instructions' | 'model' | 'thinking';

function busyMessage(rebuild: Rebuild): string {
  if (rebuild === 'model') return vscode.l10n.t('Evergreen is working: switch the model when the turn has ended (or cancel it first).');
  if (rebuild === 'thinking') return vscode.l10n.t('Evergreen is working: switch thinking when the turn has ended (or cancel it first).');
  return vscode.l10n.t('Evergreen is working: reload the instructions when the turn has ended (or cancel it first).');
}

/** Why the open chat cannot be rebuilt now (undefined: it can, or there is none). */
export function reloadRefusal(active: StartedSession | undefined, sending: boolean, rebuild: Rebuild = 'instructions'): Outcome | undefined {
  if (sending || active?.session.busy) return { ok: false, message: busyMessage(rebuild) };
  // Rebuilding from an incomplete transcript would lose what only lives in memory.
  if (active?.handle.transcriptWriteError) return { ok: false, message: vscode.l10n.t('This conversation could not be saved, so it cannot be rebuilt on its transcript: start a New Chat to use the changed instructions.') };
  return undefined;
}

export function reloadedOutcome(started: StartedSession): Outcome {
  const found = instructionsOf(started.session.systemPrompt) !== undefined;
  return { ok: true, message: found ? vscode.l10n.t('Instructions reloaded: the next message uses them.') : vscode.l10n.t('Instructions reloaded: no instruction file was found.') };
}

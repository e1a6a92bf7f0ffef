/**
 * "Restore" on a user message (issue 17): choose files and conversation, files only, conversation
 * only, or edit and resend; review the files that will change (a diff per file, changes made
 * outside Evergreen flagged and kept unless chosen); then restore, with a one-level Undo. The
 * work itself is the core's (checkpoints/store.ts, agent/checkpointRestore.ts); this is the dialog.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { restoreCheckpoint, undoCheckpointRestore, type CheckpointRestoreOutcome, type RestoreScope } from '../core/agent/checkpointRestore';
import type { StartedSession } from '../core/agent/factory';
import type { RestorePlan } from '../core/checkpoints/store';
import { errorMessage, type Logger } from '../core/logger';
import type { ProposedChanges } from './proposedChanges';

export interface CheckpointRestoreHost {
  active(): StartedSession | undefined;
  /** A turn is running (a restore would race it). */
  busy(): boolean;
  /** The user message a checkpoint precedes, as the chat shows it. */
  userTextOf(checkpoint: number): string | undefined;
  /** Rebuilds the session on its transcript (after the conversation was rewound). */
  rebuild(sessionId: string): Promise<void>;
  /** Puts text into the chat's composer (edit and resend). */
  setComposer(text: string): void;
  /** Shows the chat with its message box focused (the pickers and notifications took the focus). */
  focusInput(): Promise<void>;
  diffs: ProposedChanges;
  logger: Logger;
}

type Choice = RestoreScope | 'edit';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** How the pickers name a checkpoint: the message it goes back before, in the user's words (one line, cut). */
export function checkpointName(checkpoint: number, userText: string | undefined): string {
  const line = userText?.replace(/\s+/g, ' ').trim();
  if (!line) return `checkpoint ${checkpoint}`;
  return `before “${line.length > 60 ? `${line.slice(0, 59)}…` : line}”`;
}

async function chooseScope(plan: RestorePlan, name: string): Promise<Choice | undefined> {
  const files = plan.files.length === 0 ? 'no file changed since then' : plural(plan.files.length, 'file');
  const items: (vscode.QuickPickItem & { choice: Choice })[] = [
    { label: 'Restore files and conversation', description: files, detail: 'The workspace and the chat go back to just before this message.', choice: 'files-and-conversation' },
    { label: 'Restore files only', description: files, detail: 'The chat stays as it is.', choice: 'files' },
    { label: 'Restore conversation only', description: 'files stay as they are', detail: 'The chat goes back to just before this message.', choice: 'conversation' },
    { label: 'Edit and resend this message', description: 'files stay as they are', detail: 'The chat goes back to just before this message, and its text is put in the message box.', choice: 'edit' },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: `Evergreen: restore ${name}`, placeHolder: 'What should go back to just before this message?' });
  return picked?.choice;
}

/** The files that will change, each opening its diff; resolves to whether to overwrite outside changes, or undefined to cancel. */
function confirmFiles(host: CheckpointRestoreHost, started: StartedSession, plan: RestorePlan, name: string): Promise<{ overwriteOutsideChanges: boolean } | undefined> {
  const root = started.checkpoints?.workspaceRoot ?? '';
  const outside = plan.files.filter((file) => file.changedOutside);
  type Item = vscode.QuickPickItem & { action?: 'restore' | 'overwrite'; file?: string };
  const items: Item[] = [
    { label: `$(history) Restore ${plural(plan.files.length - outside.length, 'file')}`, detail: outside.length > 0 ? `${plural(outside.length, 'file')} changed outside Evergreen since then will be kept.` : undefined, action: 'restore' },
    ...(outside.length > 0 ? [{ label: `$(warning) Restore all ${plural(plan.files.length, 'file')}, overwriting changes made outside Evergreen`, action: 'overwrite' as const }] : []),
    { label: 'Files (select one to see its diff)', kind: vscode.QuickPickItemKind.Separator },
    ...plan.files.map((file) => ({
      label: `$(diff) ${file.path}`,
      description: file.action === 'delete' ? 'will be deleted' : 'will be restored',
      detail: file.changedOutside ? 'Changed outside Evergreen since the checkpoint: kept unless you choose to overwrite.' : undefined,
      file: file.path,
    })),
    ...plan.unrestorable.map((file) => ({ label: `$(circle-slash) ${file.path}`, description: 'cannot be restored', detail: file.reason })),
  ];
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<Item>();
    pick.title = `Evergreen: restore ${name}: ${plural(plan.files.length, 'file')} will change`;
    pick.items = items;
    pick.ignoreFocusOut = true;
    let settled = false;
    const finish = (value: { overwriteOutsideChanges: boolean } | undefined) => {
      if (settled) return;
      settled = true;
      resolve(value);
      pick.dispose();
    };
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      if (item?.action) return finish({ overwriteOutsideChanges: item.action === 'overwrite' });
      const file = item?.file;
      if (!file || !started.checkpoints) return;
      void started.checkpoints
        .plannedContent(plan, file)
        .then((bytes) => host.diffs.showCheckpointDiff(path.join(root, file), file, bytes?.toString('utf8'), fs.existsSync(path.join(root, file)), plan.checkpoint))
        .catch((error: unknown) => host.logger.error(`could not show the checkpoint diff of ${file}`, error));
    });
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}

function summary(outcome: CheckpointRestoreOutcome): string {
  const parts: string[] = [];
  if (outcome.files) {
    parts.push(`${plural(outcome.files.restored.length, 'file')} restored`);
    if (outcome.files.keptOutsideChanges.length > 0) parts.push(`kept your changes to ${outcome.files.keptOutsideChanges.join(', ')}`);
    if (outcome.files.failed.length > 0) parts.push(`could not restore ${outcome.files.failed.map((failure) => `${failure.path} (${failure.reason})`).join('; ')}`);
  }
  if (outcome.conversationRewound) parts.push('the conversation is back before that message (the later messages stay in the archived transcript)');
  return parts.join('; ');
}

/** `preset`: the choice already made (the last message's Edit button); otherwise the user picks. */
export async function restoreCheckpointFromChat(host: CheckpointRestoreHost, checkpoint: number, preset?: Choice): Promise<void> {
  const started = host.active();
  if (!started?.checkpoints) {
    void vscode.window.showWarningMessage('Evergreen: this chat has no checkpoints (they are taken in a trusted workspace). Nothing was changed.');
    return;
  }
  if (host.busy()) {
    void vscode.window.showWarningMessage('Evergreen: the agent is still working. Stop it (or wait for it to finish), then restore.');
    return;
  }
  const checkpoints = started.checkpoints;
  try {
    const plan = await checkpoints.planRestore(checkpoint);
    const name = checkpointName(checkpoint, host.userTextOf(checkpoint));
    const choice = preset ?? (await chooseScope(plan, name));
    if (!choice) return;
    const scope: RestoreScope = choice === 'edit' ? 'conversation' : choice;
    let overwriteOutsideChanges = false;
    if (scope !== 'conversation' && plan.files.length > 0) {
      const confirmed = await confirmFiles(host, started, plan, name);
      if (!confirmed) return;
      overwriteOutsideChanges = confirmed.overwriteOutsideChanges;
    }
    if (host.busy()) throw new Error('the agent started working meanwhile; nothing was restored');
    const text = host.userTextOf(checkpoint);
    const sessionId = started.handle.id;
    const outcome = await restoreCheckpoint(checkpoints, started.handle, checkpoint, scope, { overwriteOutsideChanges });
    if (outcome.conversationRewound) await host.rebuild(sessionId);
    // The conversation went back before this message: its words come back to the box, to send
    // again as they are or changed (a blank chat with an empty box lost the user's place).
    if (outcome.conversationRewound && text !== undefined) host.setComposer(text);
    await host.focusInput();
    // Undo is offered only while nothing happened since (a new message would be spliced into the old conversation).
    const entriesAfterRestore = host.active()?.handle.entryCount;
    const undo = await vscode.window.showInformationMessage(`Evergreen: ${summary(outcome)}.`, 'Undo Restore');
    if (undo !== 'Undo Restore') return;
    const current = host.active();
    if (!current || current.handle.id !== sessionId || host.busy() || current.handle.entryCount !== entriesAfterRestore) throw new Error('the chat moved on since the restore; it can no longer be undone');
    const undone = await undoCheckpointRestore(checkpoints, current.handle, outcome);
    if (outcome.conversationRewound) await host.rebuild(sessionId);
    await host.focusInput();
    const failed = undone?.failed ?? [];
    void vscode.window.showInformationMessage(`Evergreen: restore undone${failed.length > 0 ? `, except ${failed.map((failure) => `${failure.path} (${failure.reason})`).join('; ')}` : ''}.`);
  } catch (error) {
    host.logger.error(`restoring checkpoint ${checkpoint} failed`, error);
    void vscode.window.showErrorMessage(`Evergreen could not restore checkpoint ${checkpoint}: ${errorMessage(error)}. Files not listed as restored are unchanged.`);
  }
}

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

/** "1 file", "3 files": whole phrases, so a language words its own plural. */
const fileCount = (count: number) => (count === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', count));

/** How the pickers name a checkpoint: the message it goes back before, in the user's words (one line, cut). */
export function checkpointName(checkpoint: number, userText: string | undefined): string {
  const line = userText?.replace(/\s+/g, ' ').trim();
  if (!line) return vscode.l10n.t('checkpoint {0}', checkpoint);
  return vscode.l10n.t('before “{0}”', line.length > 60 ? `${line.slice(0, 59)}…` : line);
}

async function chooseScope(plan: RestorePlan, name: string): Promise<Choice | undefined> {
  const files = plan.files.length === 0 ? vscode.l10n.t('no file changed since then') : fileCount(plan.files.length);
  const filesStay = vscode.l10n.t('files stay as they are');
  const items: (vscode.QuickPickItem & { choice: Choice })[] = [
    { label: vscode.l10n.t('Restore files and conversation'), description: files, detail: vscode.l10n.t('The workspace and the chat go back to just before this message.'), choice: 'files-and-conversation' },
    { label: vscode.l10n.t('Restore files only'), description: files, detail: vscode.l10n.t('The chat stays as it is.'), choice: 'files' },
    { label: vscode.l10n.t('Restore conversation only'), description: filesStay, detail: vscode.l10n.t('The chat goes back to just before this message.'), choice: 'conversation' },
    {
      label: vscode.l10n.t('Edit and resend this message'),
      description: filesStay,
      detail: vscode.l10n.t('The chat goes back to just before this message, and its text is put in the message box.'),
      choice: 'edit',
    },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Evergreen: restore {0}', name), placeHolder: vscode.l10n.t('What should go back to just before this message?') });
  return picked?.choice;
}

/** The files that will change, each opening its diff; resolves to whether to overwrite outside changes, or undefined to cancel. */
function confirmFiles(host: CheckpointRestoreHost, started: StartedSession, plan: RestorePlan, name: string): Promise<{ overwriteOutsideChanges: boolean } | undefined> {
  const root = started.checkpoints?.workspaceRoot ?? '';
  const outside = plan.files.filter((file) => file.changedOutside);
  type Item = vscode.QuickPickItem & { action?: 'restore' | 'overwrite'; file?: string };
  const items: Item[] = [
    {
      label: `$(history) ${vscode.l10n.t('Restore {0}', fileCount(plan.files.length - outside.length))}`,
      detail: outside.length > 0 ? vscode.l10n.t('{0} changed outside Evergreen since then will be kept.', fileCount(outside.length)) : undefined,
      action: 'restore',
    },
    ...(outside.length > 0 ? [{ label: `$(warning) ${vscode.l10n.t('Restore all {0}, overwriting changes made outside Evergreen', fileCount(plan.files.length))}`, action: 'overwrite' as const }] : []),
    { label: vscode.l10n.t('Files (select one to see its diff)'), kind: vscode.QuickPickItemKind.Separator },
    ...plan.files.map((file) => ({
      label: `$(diff) ${file.path}`,
      description: file.action === 'delete' ? vscode.l10n.t('will be deleted') : vscode.l10n.t('will be restored'),
      detail: file.changedOutside ? vscode.l10n.t('Changed outside Evergreen since the checkpoint: kept unless you choose to overwrite.') : undefined,
      file: file.path,
    })),
    ...plan.unrestorable.map((file) => ({ label: `$(circle-slash) ${file.path}`, description: vscode.l10n.t('cannot be restored'), detail: file.reason })),
  ];
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<Item>();
    pick.title = vscode.l10n.t('Evergreen: restore {0}: {1} will change', name, fileCount(plan.files.length));
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

function failureList(failures: readonly { path: string; reason: string }[]): string {
  return failures.map((failure) => `${failure.path} (${failure.reason})`).join('; ');
}

function summary(outcome: CheckpointRestoreOutcome): string {
  const parts: string[] = [];
  if (outcome.files) {
    parts.push(vscode.l10n.t('{0} restored', fileCount(outcome.files.restored.length)));
    if (outcome.files.keptOutsideChanges.length > 0) parts.push(vscode.l10n.t('kept your changes to {0}', outcome.files.keptOutsideChanges.join(', ')));
    if (outcome.files.failed.length > 0) parts.push(vscode.l10n.t('could not restore {0}', failureList(outcome.files.failed)));
  }
  if (outcome.conversationRewound) parts.push(vscode.l10n.t('the conversation is back before that message (the later messages stay in the archived transcript)'));
  return parts.join('; ');
}

/** `preset`: the choice already made (the last message's Edit button); otherwise the user picks. */
export async function restoreCheckpointFromChat(host: CheckpointRestoreHost, checkpoint: number, preset?: Choice): Promise<void> {
  const started = host.active();
  if (!started?.checkpoints) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: this chat has no checkpoints (they are taken in a trusted workspace). Nothing was changed.'));
    return;
  }
  if (host.busy()) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: the agent is still working. Stop it (or wait for it to finish), then restore.'));
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
    if (host.busy()) throw new Error(vscode.l10n.t('the agent started working meanwhile; nothing was restored'));
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
    const undoRestore = vscode.l10n.t('Undo Restore');
    const undo = await vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}.', summary(outcome)), undoRestore);
    if (undo !== undoRestore) return;
    const current = host.active();
    if (!current || current.handle.id !== sessionId || host.busy() || current.handle.entryCount !== entriesAfterRestore) throw new Error(vscode.l10n.t('the chat moved on since the restore; it can no longer be undone'));
    const undone = await undoCheckpointRestore(checkpoints, current.handle, outcome);
    if (outcome.conversationRewound) await host.rebuild(sessionId);
    await host.focusInput();
    const failed = undone?.failed ?? [];
    void vscode.window.showInformationMessage(failed.length > 0 ? vscode.l10n.t('Evergreen: restore undone, except {0}.', failureList(failed)) : vscode.l10n.t('Evergreen: restore undone.'));
  } catch (error) {
    host.logger.error(`restoring checkpoint ${checkpoint} failed`, error);
    void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen could not restore checkpoint {0}: {1}. Files not listed as restored are unchanged.', checkpoint, errorMessage(error)));
  }
}

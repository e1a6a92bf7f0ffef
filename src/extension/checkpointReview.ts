import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StartedSession } from '../core/agent/factory';
import type { CheckpointStore } from '../core/checkpoints/store';
import { errorMessage, type Logger } from '../core/logger';
import { escapeLine } from '../core/visibleText';
import { isInside, isNodeError } from '../core/workspace/workspace';
import { asHunk, checkpointFileChanges, isReviewableText, revertHunks, type CheckpointFileChanges } from '../frontends/checkpointReview';
import { hunkRow } from '../frontends/hunkReview';
import { checkpointName } from './checkpointRestore';
import type { CommandId } from './manifest';

/** A hunk the user picked to reject: its file (workspace-relative) and its index among the file's hunks. */
export interface RejectedHunk {
  path: string;
  hunk: number;
}

/**
 * "Evergreen: Review Changes Since Checkpoint…" (issue 31): what the panel's chat changed since a
 * checkpoint, hunk by hunk, in one multi-select list; the hunks picked are rejected, their lines
 * put back as they were at the checkpoint in the working tree, the rest left as they are. The
 * Restore dialog goes back a whole file; this goes back a hunk. A hunk whose lines changed again
 * since the list was read is named and left alone. Arguments (the tests'): the checkpoint's number
 * and the hunks to reject, instead of the two pickers.
 */
export function registerCheckpointReview(chat: { readonly active: StartedSession | undefined; readonly busy: boolean }, logger: Logger): vscode.Disposable {
  return vscode.commands.registerCommand(`evergreen.${'reviewCheckpointChanges' satisfies CommandId}`, async (checkpoint?: unknown, reject?: unknown) => {
    try {
      const store = chat.active?.checkpoints;
      if (!store) return void vscode.window.showInformationMessage('Evergreen: no chat with checkpoints is open. Open a chat (its checkpoints are on in a trusted workspace), then review what it changed.');
      if (chat.busy) return void vscode.window.showInformationMessage('Evergreen: the chat is working; review its changes when its turn has ended.');
      const number = typeof checkpoint === 'number' ? checkpoint : await pickCheckpoint(store);
      if (number === undefined) return;
      const files = await changesSince(store, number);
      if (files.length === 0) return void vscode.window.showInformationMessage(`Evergreen: no text file changed since checkpoint ${number}.`);
      const chosen = Array.isArray(reject) ? (reject as RejectedHunk[]) : await pickHunks(files, number);
      if (chosen === undefined || chosen.length === 0) return;
      await rejectHunks(store.workspaceRoot, files, chosen);
    } catch (error) {
      logger.error('reviewing the changes since a checkpoint failed', error);
      void vscode.window.showErrorMessage(`Evergreen: the changes since the checkpoint could not be reviewed: ${escapeLine(errorMessage(error))}. The log has the details.`);
    }
  });
}

async function pickCheckpoint(store: CheckpointStore): Promise<number | undefined> {
  const records = [...(await store.list())].reverse();
  if (records.length === 0) {
    void vscode.window.showInformationMessage('Evergreen: this chat has no checkpoint yet; one is made before each message you send.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    records.map((record) => ({ label: checkpointName(record.number, record.preview), description: `checkpoint ${record.number}`, number: record.number })),
    { title: 'Evergreen: review the changes since which message?' },
  );
  return picked?.number;
}

/** Every text file changed since the checkpoint, with its hunks (binary files are left to Restore). */
async function changesSince(store: CheckpointStore, number: number): Promise<CheckpointFileChanges[]> {
  const plan = await store.planRestore(number);
  const files: CheckpointFileChanges[] = [];
  for (const planned of plan.files) {
    const before = await store.plannedContent(plan, planned.path);
    const now = await readIfThere(path.join(store.workspaceRoot, ...planned.path.split('/')));
    if (!isReviewableText(before) || !isReviewableText(now)) continue;
    const changes = checkpointFileChanges(planned.path, before?.toString('utf8'), now?.toString('utf8'));
    if (changes.hunks.length > 0) files.push(changes);
  }
  return files;
}

async function readIfThere(file: string): Promise<Buffer | undefined> {
  try {
    return await fsp.readFile(file);
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

async function pickHunks(files: readonly CheckpointFileChanges[], number: number): Promise<RejectedHunk[] | undefined> {
  type Item = vscode.QuickPickItem & { rejected?: RejectedHunk };
  const items: Item[] = files.flatMap((file) => [
    { label: escapeLine(file.path), kind: vscode.QuickPickItemKind.Separator },
    ...file.hunks.map((hunk, index): Item => {
      const row = hunkRow(asHunk(hunk), undefined);
      const changed = hunk.lines.filter((line) => line.startsWith('+') || line.startsWith('-')).slice(0, 3);
      return { label: row.label, description: `${escapeLine(file.path)} · ${row.description.split(' · ')[0]}`, detail: changed.map(escapeLine).join(' ⏎ '), rejected: { path: file.path, hunk: index } };
    }),
  ]);
  const picked = await vscode.window.showQuickPick(items, {
    title: `Evergreen: changes since checkpoint ${number}`,
    placeHolder: 'Pick the hunks to reject: their lines go back as they were; the others stay.',
    canPickMany: true,
    matchOnDescription: true,
  });
  return picked?.flatMap((item) => (item.rejected ? [item.rejected] : []));
}

/** Puts back the rejected hunks file by file; a file whose lines changed since the list was read is named and left as it is. */
async function rejectHunks(root: string, files: readonly CheckpointFileChanges[], chosen: readonly RejectedHunk[]): Promise<void> {
  const reverted: string[] = [];
  const inTheWay: string[] = [];
  for (const file of files) {
    const indexes = chosen.filter((hunk) => hunk.path === file.path).map((hunk) => hunk.hunk);
    if (indexes.length === 0) continue;
    const target = path.join(root, ...file.path.split('/'));
    // The path came from the checkpoint's records: it must still be a plain file in the workspace, not a link out of it.
    if (!isInside(target, root) || (await fsp.lstat(target).catch(() => undefined))?.isSymbolicLink()) {
      inTheWay.push(`${escapeLine(file.path)} (not a plain file in the workspace)`);
      continue;
    }
    const current = await readIfThere(target);
    const result = revertHunks(file, indexes, current?.toString('utf8'));
    if (result.kind === 'conflict') {
      inTheWay.push(`${escapeLine(file.path)} (its lines changed again since the list was read)`);
      continue;
    }
    if (result.delete) await fsp.rm(target, { force: true });
    else {
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.writeFile(target, result.text);
    }
    reverted.push(file.path);
  }
  const count = chosen.filter((hunk) => reverted.includes(hunk.path)).length;
  const done = reverted.length > 0 ? `Rejected ${count} hunk(s) in ${reverted.length} file(s): their lines are back as they were at the checkpoint. ` : '';
  if (inTheWay.length > 0) void vscode.window.showErrorMessage(`Evergreen: ${done}Nothing was put back in ${inTheWay.join(', ')}; review again.`);
  else void vscode.window.showInformationMessage(`Evergreen: ${done.trim()}`);
}

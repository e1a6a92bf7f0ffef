import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import { formatSize } from '../core/memory/store';
import { listMemoryFiles } from '../core/memory/view';
import { settingName } from '../frontends/settingsTable';
import { memoryFolderFor } from '../core/memory/location';
import { readSettings } from './settings';
import { workspaceFolder } from './slashCommands';

interface MemoryItem extends vscode.QuickPickItem {
  run(): Promise<unknown>;
}

/** This workspace's memory folder, opened as below; memory is kept per workspace folder, so none without one. */
export async function openWorkspaceMemory(memoryRoot: string): Promise<void> {
  const root = workspaceFolder();
  if (!root) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: open a folder first; memory is kept per workspace folder.'));
    return;
  }
  await openMemoryFolder(memoryFolderFor(memoryRoot, root), readSettings().memory.enabled);
}

/**
 * "Evergreen: Open Memory" and `/memory`: what the agent remembers of this workspace, one file a
 * row (its path, size and first line), opened in an editor to read or change; the folder itself can
 * be opened in a window of its own or its path copied. Memory is the model's notes: this is how the
 * user reviews what it chose to keep.
 */
export async function openMemoryFolder(folder: string, enabled: boolean): Promise<void> {
  const files = await listMemoryFiles(folder);
  const off = enabled ? undefined : vscode.l10n.t('Memory is off ("{0}"): new chats neither read nor write it.', settingName('memory.enabled'));
  const items: MemoryItem[] = [
    ...files.map((file) => ({
      label: file.shown,
      description: formatSize(file.bytes),
      detail: file.firstLine,
      run: async () => vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file.absolute)), { preview: false }),
    })),
    { label: `$(folder-opened) ${vscode.l10n.t('Open the memory folder in a new window')}`, detail: folder, run: () => openFolder(folder) },
    { label: `$(copy) ${vscode.l10n.t('Copy the memory folder’s path')}`, detail: folder, run: () => Promise.resolve(vscode.env.clipboard.writeText(folder)) },
  ];
  const state =
    files.length === 0
      ? vscode.l10n.t('Evergreen: memory is empty. The agent writes it with its memory tool.')
      : files.length === 1
        ? vscode.l10n.t('Evergreen: memory of this workspace (1 file).')
        : vscode.l10n.t('Evergreen: memory of this workspace ({0} files).', files.length);
  const title = off === undefined ? state : `${state} ${off}`;
  const picked = await vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true, placeHolder: vscode.l10n.t('A note to open and edit, or the folder') });
  await picked?.run();
}

async function openFolder(folder: string): Promise<void> {
  // The folder exists once the agent has written; before that, it is made (owner-only, as memory makes it) so the window has something to open.
  await fsp.mkdir(folder, { recursive: true, mode: 0o700 });
  await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(folder), { forceNewWindow: true });
}

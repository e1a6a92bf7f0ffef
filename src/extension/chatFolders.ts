import * as vscode from 'vscode';
import type { StartedSession } from '../core/agent/factory';
import { ActionableError } from '../core/model/errorActions';
import type { FileSessionStore } from '../core/storage/sessionStore';
import { decideChatFolder } from './chatFolderChoice';

/** Where the last chosen folder is remembered: the workspace's state, so each workspace keeps its own. */
const REMEMBERED_KEY = 'chatFolder';

/**
 * The folder each chat works in, in a multi-root workspace (chatFolderChoice.ts decides): asked
 * once and remembered for the next chats, a resumed chat back in its own folder, changed with
 * "Evergreen: Choose Chat Folder…". The open chat's folder is the one its session was started in.
 */
export class ChatFolders {
  constructor(
    private readonly store: FileSessionStore,
    private readonly state: vscode.Memento,
    private readonly active: () => StartedSession | undefined,
  ) {}

  /** The workspace's folders on disk (a virtual folder has no files for the tools). */
  private folders(): vscode.WorkspaceFolder[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
  }

  private remembered(): string | undefined {
    return this.state.get<string>(REMEMBERED_KEY);
  }

  /** The open chat's folder, else the one a new chat would work in; undefined while that must still be asked. */
  current(): string | undefined {
    const open = this.active()?.handle.meta.workspace;
    if (open) return open;
    const decision = decideChatFolder({ folders: this.folders().map((folder) => folder.uri.fsPath), remembered: this.remembered() });
    return decision.kind === 'use' ? decision.folder : undefined;
  }

  /** The folder a session starts in: its own when resumed, else the remembered one, else the user picks. */
  async forStart(resumeId: string | undefined): Promise<string> {
    const resumed = resumeId === undefined ? undefined : ((await this.store.readMeta(resumeId).catch(() => undefined))?.workspace ?? undefined);
    const decision = decideChatFolder({ folders: this.folders().map((folder) => folder.uri.fsPath), remembered: this.remembered(), ...(resumed !== undefined ? { resumed } : {}) });
    if (decision.kind === 'use') return decision.folder;
    if (decision.kind === 'none') throw new ActionableError('no_workspace', vscode.l10n.t('Open a folder first: Evergreen works on the files of a workspace folder.'));
    const title = decision.reason === 'resumedFolderGone' ? vscode.l10n.t('This session worked in {0}, which is not in the workspace now: which folder should it work in?', resumed ?? '') : vscode.l10n.t('Which folder should this chat work in?');
    const folder = await this.pick(title);
    if (!folder) throw new ActionableError('no_workspace', vscode.l10n.t('No folder was chosen for this chat: send again and pick one, or run "Evergreen: Choose Chat Folder…".'));
    return folder;
  }

  /** "Choose Chat Folder…": the folder for the next chats; the open chat keeps its own (a New Chat moves). */
  async choose(): Promise<void> {
    if (this.folders().length < 2) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: this workspace has one folder, and every chat works in it.'));
      return;
    }
    const folder = await this.pick(vscode.l10n.t('Which folder should new chats work in?'));
    const open = this.active()?.handle.meta.workspace;
    if (!folder || !open || open === folder) return;
    const newChat = vscode.l10n.t('New Chat');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: new chats work in {0}. The open chat stays in {1}.', vscode.workspace.asRelativePath(folder, true), open), newChat);
    if (choice === newChat) await vscode.commands.executeCommand('evergreen.newChat');
  }

  /** The user's pick among the folders, the last one chosen first; remembered. */
  private async pick(title: string): Promise<string | undefined> {
    const remembered = this.remembered();
    const items = this.folders()
      .map((folder) => ({ label: folder.name, description: folder.uri.fsPath === remembered ? vscode.l10n.t('last used') : undefined, detail: folder.uri.fsPath, folder: folder.uri.fsPath }))
      .sort((a, b) => Number(b.folder === remembered) - Number(a.folder === remembered));
    const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Evergreen: {0}', title), placeHolder: vscode.l10n.t('Its tools read and write only inside this folder.') });
    if (!picked) return undefined;
    await this.state.update(REMEMBERED_KEY, picked.folder);
    return picked.folder;
  }
}

import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import { errorMessage } from '../core/logger';
import type { WorktreeManager, WorktreeRecord } from '../core/worktrees/manager';
import { inspectRepository } from '../core/worktrees/repository';
import { worktreeChanges } from '../core/worktrees/review';
import { chatRow, type ChangesCount, type ChatRow } from '../frontends/backgroundChats';
import { Disposable } from './disposable';

export const BACKGROUND_CHATS_VIEW_ID = 'evergreen.backgroundChats';

/** What the view shows now: its rows, or why it has none. */
export interface BackgroundChatsSnapshot {
  /** The checkout whose chats are listed (undefined: no folder, or not a Git repository). */
  checkout: string | undefined;
  chats: { record: WorktreeRecord; row: ChatRow }[];
  /** Shown above the (empty) tree: why there is nothing, with what to do. */
  message: string | undefined;
}

/**
 * The "Background Chats" tree (issue 31): the worktree chats of the workspace's repository, read
 * from the WorktreeManager's records, with each one's branch, state and how many files it changed.
 * Read again when a record changes (the watcher), when the view is shown, after an action, and on
 * Refresh; a chat's files changing in its worktree show on the next of those.
 */
export class BackgroundChatsView extends Disposable implements vscode.TreeDataProvider<WorktreeRecord> {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private snapshot: Promise<BackgroundChatsSnapshot> | undefined;
  private readonly rows = new Map<string, ChatRow>();
  private treeView: vscode.TreeView<WorktreeRecord> | undefined;

  constructor(
    readonly manager: WorktreeManager,
    private readonly logger: Logger,
    /** The chats working now (by worktree name): their state reads "working". */
    private readonly running: () => ReadonlySet<string>,
    /** The workspace folder whose repository's chats are listed (the panel's chat folder in a multi-root workspace). */
    private readonly folder: () => string | undefined,
  ) {
    super();
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(manager.recordsRoot), '*/*.json')));
    for (const event of [watcher.onDidCreate, watcher.onDidChange, watcher.onDidDelete]) this._register(event(() => this.refresh()));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh()));
  }

  /** Registers the tree view; it reads again whenever it becomes visible. */
  register(): vscode.TreeView<WorktreeRecord> {
    const view = this._register(vscode.window.createTreeView(BACKGROUND_CHATS_VIEW_ID, { treeDataProvider: this, showCollapseAll: false }));
    this._register(view.onDidChangeVisibility((event) => event.visible && this.refresh()));
    this.treeView = view;
    return view;
  }

  refresh(): void {
    this.snapshot = undefined;
    this.changed.fire();
  }

  /** The rows as the view shows them (read once per refresh). */
  current(): Promise<BackgroundChatsSnapshot> {
    this.snapshot ??= this.read().catch((error: unknown) => {
      this.logger.error('the background chats could not be listed', error);
      return { checkout: undefined, chats: [], message: `The background chats could not be listed: ${errorMessage(error)}. Refresh to try again.` };
    });
    return this.snapshot;
  }

  private async read(): Promise<BackgroundChatsSnapshot> {
    const folder = this.folder();
    if (!folder) return { checkout: undefined, chats: [], message: 'Open a folder in a Git repository to run chats in their own worktrees.' };
    const repository = await inspectRepository(folder);
    if (repository.kind !== 'repository') return { checkout: undefined, chats: [], message: repository.reason };
    const { worktrees, problems } = await this.manager.list(repository.top);
    const working = this.running();
    const chats = await Promise.all(
      worktrees.map(async (record) => {
        const health = await this.manager.health(record);
        const changes: ChangesCount = health.kind === 'ready' ? await countChanges(record) : { kind: 'not-read' };
        return { record, row: chatRow(record, health, changes, working.has(record.name)) };
      }),
    );
    const unreadable = problems.length > 0 ? ` ${problems.length} record(s) could not be read; the log names them.` : '';
    const message = chats.length === 0 ? `No background chats in this repository yet.${unreadable}` : unreadable.trim() || undefined;
    return { checkout: repository.top, chats, message };
  }

  async getChildren(element?: WorktreeRecord): Promise<WorktreeRecord[]> {
    if (element) return [];
    const snapshot = await this.current();
    if (this.treeView) this.treeView.message = snapshot.message;
    this.rows.clear();
    for (const chat of snapshot.chats) this.rows.set(chat.record.name, chat.row);
    return snapshot.chats.map((chat) => chat.record);
  }

  getTreeItem(record: WorktreeRecord): vscode.TreeItem {
    const row = this.rows.get(record.name);
    const item = new vscode.TreeItem(row?.label ?? record.name, vscode.TreeItemCollapsibleState.None);
    item.id = `${record.checkout}\0${record.name}`;
    item.description = row?.description;
    item.tooltip = row?.tooltip;
    item.contextValue = row?.contextValue;
    item.iconPath = new vscode.ThemeIcon('git-branch');
    return item;
  }
}

async function countChanges(record: WorktreeRecord): Promise<ChangesCount> {
  try {
    const changes = await worktreeChanges(record);
    return { kind: 'count', files: changes.files.length, commits: changes.commits };
  } catch (error) {
    return { kind: 'unreadable', reason: errorMessage(error) };
  }
}

import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import type { WorktreeManager, WorktreeRecord } from '../core/worktrees/manager';
import { inspectRepository } from '../core/worktrees/repository';
import { worktreeChanges } from '../core/worktrees/review';
import { chatRow, cleanedUpText, worktreeFailure, type ChangesCount, type ChatRow } from '../frontends/backgroundChats';
import { word } from '../frontends/words';
import { ChangeDecisions, reviewFiles } from '../frontends/hunkReview';
import { changeItem, fileNodes, hunkNodes, type ChangeNode } from './backgroundChanges';
import { Disposable } from './disposable';

/** A row of the tree: a chat (its record), or one of its changed files or hunks. */
export type BackgroundChatsElement = WorktreeRecord | ChangeNode;

export const BACKGROUND_CHATS_VIEW_ID = 'evergreen.backgroundChats';

/** What the view shows now: its rows, or why it has none. */
export interface BackgroundChatsSnapshot {
  /** The checkout whose chats are listed (undefined: no folder, or not a Git repository). */
  checkout: string | undefined;
  /** `changed`: whether it changed any file (its row then opens on its Changes). */
  chats: { record: WorktreeRecord; row: ChatRow; changed: boolean }[];
  /** Shown above the (empty) tree: why there is nothing, with what to do. */
  message: string | undefined;
}

/**
 * The "Background Chats" tree (issue 31): the worktree chats of the workspace's repository, read
 * from the WorktreeManager's records, with each one's branch, state and how many files it changed.
 * Read again when a record changes (the watcher), when the view is shown, after an action, and on
 * Refresh; a chat's files changing in its worktree show on the next of those.
 */
export class BackgroundChatsView extends Disposable implements vscode.TreeDataProvider<BackgroundChatsElement> {
  private readonly changed = this._register(new vscode.EventEmitter<BackgroundChatsElement | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private snapshot: Promise<BackgroundChatsSnapshot> | undefined;
  private readonly rows = new Map<string, { row: ChatRow; changed: boolean }>();
  private treeView: vscode.TreeView<BackgroundChatsElement> | undefined;
  /** Each chat's Changes rows as last read (by the chat's name), and each file row's hunk rows: read again on refresh only. */
  private readonly changeCache = new Map<string, Promise<ChangeNode[]>>();
  private readonly hunkCache = new Map<ChangeNode, ChangeNode[]>();
  /** What the user accepted and rejected of each chat's changes, for the window's life. */
  readonly decisions = new ChangeDecisions();

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
  register(): vscode.TreeView<BackgroundChatsElement> {
    const view = this._register(vscode.window.createTreeView(BACKGROUND_CHATS_VIEW_ID, { treeDataProvider: this, showCollapseAll: false }));
    this._register(view.onDidChangeVisibility((event) => event.visible && this.refresh()));
    this.treeView = view;
    return view;
  }

  /**
   * Shows a decision: the file's row and its hunks' again, from what was read (nothing on disk
   * changed). The same element objects come back, so VS Code keeps resolving the rows' buttons to
   * them; re-reading the whole tree would leave a click in the meantime with no element.
   */
  redraw(node: ChangeNode): void {
    const file = [...this.hunkCache.keys()].find((candidate) => candidate.record === node.record && candidate.file === node.file);
    this.changed.fire(file);
  }

  refresh(): void {
    this.snapshot = undefined;
    this.changeCache.clear();
    this.hunkCache.clear();
    this.changed.fire(undefined);
  }

  /** The rows as the view shows them (read once per refresh). */
  current(): Promise<BackgroundChatsSnapshot> {
    this.snapshot ??= this.read().catch((error: unknown) => {
      this.logger.error('the background chats could not be listed', error);
      return { checkout: undefined, chats: [], message: vscode.l10n.t('The background chats could not be listed: {0}. Refresh to try again.', worktreeFailure(error)) };
    });
    return this.snapshot;
  }

  private async read(): Promise<BackgroundChatsSnapshot> {
    const folder = this.folder();
    if (!folder) return { checkout: undefined, chats: [], message: vscode.l10n.t('Open a folder in a Git repository to run chats in their own worktrees.') };
    const repository = await inspectRepository(folder);
    if (repository.kind !== 'repository') return { checkout: undefined, chats: [], message: word(repository.reason) };
    const { worktrees, problems } = await this.manager.list(repository.top);
    const working = this.running();
    const listed = await Promise.all(
      worktrees.map(async (record) => {
        const health = await this.manager.health(record);
        // A folder deleted by hand is noticed here: Git's record of it is pruned, its branch kept if it holds commits.
        if (health.kind === 'folder-missing' && !working.has(record.name) && (await this.cleanUp(record))) return undefined;
        const changes: ChangesCount = health.kind === 'ready' ? await countChanges(record) : { kind: 'not-read' };
        return { record, row: chatRow(record, health, changes, working.has(record.name)), changed: changes.kind === 'count' && changes.files > 0 };
      }),
    );
    const chats = listed.filter((chat) => chat !== undefined);
    return { checkout: repository.top, chats, message: listMessage(chats.length === 0, problems.length) };
  }

  /** Cleans up a worktree whose folder is gone and says so; false (it stays listed, Discard offered) when that fails. */
  private async cleanUp(record: WorktreeRecord): Promise<boolean> {
    try {
      const result = await this.manager.cleanUpMissing(record);
      this.decisions.forget(record);
      void vscode.window.showInformationMessage(cleanedUpText(result));
      return true;
    } catch (error) {
      this.logger.error(`the worktree ${record.name}, whose folder is gone, could not be cleaned up`, error);
      return false;
    }
  }

  async getChildren(element?: BackgroundChatsElement): Promise<BackgroundChatsElement[]> {
    if (element && 'kind' in element) {
      const hunks = this.hunkCache.get(element) ?? hunkNodes(element);
      this.hunkCache.set(element, hunks);
      return hunks;
    }
    if (element) return this.changesOf(element);
    const snapshot = await this.current();
    if (this.treeView) this.treeView.message = snapshot.message;
    this.rows.clear();
    for (const chat of snapshot.chats) this.rows.set(chat.record.name, { row: chat.row, changed: chat.changed });
    return snapshot.chats.map((chat) => chat.record);
  }

  /** A chat's changed files, each with its hunks (read when the chat's row is expanded). */
  changesOf(record: WorktreeRecord): Promise<ChangeNode[]> {
    const cached = this.changeCache.get(record.name) ?? this.readChanges(record);
    this.changeCache.set(record.name, cached);
    return cached;
  }

  private async readChanges(record: WorktreeRecord): Promise<ChangeNode[]> {
    try {
      return fileNodes(record, await reviewFiles(await worktreeChanges(record)));
    } catch (error) {
      this.logger.error(`the changes of ${record.name} could not be read`, error);
      void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen: the changes of {0} could not be read: {1}. Refresh to try again.', record.name, worktreeFailure(error)));
      return [];
    }
  }

  getTreeItem(element: BackgroundChatsElement): vscode.TreeItem {
    if ('kind' in element) return changeItem(element, this.decisions);
    const record = element;
    const { row, changed } = this.rows.get(record.name) ?? { row: undefined, changed: false };
    const item = new vscode.TreeItem(row?.label ?? record.name, changed ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    // JSON, not a NUL between the parts: a NUL in the id loses the row's element on its way to a menu's command.
    item.id = JSON.stringify([record.checkout, record.name]);
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
    return { kind: 'unreadable', reason: worktreeFailure(error) };
  }
}

/** The view's message over its rows: empty, unreadable records, both, or none (each a whole sentence to translate). */
function listMessage(empty: boolean, unreadable: number): string | undefined {
  if (unreadable > 0) {
    return empty
      ? vscode.l10n.t('No background chats in this repository yet. {0} record(s) could not be read; the log names them.', unreadable)
      : vscode.l10n.t('{0} record(s) could not be read; the log names them.', unreadable);
  }
  return empty ? vscode.l10n.t('No background chats in this repository yet.') : undefined;
}

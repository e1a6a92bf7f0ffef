import * as vscode from 'vscode';
import { chatListRow, type ChatActivity } from '../frontends/chatBoard';
import type { Chats } from './chats';
import { Disposable } from './disposable';
import type { OpenChat } from './openChat';

export const CHATS_VIEW_ID = 'evergreen.chats';

/** A row's `viewItem`: the menus offer Close on every chat. */
const CHAT_ITEM_CONTEXT = 'openChat';

const ACTIVITY_ICONS: Record<ChatActivity, string> = {
  idle: 'comment',
  queued: 'watch',
  working: 'loading~spin',
  waiting: 'bell-dot',
  done: 'check',
  failed: 'error',
  stopped: 'debug-stop',
};

/**
 * The "Chats" tree (issue 31): every open chat with its state, title, context and cost; a click
 * shows it in the panel, the row's menu closes it. Beside the Background Chats view rather than
 * folded into it: a worktree chat is reviewed and brought home there (its own actions and menus),
 * while these are the panel's chats, switched between.
 */
export class ChatsView extends Disposable implements vscode.TreeDataProvider<OpenChat> {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  readonly treeView: vscode.TreeView<OpenChat>;

  constructor(private readonly chats: Chats) {
    super();
    this.treeView = this._register(vscode.window.createTreeView(CHATS_VIEW_ID, { treeDataProvider: this }));
    this._register(
      chats.onDidChange(() => {
        this.showBadge(chats.unseen);
        this.changed.fire();
      }),
    );
  }

  /**
   * The badge on the Chats view, which VS Code also adds to the Evergreen icon's: chats out of sight
   * that asked for the user and were not looked at since. One view has it, so no chat counts twice.
   */
  private showBadge(count: number): void {
    const badge = count > 0 ? { value: count, tooltip: count === 1 ? vscode.l10n.t('1 chat needs your attention') : vscode.l10n.t('{0} chats need your attention', count) } : undefined;
    if (badge?.value !== this.treeView.badge?.value) this.treeView.badge = badge;
  }

  getChildren(element?: OpenChat): OpenChat[] {
    return element ? [] : [...this.chats.all];
  }

  getTreeItem(chat: OpenChat): vscode.TreeItem {
    const activity = this.chats.activityOf(chat);
    const gauge = chat.state.replay.gauge;
    const row = chatListRow({
      title: chat.title,
      activity,
      shown: chat.slot.shown,
      ...(gauge ? { contextPercent: gauge.reading.percent, costUsd: gauge.sessionCostUsd } : {}),
    });
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = chat.id;
    item.description = chat.inSidebar ? row.description : vscode.l10n.t('{0} · editor tab', row.description);
    item.tooltip = row.tooltip;
    item.contextValue = CHAT_ITEM_CONTEXT;
    item.iconPath = new vscode.ThemeIcon(ACTIVITY_ICONS[activity]);
    item.command = { command: 'evergreen.showChat', title: vscode.l10n.t('Show Chat'), arguments: [chat.id] };
    return item;
  }
}

/** The list's commands: show a chat (a row's click, a notification's button), close one (its menu, or a pick from the palette). */
export function registerChatsCommands(chats: Chats): vscode.Disposable[] {
  const byId = (arg: unknown): OpenChat | undefined => chats.all.find((chat) => chat === arg || chat.id === arg);
  const pick = async (title: string): Promise<OpenChat | undefined> => {
    // The chat shown first: Enter acts on the chat in front of the user.
    const items = [chats.shown, ...chats.all.filter((chat) => chat !== chats.shown)].map((chat) => {
      const row = chatListRow({ title: chat.title, activity: chats.activityOf(chat), shown: chat.slot.shown });
      return { label: row.label, description: row.description, chat };
    });
    const picked = await vscode.window.showQuickPick(items, { title });
    return picked?.chat;
  };
  return [
    vscode.commands.registerCommand('evergreen.showChat', async (arg: unknown) => {
      const chat = byId(arg) ?? (await pick(vscode.l10n.t('Evergreen: Show which chat?')));
      if (chat) await chats.show(chat);
    }),
    vscode.commands.registerCommand('evergreen.openChatInEditor', () => chats.openInEditor()),
    // A Background Chats row: its conversation in the panel, read-only.
    vscode.commands.registerCommand('evergreen.showBackgroundChat', async (arg: unknown) => {
      const record = typeof arg === 'object' && arg !== null ? (arg as { name?: unknown; sessionId?: unknown }) : {};
      if (typeof record.name !== 'string') {
        void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: pick a chat in the Background Chats view to show its conversation.'));
        return;
      }
      if (typeof record.sessionId !== 'string') {
        void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: the background chat {0} has no conversation yet.', record.name));
        return;
      }
      await chats.showTranscript(record.sessionId, record.name);
    }),
    vscode.commands.registerCommand('evergreen.closeChat', async (arg: unknown) => {
      const chat = byId(arg) ?? (await pick(vscode.l10n.t('Evergreen: Close which chat?')));
      if (chat) await chats.close(chat);
    }),
  ];
}

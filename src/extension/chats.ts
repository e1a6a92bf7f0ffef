import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import { wordEvent } from '../frontends/words/wordEvent';
import { activityCounts, attentionFor, attentionText, isInterrupted, OPEN_CHATS_KEY, readRememberedChats, reopenedActivity, RunQueue, type ChatActivity, type ChatProgress, type ChatRunSlot, type RememberedChats } from '../frontends/chatBoard';
import { refusedBackgroundResume } from './sessionPicker';
import { foldTranscript } from '../core/agent/fold';
import { readTranscript } from '../core/storage/sessionStore';
import { Disposable } from './disposable';
import { OpenChat, PanelSlot, type ChatPlace, type OpenChatHost, type SharedChatServices } from './openChat';
import { ChatEditorTab } from './chatEditorTab';

/** A sidebar chat's slot (the chats the panel switches between). */
function sidebarSlot(chat: OpenChat): PanelSlot {
  if (!(chat.slot instanceof PanelSlot)) throw new Error(`chat ${chat.id} is in an editor tab, not in the sidebar`);
  return chat.slot;
}

/**
 * Every open chat (issue 31), one shown in the sidebar panel at a time. Each keeps running while
 * another is shown: a switch only changes which chat's surface reaches the panel and replays the
 * chat's buffer there, so it is instant and loses nothing. A chat out of sight that starts waiting
 * for an approval or finishes calls the user (a notification with Open Chat, and a badge); at most
 * `evergreen.chats.maxRunning` turns run at once, the rest wait in the queue.
 */
export class Chats extends Disposable {
  private readonly open: OpenChat[] = [];
  private shownChat: OpenChat;
  private readonly queue: RunQueue;
  private readonly changedEmitter = this._register(new vscode.EventEmitter<void>());
  /** A chat opened, closed, switched to, or changed what the list shows of it. */
  readonly onDidChange = this.changedEmitter.event;

  /** The chats the last window left open, read before this one writes its own (restore() opens them). */
  private readonly remembered: RememberedChats;
  /** What was last written for the next start (a change that keeps it is not written again). */
  private rememberedText = '';
  private restoring = true;

  constructor(
    private readonly services: SharedChatServices,
    private readonly host: Omit<OpenChatHost, 'runSlot' | 'changed'> & {
      /** A new editor tab for a chat ("Open Chat in Editor"). */
      editorTab(): ChatEditorTab;
    },
    private readonly options: {
      logger: Logger;
      maxRunning: number;
    },
  ) {
    super();
    const remembered = readRememberedChats(host.workspaceState.get(OPEN_CHATS_KEY));
    if (remembered.dropped > 0) options.logger.warn(`chats: ${remembered.dropped} remembered chat(s) could not be read and are not reopened`);
    this.remembered = remembered;
    this.queue = new RunQueue(options.maxRunning, () => this.fireChanged());
    this.shownChat = this.create(undefined);
    sidebarSlot(this.shownChat).shown = true;
  }

  /** The chat the panel shows (the commands act on it). */
  get shown(): OpenChat {
    return this.shownChat;
  }

  /** Chats out of sight that asked for the user and were not looked at since (the badge counts them). */
  get unseen(): number {
    return this.open.filter((chat) => chat.unseen).length;
  }

  /** The open chats, oldest first. */
  get all(): readonly OpenChat[] {
    return this.open;
  }

  /** What the list shows a chat as doing: queued while its turn waits for a slot. */
  activityOf(chat: OpenChat): ChatActivity {
    return this.queue.isQueued(chat.id) ? 'queued' : chat.progress.activity;
  }

  /** A changed `evergreen.chats.maxRunning`: queued turns start at once when it grew. */
  setMaxRunning(max: number): void {
    this.queue.setMax(max);
  }

  /**
   * The chats the last window of this workspace left open, listed again with their titles and how
   * they ended; each resumes from its transcript when first shown (putInPanel), so nothing starts
   * for a chat nobody looks at. The one shown then is shown again if the user has not begun another
   * meanwhile. A chat whose turn the closing window stopped says so when shown, and goes on when the
   * user sends (a turn never restarts by itself: its approvals need the user).
   */
  async restore(): Promise<void> {
    try {
      for (const { sessionId, activity } of this.remembered.chats) {
        const meta = await this.services.store.readMeta(sessionId).catch((error: unknown) => {
          // Its transcript is gone (deleted, or another storage): nothing to reopen.
          this.options.logger.warn(`chats: the remembered chat ${sessionId} is not reopened: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        });
        if (!meta || this.open.some((chat) => chat.state.active?.handle.id === sessionId)) continue;
        const chat = this.create(undefined);
        chat.deferred = { sessionId, title: meta.title, interrupted: isInterrupted(activity) };
        chat.progress = { activity: reopenedActivity(activity), openApprovals: [] };
      }
      const initial = this.shownChat;
      const shown = this.open.find((chat) => chat.deferred?.sessionId === this.remembered.shown);
      if (shown && initial.empty) {
        await this.show(shown, false);
        await this.close(initial, false);
      }
    } catch (error) {
      this.options.logger.error('chats: could not reopen the chats the last window left open', error);
    } finally {
      this.restoring = false;
      this.fireChanged();
    }
  }

  /** Shows the chat in the panel (an editor tab's chat: its tab): the panel replays its buffer, and its attention is seen. */
  async show(chat: OpenChat, reveal = true): Promise<void> {
    if (!this.open.includes(chat)) return;
    if (!chat.inSidebar) {
      chat.unseen = false;
      this.fireChanged();
      await chat.slot.reveal();
      return;
    }
    if (chat !== this.shownChat) await this.putInPanel(chat);
    chat.unseen = false;
    this.fireChanged();
    if (reveal) await this.host.view.reveal();
  }

  /**
   * A background (worktree) chat's conversation, shown in the panel as a chat of its own that only
   * reads: its session works in its worktree, so nothing is sent from here (resumed in the checkout,
   * its next edits would land there). Shown again where it is already open.
   */
  async showTranscript(sessionId: string, name: string): Promise<void> {
    const title = vscode.l10n.t('{0} (background)', name);
    const already = this.open.find((chat) => chat.state.readOnly?.title === title);
    if (already) return this.show(already);
    const { entries } = await readTranscript(this.services.store.transcriptPath(sessionId));
    const chat = this.create(undefined);
    chat.state.readOnly = { title, reason: vscode.l10n.t('This is the background chat {0}: it works in its own worktree, so nothing can be sent from here. Review its changes from the Background Chats view.', name) };
    chat.state.replay.restore(foldTranscript(entries).display.map(wordEvent));
    await this.show(chat);
  }

  /** "Open Chat in Editor": a new chat in an editor tab of its own; closing the tab closes the chat. */
  async openInEditor(): Promise<OpenChat> {
    const tab = this.host.editorTab();
    const chat = this.create(this.shownChat.state.nextMode, tab);
    // The tab closed by the user closes its chat (its turn stopped); the chat closed here closes its tab.
    tab.onDidClose(() => void this.close(chat, false));
    await tab.reveal();
    return chat;
  }

  /** The sidebar panel shows `chat` instead of the chat it showed (that one goes on out of sight). */
  private async putInPanel(chat: OpenChat): Promise<void> {
    if (this.open.includes(this.shownChat)) sidebarSlot(this.shownChat).shown = false;
    this.shownChat = chat;
    sidebarSlot(chat).shown = true;
    this.host.contextKeys.showChat(chat.state.active !== undefined, chat.state.active?.session.busy === true);
    await chat.controller.showInPanel();
    // Its approvals were asked out of sight: a write's diff opens now, as it would have then.
    chat.approvals.showAgain();
    if (chat.deferred) await this.resumeDeferred(chat, chat.deferred);
  }

  /** A reopened chat's session, resumed now that it is shown; kept for the next show when it could not start (the error said why). */
  private async resumeDeferred(chat: OpenChat, deferred: NonNullable<OpenChat['deferred']>): Promise<void> {
    chat.deferred = undefined;
    await chat.controller.resumeSessionById(deferred.sessionId, false);
    if (!chat.state.active) {
      chat.deferred = deferred;
      return;
    }
    if (deferred.interrupted) chat.controller.say('warning', vscode.l10n.t('VS Code closed while this chat was working, and its turn stopped there. Send a message (for example "go on") to continue where it stopped.'));
  }

  /** "New Chat": the chat shown stays open in the list (its turn goes on); an empty one is reused rather than another opened. */
  async newChat(): Promise<void> {
    const current = this.shownChat;
    if (current.empty) {
      await this.show(current);
      return;
    }
    // The new chat starts in the mode the picker shows now.
    const chat = this.create(current.state.active?.session.modes?.current.name ?? current.state.nextMode);
    await this.show(chat);
  }

  /** A stored session, opened: shown where it is already open, else resumed in the shown chat if empty, else in a new chat. */
  async openSession(sessionId: string, reveal = true): Promise<void> {
    // A reopened chat not shown yet holds the session too: shown, it resumes there.
    const already = this.open.find((chat) => chat.state.active?.handle.id === sessionId || chat.deferred?.sessionId === sessionId);
    if (already) {
      await this.show(already, reveal);
      return;
    }
    if (await refusedBackgroundResume(this.services.backgroundChatOf, sessionId)) return;
    const target = this.shownChat.empty ? this.shownChat : this.create(this.shownChat.state.nextMode);
    await this.show(target, false);
    await target.controller.resumeSessionById(sessionId, reveal);
  }

  /**
   * Closes a chat: a turn still running is stopped, and an approval still waiting is asked about
   * first (false when the user kept it). The session's transcript stays for a resume.
   */
  async close(chat: OpenChat, ask = true): Promise<boolean> {
    if (!this.open.includes(chat)) return true;
    if (ask && chat.approvals.waiting().length > 0) {
      const close = vscode.l10n.t('Close Chat');
      const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: the chat "{0}" is waiting for your approval. Close it and stop its turn?', chat.title), { modal: true }, close);
      if (choice !== close) return false;
    }
    // A turn still queued never starts; a running one is cancelled and its last events land first.
    this.queue.leave(chat.id, vscode.l10n.t('The chat was closed before its message started.'));
    await chat.state.stopTurn();
    this.open.splice(this.open.indexOf(chat), 1);
    chat.dispose();
    if (chat === this.shownChat) await this.putInPanel(this.open.filter((other) => other.inSidebar).at(-1) ?? this.create(chat.state.nextMode));
    this.fireChanged();
    return true;
  }

  private create(nextMode: string | undefined, place?: ChatPlace & vscode.Disposable): OpenChat {
    const chat = new OpenChat(this.services, { ...this.host, runSlot: (chatId) => this.runSlot(chatId), changed: (changed, before) => this.chatChanged(changed, before) }, nextMode, place);
    this.open.push(chat);
    this.fireChanged();
    return chat;
  }

  private runSlot(chatId: string): ChatRunSlot {
    return {
      acquire: () => this.queue.acquire(chatId),
      release: () => this.queue.release(chatId),
      leave: () => this.queue.leave(chatId, vscode.l10n.t('The message was taken out of the queue before it started.')),
    };
  }

  private chatChanged(chat: OpenChat, before: ChatProgress): void {
    if (chat.slot instanceof ChatEditorTab) chat.slot.setTitle(chat.title);
    const attention = attentionFor(before.activity, chat.progress.activity, chat.slot.shown);
    if (attention) {
      chat.unseen = true;
      const openChat = vscode.l10n.t('Open Chat');
      void vscode.window.showInformationMessage(attentionText(attention, chat.title, chat.progress.activity), openChat).then(
        (choice) => (choice === openChat ? this.show(chat) : undefined),
        (error: unknown) => this.options.logger.error('could not show a chat notification', error),
      );
    }
    this.fireChanged();
  }

  private fireChanged(): void {
    this.host.statusBar.setActivity(activityCounts(this.open.map((chat) => this.activityOf(chat))));
    this.remember();
    this.changedEmitter.fire();
  }

  /**
   * Keeps the sidebar's chats that have a session for the next start, with whether each was working:
   * written on every change, so a window that closes mid-turn has already said which were working.
   */
  private remember(): void {
    if (this.restoring) return;
    const sessionOf = (chat: OpenChat) => chat.state.active?.handle.id ?? chat.deferred?.sessionId;
    const kept = this.open.filter((chat) => chat.inSidebar && !chat.state.readOnly && sessionOf(chat) !== undefined);
    const shown = sessionOf(this.shownChat);
    const value: RememberedChats = {
      // A reopened chat not shown yet keeps what it was doing when its window closed, so its line is still said.
      chats: kept.map((chat) => ({ sessionId: sessionOf(chat)!, activity: chat.deferred?.interrupted ? 'working' : this.activityOf(chat) })),
      ...(shown ? { shown } : {}),
    };
    const text = JSON.stringify(value);
    if (text === this.rememberedText) return;
    this.rememberedText = text;
    this.host.workspaceState.update(OPEN_CHATS_KEY, value).then(undefined, (error: unknown) => this.options.logger.error('chats: could not remember the open chats', error));
  }

  override dispose(): void {
    // The window is closing: every chat's turn is cancelled and its session closed, oldest first.
    for (const chat of this.open.splice(0)) chat.dispose();
    super.dispose();
  }
}

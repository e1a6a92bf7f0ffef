import * as vscode from 'vscode';
import type { ApprovalRequest } from '../core/approvals/approval';
import type { AgentEvent, GaugeState, HostToWebview, WebviewToHost } from '../protocol';
import { IDLE_PROGRESS, progressAfter, type ChatProgress, type ChatRunSlot } from '../frontends/chatBoard';
import { ApprovalBroker } from './approvalBroker';
import { ChatController } from './chatController';
import { ChatFolders } from './chatFolders';
import { ChatState } from './chatState';
import type { ChatSurface, ChatViewProvider } from './chatViewProvider';
import type { ChatContextKeys } from './contextKeys';
import { Disposable } from './disposable';
import type { ContextStatusBar } from './statusBar';

/** What every chat shares: the services the controller needs, minus what is the chat's own. */
export type SharedChatServices = Omit<ConstructorParameters<typeof ChatController>[0], 'surface' | 'chat' | 'approvals' | 'statusBar' | 'contextKeys' | 'folders' | 'runSlot' | 'onEvent'>;

/** What a chat is told about how it is shown, and what it tells back. */
export interface OpenChatHost {
  view: ChatViewProvider;
  contextKeys: ChatContextKeys;
  statusBar: ContextStatusBar;
  workspaceState: vscode.Memento;
  /** The approval's extra UI for the shown chat: the diff editor of a proposed write. */
  showProposedChange(request: ApprovalRequest): Promise<(() => void) | undefined>;
  runSlot(chatId: string): ChatRunSlot;
  /** The chat's progress changed, or something the list shows of it (its gauge, its title). */
  changed(chat: OpenChat, before: ChatProgress): void;
}

/**
 * The sidebar view as one chat sees it: its posts, requests and reveals pass only while it is the
 * chat shown. A chat not shown never reaches the panel (its replay buffer keeps everything, and
 * the switch replays it), so a background chat's approval card never appears in the foreground chat.
 */
export class PanelSlot implements ChatSurface {
  shown = false;
  readonly onMessage: vscode.Event<WebviewToHost>;

  constructor(private readonly view: ChatViewProvider) {
    this.onMessage = (listener, thisArgs, disposables) =>
      view.onMessage(
        (message) => {
          if (this.shown) listener.call(thisArgs, message);
        },
        undefined,
        disposables,
      );
  }

  post(message: HostToWebview): void {
    if (this.shown) this.view.post(message);
  }

  resetPending(): void {
    if (this.shown) this.view.resetPending();
  }

  async reveal(): Promise<void> {
    if (this.shown) await this.view.reveal();
  }

  async focusInput(): Promise<void> {
    if (this.shown) await this.view.focusInput();
  }
}

let nextChatId = 1;

/** Events that change what the Chats list shows of a chat besides its state: its context and cost, its title. */
const LISTED_EVENTS: ReadonlySet<AgentEvent['type']> = new Set(['context', 'session_started', 'turn_finished']);

/** Where a chat is shown: a slot of the sidebar view, or an editor tab of its own (chatEditorTab.ts). */
export type ChatPlace = ChatSurface & { readonly shown: boolean };

/**
 * One open chat (issue 31): its state, its approvals, its folder and its controller, and how far
 * its turn is. Everything here is the chat's own, so two chats share no session, engine, MCP
 * servers, sandbox or checkpoints; what they share (the store, the keys, the view) comes in.
 */
export class OpenChat extends Disposable {
  readonly id = `chat-${nextChatId++}`;
  readonly state: ChatState;
  readonly approvals: ApprovalBroker;
  readonly folders: ChatFolders;
  readonly controller: ChatController;
  /** Where it is shown: the sidebar view's slot, or its editor tab. */
  readonly slot: ChatPlace;
  progress: ChatProgress = IDLE_PROGRESS;
  /** Asked for the user's attention while out of sight, and not looked at since (the badge counts these). */
  unseen = false;
  /**
   * A chat the last window left open, listed but not started: its session resumes when it is first
   * shown (chats.ts), so a start opens no MCP server or hook of a chat nobody looked at.
   */
  deferred: { sessionId: string; title: string; interrupted: boolean } | undefined;

  /** `place`: an editor tab of its own, closed with the chat; none: a slot of the sidebar view. */
  constructor(services: SharedChatServices, host: OpenChatHost, nextMode: string | undefined, place?: ChatPlace & vscode.Disposable) {
    super();
    this.slot = place ? this._register(place) : new PanelSlot(host.view);
    // The context keys and the status bar follow the sidebar's chat; an editor tab's chat has its own page.
    const followed = () => this.inSidebar && this.slot.shown;
    this.state = new ChatState((open) => {
      if (followed()) host.contextKeys.chatChanged(open);
    });
    this.state.nextMode = nextMode;
    this.approvals = this._register(
      new ApprovalBroker({
        logger: services.logger,
        // The shown chat comes forward with its diff; a chat out of sight waits (the attention calls the user).
        show: async (request) => {
          if (!this.slot.shown) return undefined;
          void this.slot.reveal();
          return host.showProposedChange(request);
        },
      }),
    );
    this.folders = new ChatFolders(services.store, host.workspaceState, () => this.state.active);
    this.controller = this._register(
      new ChatController({
        ...services,
        surface: this.slot,
        chat: this.state,
        approvals: this.approvals,
        folders: this.folders,
        statusBar: { update: (gauge: GaugeState | undefined) => (followed() ? host.statusBar.update(gauge) : undefined) },
        contextKeys: { onEvent: (event: AgentEvent) => (followed() ? host.contextKeys.onEvent(event) : undefined) },
        runSlot: host.runSlot(this.id),
        onEvent: (event) => {
          const before = this.progress;
          this.progress = progressAfter(before, event);
          // Streamed text changes nothing the list shows: only a new state, gauge or title is told.
          if (this.progress !== before || LISTED_EVENTS.has(event.type)) host.changed(this, before);
        },
      }),
    );
  }

  /** Shown in the sidebar view (when it is the chat shown there), not in an editor tab. */
  get inSidebar(): boolean {
    return this.slot instanceof PanelSlot;
  }

  /** The title the list shows: the session's (its first message), or "New chat". */
  get title(): string {
    return this.state.readOnly?.title ?? this.state.active?.handle.meta.title ?? this.deferred?.title ?? vscode.l10n.t('New chat');
  }

  /** Nothing was sent or resumed here yet: New Chat reuses it instead of opening another. */
  get empty(): boolean {
    return !this.deferred && !this.state.active && !this.state.busy && this.state.replay.history.length === 0;
  }
}

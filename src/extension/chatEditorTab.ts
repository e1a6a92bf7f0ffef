import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import type { SecretRedactor } from '../core/secrets';
import type { HostToWebview, WebviewToHost } from '../protocol';
import { attachChatPage } from './chatWebview';
import type { ChatSurface } from './chatViewProvider';
import { Disposable } from './disposable';

export const CHAT_EDITOR_VIEW_TYPE = 'evergreen-chat';

/**
 * A chat in an editor tab (issue 31): the same page as the sidebar's, in a `WebviewPanel` that
 * belongs to its one chat. Messages wait until the page says `ready` (a tab moved or re-shown loads
 * the page again, and the chat replays its buffer), and every one passes the redactor. Closing the
 * tab closes the chat (chats.ts).
 */
export class ChatEditorTab extends Disposable implements ChatSurface {
  private readonly panel: vscode.WebviewPanel;
  private ready = false;
  private pending: HostToWebview[] = [];
  private readonly onMessageEmitter = this._register(new vscode.EventEmitter<WebviewToHost>());
  readonly onMessage = this.onMessageEmitter.event;
  private readonly closedEmitter = this._register(new vscode.EventEmitter<void>());
  /** The user closed the tab. */
  readonly onDidClose = this.closedEmitter.event;
  private closed = false;

  constructor(
    extensionUri: vscode.Uri,
    logger: Logger,
    private readonly redactor: SecretRedactor,
  ) {
    super();
    this.panel = vscode.window.createWebviewPanel(CHAT_EDITOR_VIEW_TYPE, vscode.l10n.t('Evergreen Chat'), vscode.ViewColumn.Active, {});
    this._register(
      attachChatPage(this.panel.webview, extensionUri, logger, {
        message: (message) => {
          if (message.type === 'ready') this.flush();
          this.onMessageEmitter.fire(message);
        },
        reply: (message) => this.post(message),
      }),
    );
    // Hidden and shown again, the page reloads: it says ready again and gets the whole state.
    this._register(this.panel.onDidChangeViewState(() => (this.panel.visible ? undefined : (this.ready = false))));
    this._register(
      this.panel.onDidDispose(() => {
        this.closed = true;
        this.closedEmitter.fire();
      }),
    );
  }

  /** The tab is on screen: its chat speaks there, so it needs no notification. */
  get shown(): boolean {
    return !this.closed && this.panel.visible;
  }

  setTitle(title: string): void {
    if (!this.closed && this.panel.title !== title) this.panel.title = title;
  }

  post(unredacted: HostToWebview): void {
    const message = this.redactor.value(unredacted);
    if (this.ready && !this.closed) void this.panel.webview.postMessage(message);
    else this.pending.push(message);
  }

  resetPending(): void {
    this.pending = [];
  }

  async reveal(): Promise<void> {
    if (!this.closed) this.panel.reveal();
  }

  async focusInput(): Promise<void> {
    await this.reveal();
    this.post({ type: 'focusInput' });
  }

  override dispose(): void {
    if (!this.closed) this.panel.dispose();
    super.dispose();
  }

  private flush(): void {
    this.ready = true;
    const queued = this.pending;
    this.pending = [];
    for (const message of queued) void this.panel.webview.postMessage(message);
  }
}

import * as vscode from 'vscode';
import type { HostToWebview, WebviewToHost } from '../protocol';
import type { Logger } from '../core/logger';
import type { SecretRedactor } from '../core/secrets';
import { Disposable } from './disposable';
import { attachChatPage } from './chatWebview';

export const CHAT_VIEW_ID = 'evergreen.chat';

/**
 * Where one chat is shown and answered from: the sidebar view today; an editor tab's webview panel
 * would be another (issue 31). The controller knows no more of its view than this.
 */
export interface ChatSurface {
  /** Fires for every checked request from the webview, including `ready`; the controller answers each (webviewRequests.ts). */
  readonly onMessage: vscode.Event<WebviewToHost>;
  post(message: HostToWebview): void;
  /** Drops queued messages: used when a fresh full state replaces them. */
  resetPending(): void;
  reveal(): Promise<void>;
  /** Shows the chat and puts the focus in its message box (after a dialog took it). */
  focusInput(): Promise<void>;
}

/**
 * Hosts the chat webview. Messages posted before the webview says `ready` are queued, so
 * nothing sent during startup is lost; incoming requests are checked before anyone sees them, and
 * one that fails gets its error reply here. It keeps no chat of its own (what a reloaded webview
 * replays is the chat's, chatState.ts) and knows no controller: its listeners answer.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider, ChatSurface {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private pending: HostToWebview[] = [];
  private readonly onMessageEmitter = this._register(new vscode.EventEmitter<WebviewToHost>());
  /** Fires for every valid message from the webview, including `ready` (the host then sends state). */
  readonly onMessage = this.onMessageEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
    /** Every message to the panel passes it: whatever path a text took, a key never reaches the webview. */
    private readonly redactor: SecretRedactor,
  ) {
    super();
  }

  get html(): string | undefined {
    return this.view?.webview.html;
  }

  whenReady(): Promise<void> {
    if (this.view && this.ready) return Promise.resolve();
    return new Promise((resolve) => {
      const subscription = this.onMessage((message) => {
        if (message.type === 'ready') {
          subscription.dispose();
          resolve();
        }
      });
    });
  }

  resolveWebviewView(webviewView: vscode.WebviewView): void {
    this.view = webviewView;
    this.ready = false;
    const subscriptions = [
      attachChatPage(webviewView.webview, this.extensionUri, this.logger, {
        message: (message) => {
          if (message.type === 'ready') this.flush();
          this.onMessageEmitter.fire(message);
        },
        reply: (message) => this.post(message),
      }),
      webviewView.onDidDispose(() => {
        this.view = undefined;
        this.ready = false;
        for (const subscription of subscriptions) subscription.dispose();
      }),
    ];
  }

  post(unredacted: HostToWebview): void {
    const message = this.redactor.value(unredacted);
    if (this.view && this.ready) {
      void this.view.webview.postMessage(message);
    } else {
      this.pending.push(message);
    }
  }

  /** Drops queued messages: used when a fresh full state replaces them. */
  resetPending(): void {
    this.pending = [];
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  async focusInput(): Promise<void> {
    await this.reveal();
    this.post({ type: 'focusInput' });
  }

  private flush(): void {
    this.ready = true;
    const queued = this.pending;
    this.pending = [];
    for (const message of queued) void this.view?.webview.postMessage(message);
  }
}

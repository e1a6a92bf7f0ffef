import * as vscode from 'vscode';
import { errorMessage, type Logger } from '../core/logger';
import * as z from '../core/zod';
import type { TranscriptHostToWebview, TranscriptWebviewToHost } from '../protocol';
import { Disposable } from './disposable';
import { isTranscriptLink, transcriptHtml } from './transcriptHtml';
import { TRANSCRIPT_SCHEME, TRANSCRIPT_VIEW_TYPE } from './transcriptScheme';
import { webviewHtml, webviewResourceRoots } from './webviewHtml';

/** The page's one script is its click handler (the CSP admits no other); no `command:` link runs, whatever the page holds. */
function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: webviewResourceRoots(extensionUri) };
}

/** What the page sends, checked before anything acts on it (the page shows model text). */
const MessageSchema: z.ZodType<TranscriptWebviewToHost> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('openLink'), href: z.string().max(10_000) }),
  z.object({ type: z.literal('openSource') }),
  z.object({ type: z.literal('openRaw') }),
]);

/** One transcript as the rendered tab shows it. */
export interface RenderedView<Address> {
  /** The transcript's identity: one tab each. */
  key: string;
  address: Address;
  title: string;
  markdown: string;
  /** The transcript's version the markdown was rendered from: a re-open with a newer one renders again. */
  version: string;
  /** A heading's 0-based source line to scroll to. */
  revealLine?: number;
}

export interface TranscriptViewActions<Address> {
  openSource(address: Address, revealLine?: number): Promise<void>;
  openRaw(address: Address): Promise<void>;
  /** A link to another transcript (`evergreen-transcript:`), to open rendered in its own tab. */
  openTranscript(uri: vscode.Uri): Promise<void>;
}

interface Panel<Address> {
  panel: vscode.WebviewPanel;
  address: Address;
  version: string;
  /** The heading the tab was last opened at ("Open Source" opens the source there too). */
  revealLine?: number;
  /** Scroll there when the page is ready: set by each show(), so a tab shown again by a click keeps the reader's place. */
  revealPending: boolean;
  ready: boolean;
}

/**
 * The archived transcript rendered, in an editor tab of its own (issue 33): its markdown made into
 * HTML by transcriptHtml.ts (no raw HTML, no images, only the link schemes the tab opens), under
 * the extension's webview policy (webviewHtml.ts: one nonce'd script, no network). The source is
 * one click away: the page's "Open Source" button and the tab's title bar.
 */
export class TranscriptViews<Address> extends Disposable {
  private readonly panels = new Map<string, Panel<Address>>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
    private readonly actions: TranscriptViewActions<Address>,
    /** The view of a tab VS Code brings back after a reload, from what its page kept (unchecked); undefined closes the tab. */
    restore: (kept: unknown) => Promise<RenderedView<Address> | undefined>,
  ) {
    super();
    this._register(
      vscode.window.registerWebviewPanelSerializer(TRANSCRIPT_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const kept = typeof state === 'object' && state !== null ? (state as Record<string, unknown>).transcript : undefined;
          const view = await restore(kept).catch((error: unknown) => {
            this.logger.warn(`transcript tab: not restored (${errorMessage(error)})`);
            return undefined;
          });
          if (!view || this.panels.has(view.key)) {
            panel.dispose();
            return;
          }
          panel.webview.options = webviewOptions(this.extensionUri);
          this.adopt(panel, view);
          this.show(view);
        },
      }),
    );
  }

  override dispose(): void {
    for (const { panel } of [...this.panels.values()]) panel.dispose();
    super.dispose();
  }

  /** The transcript of the active rendered tab, if one is active. */
  activeAddress(): Address | undefined {
    for (const shown of this.panels.values()) if (shown.panel.active) return shown.address;
    return undefined;
  }

  /** The heading line `key`'s rendered tab was last opened at, if it is open. */
  revealLineOf(key: string): number | undefined {
    return this.panels.get(key)?.revealLine;
  }

  /** Shows `view` in its tab (made if needed), rendering again only when the transcript changed. */
  show(view: RenderedView<Address>): void {
    const shown = this.panels.get(view.key) ?? this.createPanel(view);
    const panel = shown.panel;
    shown.revealLine = view.revealLine;
    shown.revealPending = view.revealLine !== undefined;
    panel.title = view.title;
    if (shown.version !== view.version) {
      shown.version = view.version;
      shown.ready = false;
      panel.webview.html = webviewHtml(panel.webview, this.extensionUri, { script: 'transcript.js', style: 'transcript.css', rootId: 'transcript-root', title: vscode.l10n.t('Transcript'), body: pageBody(view.markdown, view.address) });
    } else if (shown.ready) {
      this.reveal(shown);
    }
    panel.reveal(undefined, false);
  }

  private createPanel(view: RenderedView<Address>): Panel<Address> {
    const panel = vscode.window.createWebviewPanel(TRANSCRIPT_VIEW_TYPE, view.title, { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
      ...webviewOptions(this.extensionUri),
      // Ctrl+F searches the transcript, as it did in the source editor.
      enableFindWidget: true,
    });
    return this.adopt(panel, view);
  }

  /** A new tab, or one VS Code restored: its listeners, and its place among the transcripts' tabs. */
  private adopt(panel: vscode.WebviewPanel, view: RenderedView<Address>): Panel<Address> {
    const shown: Panel<Address> = { panel, address: view.address, version: '', revealPending: false, ready: false };
    this.panels.set(view.key, shown);
    const subscriptions: vscode.Disposable[] = [
      // A hidden page is unloaded (no retainContextWhenHidden: a transcript's page can be large); shown again, it says ready anew.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) shown.ready = false;
      }),
      panel.webview.onDidReceiveMessage((raw: unknown) => {
        void this.onMessage(shown, raw).catch((error: unknown) => {
          this.logger.warn(`transcript tab: ${errorMessage(error)}`);
          void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen could not do that from the transcript tab: {0}', errorMessage(error)));
        });
      }),
    ];
    subscriptions.push(
      panel.onDidDispose(() => {
        this.panels.delete(view.key);
        for (const subscription of subscriptions) subscription.dispose();
      }),
    );
    return shown;
  }

  private reveal(shown: Panel<Address>): void {
    if (!shown.revealPending || shown.revealLine === undefined) return;
    shown.revealPending = false;
    const message: TranscriptHostToWebview = { type: 'reveal', line: shown.revealLine };
    void shown.panel.webview.postMessage(message);
  }

  private async onMessage(shown: Panel<Address>, raw: unknown): Promise<void> {
    const parsed = MessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`transcript tab: ignoring a malformed message ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    const message = parsed.data;
    if (message.type === 'ready') {
      shown.ready = true;
      this.reveal(shown);
    } else if (message.type === 'openSource') {
      await this.actions.openSource(shown.address, shown.revealLine);
    } else if (message.type === 'openRaw') {
      await this.actions.openRaw(shown.address);
    } else {
      await this.openLink(message.href);
    }
  }

  /** A link clicked in the page: checked again here, since the page is where model text is. */
  private async openLink(href: string): Promise<void> {
    if (!isTranscriptLink(href)) {
      this.logger.warn(`transcript tab: a link to ${JSON.stringify(href.slice(0, 200))} was not opened (not a local file, transcript or web link)`);
      return;
    }
    const uri = vscode.Uri.parse(href, true);
    if (uri.scheme === TRANSCRIPT_SCHEME) return this.actions.openTranscript(uri);
    if (uri.scheme !== 'file') {
      // The workbench asks before it opens a site the user has not trusted.
      await vscode.env.openExternal(uri);
      return;
    }
    // fileLink() writes a line as #L<n> (1-based), as VS Code's own markdown links do.
    const line = /^L(\d+)$/.exec(uri.fragment)?.[1];
    const at = line === undefined ? undefined : new vscode.Position(Math.max(0, Number(line) - 1), 0);
    await vscode.commands.executeCommand('vscode.open', uri.with({ fragment: '' }), at ? { selection: new vscode.Range(at, at), preview: false } : { preview: false });
  }
}

/** The page: the two ways to the source, then the transcript. */
function pageBody(markdown: string, address: unknown): string {
  // The page keeps which transcript it shows in its state, for VS Code to hand back after a reload.
  const kept = escapeHtml(JSON.stringify(address));
  // A translation is text, never markup: escaped like the state.
  const label = escapeHtml(vscode.l10n.t('Transcript'));
  const openSource = escapeHtml(vscode.l10n.t('Open Source'));
  const openSourceTitle = escapeHtml(vscode.l10n.t('The markdown this page is rendered from, in a read-only editor'));
  const openRaw = escapeHtml(vscode.l10n.t('Open Raw JSONL'));
  const openRawTitle = escapeHtml(vscode.l10n.t('transcript.jsonl itself: every entry whole'));
  const toolbar = `<div class="eg-toolbar" role="toolbar" aria-label="${label}" data-transcript="${kept}"><button type="button" class="eg-button" data-action="openSource" title="${openSourceTitle}">${openSource}</button><button type="button" class="eg-button" data-action="openRaw" title="${openRawTitle}">${openRaw}</button></div>`;
  return `${toolbar}\n<main>${transcriptHtml(markdown)}</main>`;
}

/** Text made safe inside an attribute or an element of the page. */
function escapeHtml(text: string): string {
  return text.replace(/[&"<>]/g, (char) => `&#${char.charCodeAt(0)};`);
}

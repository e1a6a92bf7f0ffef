import * as vscode from 'vscode';
import { renderContextBreakdown, type BreakdownDocumentInput } from '../frontends/contextBreakdown';
import type { StartedSession } from '../core/agent/factory';
import { Disposable } from './disposable';
import { fireAndAwaitReread } from './documentReread';
import { word } from '../frontends/words';

/** Documents of this scheme are rendered by Evergreen: read-only, never untitled, never saved. */
export const CONTEXT_BREAKDOWN_SCHEME = 'evergreen-context';

/**
 * "Evergreen: Show Context Breakdown" as a virtual markdown document. A read-only file system of one
 * file rather than a TextDocumentContentProvider: VS Code applies edits to content-provider
 * documents, but refuses them on a read-only file system. The text is rendered when the command
 * runs and kept until the next run, so the tab is a stable snapshot that the next run refreshes.
 */
export class ContextBreakdownDocument extends Disposable implements vscode.FileSystemProvider {
  static readonly uri = vscode.Uri.from({ scheme: CONTEXT_BREAKDOWN_SCHEME, path: '/Evergreen Context Breakdown.md' });
  private readonly changed = this._register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
  readonly onDidChangeFile = this.changed.event;
  private content = Buffer.from('# Evergreen — context breakdown\n\nNo conversation yet.\n');
  private mtime = Date.now();

  constructor() {
    super();
    this._register(vscode.workspace.registerFileSystemProvider(CONTEXT_BREAKDOWN_SCHEME, this, { isReadonly: true, isCaseSensitive: true }));
  }

  /** "Show Context Breakdown" for the current chat (a note when there is none yet). */
  async showFor(active: StartedSession | undefined): Promise<void> {
    if (!active) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: no conversation yet. Start a chat in the Evergreen view to see what the context holds.'));
      return;
    }
    const { session, handle, client } = active;
    await this.show({ gauge: session.context.gauge(), savings: session.context.tierSavings?.(), sessionId: handle.id, model: client.model, at: new Date(), word, voice: 'extension' });
  }

  async show(input: BreakdownDocumentInput): Promise<vscode.TextEditor> {
    const text = renderContextBreakdown(input);
    const uri = ContextBreakdownDocument.uri;
    this.content = Buffer.from(text);
    this.mtime = Math.max(Date.now(), this.mtime + 1);
    const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
    if (open && open.getText() !== text) {
      // An open tab re-reads the file asynchronously: wait for it (briefly), so what is shown is this run's.
      await fireAndAwaitReread(uri, () => this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]), 2_000);
    }
    let document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== 'markdown') document = await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    return vscode.window.showTextDocument(document, { preview: false });
  }

  // ---- the read-only file system: one file --------------------------------------------------

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    if (uri.path === '/') return { type: vscode.FileType.Directory, ctime: 0, mtime: this.mtime, size: 0 };
    this.assertOurs(uri);
    return { type: vscode.FileType.File, ctime: 0, mtime: this.mtime, size: this.content.byteLength, permissions: vscode.FilePermission.Readonly };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [[ContextBreakdownDocument.uri.path.slice(1), vscode.FileType.File]];
  }

  readFile(uri: vscode.Uri): Uint8Array {
    this.assertOurs(uri);
    return this.content;
  }

  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  writeFile(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  private assertOurs(uri: vscode.Uri): void {
    if (uri.path !== ContextBreakdownDocument.uri.path) throw vscode.FileSystemError.FileNotFound(uri);
  }
}

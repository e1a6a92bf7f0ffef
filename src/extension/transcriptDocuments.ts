import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, type Logger } from '../core/logger';
import { SessionNotFoundError, transcriptLines, type FileSessionStore, type SessionMeta } from '../core/storage/sessionStore';
import { renderTranscript, type RenderedTranscript } from './transcriptMarkdown';
import { fileNameTitle } from '../core/storage/titles';
import { Disposable } from './disposable';
import { fireAndAwaitReread } from './documentReread';
import { pickSession } from './sessionPicker';
import { TRANSCRIPT_SCHEME } from './transcriptScheme';
import { RENDERED_TRANSCRIPT_MAX_CHARS } from './transcriptHtml';
import { TranscriptViews, type RenderedView } from './transcriptView';

/**
 * Archived transcripts as real, read-only editor documents (docs/architecture.md, "Storage layout"):
 * `evergreen-transcript:/<sessionId>/<title>.md`, and a subagent's
 * `evergreen-transcript:/<sessionId>/subagents/<childId>/<title>.md`, rendered from transcript.jsonl by the core.
 * A TextDocumentContentProvider's documents are read-only, never untitled and never ask to be saved.
 */

/** Arguments of `evergreen.openArchivedTranscript` (e.g. from a compaction divider in the chat). */
export interface OpenTranscriptArgs {
  sessionId: string;
  /** One of that session's subagents: its own transcript instead of the session's. */
  childId?: string;
  /** 0-based index of the compaction boundary to reveal, in transcript order (drops included): the chat's nth divider. */
  compactionIndex?: number;
}

/** Which transcript a document shows: a session's, or one of its subagents'. */
export interface TranscriptAddress {
  sessionId: string;
  childId?: string;
}

/** The document URI of a session's (or a subagent's) transcript; the title only names the tab. */
export function transcriptUri(sessionId: string, title?: string, childId?: string): vscode.Uri {
  // The tab shows what was typed; fileNameTitle swaps '/' (a path separator here) and the other refused characters for look-alikes.
  const name = fileNameTitle(title ?? '');
  return vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: childId ? `/${sessionId}/subagents/${childId}/${name}.md` : `/${sessionId}/${name}.md` });
}

export function transcriptAddress(uri: vscode.Uri): TranscriptAddress | undefined {
  if (uri.scheme !== TRANSCRIPT_SCHEME) return undefined;
  const segments = uri.path.split('/');
  const sessionId = segments[1];
  if (!sessionId) return undefined;
  // A session's own document has one name after its id (ending in .md), a subagent's three segments.
  if (segments.length === 5 && segments[2] === 'subagents' && segments[3]) return { sessionId, childId: segments[3] };
  return { sessionId };
}

export function transcriptSessionId(uri: vscode.Uri): string | undefined {
  return transcriptAddress(uri)?.sessionId;
}

/** One key per transcript: the cache's and the "one tab each" lookup's. */
function addressKey(address: TranscriptAddress): string {
  return address.childId ? `${address.sessionId}/subagents/${address.childId}` : address.sessionId;
}

function describeAddress(address: TranscriptAddress): string {
  return address.childId ? `subagent ${address.childId} of session ${address.sessionId}` : `session ${address.sessionId}`;
}

/** The transcript a command's argument names: its document's URI, or `{ sessionId, childId? }`. */
function addressOf(arg: unknown): TranscriptAddress | undefined {
  if (arg instanceof vscode.Uri) return transcriptAddress(arg);
  const given = parseOpenArgs(arg);
  if (!given) return undefined;
  return given.childId ? { sessionId: given.sessionId, childId: given.childId } : { sessionId: given.sessionId };
}

function parseOpenArgs(value: unknown): OpenTranscriptArgs | undefined {
  if (typeof value !== 'object' || value === null || value instanceof vscode.Uri) return undefined;
  const { sessionId, childId, compactionIndex } = value as Record<string, unknown>;
  if (typeof sessionId !== 'string' || !sessionId) return undefined;
  if (childId !== undefined && (typeof childId !== 'string' || !childId)) return undefined;
  const address = childId === undefined ? { sessionId } : { sessionId, childId };
  if (compactionIndex !== undefined && !(typeof compactionIndex === 'number' && Number.isInteger(compactionIndex) && compactionIndex >= 0)) return address;
  return compactionIndex === undefined ? address : { ...address, compactionIndex };
}

interface CachedRender {
  /** The transcript file's mtime and size when rendered: a newer write means a new render. */
  version: string;
  rendered: RenderedTranscript;
}

/** Rendered documents kept for re-opens; each can be tens of MB, so only a few. */
const CACHE_SIZE = 3;

export class TranscriptDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changes = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changes.event;
  /** By transcript (addressKey), oldest use first. */
  private readonly cache = new Map<string, CachedRender>();
  private readonly rendering = new Map<string, Promise<CachedRender>>();
  /** The version each open document shows, to refresh one the transcript has outgrown. */
  private readonly served = new Map<string, string>();

  private readonly views: TranscriptViews<TranscriptAddress>;

  constructor(
    private readonly store: FileSessionStore,
    private readonly logger: Logger,
    extensionUri: vscode.Uri,
  ) {
    super();
    this.views = this._register(
      new TranscriptViews<TranscriptAddress>(extensionUri, logger, {
        openSource: (address, revealLine) => this.openSource(address, revealLine),
        openRaw: (address) => this.openRawOf(address),
        openTranscript: async (uri) => this.open(transcriptAddress(uri)),
      }, (kept) => this.restoredView(addressOf(kept))),
    );
    this._register(vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, this));
    this._register(vscode.commands.registerCommand('evergreen.openArchivedTranscript', (args?: unknown) => this.open(args)));
    this._register(vscode.commands.registerCommand('evergreen.openRawTranscript', (uri?: unknown) => this.openRaw(uri)));
    // From the rendered tab's title bar (no transcript URI: the active tab's), or given a transcript's URI or { sessionId, childId }.
    this._register(vscode.commands.registerCommand('evergreen.openTranscriptSource', (arg?: unknown) => this.openSource(addressOf(arg) ?? this.views.activeAddress())));
    this._register(vscode.commands.registerCommand('evergreen.openTranscriptRendered', (uri?: unknown) => this.openRendered(uri)));
    this._register(vscode.workspace.onDidCloseTextDocument((document) => this.served.delete(document.uri.toString())));
    // The editor refuses typing, but the API lets any extension edit a provider's document
    // (workspace.applyEdit, TextEditor.edit): such an edit is undone by re-fetching the transcript.
    this._register(vscode.workspace.onDidChangeTextDocument((event) => this.restoreIfEdited(event)));
  }

  private restoreIfEdited(event: vscode.TextDocumentChangeEvent): void {
    const address = transcriptAddress(event.document.uri);
    if (!address || event.contentChanges.length === 0) return;
    const shown = this.cache.get(addressKey(address))?.rendered.text;
    if (shown !== undefined && event.document.getText() === shown) return; // our own refresh
    this.logger.warn(`an edit of the read-only transcript ${event.document.uri.toString()} was undone`);
    this.changes.fire(event.document.uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const address = transcriptAddress(uri);
    try {
      if (!address) throw new Error('the address names no session');
      const { version, rendered } = await this.render(address);
      this.served.set(uri.toString(), version);
      return rendered.text;
    } catch (error) {
      // A tab restored after the session was deleted: say so in the document rather than an error popup.
      this.logger.warn(`transcript ${uri.toString()}: ${errorMessage(error)}`);
      return `# Transcript unavailable\n\n${errorMessage(error)}\n\nRun **Evergreen: Open Archived Transcript…** to pick a saved session.\n`;
    }
  }

  /**
   * `evergreen.openArchivedTranscript`: the picker, or straight to `args.sessionId` (or one of its
   * subagents, and a compaction boundary). It opens rendered, or as source past RENDERED_TRANSCRIPT_MAX_CHARS.
   */
  async open(args?: unknown, as: 'rendered' | 'source' = 'rendered'): Promise<void> {
    const given = parseOpenArgs(args);
    if (args !== undefined && !given && !(args instanceof vscode.Uri)) this.logger.warn(`openArchivedTranscript: ignoring unexpected arguments ${JSON.stringify(args)}`);
    const sessionId = given?.sessionId ?? (await pickSession(this.store, 'Open which transcript?'));
    if (!sessionId) return;
    const address: TranscriptAddress = given?.childId ? { sessionId, childId: given.childId } : { sessionId };
    let current: CachedRender;
    let title: string;
    try {
      [current, title] = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Evergreen: rendering the transcript…' }, () =>
        Promise.all([this.render(address), this.readMeta(address).then((meta) => meta.title)]),
      );
    } catch (error) {
      const choice = await vscode.window.showErrorMessage(`Evergreen could not open the transcript of ${describeAddress(address)}: ${errorMessage(error)}`, 'Pick Another Session');
      if (choice) await this.open(undefined, as);
      return;
    }
    const { compactionLines, text } = current.rendered;
    let revealLine: number | undefined;
    if (given?.compactionIndex !== undefined) {
      revealLine = compactionLines[given.compactionIndex];
      if (revealLine === undefined) void vscode.window.showInformationMessage(`Evergreen: this transcript has ${compactionLines.length} compaction(s); showing it from the top.`);
    }
    if (as === 'rendered' && text.length > RENDERED_TRANSCRIPT_MAX_CHARS) {
      as = 'source';
      void vscode.window.showInformationMessage(
        `Evergreen: this transcript is ${(text.length / 1_000_000).toFixed(1)} million characters, so it opened as markdown source (rendered, it would take many seconds to draw). Ctrl+F searches it.`,
      );
    }
    if (as === 'source') return this.showSource(address, title, current, revealLine);
    this.views.show({ key: addressKey(address), address, title, markdown: text, version: current.version, revealLine });
  }

  /** A rendered tab VS Code brought back after a reload, as the transcript is now (undefined: closed, e.g. past the size limit). */
  private async restoredView(address: TranscriptAddress | undefined): Promise<RenderedView<TranscriptAddress> | undefined> {
    if (!address) return undefined;
    const [current, meta] = await Promise.all([this.render(address), this.readMeta(address)]);
    if (current.rendered.text.length > RENDERED_TRANSCRIPT_MAX_CHARS) return undefined;
    return { key: addressKey(address), address, title: meta.title, markdown: current.rendered.text, version: current.version };
  }

  /** The markdown source in a read-only editor: one tab per transcript, even if its title changed since it was opened. */
  private async showSource(address: TranscriptAddress, title: string, current: CachedRender, revealLine: number | undefined): Promise<void> {
    const key = addressKey(address);
    const existing = vscode.workspace.textDocuments.find((document) => {
      const shown = transcriptAddress(document.uri);
      return shown !== undefined && addressKey(shown) === key;
    });
    const uri = existing?.uri ?? transcriptUri(address.sessionId, title, address.childId);
    if (existing && this.served.get(uri.toString()) !== current.version) await this.refresh(existing);
    let document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== 'markdown') document = await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    const editor = await vscode.window.showTextDocument(document, { preview: false });
    if (revealLine === undefined || revealLine >= document.lineCount) return;
    const at = new vscode.Position(revealLine, 0);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.AtTop);
  }

  /** "Open Source" (the rendered tab's title bar and its button): the markdown the tab shows, at the boundary it was opened at. */
  private async openSource(address: TranscriptAddress | undefined, revealLine = address && this.views.revealLineOf(addressKey(address))): Promise<void> {
    if (!address) return this.open(undefined, 'source');
    try {
      const [current, meta] = await Promise.all([this.render(address), this.readMeta(address)]);
      await this.showSource(address, meta.title, current, revealLine);
    } catch (error) {
      void vscode.window.showErrorMessage(`Evergreen could not open the transcript source of ${describeAddress(address)}: ${errorMessage(error)}. Run Evergreen: Open Archived Transcript… to pick a saved session.`);
    }
  }

  /** "Open Rendered" (the source tab's title bar): the document given or active, else a picked session. */
  private openRendered(arg?: unknown): Promise<void> {
    const active = vscode.window.activeTextEditor?.document.uri;
    return this.open(addressOf(arg) ?? (active && transcriptAddress(active)));
  }

  /** "Open Raw JSONL": transcript.jsonl itself, for the transcript tab given (or active) or a picked session. */
  async openRaw(arg?: unknown): Promise<void> {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    const shown = (uri && transcriptAddress(uri)) || this.views.activeAddress();
    const picked = shown ? undefined : await pickSession(this.store, 'Open which raw transcript?');
    const address = shown ?? (picked ? { sessionId: picked } : undefined);
    if (address) await this.openRawOf(address);
  }

  private async openRawOf(address: TranscriptAddress): Promise<void> {
    const sessionId = describeAddress(address);
    try {
      const file = this.storeFor(address).transcriptPath(address.childId ?? address.sessionId);
      await fs.promises.access(file);
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
      // The transcript is append-only: a stray keystroke saved into it would change what resume rebuilds.
      await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
    } catch (error) {
      void vscode.window.showErrorMessage(`Evergreen could not open the raw transcript of ${sessionId}: ${errorMessage(error)}`);
    }
  }

  /** Fires the change and waits (briefly) until VS Code has fetched the new text. */
  private refresh(document: vscode.TextDocument): Promise<void> {
    return fireAndAwaitReread(document.uri, () => this.changes.fire(document.uri), 5_000);
  }

  /** A subagent's transcript is looked up among its session's own subagents only (ids are checked by the store). */
  private storeFor(address: TranscriptAddress): FileSessionStore {
    return address.childId ? this.store.subagentStore(address.sessionId) : this.store;
  }

  /** Async throughout, so a malformed id is a rejected promise (an error message), never a throw mid-call. */
  private async readMeta(address: TranscriptAddress): Promise<SessionMeta> {
    const store = this.storeFor(address);
    const id = address.childId ?? address.sessionId;
    return store.readMeta(id).catch(() => {
      throw new SessionNotFoundError(id, store.sessionsDir);
    });
  }

  /** The document for the transcript as it is on disk now: cached per (transcript, mtime, size). */
  private async render(address: TranscriptAddress): Promise<CachedRender> {
    const file = this.storeFor(address).transcriptPath(address.childId ?? address.sessionId);
    const stat = await fs.promises.stat(file).catch(() => undefined);
    const version = stat ? `${stat.mtimeMs}:${stat.size}` : 'empty';
    const cacheKey = addressKey(address);
    const cached = this.cache.get(cacheKey);
    if (cached?.version === version) {
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, cached);
      return cached;
    }
    const key = `${cacheKey}@${version}`;
    let pending = this.rendering.get(key);
    if (!pending) {
      pending = (async () => {
        const meta = await this.readMeta(address);
        const started = Date.now();
        // Links between a parent's and its subagents' documents open them here, in this scheme.
        const transcriptHref = (target: { sessionId: string; childId?: string; title: string }) => transcriptUri(target.sessionId, target.title, target.childId).toString();
        const rendered = await renderTranscript(meta, transcriptLines(file), { transcriptPath: file, transcriptHref, sessionDir: path.dirname(file) });
        for (const unsaved of rendered.unsavedImages) this.logger.warn(`transcript ${cacheKey}: an image could not be saved for its link (${unsaved})`);
        this.logger.info(`transcript ${cacheKey}: ${rendered.entries} entries (${((stat?.size ?? 0) / 1024).toFixed(0)} KB) rendered in ${Date.now() - started} ms, ${rendered.foldedBlocks} block(s) folded${rendered.cut ? ', cut at the size cap' : ''}`);
        const entry = { version, rendered };
        this.cache.delete(cacheKey);
        this.cache.set(cacheKey, entry);
        while (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
        return entry;
      })().finally(() => this.rendering.delete(key));
      this.rendering.set(key, pending);
    }
    return pending;
  }
}

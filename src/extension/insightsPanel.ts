import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { StartedSession } from '../core/agent/factory';
import { actionsCsv, requestsCsv } from '../core/insights/insightsCsv';
import { buildSessionInsights, type InsightsBudget } from '../core/insights/sessionInsights';
import { wordInsights } from '../frontends/words/wordInsights';
import { errorMessage, type Logger } from '../core/logger';
import { PROVIDERS, type ProviderId } from '../core/model/backend';
import { contextWindowFor, priceFor } from '../core/model/models';
import type { SecretRedactor } from '../core/secrets';
import { transcriptLines, type FileSessionStore } from '../core/storage/sessionStore';
import type { TranscriptEntry } from '../core/storage/transcript';
import * as z from '../core/zod';
import { INSIGHTS_CSV_TABLES, type InsightsCsvTable, type SessionInsights, type InsightsHostToWebview, type InsightsView, type InsightsWebviewToHost } from '../protocol';
import { Disposable } from './disposable';
import { pickSession } from './sessionPicker';
import { readPricing } from './sessionConfig';
import { readSettings } from './settings';
import { webviewHtml, webviewResourceRoots } from './webviewHtml';

export const INSIGHTS_VIEW_TYPE = 'evergreen-insights';

/** What the panel sends, checked before anything acts on it (the panel is the less trusted side). */
const MessageSchema: z.ZodType<InsightsWebviewToHost> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('refresh') }),
  z.object({ type: z.literal('pickSession') }),
  z.object({ type: z.literal('openCsv'), table: z.enum(INSIGHTS_CSV_TABLES) }),
]);

/** Arguments of `evergreen.showSessionInsights`: a session by id (unset: the open chat's, else a picker). */
function sessionIdArg(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { sessionId } = value as Record<string, unknown>;
  return typeof sessionId === 'string' && sessionId ? sessionId : undefined;
}

interface Shown {
  sessionId: string;
  /** The transcript's mtime and size when read: Refresh and a re-shown tab read it again only when it grew. */
  version: string;
  title: string;
  /** Where the window and threshold came from, and what could not be read. */
  note: string;
  insights: SessionInsights;
}

/**
 * "Evergreen: Show Session Insights" (issue 33): one editor-tab webview with the charts of the
 * open chat's session or an archived one, read from its transcript by the core
 * (core/insights). Its HTML is the chat's (webviewHtml.ts: one nonce'd script, no network).
 */
export class InsightsPanel extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private shown: Shown | undefined;
  private loading = 0;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly deps: {
      store: FileSessionStore;
      logger: Logger;
      redactor: SecretRedactor;
      /** The chat open in the sidebar, if any. */
      active: () => StartedSession | undefined;
    },
  ) {
    super();
    this._register(vscode.commands.registerCommand('evergreen.showSessionInsights', (args?: unknown) => this.show(sessionIdArg(args))));
  }

  override dispose(): void {
    this.panel?.dispose();
    super.dispose();
  }

  /** The open chat's insights, or `sessionId`'s; with neither, the user picks a saved session. */
  async show(sessionId?: string): Promise<void> {
    const chosen = sessionId ?? this.deps.active()?.handle.id ?? (await pickSession(this.deps.store, vscode.l10n.t('Show the insights of which session?')));
    if (!chosen) return;
    const panel = this.ensurePanel();
    panel.reveal(undefined, false);
    await this.load(chosen, true);
  }

  /** The panel's HTML once; its messages answered while it lives. */
  private ensurePanel(): vscode.WebviewPanel {
    if (this.panel) return this.panel;
    const panel = vscode.window.createWebviewPanel(INSIGHTS_VIEW_TYPE, vscode.l10n.t('Evergreen Insights'), vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: webviewResourceRoots(this.extensionUri) });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.png');
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, { script: 'insights.js', style: 'insights.css', rootId: 'insights-root', title: vscode.l10n.t('Evergreen Insights') });
    const subscriptions = [
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw)),
      // Back on a tab of the open chat: its newest requests, if it had any since.
      panel.onDidChangeViewState(() => {
        if (panel.visible && this.shown && this.shown.sessionId === this.deps.active()?.handle.id) void this.load(this.shown.sessionId, false);
      }),
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.shown = undefined;
        for (const subscription of subscriptions) subscription.dispose();
      }),
    ];
    this.panel = panel;
    return panel;
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = MessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.deps.logger.warn(`ignored a malformed message from the insights panel: ${z.zodIssueText(parsed.error, raw)}`);
      return;
    }
    const message = parsed.data;
    try {
      if (message.type === 'ready' && this.shown) this.post({ type: 'insights', view: this.view(this.shown) });
      else if (message.type === 'refresh' && this.shown) await this.load(this.shown.sessionId, false);
      else if (message.type === 'pickSession') {
        const picked = await pickSession(this.deps.store, vscode.l10n.t('Show the insights of which session?'));
        if (picked) await this.load(picked, true);
      } else if (message.type === 'openCsv') await this.openCsv(message.table);
    } catch (error) {
      this.deps.logger.error(`the insights panel's ${message.type} failed`, error);
      void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen: {0}', errorMessage(error)));
    }
  }

  private post(message: InsightsHostToWebview): void {
    void this.panel?.webview.postMessage(this.deps.redactor.value(message));
  }

  /** Reads the session's transcript (again only when it changed, unless `force`) and shows it. */
  private async load(sessionId: string, force: boolean): Promise<void> {
    const ticket = ++this.loading;
    const file = this.deps.store.transcriptPath(sessionId);
    try {
      const stat = await fs.promises.stat(file);
      const version = `${stat.mtimeMs}:${stat.size}`;
      if (!force && this.shown?.sessionId === sessionId && this.shown.version === version) return;
      const title = await this.titleOf(sessionId);
      if (this.shown?.sessionId !== sessionId) this.post({ type: 'insightsLoading', title });
      const started = Date.now();
      const { entries, skipped } = await readEntries(file);
      if (ticket !== this.loading) return; // a newer load (another session) won
      const { budget, note } = this.budgetFor(sessionId, entries);
      const insights = wordInsights(buildSessionInsights(entries, { budget, priceOf: (model) => priceFor(model, readPricing(), providerOf(entries)) }));
      const unreadable = skipped > 0 ? ` ${skipped} unreadable line(s) of the transcript were skipped.` : '';
      this.shown = { sessionId, version, title, note: `${note}${unreadable}`, insights };
      if (skipped > 0) this.deps.logger.warn(`insights of ${sessionId}: ${skipped} unreadable transcript line(s) skipped`);
      this.deps.logger.info(`insights of ${sessionId}: ${insights.requests.count} requests, ${insights.actions.length} actions, read and built in ${Date.now() - started} ms`);
      this.post({ type: 'insights', view: this.view(this.shown) });
    } catch (error) {
      if (ticket !== this.loading) return;
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? vscode.l10n.t('it has no transcript yet (send a message first)') : errorMessage(error);
      this.deps.logger.warn(`insights of ${sessionId}: ${reason}`);
      this.post({ type: 'insightsError', message: vscode.l10n.t('Evergreen could not show the insights of session {0}: {1}. Pick another session with "Other Session…", or run Evergreen: Show Session Insights again.', sessionId, reason) });
    }
  }

  private async titleOf(sessionId: string): Promise<string> {
    const meta = await this.deps.store.readMeta(sessionId).catch(() => undefined);
    return meta?.title || vscode.l10n.t('session {0}', sessionId);
  }

  private view(shown: Shown): InsightsView {
    return { sessionId: shown.sessionId, title: shown.title, current: shown.sessionId === this.deps.active()?.handle.id, budgetNote: shown.note, insights: shown.insights };
  }

  /** The open chat's budget as its engine has it; for a saved session, the model's window and today's settings (said so in the panel). */
  private budgetFor(sessionId: string, entries: readonly TranscriptEntry[]): { budget: InsightsBudget; note: string } {
    const settings = readSettings();
    const percent = settings.autoCompactPercent !== undefined ? { autoCompactPercent: settings.autoCompactPercent } : {};
    const active = this.deps.active();
    if (active && active.handle.id === sessionId) {
      return { budget: { window: active.window, maxOutputTokens: active.session.context.gauge().outputReserve, ...percent }, note: vscode.l10n.t('The window and threshold are the open chat’s.') };
    }
    const model = modelOf(entries) ?? settings.model ?? '';
    const window = settings.contextWindow ?? contextWindowFor(providerOf(entries), model);
    return {
      budget: { window, maxOutputTokens: settings.maxOutputTokens, ...percent },
      note: model
        ? vscode.l10n.t("A saved session: its window ({0} tokens for {1}) and threshold are taken from today's settings; it may have run with others.", window.toLocaleString('en-US'), model)
        : vscode.l10n.t("A saved session: its window ({0} tokens) and threshold are taken from today's settings; it may have run with others.", window.toLocaleString('en-US')),
    };
  }

  /** The shown data as CSV in a new editor (untitled: the user saves it where they like). */
  private async openCsv(table: InsightsCsvTable): Promise<void> {
    if (!this.shown) return;
    const content = table === 'requests' ? requestsCsv(this.shown.insights) : actionsCsv(this.shown.insights);
    const language = (await vscode.languages.getLanguages()).includes('csv') ? 'csv' : 'plaintext';
    const document = await vscode.workspace.openTextDocument({ language, content: this.deps.redactor.text(content) });
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false });
  }
}

/** The transcript's entries as the engine wrote them, and how many lines were unreadable (skipped, never fatal). */
async function readEntries(file: string): Promise<{ entries: TranscriptEntry[]; skipped: number }> {
  const entries: TranscriptEntry[] = [];
  let skipped = 0;
  for await (const item of transcriptLines(file)) {
    if ('entry' in item) entries.push(item.entry);
    else skipped++;
  }
  return { entries, skipped };
}

/** The provider of the session's newest reply (messages record it), else the one set now. */
function providerOf(entries: readonly TranscriptEntry[]): ProviderId {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    if (entry.type === 'message' && entry.provider && (PROVIDERS as readonly string[]).includes(entry.provider)) return entry.provider as ProviderId;
  }
  return readSettings().provider;
}

function modelOf(entries: readonly TranscriptEntry[]): string | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    if (entry.type === 'usage' && entry.childId === undefined) return entry.model;
  }
  return undefined;
}

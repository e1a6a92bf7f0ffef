/** "Compact Conversation" and "Undo Last Compaction" on one chat: the dialog (what it will do, then the optional focus), the progress it runs under, and what each says when done. */
import * as vscode from 'vscode';
import type { AgentSession } from '../core/agent/session';
import type { CompactionPreview } from '../core/context/compactionPreview';
import { word } from '../frontends/words';
import type { ChatState } from './chatState';
import { errorText } from './errorHints';

/** The focus to compact with (undefined: none), or undefined when the user backed out or nothing can be compacted. */
export async function askCompactFocus(session: AgentSession): Promise<{ focus: string | undefined } | undefined> {
  const preview = session.previewCompaction();
  if (preview && !preview.ok) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}', word(preview.message)));
    return undefined;
  }
  if (preview) {
    const compact = vscode.l10n.t('Compact');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: compact the conversation?'), { modal: true, detail: previewText(preview) }, compact);
    if (choice !== compact) return undefined;
  }
  const typed = await vscode.window.showInputBox({
    title: vscode.l10n.t('Evergreen: Compact Conversation'),
    prompt: vscode.l10n.t('Optional: what should the summary focus on? (Enter to compact without focus, Esc to cancel)'),
    placeHolder: vscode.l10n.t('e.g. the failing tests and the API decisions'),
  });
  if (typed === undefined) return undefined;
  return { focus: typed.trim() || undefined };
}

const tokens = (value: number): string => `~${Math.round(value).toLocaleString('en-US')}`;

/** The core's preview (data) in the dialog's words, line by line as the CLI prints it (core/context/compactionPreview.ts). */
export function previewText(preview: CompactionPreview): string {
  const { summarized, kept, restoredFiles } = preview;
  const lines = [
    vscode.l10n.t('Context now: {0} tokens.', tokens(preview.tokensBefore)),
    vscode.l10n.t('Summarized: {0} message(s), {1} tokens.', summarized.messages, tokens(summarized.tokens)),
    kept.messages === 0
      ? vscode.l10n.t('Kept verbatim: none (everything is summarized).')
      : vscode.l10n.t('Kept verbatim: the newest {0} message(s), {1} tokens.', kept.messages, tokens(kept.tokens)),
    restoredFiles.length === 0
      ? vscode.l10n.t('Restored: no files.')
      : vscode.l10n.t('Restored: {0}.', restoredFiles.map((file) => `${file.path} (${tokens(file.tokens)})`).join(', ')),
    vscode.l10n.t('After: {0} tokens + the summary (at most {1}).', tokens(preview.tokensAfter), preview.summaryMaxTokens.toLocaleString('en-US')),
  ];
  if (preview.focus) lines.push(vscode.l10n.t('Focus: {0}', preview.focus));
  lines.push(vscode.l10n.t('The full conversation stays in the transcript; "Undo Last Compaction" brings it back while it still fits.'));
  return lines.join('\n');
}

/** Runs `work` under a cancellable notification; Cancel aborts its signal. */
export function withCancellableProgress<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (_progress, token) => {
    const controller = new AbortController();
    const subscription = token.onCancellationRequested(() => controller.abort());
    try {
      return await work(controller.signal);
    } finally {
      subscription.dispose();
    }
  });
}

/** One chat's compaction commands; the panel's state is posted again after each change. */
export class ChatCompaction {
  constructor(
    private readonly chat: ChatState,
    private readonly postState: () => Promise<void>,
    private readonly focusInput: () => Promise<void>,
  ) {}

  /** "Compact Conversation": asks for optional focus instructions (unless given; '' = none), then compacts with progress. */
  async compact(focus?: string): Promise<void> {
    const { active } = this.chat;
    if (!active || active.session.history.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: nothing to compact yet. Start a chat in the Evergreen view first.'));
      return;
    }
    if (active.session.busy) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen is working; it compacts by itself when the context fills up. Cancel or wait, then compact.'));
      return;
    }
    // From the palette or the gauge: first say what it will do, then ask for the focus.
    const chosen = focus === undefined ? await askCompactFocus(active.session) : { focus: focus || undefined };
    if (!chosen) return;
    const outcome = await withCancellableProgress(vscode.l10n.t('Evergreen: compacting the conversation…'), (signal) => this.compactNow(chosen.focus, signal));
    if (outcome.ok) void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}', outcome.message));
    else void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0}', outcome.message));
  }

  /** Compaction without UI prompts (the command's core; also the API the integration tests use). */
  async compactNow(focus?: string, signal?: AbortSignal): Promise<{ ok: boolean; message: string }> {
    const { active } = this.chat;
    if (!active) return { ok: false, message: vscode.l10n.t('Nothing to compact yet: no conversation is open.') };
    try {
      const outcome = await active.session.compact(focus, signal);
      await this.postState();
      return { ok: outcome.ok, message: word(outcome.message) };
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }

  /** "Undo Last Compaction" (command and the divider's Undo button): says how it went. */
  async undoLastCompaction(): Promise<void> {
    const outcome = await this.undoCompactionNow();
    if (outcome.ok) await this.focusInput();
    if (outcome.ok) void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}', outcome.message));
    else void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0}', outcome.message));
  }

  /** The undo without UI (the command's core; also the API the integration tests use). */
  async undoCompactionNow(): Promise<{ ok: boolean; message: string }> {
    const { active } = this.chat;
    if (!active) return { ok: false, message: vscode.l10n.t('Nothing to undo: no conversation is open.') };
    try {
      const outcome = await active.session.undoLastCompaction();
      if (outcome.ok) await this.postState();
      return { ok: outcome.ok, message: word(outcome.message) };
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }
}

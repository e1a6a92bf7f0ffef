/** "Compact Conversation" and "Undo Last Compaction" on one chat: the dialog (what it will do, then the optional focus), the progress it runs under, and what each says when done. */
import * as vscode from 'vscode';
import type { AgentSession } from '../core/agent/session';
import { describeCompactionPreview } from '../core/context/compactionPreview';
import type { ChatState } from './chatState';
import { errorText } from './errorHints';

/** The focus to compact with (undefined: none), or undefined when the user backed out or nothing can be compacted. */
export async function askCompactFocus(session: AgentSession): Promise<{ focus: string | undefined } | undefined> {
  const preview = session.previewCompaction();
  if (preview && !preview.ok) {
    void vscode.window.showInformationMessage(`Evergreen: ${preview.message}`);
    return undefined;
  }
  if (preview) {
    const choice = await vscode.window.showInformationMessage('Evergreen: compact the conversation?', { modal: true, detail: describeCompactionPreview(preview) }, 'Compact');
    if (choice !== 'Compact') return undefined;
  }
  const typed = await vscode.window.showInputBox({
    title: 'Evergreen: Compact Conversation',
    prompt: 'Optional: what should the summary focus on? (Enter to compact without focus, Esc to cancel)',
    placeHolder: 'e.g. the failing tests and the API decisions',
  });
  if (typed === undefined) return undefined;
  return { focus: typed.trim() || undefined };
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
      void vscode.window.showInformationMessage('Evergreen: nothing to compact yet. Start a chat in the Evergreen view first.');
      return;
    }
    if (active.session.busy) {
      void vscode.window.showInformationMessage('Evergreen is working; it compacts by itself when the context fills up. Cancel or wait, then compact.');
      return;
    }
    // From the palette or the gauge: first say what it will do, then ask for the focus.
    const chosen = focus === undefined ? await askCompactFocus(active.session) : { focus: focus || undefined };
    if (!chosen) return;
    const outcome = await withCancellableProgress('Evergreen: compacting the conversation…', (signal) => this.compactNow(chosen.focus, signal));
    if (outcome.ok) void vscode.window.showInformationMessage(`Evergreen: ${outcome.message}`);
    else void vscode.window.showWarningMessage(`Evergreen: ${outcome.message}`);
  }

  /** Compaction without UI prompts (the command's core; also the API the integration tests use). */
  async compactNow(focus?: string, signal?: AbortSignal): Promise<{ ok: boolean; message: string }> {
    const { active } = this.chat;
    if (!active) return { ok: false, message: 'Nothing to compact yet: no conversation is open.' };
    try {
      const outcome = await active.session.compact(focus, signal);
      await this.postState();
      return outcome;
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }

  /** "Undo Last Compaction" (command and the divider's Undo button): says how it went. */
  async undoLastCompaction(): Promise<void> {
    const outcome = await this.undoCompactionNow();
    if (outcome.ok) await this.focusInput();
    if (outcome.ok) void vscode.window.showInformationMessage(`Evergreen: ${outcome.message}`);
    else void vscode.window.showWarningMessage(`Evergreen: ${outcome.message}`);
  }

  /** The undo without UI (the command's core; also the API the integration tests use). */
  async undoCompactionNow(): Promise<{ ok: boolean; message: string }> {
    const { active } = this.chat;
    if (!active) return { ok: false, message: 'Nothing to undo: no conversation is open.' };
    try {
      const outcome = await active.session.undoLastCompaction();
      if (outcome.ok) await this.postState();
      return outcome;
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }
}

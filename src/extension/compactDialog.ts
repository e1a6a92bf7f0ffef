/** The "Compact Conversation" dialog: what it will do, then the optional focus; and the progress it runs under. */
import * as vscode from 'vscode';
import type { AgentSession } from '../core/agent/session';
import { describeCompactionPreview } from '../core/context/compactionPreview';

/** The focus to compact with (undefined: none), or undefined when the user backed out or nothing can be compacted. */
export async function askCompactFocus(session: AgentSession): Promise<{ focus: string | undefined } | undefined> {
  const preview = session.previewCompaction();
  if (preview && !preview.ok) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}', preview.message));
    return undefined;
  }
  if (preview) {
    const compact = vscode.l10n.t('Compact');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: compact the conversation?'), { modal: true, detail: describeCompactionPreview(preview) }, compact);
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

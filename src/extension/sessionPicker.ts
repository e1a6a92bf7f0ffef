import * as vscode from 'vscode';
import { formatCost } from '../core/model/cost';
import type { FileSessionStore, SessionMeta } from '../core/storage/sessionStore';

interface SessionItem extends vscode.QuickPickItem {
  sessionId: string;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return vscode.l10n.t('{0} B', bytes);
  if (bytes < 1024 * 1024) return vscode.l10n.t('{0} KB', (bytes / 1024).toFixed(1));
  return vscode.l10n.t('{0} MB', (bytes / 1024 / 1024).toFixed(1));
}

// Whole phrases per count, so a language words its own plural.
const messages = (count: number) => (count === 1 ? vscode.l10n.t('1 message') : vscode.l10n.t('{0} messages', count.toLocaleString()));
const compactions = (count: number) => (count === 1 ? vscode.l10n.t('1 compaction') : vscode.l10n.t('{0} compactions', count.toLocaleString()));

async function items(store: FileSessionStore, sessions: SessionMeta[], openId: string | undefined): Promise<SessionItem[]> {
  // Sizes come from stat calls only, so a long list of big sessions still opens at once.
  const sizes = await Promise.all(sessions.map((meta) => store.diskUsage(meta.id).catch(() => undefined)));
  return sessions.map((meta, index) => {
    const size = sizes[index];
    const parts = [
      // What marks the chat already open in the panel.
      ...(meta.id === openId ? [vscode.l10n.t('open in the chat')] : []),
      new Date(meta.updatedAt).toLocaleString(),
      messages(meta.messageCount),
      // Metas from before the counter say nothing until the session is opened once.
      ...(meta.compactions !== undefined ? [compactions(meta.compactions)] : []),
      ...(size !== undefined ? [formatBytes(size)] : []),
    ];
    return { label: meta.title, description: parts.join(' · '), detail: `${meta.model} · ${formatCost(meta.totals.costUsd, meta.totals.unpricedRequests, undefined, vscode.l10n.t('price unknown'))} · ${meta.id}`, sessionId: meta.id };
  });
}

/** The workspace's sessions, newest first, for Resume and Open Archived Transcript; `openId`: the chat open in the panel, marked. */
export async function pickSession(store: FileSessionStore, title: string, openId?: string): Promise<string | undefined> {
  const sessions = await store.list();
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: no saved sessions yet. Every chat is saved here once you send a message.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items(store, sessions, openId), { title: vscode.l10n.t('Evergreen: {0}', title), matchOnDescription: true, matchOnDetail: true });
  return picked?.sessionId;
}

/** A background (worktree) chat's session is refused in the checkout, with why and what to do; true when refused. */
export async function refusedBackgroundResume(backgroundChatOf: (sessionId: string) => Promise<string | undefined>, sessionId: string): Promise<boolean> {
  const background = await backgroundChatOf(sessionId);
  if (background === undefined) return false;
  // Its files are in its worktree: resumed here, its next edits would land in the user's checkout.
  void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: that session is the background chat {0}, which works in its own worktree; the panel cannot resume it yet. Review its changes from the Background Chats view.', background));
  return true;
}

import * as vscode from 'vscode';
import { formatCost } from '../core/model/cost';
import type { FileSessionStore, SessionMeta } from '../core/storage/sessionStore';

interface SessionItem extends vscode.QuickPickItem {
  sessionId: string;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const plural = (count: number, word: string) => `${count.toLocaleString()} ${word}${count === 1 ? '' : 's'}`;

async function items(store: FileSessionStore, sessions: SessionMeta[]): Promise<SessionItem[]> {
  // Sizes come from stat calls only, so a long list of big sessions still opens at once.
  const sizes = await Promise.all(sessions.map((meta) => store.diskUsage(meta.id).catch(() => undefined)));
  return sessions.map((meta, index) => {
    const size = sizes[index];
    const parts = [
      new Date(meta.updatedAt).toLocaleString(),
      plural(meta.messageCount, 'message'),
      // Metas from before the counter say nothing until the session is opened once.
      ...(meta.compactions !== undefined ? [plural(meta.compactions, 'compaction')] : []),
      ...(size !== undefined ? [formatBytes(size)] : []),
    ];
    return { label: meta.title, description: parts.join(' · '), detail: `${meta.model} · ${formatCost(meta.totals.costUsd, meta.totals.unpricedRequests)} · ${meta.id}`, sessionId: meta.id };
  });
}

/** The workspace's sessions, newest first, for Resume and Open Archived Transcript. */
export async function pickSession(store: FileSessionStore, title: string): Promise<string | undefined> {
  const sessions = await store.list();
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage('Evergreen: no saved sessions yet. Every chat is saved here once you send a message.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items(store, sessions), { title: `Evergreen: ${title}`, matchOnDescription: true, matchOnDetail: true });
  return picked?.sessionId;
}

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { savedOutputFile } from '../core/context/tier0';
import type { Logger } from '../core/logger';

/**
 * Opens a link the user clicked in model text. Model text is untrusted: only http(s) links (after
 * the user confirms) and files inside the workspace open; `command:`, `vscode:`, `file:` and every
 * other scheme are refused, whatever the webview sent.
 */
export async function openChatLink(href: string, workspaceRoot: string | undefined, logger: Logger): Promise<void> {
  if (/^https?:\/\//i.test(href)) {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(href, true);
    } catch {
      logger.warn(`chat link is not a valid URL: ${href.slice(0, 200)}`);
      return;
    }
    const open = vscode.l10n.t('Open');
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Open this link from the chat in your browser?'), { modal: true, detail: uri.toString(true) }, open);
    if (choice === open) await vscode.env.openExternal(uri);
    return;
  }
  // "a.ts:12" is a file and line, not a scheme.
  if (/^[a-z][a-z0-9+.-]*:(?!\d+$)/i.test(href) || href.startsWith('/') || href.startsWith('\\') || workspaceRoot === undefined) {
    logger.warn(`chat link refused (only web links and workspace files open): ${href.slice(0, 200)}`);
    void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen opens only web links and files inside the workspace from the chat.'));
    return;
  }
  // "src/a.ts", "src/a.ts:12", "src/a.ts#L12"
  const match = /^(.*?)(?:#L(\d+)|:(\d+))?$/.exec(decodeLink(href));
  const relative = match?.[1] ?? href;
  const line = Number(match?.[2] ?? match?.[3] ?? 0);
  const root = await fsp.realpath(workspaceRoot);
  const target = await fsp.realpath(path.resolve(root, relative)).catch(() => undefined);
  const inside = target !== undefined && (target === root || target.startsWith(root + path.sep));
  const stat = inside ? await fsp.stat(target).catch(() => undefined) : undefined;
  if (!inside || !stat?.isFile()) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: "{0}" is not a file in this workspace.', relative.slice(0, 200)));
    return;
  }
  const position = new vscode.Position(Math.max(0, line - 1), 0);
  await vscode.window.showTextDocument(vscode.Uri.file(target), { preview: true, selection: new vscode.Range(position, position) });
}

function decodeLink(href: string): string {
  try {
    return decodeURIComponent(href);
  } catch {
    return href;
  }
}

/**
 * A persist note's "saved output" link: the file opens read-only, and only when it is one of this
 * session's persisted outputs (savedOutputFile); anything else is refused and logged.
 */
export async function openSavedOutput(file: string, toolResultsDir: string | undefined, logger: Logger): Promise<void> {
  const target = toolResultsDir === undefined ? undefined : await savedOutputFile(file, toolResultsDir);
  if (!target) {
    logger.warn(`saved-output link refused (not a file in this session's tool-results folder): ${file.slice(0, 300)}`);
    void vscode.window.showWarningMessage(
      vscode.l10n.t("Evergreen: that saved output cannot be opened: only files in this session's tool-results folder open from the chat, and it is not one of them (or it was deleted). The chat's preview of it is in Open Archived Transcript."),
    );
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(target), { preview: true });
  // A saved output is the record of what a tool printed: a stray keystroke must not change it.
  await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
}

/**
 * The web's two commands. "Evergreen: Web Access" lists the hosts web_fetch reaches without asking:
 * those allowed "always" in this workspace (pick one to forget it: web_fetch asks again) and the
 * entries of the user's `evergreen.web.allowedDomains` (marked so; pick one to edit the setting).
 * "Evergreen: Set SearXNG Key" stores or removes the key of the user's SearXNG instance.
 */
import * as vscode from 'vscode';
import { settingName } from '../frontends/settingsTable';
import type { ApiKeyStore } from './apiKey';
import { readSettings } from './settings';
import { webAccessRows, type WebAccessRow, type WorkspaceWebDomains } from './webAccess';

type RowItem = vscode.QuickPickItem & { row?: WebAccessRow; edit?: true };

const FORGET = 'Forget';

/** Shows the list until the user closes it; a forgotten host leaves it at once. */
export async function showWebAccess(domains: WorkspaceWebDomains): Promise<void> {
  for (;;) {
    const rows = webAccessRows(domains.list(), readSettings().web.allowedDomains);
    const items: RowItem[] = [];
    const workspace = rows.filter((row) => row.kind === 'workspace');
    const setting = rows.filter((row) => row.kind === 'setting');
    items.push({ label: 'This workspace', kind: vscode.QuickPickItemKind.Separator });
    if (workspace.length === 0) items.push({ label: 'No host allowed here yet', description: 'web_fetch asks before each new host' });
    for (const row of workspace) items.push({ label: row.host, description: row.description, detail: 'Select to forget it: web_fetch asks again before fetching from it', row });
    items.push({ label: 'Your settings', kind: vscode.QuickPickItemKind.Separator });
    for (const row of setting) items.push({ label: row.entry, description: row.description, row });
    items.push({ label: `$(settings-gear) Edit ${settingName('web.allowedDomains')}…`, description: 'hosts allowed in every workspace', edit: true });
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Evergreen: Web Access',
      placeHolder: 'Hosts web_fetch reaches without asking: select one of this workspace\'s to forget it',
      matchOnDescription: true,
    });
    if (!picked) return;
    if (picked.edit || picked.row?.kind === 'setting') {
      await vscode.commands.executeCommand('workbench.action.openSettings', settingName('web.allowedDomains'));
      return;
    }
    if (picked.row?.kind !== 'workspace') continue;
    const host = picked.row.host;
    const answer = await vscode.window.showWarningMessage(`Forget ${host}?`, { modal: true, detail: `web_fetch will ask again before it fetches from ${host} in this workspace.` }, FORGET);
    if (answer === FORGET) {
      await domains.forget(host);
      void vscode.window.showInformationMessage(`Evergreen: ${host} is no longer allowed in this workspace.`);
    }
  }
}

/** Asks for the SearXNG key; an empty answer removes a stored one. */
export async function setSearxngKey(apiKeys: ApiKeyStore): Promise<void> {
  const stored = (await apiKeys.searxngKey()) !== undefined;
  const key = await vscode.window.showInputBox({
    title: 'Evergreen: SearXNG key',
    prompt: `Sent as a bearer token to your SearXNG instance (${settingName('web.searxngUrl')}), for a proxy in front of it; stored in VS Code SecretStorage, never in settings, transcripts or logs.${stored ? ' Leave it empty to remove the stored key.' : ''}`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: stored ? 'A key is stored: type a new one, or leave empty to remove it' : 'The key your proxy expects',
    validateInput: (value) => (/\s/.test(value.trim()) ? 'A key has no spaces or line breaks.' : undefined),
  });
  if (key === undefined) return;
  if (key.trim() === '') {
    if (!stored) return;
    await apiKeys.storeSearxngKey(undefined);
    void vscode.window.showInformationMessage('Evergreen: SearXNG key removed.');
    return;
  }
  await apiKeys.storeSearxngKey(key);
  if (readSettings().web.searxngUrl) {
    void vscode.window.showInformationMessage('Evergreen: SearXNG key saved.');
    return;
  }
  const open = 'Open Settings';
  const choice = await vscode.window.showInformationMessage(`Evergreen: SearXNG key saved. Set ${settingName('web.searxngUrl')} to your instance's address for web search to use it.`, open);
  if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', settingName('web.searxngUrl'));
}

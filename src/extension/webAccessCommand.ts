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


/** Shows the list until the user closes it; a forgotten host leaves it at once. */
export async function showWebAccess(domains: WorkspaceWebDomains): Promise<void> {
  for (;;) {
    const rows = webAccessRows(domains.list(), readSettings().web.allowedDomains);
    const items: RowItem[] = [];
    const workspace = rows.filter((row) => row.kind === 'workspace');
    const setting = rows.filter((row) => row.kind === 'setting');
    items.push({ label: vscode.l10n.t('This workspace'), kind: vscode.QuickPickItemKind.Separator });
    if (workspace.length === 0) items.push({ label: vscode.l10n.t('No host allowed here yet'), description: vscode.l10n.t('web_fetch asks before each new host') });
    for (const row of workspace) items.push({ label: row.host, description: row.description, detail: vscode.l10n.t('Select to forget it: web_fetch asks again before fetching from it'), row });
    items.push({ label: vscode.l10n.t('Your settings'), kind: vscode.QuickPickItemKind.Separator });
    for (const row of setting) items.push({ label: row.entry, description: row.description, row });
    items.push({ label: `$(settings-gear) ${vscode.l10n.t('Edit {0}…', settingName('web.allowedDomains'))}`, description: vscode.l10n.t('hosts allowed in every workspace'), edit: true });
    const picked = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Evergreen: Web Access'),
      placeHolder: vscode.l10n.t("Hosts web_fetch reaches without asking: select one of this workspace's to forget it"),
      matchOnDescription: true,
    });
    if (!picked) return;
    if (picked.edit || picked.row?.kind === 'setting') {
      await vscode.commands.executeCommand('workbench.action.openSettings', settingName('web.allowedDomains'));
      return;
    }
    if (picked.row?.kind !== 'workspace') continue;
    const host = picked.row.host;
    const forget = vscode.l10n.t('Forget');
    const answer = await vscode.window.showWarningMessage(vscode.l10n.t('Forget {0}?', host), { modal: true, detail: vscode.l10n.t('web_fetch will ask again before it fetches from {0} in this workspace.', host) }, forget);
    if (answer === forget) {
      await domains.forget(host);
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0} is no longer allowed in this workspace.', host));
    }
  }
}

/** Asks for the SearXNG key; an empty answer removes a stored one. */
export async function setSearxngKey(apiKeys: ApiKeyStore): Promise<void> {
  const stored = (await apiKeys.searxngKey()) !== undefined;
  const key = await vscode.window.showInputBox({
    title: vscode.l10n.t('Evergreen: SearXNG key'),
    prompt: stored
      ? vscode.l10n.t('Sent as a bearer token to your SearXNG instance ({0}), for a proxy in front of it; stored in VS Code SecretStorage, never in settings, transcripts or logs. Leave it empty to remove the stored key.', settingName('web.searxngUrl'))
      : vscode.l10n.t('Sent as a bearer token to your SearXNG instance ({0}), for a proxy in front of it; stored in VS Code SecretStorage, never in settings, transcripts or logs.', settingName('web.searxngUrl')),
    password: true,
    ignoreFocusOut: true,
    placeHolder: stored ? vscode.l10n.t('A key is stored: type a new one, or leave empty to remove it') : vscode.l10n.t('The key your proxy expects'),
    validateInput: (value) => (/\s/.test(value.trim()) ? vscode.l10n.t('A key has no spaces or line breaks.') : undefined),
  });
  if (key === undefined) return;
  if (key.trim() === '') {
    if (!stored) return;
    await apiKeys.storeSearxngKey(undefined);
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: SearXNG key removed.'));
    return;
  }
  await apiKeys.storeSearxngKey(key);
  if (readSettings().web.searxngUrl) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: SearXNG key saved.'));
    return;
  }
  const open = vscode.l10n.t('Open Settings');
  const choice = await vscode.window.showInformationMessage(vscode.l10n.t("Evergreen: SearXNG key saved. Set {0} to your instance's address for web search to use it.", settingName('web.searxngUrl')), open);
  if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', settingName('web.searxngUrl'));
}

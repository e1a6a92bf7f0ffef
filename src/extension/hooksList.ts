/**
 * "Evergreen: Hooks": the hooks of this chat with where each comes from; pick one to turn it off
 * for this chat (or on again), or to open the file that defines it.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionHooks } from '../core/agent/hooks';
import { describeHook } from '../core/hooks';
import { settingName } from '../frontends/settingsTable';
import { word } from '../frontends/words';


export async function showHooks(hooks: SessionHooks | undefined): Promise<void> {
  const listed = hooks?.list() ?? [];
  if (!hooks || listed.length === 0) {
    const openSettings = vscode.l10n.t('Open Settings');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        "No hook runs in this chat. Add yours in the setting \"{0}\" or ~/.claude/settings.json; a workspace's .claude/settings.json hooks run after you allow them. Then start a New Chat.",
        settingName('hooks'),
      ),
      openSettings,
    );
    if (choice === openSettings) void vscode.commands.executeCommand('workbench.action.openSettings', settingName('hooks'));
    return;
  }
  const picked = await vscode.window.showQuickPick(
    listed.map(({ hook, on }) => ({
      label: `${on ? '' : '$(circle-slash) '}${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ''}`,
      description: [hook.origin.scope === 'workspace' ? vscode.l10n.t('workspace, sandboxed') : vscode.l10n.t('yours'), hook.origin.label, ...(on ? [] : [vscode.l10n.t('off for this chat')])].join(' · '),
      detail: word(describeHook(hook)),
      entry: { hook, on },
    })),
    { title: vscode.l10n.t('Evergreen: Hooks of this chat'), placeHolder: vscode.l10n.t('Pick a hook to turn it off for this chat, or to open its file') },
  );
  if (!picked) return;
  const { hook, on } = picked.entry;
  const inFile = path.isAbsolute(hook.origin.source);
  const toggle = on ? vscode.l10n.t('Turn Off for This Chat') : vscode.l10n.t('Turn On Again');
  const openFile = vscode.l10n.t('Open Its File');
  const action = await vscode.window.showQuickPick([toggle, ...(inFile ? [openFile] : [])], { title: vscode.l10n.t('{0} hook: {1}', hook.event, hook.command) });
  if (action === openFile) {
    await vscode.window.showTextDocument(vscode.Uri.file(hook.origin.source));
  } else if (action) {
    hooks.setOn(hook.consentKey, !on);
    void vscode.window.showInformationMessage(
      on
        ? vscode.l10n.t('Evergreen: the {0} hook "{1}" is off for this chat; a New Chat turns it on again.', hook.event, hook.command)
        : vscode.l10n.t('Evergreen: the {0} hook "{1}" is on again.', hook.event, hook.command),
    );
  }
}

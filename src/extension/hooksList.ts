/**
 * "Evergreen: Hooks": the hooks of this chat with where each comes from; pick one to turn it off
 * for this chat (or on again), or to open the file that defines it.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionHooks } from '../core/agent/hooks';
import { describeHook } from '../core/hooks';
import { settingName } from '../frontends/settingsTable';

type HookAction = 'Turn Off for This Chat' | 'Turn On Again' | 'Open Its File';

export async function showHooks(hooks: SessionHooks | undefined): Promise<void> {
  const listed = hooks?.list() ?? [];
  if (!hooks || listed.length === 0) {
    const choice = await vscode.window.showInformationMessage(
      `No hook runs in this chat. Add yours in the setting "${settingName('hooks')}" or ~/.claude/settings.json; a workspace's .claude/settings.json hooks run after you allow them. Then start a New Chat.`,
      'Open Settings',
    );
    if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', settingName('hooks'));
    return;
  }
  const picked = await vscode.window.showQuickPick(
    listed.map(({ hook, on }) => ({
      label: `${on ? '' : '$(circle-slash) '}${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ''}`,
      description: `${hook.origin.scope === 'workspace' ? 'workspace, sandboxed' : 'yours'} · ${hook.origin.label}${on ? '' : ' · off for this chat'}`,
      detail: describeHook(hook),
      entry: { hook, on },
    })),
    { title: 'Evergreen: Hooks of this chat', placeHolder: 'Pick a hook to turn it off for this chat, or to open its file' },
  );
  if (!picked) return;
  const { hook, on } = picked.entry;
  const inFile = path.isAbsolute(hook.origin.source);
  const actions: HookAction[] = [on ? 'Turn Off for This Chat' : 'Turn On Again', ...(inFile ? ['Open Its File' as const] : [])];
  const action = await vscode.window.showQuickPick(actions, { title: `${hook.event} hook: ${hook.command}` });
  if (action === 'Open Its File') {
    await vscode.window.showTextDocument(vscode.Uri.file(hook.origin.source));
  } else if (action) {
    hooks.setOn(hook.consentKey, !on);
    void vscode.window.showInformationMessage(`Evergreen: the ${hook.event} hook "${hook.command}" is ${on ? 'off for this chat; a New Chat turns it on again' : 'on again'}.`);
  }
}

/**
 * Hooks in VS Code (issue 29): the user's (`evergreen.hooks`, `~/.claude/settings.json`,
 * `~/.evergreen/settings.json`) always; the workspace's (`.claude/settings.json`,
 * `.claude/settings.local.json`, `.evergreen/settings.json`) only in a trusted workspace and only
 * with the user's consent for their exact definitions, asked in one modal that shows each command
 * as written and remembered per workspace (a changed hook is asked again: its key changes).
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { HooksConfig } from '../core/agent/hooks';
import { describeHook, hookStartNotices, loadHooks, sortHooksByConsent, type ConfiguredHook } from '../core/hooks';
import { word } from '../frontends/words';

// A workspaceState key, not a setting.
const CONSENT_KEY = 'hookConsentedDefinitions';

async function askConsent(hooks: readonly ConfiguredHook[]): Promise<boolean> {
  const allow = vscode.l10n.t('Allow');
  const choice = await vscode.window.showWarningMessage(
    hooks.length === 1 ? vscode.l10n.t('Run the hook that this workspace defines?') : vscode.l10n.t('Run the {0} hooks that this workspace defines?', hooks.length),
    {
      modal: true,
      detail: vscode.l10n.t(
        "A hook is a command that runs at a step of the agent (before a tool call, after an edit, when a turn ends…). This workspace asks to run:\n\n{0}\n\nThey run in Evergreen's command sandbox; they may block the agent or ask you first, but never approve anything for you. Allow only what you would run yourself. A changed hook is asked again.",
        hooks.map((hook) => word(describeHook(hook))).join('\n\n'),
      ),
    },
    allow,
    vscode.l10n.t('Not Now'),
  );
  return choice === allow;
}

export async function readHookSettings(workspaceRoot: string, userSetting: unknown, consent: vscode.Memento): Promise<HooksConfig> {
  const workspaceTrusted = vscode.workspace.isTrusted;
  const loaded = await loadHooks({ userSetting, homeDir: os.homedir(), workspaceRoot });
  const granted = new Set(consent.get<string[]>(CONSENT_KEY, []));
  let sorted = sortHooksByConsent(loaded.hooks, { consentedKeys: granted, workspaceTrusted });
  if (sorted.needConsent.length > 0 && (await askConsent(sorted.needConsent))) {
    for (const hook of sorted.needConsent) granted.add(hook.consentKey);
    await consent.update(CONSENT_KEY, [...granted]);
    sorted = sortHooksByConsent(loaded.hooks, { consentedKeys: granted, workspaceTrusted });
  }
  return { hooks: sorted.runnable, notices: hookStartNotices(loaded.problems, sorted) };
}

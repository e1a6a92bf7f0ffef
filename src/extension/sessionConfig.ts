import * as os from 'node:os';
import * as vscode from 'vscode';
import { memoryFolderFor } from '../core/memory/location';
import type { ChatOverrides } from './chatState';
import type { AgentConfig } from '../core/agent/factory';
import { parseContextOverrides } from '../core/context/defaults';
import { PROVIDER_INFO } from '../core/model/backend';
import { errorHint, ModelError } from '../core/model/errors';
import { parsePriceOverrides } from '../core/model/models';
import { settingName } from '../frontends/settingsTable';
import type { ApiKeyStore } from './apiKey';
import { bundledRipgrep } from './ripgrep';
import { readRawSetting, readSettings } from './settings';
import { apiKeyRequired } from './settingsValues';
import { readMcpSettings } from './mcpConsent';
import { readHookSettings } from './hookConsent';
import { WorkspaceWebDomains } from './webAccess';

/**
 * What a session start takes from VS Code: the agent's config for the chat's folder (chatFolders.ts), from the
 * settings, the stored key and the workspace trust. Settings it ignores are shown as warnings;
 * when no session can start it throws an error that names the next step.
 */
export async function readSessionConfig(apiKeys: ApiKeyStore, workspaceState: vscode.Memento, chat: { overrides: ChatOverrides; memoryRoot: string }, workspaceRoot: string): Promise<{ workspaceRoot: string; config: AgentConfig }> {
  const settings = readSettings();
  if (settings.problems.length > 0) void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0}', settings.problems.join('; ')));
  const apiKey = await apiKeys.get(settings.provider);
  if (!apiKey && apiKeyRequired(settings, process.env)) {
    const label = PROVIDER_INFO[settings.provider].label;
    // Said once, where the user acted: the panel shows this error with its Set API Key button, and
    // Resume's own message names it. A toast besides said it twice and outlived the saved key.
    throw new ModelError('no_api_key', vscode.l10n.t('No {0} API key is set.', label), errorHint(settings.provider, 'noApiKey'));
  }
  const prices = readPricing();
  const compression = parseContextOverrides(settings.compression);
  if (compression.problems.length > 0) void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: ignoring parts of "{0}": {1}', settingName('compression'), compression.problems.join('; ')));
  return {
    workspaceRoot,
    config: {
      provider: settings.provider,
      apiKey,
      baseURL: settings.baseUrl,
      // A chat's /model and /thinking win over the settings, for that chat.
      model: chat.overrides.model ?? settings.model,
      maxOutputTokens: settings.maxOutputTokens,
      maxToolRoundsPerTurn: settings.maxToolRoundsPerTurn,
      thinking: chat.overrides.thinking ?? settings.thinking,
      approvalPolicy: settings.approvals,
      trusted: vscode.workspace.isTrusted,
      ripgrepPath: bundledRipgrep(),
      priceOverrides: prices,
      contextWindow: settings.contextWindow,
      autoCompactPercent: settings.autoCompactPercent,
      contextSettings: compression.settings,
      subagents: settings.subagents,
      sandbox: settings.sandbox,
      instructions: settings.instructions,
      modes: { planMcpTools: settings.modes.planMcpTools },
      skills: { home: os.homedir() },
      ...(settings.memory.enabled ? { memory: { folder: memoryFolderFor(chat.memoryRoot, workspaceRoot) } } : {}),
      mcp: await readMcpSettings(workspaceRoot, settings.mcpServers, workspaceState),
      hooks: await readHookSettings(workspaceRoot, settings.hooks, workspaceState),
      web: {
        allowedDomains: settings.web.allowedDomains,
        memory: new WorkspaceWebDomains(workspaceState),
        search: settings.web.search,
        ...(settings.web.searxngUrl ? { searxng: { url: settings.web.searxngUrl, key: await apiKeys.searxngKey() } } : {}),
      },
    },
  };
}

/** The price overrides setting, read at a session start and again when it changes (applied live). */
export function readPricing(): ReturnType<typeof parsePriceOverrides>['prices'] {
  const pricing = parsePriceOverrides(readRawSetting('pricing'));
  if (pricing.problems.length > 0) void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: ignoring parts of "{0}": {1}', settingName('pricing'), pricing.problems.join('; ')));
  return pricing.prices;
}

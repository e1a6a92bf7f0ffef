/**
 * MCP servers in VS Code: the user's (`evergreen.mcp.servers`) always, the workspace's
 * (`.vscode/mcp.json`, `.mcp.json`) only in a trusted workspace and only with the user's consent
 * for that exact definition, asked in a modal that shows what would run and remembered per
 * workspace; a changed definition is asked again (its consent key changes).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpSettings } from '../core/agent/factory';
import type { McpServerConfig } from '../core/mcp/config';
import { applyConsent, loadMcpConfig, WORKSPACE_MCP_FILES } from '../core/mcp/load';
import { verbatim } from '../core/texts/userText';

// A workspaceState key, not a setting.
const CONSENT_KEY = 'mcpConsentedDefinitions';

async function askConsent(server: McpServerConfig): Promise<boolean> {
  const allow = vscode.l10n.t('Allow');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Start the MCP server "{0}" that this workspace defines?', server.name),
    {
      modal: true,
      detail: vscode.l10n.t(
        "{0} asks to run:\n\n{1}\n\nIt runs with your permissions, outside Evergreen's sandbox, and its tools are offered to the model (each call still asks unless you allowed it). Allow only what you would run yourself. A changed definition is asked again.",
        path.basename(server.origin.source),
        server.display,
      ),
    },
    allow,
    vscode.l10n.t('Not Now'),
  );
  return choice === allow;
}

export async function readMcpSettings(workspaceRoot: string, userServers: unknown, consent: vscode.Memento): Promise<McpSettings> {
  const trusted = vscode.workspace.isTrusted;
  const loaded = await loadMcpConfig({ workspaceRoot, readWorkspace: trusted, userSetting: userServers, env: process.env });
  const granted = new Set(consent.get<string[]>(CONSENT_KEY, []));
  let changed = false;
  for (const server of loaded.servers) {
    if (server.origin.scope !== 'workspace' || granted.has(server.consentKey)) continue;
    if (await askConsent(server)) {
      granted.add(server.consentKey);
      changed = true;
    }
  }
  if (changed) await consent.update(CONSENT_KEY, [...granted]);
  const { allowed, notices } = applyConsent(loaded.servers, (server) => granted.has(server.consentKey));
  // Untrusted: nothing starts (this front end's own words, already in the user's language) (the session offers no MCP tool there); said only when the user configured servers.
  if (!trusted && loaded.servers.length > 0) notices.push(verbatim(vscode.l10n.t('This workspace is not trusted: your MCP servers do not start here, and the ones it may define ({0}) are not read. Trust the workspace to use them.', WORKSPACE_MCP_FILES.join(', '))));
  return { servers: allowed, problems: loaded.problems, notices };
}

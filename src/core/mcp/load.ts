/**
 * Every MCP definition a session may use, from every place people keep them, and which of the
 * workspace's may run. A workspace's server is a command a cloned repository wants to run: it
 * starts only with the user's consent for that exact definition (its consent key), and never in
 * an untrusted workspace. The front ends ask (VS Code: a modal per definition; the CLI:
 * --trust-workspace-mcp); this module only sorts and words what is left out.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../logger';
import { userText } from '../texts/userText';
import type { UserText } from '../texts/userText';
import { mergeMcpConfigs, parseMcpConfigText, parseMcpConfigValue, type McpConfigResult, type McpServerConfig, type McpVariables } from './config';

/** The workspace's files, in the order they are read (VS Code's own first). */
export const WORKSPACE_MCP_FILES = ['.vscode/mcp.json', '.mcp.json'] as const;

export interface McpSources {
  /** The open folder; undefined when none is (no workspace servers then). */
  workspaceRoot: string | undefined;
  /** Whether the workspace's files are read at all (false in an untrusted workspace). */
  readWorkspace: boolean;
  /** The user setting's value (`evergreen.mcp.servers`, a map like Claude Code's `mcpServers`). */
  userSetting?: unknown;
  /** User-level files (the CLI's --mcp-config), either format. */
  userFiles?: readonly string[];
  env: McpVariables['env'];
}

async function readConfigFile(file: string, scope: 'user' | 'workspace', variables: McpVariables, required: boolean): Promise<McpConfigResult> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], problems: [] };
    return { servers: [], problems: [{ where: file, message: userText('start.mcpConfigUnreadable', { error: errorMessage(error) }) }] };
  }
  return parseMcpConfigText(text, { scope, source: file }, variables);
}

/** User-level definitions first (their names win), then the workspace's. */
export async function loadMcpConfig(sources: McpSources): Promise<McpConfigResult> {
  const variables: McpVariables = { env: sources.env, workspaceFolder: sources.workspaceRoot };
  const results: McpConfigResult[] = [];
  if (sources.userSetting !== undefined && sources.userSetting !== null) {
    results.push(parseMcpConfigValue(sources.userSetting, { scope: 'user', source: 'the setting evergreen.mcp.servers' }, variables, { bare: true }));
  }
  for (const file of sources.userFiles ?? []) results.push(await readConfigFile(path.resolve(file), 'user', variables, true));
  if (sources.readWorkspace && sources.workspaceRoot) {
    for (const relative of WORKSPACE_MCP_FILES) results.push(await readConfigFile(path.join(sources.workspaceRoot, relative), 'workspace', variables, false));
  }
  return mergeMcpConfigs(results);
}

/**
 * The servers that may start: every user-level one, and the workspace's that `consented` allows.
 * The rest are named in one notice; each front end words how it allows them.
 */
export function applyConsent(servers: readonly McpServerConfig[], consented: (server: McpServerConfig) => boolean): { allowed: McpServerConfig[]; notices: UserText[] } {
  const allowed: McpServerConfig[] = [];
  const withheld: McpServerConfig[] = [];
  for (const server of servers) (server.origin.scope === 'user' || consented(server) ? allowed : withheld).push(server);
  if (withheld.length === 0) return { allowed, notices: [] };
  const named = withheld.map((server) => `"${server.name}" (${path.basename(server.origin.source)}: ${server.display})`);
  return { allowed, notices: [userText('start.mcpServersWithheld', { servers: named })] };
}

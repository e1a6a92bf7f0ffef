/**
 * "Evergreen: MCP Servers": the session's servers with their state, tool count, what their
 * definitions cost and where they are defined; pick one to start, restart or disable it, or to
 * show its output. Each server's stderr goes to an output
 * channel of its own, created on its first line.
 */
import * as vscode from 'vscode';
import type { McpManager, McpServerSummary } from '../core/mcp/manager';
import type { McpServerState } from '../core/mcp/connection';
import { Disposable } from './disposable';

function stateText(state: McpServerState): string {
  switch (state.kind) {
    case 'ready':
      return vscode.l10n.t('ready');
    case 'starting':
      return vscode.l10n.t('starting…');
    case 'stopped':
      return vscode.l10n.t('stopped');
    case 'disabled':
      return vscode.l10n.t('disabled: {0}', state.reason);
    case 'failed':
      return vscode.l10n.t('failed: {0}', state.reason.split('\n')[0] ?? '');
  }
}

export class McpLogChannels extends Disposable {
  private readonly channels = new Map<string, vscode.LogOutputChannel>();

  /** Where a server's stderr lines go (a channel per server, made on first use). */
  readonly write = (server: string, line: string): void => this.channel(server).info(line);

  channel(server: string): vscode.LogOutputChannel {
    let channel = this.channels.get(server);
    if (!channel) {
      channel = this._register(vscode.window.createOutputChannel(`Evergreen MCP: ${server}`, { log: true }));
      this.channels.set(server, channel);
    }
    return channel;
  }
}

/** The list's description of one server: state, tools and what their definitions cost each request. */
export function serverDescription(server: McpServerSummary): string {
  const tools = server.state.kind === 'ready' || server.tools > 0 ? (server.tools === 1 ? vscode.l10n.t('1 tool') : vscode.l10n.t('{0} tools', server.tools)) : vscode.l10n.t('no tools offered');
  const tokens = server.definitionTokens.toLocaleString('en-US');
  const cost = server.tools === 0 ? [] : [server.deferred ? vscode.l10n.t('~{0} tokens of definitions (deferred: found with mcp_search)', tokens) : vscode.l10n.t('~{0} tokens of definitions', tokens)];
  return [stateText(server.state), tools, ...cost, server.scope === 'workspace' ? vscode.l10n.t('workspace') : vscode.l10n.t('yours')].join(' · ');
}

type ServerAction = 'start' | 'restart' | 'showOutput' | 'disable';

/** Start for a server that is not running, Restart for one that is; Disable only while it is not disabled. */
function actionsFor(state: McpServerState): (vscode.QuickPickItem & { action: ServerAction })[] {
  const running = state.kind === 'ready' || state.kind === 'starting';
  return [
    running ? { label: vscode.l10n.t('Restart'), action: 'restart' } : { label: vscode.l10n.t('Start'), action: 'start' },
    { label: vscode.l10n.t('Show Output'), action: 'showOutput' },
    ...(state.kind === 'disabled' ? [] : [{ label: vscode.l10n.t('Disable for This Chat'), action: 'disable' as const }]),
  ];
}

export async function showMcpServers(manager: McpManager | undefined, logs: McpLogChannels): Promise<void> {
  const servers = manager?.list() ?? [];
  if (!manager || servers.length === 0) {
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        "No MCP server in this chat. Add your own in the setting \"{0}\", or define them in the workspace's .vscode/mcp.json or .mcp.json (asked before they start); then start a New Chat.",
        'evergreen.mcp.servers',
      ),
      vscode.l10n.t('Open Settings'),
    );
    if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'evergreen.mcp.servers');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    servers.map((server) => ({ label: server.name, description: serverDescription(server), detail: server.display, server })),
    { title: vscode.l10n.t('Evergreen: MCP servers of this chat'), placeHolder: vscode.l10n.t('Pick a server to start, restart or disable it, or to see its output') },
  );
  if (!picked) return;
  const name = picked.server.name;
  const action = (await vscode.window.showQuickPick(actionsFor(picked.server.state), { title: vscode.l10n.t('MCP server "{0}"', name) }))?.action;
  if (action === 'disable') {
    await manager.disable(name);
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: MCP server "{0}" is stopped for this chat; its tools answer that it is disabled. Start it from this list, or a New Chat starts it again.', name));
    return;
  }
  if (action === 'showOutput') {
    const channel = logs.channel(name);
    if (manager.log(name).length === 0) channel.info(vscode.l10n.t('(the server has written nothing to stderr)'));
    channel.show(true);
  } else if (action === 'start' || action === 'restart') {
    try {
      const { offered } = action === 'start' ? await manager.start(name) : await manager.restart(name);
      // A chat's tool list is fixed at its start (the cached prefix is never rewritten): tools of a
      // server that was not ready then come with the next chat.
      const done = action === 'start' ? vscode.l10n.t('Evergreen: MCP server "{0}" started.', name) : vscode.l10n.t('Evergreen: MCP server "{0}" restarted.', name);
      void vscode.window.showInformationMessage(offered ? done : vscode.l10n.t('{0} Its tools were not ready when this chat started: start a New Chat to offer them to the model.', done));
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen: {0}', error instanceof Error ? error.message : String(error)), vscode.l10n.t('Show Output')).then((choice) => {
        if (choice) logs.channel(name).show(true);
      });
    }
  }
}

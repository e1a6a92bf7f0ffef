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
      return 'ready';
    case 'starting':
      return 'starting…';
    case 'stopped':
      return 'stopped';
    case 'disabled':
      return `disabled: ${state.reason}`;
    case 'failed':
      return `failed: ${state.reason.split('\n')[0]}`;
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
  const tools = server.state.kind === 'ready' || server.tools > 0 ? `${server.tools} tool${server.tools === 1 ? '' : 's'}` : 'no tools offered';
  const cost = server.tools > 0 ? ` · ~${server.definitionTokens.toLocaleString('en-US')} tokens of definitions${server.deferred ? ' (deferred: found with mcp_search)' : ''}` : '';
  return `${stateText(server.state)} · ${tools}${cost} · ${server.scope === 'workspace' ? 'workspace' : 'yours'}`;
}

type ServerAction = 'Start' | 'Restart' | 'Show Output' | 'Disable for This Chat';

/** Start for a server that is not running, Restart for one that is; Disable only while it is not disabled. */
function actionsFor(state: McpServerState): ServerAction[] {
  const running = state.kind === 'ready' || state.kind === 'starting';
  return [running ? 'Restart' : 'Start', 'Show Output', ...(state.kind === 'disabled' ? [] : ['Disable for This Chat' as const])];
}

export async function showMcpServers(manager: McpManager | undefined, logs: McpLogChannels): Promise<void> {
  const servers = manager?.list() ?? [];
  if (!manager || servers.length === 0) {
    const choice = await vscode.window.showInformationMessage(
      'No MCP server in this chat. Add your own in the setting "evergreen.mcp.servers", or define them in the workspace\'s .vscode/mcp.json or .mcp.json (asked before they start); then start a New Chat.',
      'Open Settings',
    );
    if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'evergreen.mcp.servers');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    servers.map((server) => ({ label: server.name, description: serverDescription(server), detail: server.display, server })),
    { title: 'Evergreen: MCP servers of this chat', placeHolder: 'Pick a server to start, restart or disable it, or to see its output' },
  );
  if (!picked) return;
  const name = picked.server.name;
  const action = await vscode.window.showQuickPick(actionsFor(picked.server.state), { title: `MCP server "${name}"` });
  if (action === 'Disable for This Chat') {
    await manager.disable(name);
    void vscode.window.showInformationMessage(`Evergreen: MCP server "${name}" is stopped for this chat; its tools answer that it is disabled. Start it from this list, or a New Chat starts it again.`);
    return;
  }
  if (action === 'Show Output') {
    const channel = logs.channel(name);
    if (manager.log(name).length === 0) channel.info('(the server has written nothing to stderr)');
    channel.show(true);
  } else if (action === 'Start' || action === 'Restart') {
    try {
      const { offered } = action === 'Start' ? await manager.start(name) : await manager.restart(name);
      // A chat's tool list is fixed at its start (the cached prefix is never rewritten): tools of a
      // server that was not ready then come with the next chat.
      const tools = offered ? '' : ' Its tools were not ready when this chat started: start a New Chat to offer them to the model.';
      void vscode.window.showInformationMessage(`Evergreen: MCP server "${name}" ${action === 'Start' ? 'started' : 'restarted'}.${tools}`);
    } catch (error) {
      void vscode.window.showErrorMessage(`Evergreen: ${error instanceof Error ? error.message : String(error)}`, 'Show Output').then((choice) => {
        if (choice) logs.channel(name).show(true);
      });
    }
  }
}

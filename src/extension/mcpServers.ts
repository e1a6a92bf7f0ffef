/**
 * "Evergreen: MCP Servers": the session's servers with their state, tool count and where they
 * are defined; pick one to restart it or show its log. Each server's stderr goes to an output
 * channel of its own, created on its first line.
 */
import * as vscode from 'vscode';
import type { McpManager } from '../core/mcp/manager';
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
    servers.map((server) => ({
      label: server.name,
      description: `${stateText(server.state)} · ${server.tools} tool(s) · ${server.scope === 'workspace' ? 'workspace' : 'yours'}`,
      detail: server.display,
      name: server.name,
    })),
    { title: 'Evergreen: MCP servers of this chat', placeHolder: 'Pick a server to restart it or see its log' },
  );
  if (!picked) return;
  const action = await vscode.window.showQuickPick(['Restart', 'Show Log', 'Disable for This Chat'], { title: `MCP server "${picked.name}"` });
  if (action === 'Disable for This Chat') {
    await manager.disable(picked.name);
    void vscode.window.showInformationMessage(`Evergreen: MCP server "${picked.name}" is stopped for this chat; its tools answer that it is disabled. A New Chat starts it again.`);
    return;
  }
  if (action === 'Show Log') {
    const channel = logs.channel(picked.name);
    if (manager.log(picked.name).length === 0) channel.info('(the server has written nothing to stderr)');
    channel.show(true);
  } else if (action === 'Restart') {
    try {
      await manager.restart(picked.name);
      void vscode.window.showInformationMessage(`Evergreen: MCP server "${picked.name}" restarted.`);
    } catch (error) {
      void vscode.window.showErrorMessage(`Evergreen: ${error instanceof Error ? error.message : String(error)}`, 'Show Log').then((choice) => {
        if (choice) logs.channel(picked.name).show(true);
      });
    }
  }
}

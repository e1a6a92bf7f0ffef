/**
 * The session's MCP servers. Servers start when the session starts (in parallel, each bounded by
 * its start timeout) because their tools must be in the first request's `tools` array; after that
 * the array stays the same for the whole session, so a server never rewrites the cached prefix.
 * A server that fails is listed with its reason and its tools are absent; a crash later restarts
 * it on the next call. Every server and its process tree stops when the session ends.
 */
import { userText } from '../texts/userText';
import type { UserText } from '../texts/userText';
import type { Logger } from '../logger';
import { errorMessage } from '../logger';
import type { ToolDefinition } from '../tools/types';
import type { McpServerConfig } from './config';
import { McpServerConnection, type McpConnectionOptions, type McpServerState } from './connection';
import { McpToolNames, mcpServerParts, type McpServerParts } from './names';
import { deferredMcpTools } from './deferred';
import { mcpToolDefinitions, type McpCallInput } from './tools';

export interface McpServerSummary {
  name: string;
  scope: McpServerConfig['origin']['scope'];
  source: string;
  /** The command line or URL. */
  display: string;
  state: McpServerState;
  /** Tools offered to the model (after skipping unusable schemas); 0 when it was not ready at session start. */
  tools: number;
  /** What those tools' definitions take (estimated tokens), counted whether offered directly or deferred. */
  definitionTokens: number;
  /** Its tools are reached through mcp_search and mcp_call (all MCP definitions together were over the share). */
  deferred: boolean;
}

export interface McpManagerOptions extends Omit<McpConnectionOptions, 'logger'> {
  logger: Logger;
  /** Where binary parts of results are saved (the session's folder). */
  filesDir: string | undefined;
}

export class McpManager {
  private readonly connections: McpServerConnection[];
  /** Per server, what was offered at session start: its tool count and definitions' estimated tokens. */
  private offered = new Map<string, { tools: number; definitionTokens: number }>();
  private deferred = false;
  /** Each server's part in its tools' names, from every configured server (not only those that start): stable across restarts. */
  private readonly serverParts: McpServerParts;

  constructor(
    servers: readonly McpServerConfig[],
    private readonly options: McpManagerOptions,
  ) {
    this.connections = servers.map((config) => new McpServerConnection(config, options));
    this.serverParts = mcpServerParts(servers.map((server) => server.name));
  }

  get size(): number {
    return this.connections.length;
  }

  /** Starts every server; never throws (a failure is in the server's state and the log). */
  async startAll(): Promise<void> {
    await Promise.all(
      this.connections.map((connection) =>
        connection.start().catch((error: unknown) => {
          this.options.logger.warn(errorMessage(error));
        }),
      ),
    );
  }

  /**
   * The tools of every ready server, named uniquely next to `builtInNames`, offered directly — or,
   * when their definitions together take more than `deferAboveTokens`, as `mcp_search` and
   * `mcp_call` (deferred.ts). Called once per session: the list is what the model is offered for
   * the whole session.
   */
  tools(builtInNames: Iterable<string>, deferAboveTokens: number, charsPerToken: number): { tools: ToolDefinition<unknown>[]; deferred: boolean; definitionTokens: number } {
    const direct = this.directTools(builtInNames);
    const chars = (tool: ToolDefinition<McpCallInput>) => JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }).length;
    for (const [server, offered] of this.offered) offered.definitionTokens = Math.ceil(direct.filter((tool) => tool.mcpServer === server).reduce((sum, tool) => sum + chars(tool), 0) / charsPerToken);
    const definitionTokens = Math.ceil(direct.reduce((sum, tool) => sum + chars(tool), 0) / charsPerToken);
    if (direct.length === 0 || definitionTokens <= deferAboveTokens) return { tools: direct as ToolDefinition<unknown>[], deferred: false, definitionTokens };
    this.deferred = true;
    this.options.logger.info(`MCP: ${direct.length} tools take ~${definitionTokens} tokens (over ${deferAboveTokens}); offered through mcp_search and mcp_call`);
    return { tools: deferredMcpTools(direct), deferred: true, definitionTokens };
  }

  private directTools(builtInNames: Iterable<string>): ToolDefinition<McpCallInput>[] {
    const names = new McpToolNames(builtInNames, this.serverParts);
    const all: ToolDefinition<McpCallInput>[] = [];
    for (const connection of this.connections) {
      if (connection.state.kind !== 'ready') continue;
      const definitions = mcpToolDefinitions(connection, connection.state.tools, names, { logger: this.options.logger, filesDir: this.options.filesDir });
      this.offered.set(connection.config.name, { tools: definitions.length, definitionTokens: 0 });
      all.push(...definitions);
    }
    return all;
  }

  list(): McpServerSummary[] {
    return this.connections.map((connection) => ({
      name: connection.config.name,
      scope: connection.config.origin.scope,
      source: connection.config.origin.source,
      display: connection.config.display,
      state: connection.state,
      tools: this.offered.get(connection.config.name)?.tools ?? 0,
      definitionTokens: this.offered.get(connection.config.name)?.definitionTokens ?? 0,
      deferred: this.deferred && this.offered.has(connection.config.name),
    }));
  }

  /**
   * Starts a server that is stopped, failed or disabled (the list's Start). Its tools work again
   * only if they were offered at session start: the tool list never changes within a session.
   */
  async start(name: string): Promise<{ offered: boolean }> {
    const connection = this.connection(name);
    connection.enable();
    await connection.start();
    return { offered: this.offered.has(name) };
  }

  private connection(name: string): McpServerConnection {
    const connection = this.connections.find((candidate) => candidate.config.name === name);
    if (!connection) throw new Error(`no MCP server named "${name}" in this session`);
    return connection;
  }

  /** Stops a server and starts it again (its tools stay the ones offered at session start). */
  async restart(name: string): Promise<{ offered: boolean }> {
    await this.connection(name).stop();
    return this.start(name);
  }

  /** Stops a server for the rest of the session: its tools answer that it was disabled. */
  async disable(name: string): Promise<void> {
    const connection = this.connection(name);
    await connection.stop();
    connection.disable('the user disabled it for this chat (a New Chat starts it again)');
  }

  /** The last lines a stdio server wrote to stderr (its log). */
  log(name: string): readonly string[] {
    return this.connections.find((candidate) => candidate.config.name === name)?.stderr ?? [];
  }

  /** What the user should know about the servers' names (sanitized names two servers share), one notice each. */
  notices(): UserText[] {
    return [...this.serverParts.collisions];
  }

  /** The failures, one notice each (the reason's first line), at session start. */
  failures(): UserText[] {
    return this.connections.flatMap((connection) => (connection.state.kind === 'failed' ? [userText('start.mcpServerFailed', { name: connection.config.name, reason: connection.state.reason.split('\n')[0] ?? '' })] : []));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.stop()));
  }
}

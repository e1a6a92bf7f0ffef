/**
 * One MCP server: started on first use (or by the list's Start), its tools listed, calls made with
 * a timeout and the caller's cancellation, restarted once on the next call after it crashed, and
 * stopped with its whole process tree. The protocol is the official SDK's `Client`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PaginatedResultSchema, ToolSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, type Logger } from '../logger';
import type { McpServerConfig } from './config';
import { GroupStdioTransport, schemaIssues } from './stdioTransport';

export const MCP_DEFAULTS = {
  /** A server that has not answered `initialize` (and listed its tools) by then failed to start. */
  startTimeoutMs: 30_000,
  /** A call that has not answered by then is cancelled and reported (the user may cancel sooner). */
  callTimeoutMs: 10 * 60_000,
  /** Tools a server may list (pages followed up to it): a bound on what a hostile server can make us hold. */
  maxTools: 2_000,
  /** The last stderr lines kept per server, for the failure reason and "show output". */
  stderrLines: 200,
} as const;

export type McpServerState =
  | { kind: 'stopped' }
  | { kind: 'starting' }
  | { kind: 'ready'; tools: readonly Tool[] }
  | { kind: 'failed'; reason: string }
  | { kind: 'disabled'; reason: string };

export interface McpConnectionOptions {
  logger: Logger;
  clientVersion: string;
  startTimeoutMs?: number;
  callTimeoutMs?: number;
  /** Each stderr line of a stdio server (its log channel in VS Code). */
  onStderr?(server: string, line: string): void;
  onStateChange?(server: string, state: McpServerState): void;
}

export class McpServerConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private starting: Promise<readonly Tool[]> | undefined;
  private current: McpServerState = { kind: 'stopped' };
  /** Set when the server died after it was ready: the next call restarts it, once. */
  private crashed = false;
  readonly stderr: string[] = [];

  constructor(
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {}

  get state(): McpServerState {
    return this.current;
  }

  private setState(state: McpServerState): void {
    this.current = state;
    this.options.onStateChange?.(this.config.name, state);
  }

  /** Starts the server (once; concurrent callers share the start) and lists its tools. */
  start(): Promise<readonly Tool[]> {
    if (this.current.kind === 'ready') return Promise.resolve(this.current.tools);
    if (this.current.kind === 'disabled') return Promise.reject(new Error(this.current.reason));
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async connect(): Promise<readonly Tool[]> {
    this.setState({ kind: 'starting' });
    const timeout = this.options.startTimeoutMs ?? MCP_DEFAULTS.startTimeoutMs;
    try {
      const tools = await this.connectOnce(timeout).catch(async (error: unknown) => {
        // An HTTP server that does not speak Streamable HTTP (400, 404, 405) may be an older SSE one.
        const status = httpStatusOf(error);
        if (this.config.transport.type !== 'http' || (status !== 400 && status !== 404 && status !== 405)) throw error;
        this.options.logger.info(`MCP ${this.config.name}: Streamable HTTP refused (${describeFailure(error)}); trying SSE`);
        await this.closeTransport();
        return this.connectOnce(timeout, true);
      });
      this.crashed = false;
      this.setState({ kind: 'ready', tools });
      return tools;
    } catch (error) {
      await this.closeTransport();
      const tail = this.stderr.slice(-5).join('\n');
      const reason = `${describeFailure(error)}${tail ? `\nLast lines of its log:\n${tail}` : ''}`;
      this.setState({ kind: 'failed', reason });
      throw new Error(`MCP server "${this.config.name}" failed to start: ${reason}`);
    }
  }

  private async connectOnce(timeout: number, sse = false): Promise<readonly Tool[]> {
    const transport = this.createTransport(sse);
    const client = new Client({ name: 'evergreen', version: this.options.clientVersion });
    client.onerror = (error) => this.options.logger.warn(`MCP ${this.config.name}: ${errorMessage(error)}`);
    this.client = client;
    this.transport = transport;
    await client.connect(transport, { timeout });
    transport.onclose = chain(transport.onclose, () => this.onClosed(client));
    if (transport instanceof GroupStdioTransport && transport.containment === 'process-group' && process.platform === 'linux') {
      this.options.logger.info(`MCP ${this.config.name}: no PID namespace here (util-linux setpriv and unshare, and user namespaces, are needed); it runs in a process group, and a process it starts with setsid whose parent has exited can escape it`);
    }
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      // Each tool is checked on its own (toolsOf): the SDK's listTools refuses the whole list, and
      // so the whole server, for one tool it does not like (one without an input schema).
      const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, PaginatedResultSchema, { timeout });
      tools.push(...this.toolsOf(page.tools));
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor && tools.length < MCP_DEFAULTS.maxTools);
    if (tools.length > MCP_DEFAULTS.maxTools) {
      this.options.logger.warn(`MCP ${this.config.name}: lists ${tools.length} tools; only the first ${MCP_DEFAULTS.maxTools} are used`);
      tools.length = MCP_DEFAULTS.maxTools;
    }
    return tools;
  }

  /**
   * The usable tools of a listing; one the SDK's schema refuses is left out with a logged reason.
   * The input schema is kept as the server sent it (absent, or of a type no provider takes): the
   * tool's definition fixes it or skips the tool with the reason (tools.ts, usableSchema).
   */
  private toolsOf(listed: unknown): Tool[] {
    if (!Array.isArray(listed)) {
      this.options.logger.warn(`MCP ${this.config.name}: its tools/list answer has no list of tools; it offers none`);
      return [];
    }
    const tools: Tool[] = [];
    for (const [index, raw] of listed.entries()) {
      const record = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
      const checked = ToolSchema.safeParse(record ? { ...record, inputSchema: { type: 'object' } } : raw);
      if (!record || !checked.success) {
        const name = record && typeof record.name === 'string' ? `"${record.name}"` : `number ${index + 1}`;
        this.options.logger.warn(`MCP ${this.config.name}: tool ${name} is not offered: its listing is not a valid MCP tool (${checked.success ? 'not an object' : schemaIssues(checked.error)})`);
        continue;
      }
      tools.push({ ...checked.data, inputSchema: record.inputSchema as Tool['inputSchema'] });
    }
    return tools;
  }

  private createTransport(sse: boolean): Transport {
    const config = this.config.transport;
    if (config.type === 'stdio') {
      return new GroupStdioTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: config.cwd,
        onStderr: (line) => {
          this.stderr.push(line);
          if (this.stderr.length > MCP_DEFAULTS.stderrLines) this.stderr.splice(0, this.stderr.length - MCP_DEFAULTS.stderrLines);
          this.options.onStderr?.(this.config.name, line);
        },
      });
    }
    // Redirects are followed only within the server's origin (the SDK's default policy): the
    // headers, which often carry a token, never reach another host.
    const init = { requestInit: { headers: config.headers }, redirectPolicy: 'same-origin' as const };
    const url = new URL(config.url);
    return config.type === 'sse' || sse ? new SSEClientTransport(url, init) : new StreamableHTTPClientTransport(url, init);
  }

  private onClosed(client: Client): void {
    if (this.client !== client) return; // An old connection, already replaced.
    this.client = undefined;
    this.transport = undefined;
    if (this.current.kind === 'ready') {
      this.crashed = true;
      const tail = this.stderr.slice(-3).join('\n');
      this.setState({ kind: 'failed', reason: `the server exited${tail ? `; last lines of its log:\n${tail}` : ''}` });
      this.options.logger.warn(`MCP ${this.config.name}: the server exited; it is restarted on the next call`);
    }
  }

  /**
   * Calls one tool by the server's own name. Cancellable through `signal`; times out. A server that
   * crashed since it was ready is restarted once by the next call; a restart that fails fails that call.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.crashed) {
      // One restart for this call; if it fails, the call fails with the reason.
      this.crashed = false;
      this.options.logger.info(`MCP ${this.config.name}: restarting after it exited`);
    }
    if (this.current.kind !== 'ready') await this.start();
    const client = this.client;
    if (!client) throw new Error(`MCP server "${this.config.name}" is not running`);
    // The SDK adds an abort listener to the signal it is given and never removes it: given the
    // turn's signal, every call of a long turn would leave one behind. So each call gets its own,
    // linked to the turn's for as long as the call runs.
    const call = new AbortController();
    const onAbort = () => call.abort(signal.reason);
    if (signal.aborted) call.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, { signal: call.signal, timeout: this.options.callTimeoutMs ?? MCP_DEFAULTS.callTimeoutMs, resetTimeoutOnProgress: false });
      return result as CallToolResult;
    } catch (error) {
      // The SDK refuses a malformed result with its schema's issues as a JSON dump: said in a line instead.
      if (isSchemaError(error)) throw new Error(`its answer is not a valid MCP tool result (${schemaIssues(error)})`);
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** A disabled server may start again (the list's Restart). */
  enable(): void {
    if (this.current.kind === 'disabled') this.setState({ kind: 'stopped' });
  }

  disable(reason: string): void {
    if (this.client || this.transport) void this.stop();
    this.setState({ kind: 'disabled', reason });
  }

  /** Stops the server and its process tree; safe to call more than once. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await client.close().catch((error: unknown) => this.options.logger.warn(`MCP ${this.config.name}: close failed: ${errorMessage(error)}`));
    await this.closeTransport();
    if (this.current.kind !== 'disabled') this.setState({ kind: 'stopped' });
  }

  private async closeTransport(): Promise<void> {
    const transport = this.transport;
    this.transport = undefined;
    this.client = undefined;
    if (transport) await transport.close().catch((error: unknown) => this.options.logger.warn(`MCP ${this.config.name}: stopping failed: ${errorMessage(error)}`));
  }
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

/** A schema's refusal (the SDK's zod errors carry their issues). */
function isSchemaError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues);
}

/** The HTTP status an SDK transport error carries (StreamableHTTPError, SseError: `code`). */
function httpStatusOf(error: unknown): number | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

/** A failure in words, with the HTTP status when there was one (the SDK's messages leave it out). */
function describeFailure(error: unknown): string {
  const status = httpStatusOf(error);
  return status === undefined ? errorMessage(error) : `HTTP ${status}: ${errorMessage(error)}`;
}

/**
 * The stdio transport of an MCP server, started as a tree that ends whole (shell/processTree.ts):
 * in a PID namespace of its own where this machine allows it, else as the leader of its own
 * process group. The
 * message format is the SDK's own (deserializeMessage, serializeMessage); the spawn is ours,
 * because the SDK's transport cannot hold the server's tree: a server started through `npx` or a
 * shell script is a tree, one that starts a daemon with setsid leaves any group, and stopping it
 * must stop all of it. So is the line reading, so that an answer the SDK refuses still fails its
 * call at once (below).
 */
import type { ChildProcess } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { signalGroup } from '../shell/processGroup';
import { resolveExecutable, spawnContained, type ContainedProcess, type TreeContainment } from '../shell/processTree';

export interface GroupStdioOptions {
  command: string;
  args: readonly string[];
  /** Added to the SDK's default environment (PATH, HOME, …; never the parent's secrets). */
  env: Readonly<Record<string, string>>;
  cwd?: string | undefined;
  /** Each line the server writes to stderr (its log). */
  onStderr(line: string): void;
  /** How long a server may take to exit after its stdin closed and SIGTERM, before SIGKILL. */
  killGraceMs?: number;
  /** The largest single message taken (default MAX_MESSAGE_BYTES); a larger one closes the connection. */
  maxMessageBytes?: number;
  /** Test seam: force the process-group fallback (by default a PID namespace where this machine allows one). */
  containment?: TreeContainment;
}

/**
 * One message (one line) may be this large: a tool result of 50 MB is read whole and saved by tier 0
 * (the SDK's own default, 10 MB, would refuse it). Past it the connection is closed with the reason.
 */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** One stderr line is cut at this length: a server that writes megabytes without a newline must not grow a buffer forever. */
const MAX_STDERR_LINE = 4_096;

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  /** The pieces of the line being received (joined once, at its end: a 50 MB line is not copied per chunk). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  /** The server's tree: how it is held, and how to end all of it. */
  private tree: ContainedProcess | undefined;

  constructor(private readonly options: GroupStdioOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the running server's tree is held (undefined before it started). */
  get containment(): TreeContainment | undefined {
    return this.tree?.containment;
  }

  async start(): Promise<void> {
    const env = { ...getDefaultEnvironment(), ...this.options.env };
    const cwd = this.options.cwd ?? process.cwd();
    // A command that is not there is started bare, so it fails with spawn's ENOENT rather than unshare's words.
    const program = await resolveExecutable(this.options.command, env.PATH, cwd);
    const containment = program === undefined ? 'process-group' : this.options.containment;
    const tree = await spawnContained(program ?? this.options.command, this.options.args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], ...(containment ? { containment } : {}) });
    // Still within the microtask that spawned it: 'spawn' and 'error' (emitted on the next tick) are not missed.
    this.tree = tree;
    return this.attach(tree.child);
  }

  private attach(child: ChildProcess): Promise<void> {
    return new Promise((resolve, reject) => {
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => this.finish());
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        this.receive(chunk);
      });
      let partial = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        if (partial.length > MAX_STDERR_LINE) {
          lines.push(partial.slice(0, MAX_STDERR_LINE) + ' …');
          partial = '';
        }
        for (const line of lines) if (line.trim()) this.options.onStderr(line.length > MAX_STDERR_LINE ? `${line.slice(0, MAX_STDERR_LINE)} …` : line);
      });
    });
  }

  private get maxMessageBytes(): number {
    return this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  /** The calls waiting on this connection fail with the reason, and the next call starts the server again. */
  private tooLarge(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.onerror?.(new Error(`the server sent one message larger than ${Math.round(this.maxMessageBytes / (1024 * 1024))} MB (over ${this.maxMessageBytes} bytes); the connection is closed`));
    void this.close();
  }

  /** Splits stdout into lines, one message each; only the new chunk is searched for line ends. */
  private receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0 && !this.closed; end = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, end);
      const bytes = this.pendingBytes + piece.length;
      if (bytes > this.maxMessageBytes) return this.tooLarge();
      const line = (this.pending.length > 0 ? Buffer.concat([...this.pending, piece], bytes) : piece).toString('utf8').replace(/\r$/, '');
      this.pending = [];
      this.pendingBytes = 0;
      start = end + 1;
      this.handleLine(line);
    }
    if (start >= chunk.length || this.closed) return;
    this.pending.push(chunk.subarray(start));
    this.pendingBytes += chunk.length - start;
    if (this.pendingBytes > this.maxMessageBytes) this.tooLarge();
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      // A line that is not JSON-RPC (a server printing its banner to stdout): reported, skipped.
      // An answer to one of our requests that the SDK refuses (a result that is not an object)
      // fails that request now, rather than leaving it to wait for its timeout.
      const id = answeredId(line);
      if (id !== undefined) this.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32603, message: `the server's answer is not valid JSON-RPC (${schemaIssues(error)})` } });
      else this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed) {
        reject(new Error('the server is not running'));
        return;
      }
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Closes stdin, then SIGTERM to the whole group, then SIGKILL after the grace period. In a PID
   * namespace the server is its first process, which takes SIGTERM only if it handles it (most
   * servers end at the end of their input anyway); SIGKILL of the group ends unshare, which ends
   * the namespace and everything in it.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('close', () => resolve())));
    const grace = this.options.killGraceMs ?? 2_000;
    const wait = (ms: number) => Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    child.stdin?.end();
    await wait(Math.min(500, grace));
    if (child.pid !== undefined) this.signal(child.pid, 'SIGTERM');
    await wait(grace);
    // Children the server left behind (it exited, they did not) go with the tree too.
    await this.tree?.killTree();
    this.finish();
  }

  private signal(pid: number, signal: NodeJS.Signals): void {
    if (process.platform === 'win32') {
      this.child?.kill(signal);
      return;
    }
    signalGroup(pid, signal);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    // The leader is gone; whatever it started goes too (a crashed server's children).
    const tree = this.tree;
    if (tree) void tree.killTree().finally(() => tree.untrack());
    this.pending = [];
    this.pendingBytes = 0;
    this.onclose?.();
  }
}

/** The id of a line that is an answer (it has an id and a result or an error), however malformed the rest. */
function answeredId(line: string): string | number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const id = record.id;
  return (typeof id === 'string' || typeof id === 'number') && !('method' in record) && ('result' in record || 'error' in record) ? id : undefined;
}

/** A schema failure in a line ("tools.0.inputSchema: expected object"), not the SDK's JSON dump of it. */
export function schemaIssues(error: unknown): string {
  const issues = typeof error === 'object' && error !== null ? (error as { issues?: unknown }).issues : undefined;
  if (!Array.isArray(issues)) return error instanceof Error ? error.message : String(error);
  return issues
    .slice(0, 5)
    .map((issue: { path?: unknown; message?: unknown }) => `${Array.isArray(issue.path) && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${String(issue.message ?? 'invalid')}`)
    .join('; ');
}

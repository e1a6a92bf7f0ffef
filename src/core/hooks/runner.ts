/**
 * Runs one hook command: `bash -c command` (or, for a workspace hook, the sandbox's wrapping of it)
 * with the event's JSON on stdin, in a process tree that a timeout, a cancel or too much output ends
 * whole (tools/processTree.ts). Never throws: every way a hook can fail comes back as data.
 */
import type { CommandSandbox, SandboxedCommand } from '../shell/commandSandbox';
import { errorMessage } from '../logger';
import { userText, type UserText } from '../texts/userText';
import { spawnContained, watchChild, type ChildEnd, type ContainedProcess, type TreeContainment } from '../shell/processTree';

/** What one hook may write to stdout and stderr together; past it the hook is stopped. */
export const MAX_HOOK_OUTPUT_BYTES = 10 * 1024 * 1024;
/** After the hook's tree is gone, how long its pipes may take to report closed before we stop waiting. */
const STDIO_CLOSE_WAIT_MS = 1_000;

export interface HookProcessRequest {
  /** The shell command line (`bash -c` runs it). */
  commandLine: string;
  stdin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Default MAX_HOOK_OUTPUT_BYTES. */
  maxOutputBytes?: number;
  /** Default 'bash' (Claude Code runs hooks with bash). */
  shell?: string;
  /** Given: the command runs confined (workspace hooks). A wrap that fails means the hook does not run. */
  sandbox?: Pick<CommandSandbox, 'wrap'>;
  signal?: AbortSignal;
  /** Test seam: force the process-group fallback. */
  containment?: TreeContainment;
}

/** exited: it ran to its end; the others: it was stopped (or never started), and its decision does not count. */
export type HookProcessEnd = 'exited' | 'timeout' | 'too_large' | 'cancelled' | 'not_started';

export interface HookProcessResult {
  end: HookProcessEnd;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Why it did not start (end 'not_started'), or why it was stopped (end 'too_large'). */
  problem?: UserText;
  /** What the sandbox says about the run (a refused write), when anything. */
  sandboxNote?: string;
}

/** Bytes of one stream, kept as chunks and decoded once (a multi-byte character may straddle two chunks). */
class Collected {
  private chunks: Buffer[] = [];
  bytes = 0;
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }
  text(): string {
    return Buffer.concat(this.chunks, this.bytes).toString('utf8');
  }
}

/** The result of a hook that did not run, and why. */
export function hookNotStarted(problem: UserText, end: 'not_started' | 'cancelled' = 'not_started', durationMs = 0): HookProcessResult {
  return { end, exitCode: null, signal: null, stdout: '', stderr: '', durationMs, problem };
}

export async function runHookProcess(request: HookProcessRequest): Promise<HookProcessResult> {
  const started = Date.now();
  const failed = (problem: UserText, end: 'not_started' | 'cancelled' = 'not_started'): HookProcessResult => hookNotStarted(problem, end, Date.now() - started);
  if (request.signal?.aborted) return failed(userText('hooks.cancelledBeforeStart', {}), 'cancelled');
  const shell = request.shell ?? 'bash';
  let confined: SandboxedCommand | undefined;
  if (request.sandbox) {
    try {
      confined = await request.sandbox.wrap(request.commandLine, { shell, cwd: request.cwd, ...(request.signal ? { signal: request.signal } : {}) });
    } catch (error) {
      // Never run it unconfined instead: the user consented to a hook in the sandbox.
      return failed(userText('hooks.sandboxCouldNotRun', { error: errorMessage(error) }));
    }
  }
  try {
    let contained: ContainedProcess;
    try {
      contained = await spawnContained(confined?.file ?? shell, confined?.args ?? ['-c', request.commandLine], {
        cwd: request.cwd,
        env: request.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(request.containment ? { containment: request.containment } : {}),
      });
    } catch (error) {
      return failed(userText('hooks.couldNotStart', { error: errorMessage(error) }));
    }
    const result = await supervise(contained, request, started);
    if (confined && result.end !== 'not_started') {
      // What a workspace hook wrote that would arm a program outside the sandbox is never applied:
      // nobody is asked in the middle of a hook, so it is kept aside and the note says where.
      const note = await confined.finish(`${result.stdout}\n${result.stderr}`, result.end !== 'exited' || result.exitCode !== 0, async () => false);
      if (note) result.sandboxNote = note;
    }
    return result;
  } finally {
    confined?.release();
  }
}

/** Feeds stdin, collects output, and ends the tree on exit, timeout, cancel or overflow. */
async function supervise(contained: ContainedProcess, request: HookProcessRequest, started: number): Promise<HookProcessResult> {
  const { child } = contained;
  const maxBytes = request.maxOutputBytes ?? MAX_HOOK_OUTPUT_BYTES;
  const stdout = new Collected();
  const stderr = new Collected();
  let overflow: (() => void) | undefined;
  const collect = (target: Collected) => (chunk: Buffer) => {
    if (stdout.bytes + stderr.bytes >= maxBytes) return;
    target.push(chunk);
    if (stdout.bytes + stderr.bytes >= maxBytes) overflow?.();
  };
  child.stdout?.on('data', collect(stdout));
  child.stderr?.on('data', collect(stderr));
  // A hook that never reads stdin (or exits first) makes the write fail with EPIPE: not its error.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(request.stdin);

  const { exited, closedWithin } = watchChild(child);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<HookProcessEnd>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), request.timeoutMs);
    overflow = () => resolve('too_large');
    onAbort = () => resolve('cancelled');
    request.signal?.addEventListener('abort', onAbort, { once: true });
  });
  let end: HookProcessEnd;
  let status: ChildEnd;
  try {
    end = await Promise.race([exited.then(() => 'exited' as const), stopped]);
    // On exit this ends what the hook left running in the background; otherwise it is the kill itself.
    await contained.killTree();
    status = await exited;
    await closedWithin(STDIO_CLOSE_WAIT_MS);
  } finally {
    clearTimeout(timer);
    if (onAbort) request.signal?.removeEventListener('abort', onAbort);
    child.stdout?.destroy();
    child.stderr?.destroy();
    contained.untrack();
  }
  const durationMs = Date.now() - started;
  if (status.error) return hookNotStarted(userText('hooks.couldNotStart', { error: status.error.message }), 'not_started', durationMs);
  const result: HookProcessResult = { end, exitCode: end === 'exited' ? status.code : null, signal: status.signal, stdout: stdout.text(), stderr: stderr.text(), durationMs };
  if (end === 'too_large') result.problem = userText('hooks.outputOverLimit', { megabytes: (maxBytes / (1024 * 1024)).toFixed(maxBytes < 1024 * 1024 ? 2 : 0) });
  return result;
}

// run_shell: `bash -c` in the workspace root, as the leader of its own process group so the whole
// tree is terminated on timeout, on cancel, and when the command finishes (leftover background
// jobs would otherwise outlive the tool call and keep our pipes open).
import { spawn } from 'node:child_process';
import * as z from '../zod';
import type { CommandSandbox, SandboxChange, SandboxedCommand } from '../shell/commandSandbox';
import { childProcessEnv } from '../secrets';
import { terminateGroup, trackChildProcess } from '../shell/processGroup';
import { NON_INTERACTIVE_ENV, watchChild, type ChildEnd } from '../shell/processTree';
import { HeadTailBuffer } from '../text';
import { stripAnsi } from '../visibleText';
import { defineTool, nonBlankString, schemaPerSetting } from './toolInput';
import type { ToolDefinition, ToolResult } from './types';
import type { ShellIsolation } from '../approvals/approval';
import { throwIfAborted } from '../errors';
import { verbatim } from '../texts/userText';

interface ShellInputSettings {
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  sandboxed: boolean;
}

/** What run_shell accepts; `offered` is what the model is shown (outside_sandbox_reason only where a sandbox runs). */
const runShellInput = schemaPerSetting(JSON.stringify, ({ defaultTimeoutMs, maxTimeoutMs, sandboxed }: ShellInputSettings) => {
  const fields = z.object({
    command: nonBlankString().describe('The bash command line to run.'),
    timeout_ms: z.int().min(1).max(maxTimeoutMs).optional().describe(`Timeout in milliseconds (default ${defaultTimeoutMs}).`),
    description: z.string().optional().describe('A short description of what the command does, shown to the user.'),
    /** The model asks to run this one command outside the sandbox, and says why: always asked, never auto-approved. */
    outside_sandbox_reason: z.string().optional().describe('Only for a command that cannot work in the sandbox: why it must run outside it (shown to the user, who must approve).'),
  });
  const input = fields.transform(({ command, timeout_ms = defaultTimeoutMs, description, outside_sandbox_reason }) => {
    const outsideReason = outside_sandbox_reason?.trim();
    return {
      command,
      timeout_ms,
      ...(description === undefined ? {} : { description }),
      ...(outsideReason ? { outside_sandbox_reason: outsideReason } : {}),
    };
  });
  // Without a sandbox no command runs inside one, so none is offered a way out (isolationFor ignores a reason there).
  return { input, offered: sandboxed ? fields : fields.omit({ outside_sandbox_reason: true }) };
});

export type RunShellInput = z.output<ReturnType<typeof runShellInput>['input']>;

export interface RunShellOptions {
  /** Default 'bash'. */
  shellPath?: string;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Kept output (head + tail) in characters. */
  maxOutputChars?: number;
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  /** Extra environment variables (on top of process.env and the non-interactive defaults). */
  env?: Record<string, string>;
  /** The OS sandbox every command runs in (absent: commands run unconfined, as with the sandbox turned off). */
  sandbox?: CommandSandbox;
}

export const RUN_SHELL_DEFAULTS = { defaultTimeoutMs: 120_000, maxTimeoutMs: 600_000, killGraceMs: 2000, maxOutputChars: 30_000 } as const;

/** After the shell exits, how long stdio may stay open before we stop waiting for it. */
const STDIO_CLOSE_WAIT_MS = 1000;

export function createRunShellTool(options: RunShellOptions = {}): ToolDefinition<RunShellInput> {
  const shellPath = options.shellPath ?? 'bash';
  const killGraceMs = options.killGraceMs ?? RUN_SHELL_DEFAULTS.killGraceMs;
  const maxOutputChars = options.maxOutputChars ?? RUN_SHELL_DEFAULTS.maxOutputChars;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? RUN_SHELL_DEFAULTS.defaultTimeoutMs;
  const maxTimeoutMs = options.maxTimeoutMs ?? RUN_SHELL_DEFAULTS.maxTimeoutMs;
  const sandbox = options.sandbox;
  const sandboxed = sandbox?.state.kind === 'on';
  return defineTool({
    name: 'run_shell',
    kind: 'shell',
    context: { kind: 'shell' },
    description:
      'Run a shell command with bash in the workspace root (the user may have to approve it). stdin is closed, so interactive ' +
      `commands fail instead of waiting. Returns the exit code and the combined stdout+stderr (long output keeps its start and end). ` +
      `Times out after timeout_ms (default ${defaultTimeoutMs}, max ${maxTimeoutMs}); the command and all its child processes are then killed. ` +
      'Background processes (`&`) are terminated when the command finishes. Prefer read_file / list_files / grep_search / edit_file for file work.' +
      (sandboxed
        ? ' Commands run in a sandbox: they may write only inside the workspace and $TMPDIR (not .git/config, .git/hooks, .vscode or the files that configure commands), ' +
          'have no network except the domains the user allowed, and see no other processes. Only when a command cannot work there, set outside_sandbox_reason to say why; the user must approve that run.'
        : ''),
    ...runShellInput({ defaultTimeoutMs, maxTimeoutMs, sandboxed }),
    headline: (input) => verbatim(input.description ?? input.command),
    async run(input, ctx) {
      throwIfAborted(ctx.signal);
      const readOnlyWorkspace = ctx.restrictions?.readOnlyWorkspace === true;
      if (readOnlyWorkspace) {
        // The mode's promise is the kernel's: a command runs only where the sandbox holds the workspace read-only.
        const refused = readOnlyRefusal(sandbox, input.outside_sandbox_reason);
        if (refused) return { content: refused, isError: true };
      }
      const isolation = isolationFor(sandbox, input.outside_sandbox_reason);
      const decision = await ctx.approve({
        kind: 'shell',
        command: input.command,
        isolation,
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(isolation === 'outside' && input.outside_sandbox_reason ? { outsideReason: input.outside_sandbox_reason } : {}),
      });
      throwIfAborted(ctx.signal);
      if (!decision.approved) {
        const reason = decision.reason ? ` Reason: ${decision.reason}` : '';
        return { content: `The user declined to run the command${isolation === 'outside' ? ' outside the sandbox' : ''}; it was not executed.${reason}` };
      }
      let confined: SandboxedCommand | undefined;
      if (isolation === 'sandbox' && sandbox) {
        try {
          confined = await sandbox.wrap(input.command, { shell: shellPath, cwd: ctx.workspace.root, signal: ctx.signal, ...(readOnlyWorkspace ? { readOnlyWorkspace } : {}) });
        } catch (error) {
          if (ctx.signal.aborted) return { content: 'The command was cancelled by the user before it started.', isError: true, cancelled: true };
          // Never fall back to running it unconfined: the approval was given for a sandboxed run.
          return { content: `The command was not run: ${error instanceof Error ? error.message : String(error)}`, isError: true };
        }
      }
      try {
        // What the command wrote that would run outside the sandbox is the user's own call: a request of its own kind.
        const approveHeld = async (changes: SandboxChange[]) => (await ctx.approve({ kind: 'sandbox_changes', command: input.command, changes })).approved;
        const run = { shellPath, maxOutputChars, killGraceMs, env: options.env, confined, approveHeld };
        return await execute(run, input, ctx.workspace.root, ctx.signal, (chunk) => ctx.onProgress(chunk));
      } finally {
        confined?.release();
      }
    },
  });
}

/** How commands are started: the shell, how much output is kept, the kill grace, extra environment, the sandbox's wrapping. */
interface ShellRunner {
  shellPath: string;
  maxOutputChars: number;
  killGraceMs: number;
  env: Readonly<Record<string, string>> | undefined;
  /** The sandboxed form of the command; absent: it runs unconfined. */
  confined: SandboxedCommand | undefined;
  /** Asks about what the sandboxed command wrote that would run outside the sandbox. */
  approveHeld(changes: SandboxChange[]): Promise<boolean>;
}

/** Runs one approved command (confined when `runner.confined` is given) and words its outcome for the model. */
async function execute(runner: ShellRunner, input: RunShellInput, cwd: string, signal: AbortSignal, onProgress: (chunk: string) => void): Promise<ToolResult> {
  const { shellPath, maxOutputChars, killGraceMs, confined } = runner;
  const output = new HeadTailBuffer(maxOutputChars);
  const child = spawn(confined?.file ?? shellPath, confined?.args ?? ['-c', input.command], {
    cwd,
    detached: true, // own process group: kill(-pid) reaches every descendant that did not setsid
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...childProcessEnv(process.env), ...NON_INTERACTIVE_ENV, ...runner.env },
    windowsHide: true,
  });
  const untrack = child.pid !== undefined ? trackChildProcess(child.pid, { group: process.platform !== 'win32' }) : () => undefined;
  const onData = (chunk: string): void => {
    output.append(chunk);
    try {
      onProgress(chunk);
    } catch {
      // A broken UI listener must not break the command.
    }
  };
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);

  const { exited, closedWithin } = watchChild(child);

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'timeout' | 'cancel'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), input.timeout_ms);
    onAbort = () => resolve('cancel');
    if (signal.aborted) resolve('cancel');
    else signal.addEventListener('abort', onAbort, { once: true });
  });

  let reason: 'exit' | 'timeout' | 'cancel';
  let status: ChildEnd;
  try {
    reason = await Promise.race([exited.then(() => 'exit' as const), stopped]);
    if (process.platform === 'win32') {
      // No POSIX process groups: kill the shell itself (its children may survive).
      if (reason !== 'exit') child.kill();
    } else if (child.pid !== undefined) {
      // On exit this clears leftover background jobs; on timeout/cancel it is the kill itself.
      await terminateGroup(child.pid, killGraceMs);
    }
    status = await exited;
    // Output may still be draining; a grandchild that escaped the group could hold the pipe forever.
    await closedWithin(STDIO_CLOSE_WAIT_MS);
  } finally {
    untrack();
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    child.stdout.destroy();
    child.stderr.destroy();
  }

  if (status.error) return { content: `Could not start the shell (${shellPath}): ${status.error.message}`, isError: true };
  const text = stripAnsi(output.toString()).trimEnd();
  const body = text === '' ? '(no output)' : text;
  const failed = reason !== 'exit' || status.code !== 0;
  // Whatever ended the command, what the sandbox undid and why it refused something reach the result.
  const sandboxNote = await confined?.finish(text, failed, runner.approveHeld);
  const note = sandboxNote ? `\n${sandboxNote}` : '';
  if (reason === 'cancel') {
    return { content: `The command was cancelled by the user and terminated.\nOutput before cancelling:\n${body}${note}`, isError: true, cancelled: true };
  }
  if (reason === 'timeout') {
    return {
      content: `The command timed out after ${input.timeout_ms} ms and was terminated together with its child processes.\nOutput before the timeout:\n${body}${note}`,
      isError: true,
    };
  }
  const exit = status.code !== null ? `Exit code: ${status.code}` : `Killed by signal ${status.signal ?? 'unknown'}`;
  return { content: `${exit}\n${body}${note}`, isError: failed };
}

/** Why a command cannot run with the workspace read-only (plan mode), or undefined when it can. */
function readOnlyRefusal(sandbox: CommandSandbox | undefined, outsideReason: string | undefined): string | undefined {
  if (sandbox?.state.kind !== 'on') return 'Commands cannot run in this mode: it keeps the workspace read-only, which only the OS sandbox can hold, and the sandbox is not available in this session.';
  if (outsideReason) return 'Not run: in this mode a command runs only in the sandbox, with the workspace read-only; outside_sandbox_reason is not available. Run a command that only reads, or propose the change in your plan.';
  return undefined;
}

/** How one command will run: the approval policy trusts the allow-list and `auto` only inside a working sandbox. */
export function isolationFor(sandbox: CommandSandbox | undefined, outsideReason: string | undefined): ShellIsolation {
  if (sandbox === undefined || sandbox.state.kind === 'disabled') return 'disabled';
  if (sandbox.state.kind === 'unavailable') return 'unavailable';
  return outsideReason ? 'outside' : 'sandbox';
}

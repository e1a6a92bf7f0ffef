// The contract between the tools that start processes (run_shell, later stdio MCP servers) and the
// OS sandbox that confines them. The kernel enforces the boundary; the shell allow-list and the
// approval settings are conveniences on top that only apply while the boundary holds.
// It lives in shell/, below the tools that need it; src/core/sandbox implements it (srt.ts) and sits above shell.
import { userText } from '../texts/userText';
import type { UserText } from '../texts/userText';

/** on: commands run confined; disabled: the user turned it off; unavailable: it cannot run here. */
export type SandboxState =
  /**
   * `limitation`: it works, with a weaker way of holding what does not exist yet, because the
   * workspace overlay is not available here; why (each probe's problem, the OS's words).
   */
  | { kind: 'on'; allowedDomains: readonly string[]; limitation?: string }
  | { kind: 'disabled' }
  /** `problem`: what the platform or the probe said; `installHint`: the fix (a kind of texts/start.ts). */
  | { kind: 'unavailable'; problem: string; installHint: UserText };

/** One file or folder a sandboxed command wrote that is held until the user approves it. */
export interface SandboxChange {
  /** Workspace-relative path. */
  path: string;
  /** Why it is held (a kind of approval.held…: the tool's result tells the model in its own English). */
  reason: UserText;
  /** What exactly is risky (configuration lines, a link's target): untrusted text, shown escaped. */
  detail?: string;
}

/** A command ready to spawn in place of `shell -c command`. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /**
   * Called once the process has exited, whatever ended it: brings what the command wrote into the
   * workspace (on Linux it wrote into an overlay; what would run outside the sandbox waits for
   * `approveHeld`, the user's own yes, and is kept aside when declined), and explains a failure the sandbox caused (a write
   * to a read-only path, a refused connection). Returns the lines for the result, or undefined.
   */
  finish(output: string, failed: boolean, approveHeld: (changes: SandboxChange[]) => Promise<boolean>): Promise<string | undefined>;
  /** Must be called once the process has exited (removes mount placeholders, forgets the command's id). */
  release(): void;
}

export interface WrapOptions {
  shell: string;
  cwd: string;
  signal?: AbortSignal;
  /**
   * Plan mode: the whole workspace is read-only for the command and only its own temp folder
   * ($TMPDIR) is writable; nothing it does is applied afterwards (no overlay).
   */
  readOnlyWorkspace?: boolean;
}

export interface CommandSandbox {
  readonly state: SandboxState;
  /** Wraps one shell command. Throws SandboxError when the sandbox cannot start it. */
  wrap(command: string, options: WrapOptions): Promise<SandboxedCommand>;
  /** Gives back what it holds for its session (the commands' private temp folder) when the session closes; absent where it holds nothing. */
  dispose?(): void;
}

export class SandboxError extends Error {
  override name = 'SandboxError';
}

/** The sandbox the user turned off (`evergreen.sandbox.enabled: false`, `--no-sandbox`). */
export const DISABLED_SANDBOX: CommandSandbox = {
  state: { kind: 'disabled' },
  wrap() {
    return Promise.reject(new SandboxError('The sandbox is turned off.'));
  },
};

export const SANDBOX_INSTALL_HINT_DEBIAN = 'sudo apt-get install bubblewrap socat ripgrep';

/** What the user is told once per session (front ends word it). */
export function sandboxNotice(state: SandboxState): { level: 'warning' | 'info'; message: UserText } | undefined {
  switch (state.kind) {
    case 'on':
      return state.limitation === undefined ? undefined : { level: 'info', message: userText('start.sandboxWithoutOverlay', { why: state.limitation }) };
    case 'disabled':
      return { level: 'warning', message: userText('start.sandboxOff', {}) };
    case 'unavailable':
      return { level: 'warning', message: userText('start.sandboxUnavailable', { problem: state.problem, fix: state.installHint }) };
  }
}

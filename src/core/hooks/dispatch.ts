/**
 * Running one event's hooks: the ones whose matcher selects the call, each command once, all at
 * once, then folded into the event's outcome. The session's seam: `runHooks(hooks, call, options)`.
 */
import { childProcessEnv } from '../secrets';
import { shellQuote } from '../shellQuote';
import type { CommandSandbox } from '../shell/commandSandbox';
import { NON_INTERACTIVE_ENV, type TreeContainment } from '../shell/processTree';
import type { ConfiguredHook } from './config';
import { decideHookOutcome, type HookOutcomeFor } from './decisions';
import { hookInput, matchTargets, type HookCall, type HookSession } from './events';
import { matches } from './matcher';
import type { HookRun } from './output';
import { userText } from '../texts/userText';
import { hookNotStarted, runHookProcess } from './runner';

export interface HookDispatchOptions {
  session: HookSession;
  /**
   * The OS sandbox workspace hooks run in (the session's `CommandSandbox`). Without one, or when it
   * is off or unavailable, workspace hooks do not run (a notice says why); the user's own never use it.
   */
  sandbox?: Pick<CommandSandbox, 'wrap'>;
  /** The environment the hooks start from (default process.env); provider keys are removed. */
  env?: NodeJS.ProcessEnv;
  /** Default 'bash'. */
  shell?: string;
  /** The session's cancel: running hooks are stopped with their processes. */
  signal?: AbortSignal;
  maxOutputBytes?: number;
  /** Test seam: force the process-group fallback. */
  containment?: TreeContainment;
}

/** The placeholders Claude Code substitutes into an exec-form hook (`args`), where no shell expands variables. */
const PLACEHOLDERS = /\$\{(CLAUDE_PROJECT_DIR|EVERGREEN_PROJECT_DIR)\}/g;

/** The shell command line a hook runs: `command` as written, or the exec form's words quoted. */
export function hookCommandLine(hook: ConfiguredHook, projectDir: string): string {
  if (hook.args === undefined) return hook.command;
  return [hook.command, ...hook.args].map((word) => shellQuote(word.replace(PLACEHOLDERS, () => projectDir))).join(' ');
}

/**
 * The hooks that run for a call: their matcher selects it, and a command defined in several places
 * runs once (the first definition: the user's before the workspace's, as loaded).
 */
export function hooksFor(hooks: readonly ConfiguredHook[], call: HookCall): ConfiguredHook[] {
  const targets = matchTargets(call);
  const seen = new Set<string>();
  const selected: ConfiguredHook[] = [];
  for (const hook of hooks) {
    if (hook.event !== call.event || !matches(hook.match, targets)) continue;
    const identity = JSON.stringify([hook.command, hook.args ?? null]);
    if (seen.has(identity)) continue;
    seen.add(identity);
    selected.push(hook);
  }
  return selected;
}

/** The hooks' environment: the host's without provider credentials, plus where the project is. */
export function hookEnv(base: NodeJS.ProcessEnv, projectDir: string): NodeJS.ProcessEnv {
  return { ...childProcessEnv(base), ...NON_INTERACTIVE_ENV, CLAUDE_PROJECT_DIR: projectDir, EVERGREEN_PROJECT_DIR: projectDir };
}

/** Runs the event's hooks in parallel and folds what they said. Never throws. */
export async function runHooks<C extends HookCall>(hooks: readonly ConfiguredHook[], call: C, options: HookDispatchOptions): Promise<HookOutcomeFor<C['event']>> {
  const { projectDir } = options.session;
  const stdin = JSON.stringify(hookInput(call, options.session));
  const env = hookEnv(options.env ?? process.env, projectDir);
  const runs = await Promise.all(
    hooksFor(hooks, call).map(async (hook): Promise<HookRun> => {
      const commandLine = hookCommandLine(hook, projectDir);
      const sandboxed = hook.origin.scope === 'workspace';
      const result =
        sandboxed && !options.sandbox
          ? hookNotStarted(userText('hooks.noSandbox', {}))
          : await runHookProcess({
              commandLine,
              stdin,
              cwd: projectDir,
              env,
              timeoutMs: hook.timeoutSeconds * 1000,
              ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
              ...(options.shell === undefined ? {} : { shell: options.shell }),
              ...(sandboxed && options.sandbox ? { sandbox: options.sandbox } : {}),
              ...(options.signal ? { signal: options.signal } : {}),
              ...(options.containment ? { containment: options.containment } : {}),
            });
      return { hook, commandLine, sandboxed, result };
    }),
  );
  return decideHookOutcome(call, runs);
}

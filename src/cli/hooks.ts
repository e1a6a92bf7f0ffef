/**
 * Hooks in the terminal (issue 29): the user's from `~/.claude/settings.json`,
 * `~/.evergreen/settings.json` and `--settings`, the workspace's only with
 * `--trust-workspace-hooks` (in the sandbox); and each run as one line on stderr.
 */
import * as path from 'node:path';
import type { HookRunView } from '../core/agent/events';
import type { HooksConfig } from '../core/agent/hooks';
import { hookStartNotices, loadHooks, sortHooksByConsent } from '../core/hooks';
import type { CliOptions } from './args';
import { escapeLine } from './terminalText';

/** The hooks a CLI run may run, and what to say about the rest. */
export async function cliHooksConfig(options: Pick<CliOptions, 'settings' | 'trustWorkspaceHooks'>, workspace: string, io: { env: NodeJS.ProcessEnv; cwd: string }): Promise<HooksConfig> {
  // `--settings` takes a file or, as Claude Code's flag does, JSON text.
  const settings = options.settings.map((entry) => (entry.trimStart().startsWith('{') ? entry : path.resolve(io.cwd, entry)));
  const loaded = await loadHooks({ homeDir: io.env.HOME, workspaceRoot: workspace, settings });
  // The CLI has no workspace trust of its own: the flag is the user's consent to the workspace's hooks.
  const sorted = sortHooksByConsent(loaded.hooks, { consentedKeys: new Set(), workspaceTrusted: true, trustWorkspaceHooks: options.trustWorkspaceHooks });
  return { hooks: sorted.runnable, notices: hookStartNotices(loaded.problems, sorted), env: io.env };
}

/** A run in one line: event, where it came from, the command, how it ended and how long it took, and where its output is. */
export function hookRunLine(run: HookRunView): string {
  const ended = run.exitCode === null || run.outcome !== 'ok' ? `${run.outcome.replace(/_/g, ' ')}${run.exitCode === null ? '' : `, exit ${run.exitCode}`}` : 'ok';
  const where = `${run.source}${run.sandboxed ? ', sandboxed' : ''}`;
  const output = run.outputFile ? ` · output: ${escapeLine(run.outputFile)}` : '';
  return `  ⚙ ${run.event} hook (${escapeLine(where)}): ${escapeLine(run.command)} — ${ended}, ${run.durationMs} ms${output}`;
}

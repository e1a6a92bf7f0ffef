/**
 * One hook run read the way Claude Code reads it: the exit code (0 success, 2 a block, anything
 * else a non-blocking error) and stdout, which is JSON when it starts with `{` (checked with zod)
 * and plain text otherwise. Pure. decisions.ts folds the readings of one event into its outcome.
 */
import { errorMessage } from '../logger';
import * as z from '../zod';
import type { HookRunData } from '../texts/hooks';
import { userText, type UserText } from '../texts/userText';
import type { ConfiguredHook } from './config';
import type { HookEventName } from './events';
import type { HookProcessResult } from './runner';

/** Claude Code's JSON output: universal fields, the top-level decision, and `hookSpecificOutput`. */
export const HookJsonOutputSchema = z.looseObject({
  continue: z.boolean().nullish(),
  stopReason: z.string().nullish(),
  suppressOutput: z.boolean().nullish(),
  systemMessage: z.string().nullish(),
  // `approve` is PreToolUse's deprecated spelling of allow (and `block` of deny) there.
  decision: z.enum(['block', 'approve']).nullish(),
  reason: z.string().nullish(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().nullish(),
      permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).nullish(),
      permissionDecisionReason: z.string().nullish(),
      additionalContext: z.string().nullish(),
    })
    .nullish(),
});
export type HookJsonOutput = z.infer<typeof HookJsonOutputSchema>;

/** One run of one hook, as the dispatcher hands it to the fold. */
export interface HookRun {
  hook: ConfiguredHook;
  /** The command line that ran (the exec form quoted). */
  commandLine: string;
  /** Ran in the OS sandbox (every workspace hook). */
  sandboxed: boolean;
  result: HookProcessResult;
}

export type HookOutputProblemKind = 'timeout' | 'too_large' | 'not_started' | 'invalid_json' | 'invalid_output' | 'exit_code';

/** What one run said. */
export interface HookReading {
  /** It ran to its end (not stopped, not refused). */
  finished: boolean;
  exitCode: number | null;
  /** Exit code 2. */
  blocking: boolean;
  /** Parsed and valid JSON output. */
  json?: HookJsonOutput;
  /** stdout when it is not JSON (trailing whitespace trimmed). */
  plainText?: string;
  /** Why its output or exit status is an error the user should see (the run's decision, if any, is then ignored except a block). */
  problem?: { kind: HookOutputProblemKind; message: UserText };
}

/** Which hook a notice about one run names: its event, its command line, its file. */
export function runData(run: HookRun, event: HookEventName): HookRunData {
  return { event, command: run.commandLine, file: run.hook.origin.label };
}

const firstLine = (text: string): string => text.trim().split('\n')[0]?.trim() ?? '';

/** Reads stdout: JSON if it starts with `{`, text otherwise; invalid JSON and a schema mismatch are problems. */
function readStdout(stdout: string, event: HookEventName, about: HookRunData): Pick<HookReading, 'json' | 'plainText' | 'problem'> {
  const trimmed = stdout.trim();
  if (trimmed === '') return {};
  if (!trimmed.startsWith('{')) return { plainText: stdout.trimEnd() };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return { problem: { kind: 'invalid_json', message: userText('hooks.runInvalidJson', { ...about, brace: '{', error: errorMessage(error) }) } };
  }
  const parsed = HookJsonOutputSchema.safeParse(value);
  if (!parsed.success) {
    const { where, message } = z.zodProblem(parsed.error, '$');
    return { problem: { kind: 'invalid_output', message: userText('hooks.runInvalidOutput', { ...about, where, problem: message }) } };
  }
  const named = parsed.data.hookSpecificOutput?.hookEventName;
  if (named !== undefined && named !== null && named !== event) {
    return { problem: { kind: 'invalid_output', message: userText('hooks.runOutputForOtherEvent', { ...about, named }) } };
  }
  return { json: parsed.data };
}

export function readHookRun(run: HookRun, event: HookEventName): HookReading {
  const { result } = run;
  const about = runData(run, event);
  switch (result.end) {
    case 'cancelled':
      return { finished: false, exitCode: null, blocking: false };
    case 'timeout':
      return { finished: false, exitCode: null, blocking: false, problem: { kind: 'timeout', message: userText('hooks.runTimedOut', { ...about, seconds: run.hook.timeoutSeconds }) } };
    case 'too_large':
      return { finished: false, exitCode: null, blocking: false, problem: { kind: 'too_large', message: userText('hooks.runTooLarge', { ...about, reason: result.problem ?? userText('hooks.tooMuchOutput', {}) }) } };
    case 'not_started':
      return { finished: false, exitCode: null, blocking: false, problem: { kind: 'not_started', message: userText('hooks.runNotStarted', { ...about, reason: result.problem ?? userText('hooks.unknownReason', {}) }) } };
    case 'exited':
      break;
  }
  const stdout = readStdout(result.stdout, event, about);
  const exitCode = result.exitCode;
  if (exitCode === 0 || exitCode === 2) return { finished: true, exitCode, blocking: exitCode === 2, ...stdout };
  // Another exit code: valid JSON alone decides (Claude Code's rule); without it, a non-blocking error.
  if (stdout.json) return { finished: true, exitCode, blocking: false, json: stdout.json };
  const status = exitCode === null ? (result.signal ? userText('hooks.killedBy', { signal: result.signal }) : userText('hooks.killed', {})) : userText('hooks.failedWithCode', { code: String(exitCode) });
  const stderrLine = firstLine(result.stderr);
  const message = stderrLine ? userText('hooks.runError', { ...about, status, stderr: stderrLine }) : userText('hooks.runErrorSilent', { ...about, status });
  return { finished: true, exitCode, blocking: false, problem: stdout.problem ?? { kind: 'exit_code', message } };
}

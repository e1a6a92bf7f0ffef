/** What the core says about hooks: their runs, decisions, settings and consent, as kinds with data (src/core/texts/userText.ts); src/frontends/words/hooks.ts words them. */
import type { NestedText, NoData } from './value';

/** The hook a run notice is about: its event, its command line and the file it came from. */
export type HookRunData = { event: string; command: string; file: string };

export interface HookTexts {
  // ---- settings files (config.ts, load.ts): a problem, worded inside hooks.settingsProblem
  'hooks.settingsProblem': { where: string; problem: NestedText };
  'hooks.notJson': { code: string; line: string; column: string };
  'hooks.claudeOnlyEvent': { event: string };
  /** `events`: the event names, as the file must spell them. */
  'hooks.unknownEvent': { event: string; events: string };
  'hooks.notMatcherGroups': NoData;
  'hooks.badMatcher': { matcher: string; error: string };
  'hooks.otherHandlerType': { type: string };
  'hooks.asyncIgnored': NoData;
  'hooks.ifIgnored': NoData;
  'hooks.timeoutCut': { seconds: number; max: number };
  'hooks.fileUnreadable': { error: string };
  'hooks.notRegularFile': NoData;
  'hooks.fileTooLarge': { bytes: string; max: string };
  'hooks.fileMissing': NoData;
  'hooks.userDisabledAll': NoData;
  'hooks.workspaceDisabledAll': NoData;
  // ---- consent (consent.ts); `hooks`: each hook as written (describeHooks)
  'hooks.untrusted': { count: number; hooks: NestedText };
  'hooks.withheld': { hooks: NestedText };
  /** A hook as the consent prompt and the hooks list show it (config.ts's describeHook): `command` as written, `seconds` its timeout, `file` where it is defined. */
  'hooks.described': { event: string; command: string; seconds: number; file: string };
  'hooks.describedMatching': { event: string; matcher: string; command: string; seconds: number; file: string };
  /** A list of described hooks: the first (`hook`), then the rest (`more`: another of these or one hook). */
  'hooks.describedAndMore': { hook: NestedText; more: NestedText };
  // ---- why a run did not run or was stopped (runner.ts, dispatch.ts), worded inside a run notice
  'hooks.cancelledBeforeStart': NoData;
  'hooks.sandboxCouldNotRun': { error: string };
  'hooks.couldNotStart': { error: string };
  'hooks.outputOverLimit': { megabytes: string };
  'hooks.noSandbox': NoData;
  'hooks.unknownReason': NoData;
  'hooks.tooMuchOutput': NoData;
  'hooks.killedBy': { signal: string };
  'hooks.killed': NoData;
  'hooks.failedWithCode': { code: string };
  // ---- one run (output.ts, decisions.ts)
  'hooks.runTimedOut': HookRunData & { seconds: number };
  'hooks.runTooLarge': HookRunData & { reason: NestedText };
  'hooks.runNotStarted': HookRunData & { reason: NestedText };
  /** `brace`: "{" (a literal brace in a template would read as a placeholder). */
  'hooks.runInvalidJson': HookRunData & { brace: string; error: string };
  'hooks.runInvalidOutput': HookRunData & { where: string; problem: string };
  'hooks.runOutputForOtherEvent': HookRunData & { named: string };
  'hooks.runError': HookRunData & { status: NestedText; stderr: string };
  'hooks.runErrorSilent': HookRunData & { status: NestedText };
  'hooks.runSays': HookRunData & { message: string };
  'hooks.runExit2': HookRunData & { stderr: string };
  'hooks.runExit2Silent': HookRunData;
  'hooks.runDeferIgnored': HookRunData;
  'hooks.runAllowRefused': HookRunData;
  'hooks.stopGuard': { event: string; continuations: number; max: number };
  // ---- the session (agent/hooks.ts, agent/session.ts)
  'hooks.couldNotRun': { event: string; error: string };
  'hooks.endedTurn': { reason: string };
  'hooks.workspaceHooksNeedSandbox': { count: number };
  'hooks.promptBlocked': { reasons: string };
  'hooks.promptBlockedHint': NoData;
}

/**
 * The hooks of one event, folded into one typed outcome for the session. Pure.
 *
 * Per event (Claude Code's rules, the differences named in docs/architecture.md's hooks section):
 * - exit 0: stdout is context for the model on SessionStart and UserPromptSubmit, part of the
 *   summary's focus on PreCompact, and only in the run's record (the chat line) elsewhere;
 * - exit 2 blocks: PreToolUse denies the call (stderr to the model), UserPromptSubmit drops the
 *   prompt (stderr to the user), Stop and SubagentStop go on with stderr as the next instruction,
 *   PreCompact skips the compaction, PostToolUse hands stderr to the model next to the result; on
 *   the other events stderr is shown to the user;
 * - other exit codes are non-blocking errors shown to the user, unless stdout is valid JSON, which
 *   then decides alone;
 * - JSON: `continue: false` (+ `stopReason`) ends the turn, `decision: "block"` + `reason`,
 *   `hookSpecificOutput.permissionDecision` allow | deny | ask (+ `permissionDecisionReason`),
 *   `additionalContext`, `systemMessage` (a notice), `suppressOutput` (the line shows no output).
 *
 * Several hooks: deny beats ask beats allow, and every block, context and notice is kept. A
 * workspace hook may deny or ask but never allow: its allow is dropped with a notice. A hook's
 * allow only skips the question; it never widens the sandbox (the approval policy decides that).
 */
import type { HookScope } from './config';
import type { HookCall, HookEventName } from './events';
import { userText, type UserText } from '../texts/userText';
import { readHookRun, runData, type HookJsonOutput, type HookOutputProblemKind, type HookReading, type HookRun } from './output';

/**
 * How many times in a row Stop (or SubagentStop) hooks may keep one turn going. Claude Code's cap:
 * a hook that never checks `stop_hook_active` costs at most this many extra rounds, then the turn ends
 * with a notice. The count starts again with the user's next message.
 */
export const MAX_STOP_HOOK_CONTINUATIONS = 8;

/** The reason used when a hook blocks without giving one. */
const NO_REASON = 'a hook blocked this without giving a reason';

/** Text a hook produced, with who produced it (the session words and places it). */
export interface HookText {
  text: string;
  command: string;
  scope: HookScope;
}

export const HOOK_RUN_OUTCOMES = ['ok', 'blocked', 'denied', 'asked', 'allowed', 'allow_refused', 'stopped', 'error', 'timeout', 'too_large', 'not_started', 'cancelled'] as const;
export type HookRunOutcome = (typeof HOOK_RUN_OUTCOMES)[number];

/** One run, for the chat's small line (event, command, time, outcome) and the output it opens. */
export interface HookRunRecord {
  event: HookEventName;
  command: string;
  scope: HookScope;
  /** The file or setting it came from, as the user reads it. */
  file: string;
  sandboxed: boolean;
  durationMs: number;
  outcome: HookRunOutcome;
  exitCode: number | null;
  /** The whole output (at most MAX_HOOK_OUTPUT_BYTES together): the session decides where to keep it. */
  stdout: string;
  stderr: string;
  /** The hook asked (`suppressOutput`) that its output not be shown in the chat. */
  suppressOutput: boolean;
  /** What the sandbox reported about the run (a refused write). */
  sandboxNote?: string;
}

export type HookNoticeKind = HookOutputProblemKind | 'allow_refused' | 'defer_ignored' | 'system_message' | 'stderr' | 'stop_guard';

/** Something the user should read; never sent to the model. */
export interface HookNotice {
  kind: HookNoticeKind;
  level: 'warning' | 'info';
  message: UserText;
  command: string;
}

export interface HookPermission {
  decision: 'allow' | 'deny' | 'ask';
  /** deny: for the model (why the call did not run); ask and allow: for the user. */
  reasons: HookText[];
}

interface OutcomeBase {
  records: HookRunRecord[];
  notices: HookNotice[];
}

export interface SessionStartOutcome extends OutcomeBase {
  event: 'SessionStart';
  /** For the model, before the first prompt. */
  context: HookText[];
}
export interface UserPromptSubmitOutcome extends OutcomeBase {
  event: 'UserPromptSubmit';
  /** For the model, beside the prompt. */
  context: HookText[];
  /** Non-empty: the prompt is not sent; the reasons are for the user. */
  blockedBy: HookText[];
}
export interface PreToolUseOutcome extends OutcomeBase {
  event: 'PreToolUse';
  /** Undefined: no hook decided; the usual approval applies. */
  permission?: HookPermission;
  /** For the model, beside the tool's result. */
  context: HookText[];
  /** `continue: false`: the call does not run and the turn ends; the reason is for the user. */
  stop?: HookText;
}
export interface PostToolUseOutcome extends OutcomeBase {
  event: 'PostToolUse';
  /** `decision: "block"` reasons and exit-2 stderr: for the model, beside the result (the tool already ran). */
  feedback: HookText[];
  context: HookText[];
  stop?: HookText;
}
export interface PreCompactOutcome extends OutcomeBase {
  event: 'PreCompact';
  /** Added to the summary's focus. */
  focus: HookText[];
  /** Non-empty: the hooks asked to skip this compaction; the reasons are for the user. */
  blockedBy: HookText[];
}
interface StopOutcomeFields extends OutcomeBase {
  /** Non-empty: the agent goes on, with these as its next instruction. */
  continueWith: HookText[];
  /** Hooks asked to go on, but MAX_STOP_HOOK_CONTINUATIONS was reached: the turn ends (a notice says so). */
  guardTripped: boolean;
  /** `continue: false`: the turn ends whatever else was asked; the reason is for the user. */
  stop?: HookText;
}
export interface StopOutcome extends StopOutcomeFields {
  event: 'Stop';
}
export interface SubagentStopOutcome extends StopOutcomeFields {
  event: 'SubagentStop';
}
/** Events whose hooks can only report (their output is in the records, errors in the notices). */
export interface ReportOnlyOutcome<E extends 'PostCompact' | 'Notification' | 'SessionEnd'> extends OutcomeBase {
  event: E;
}

export type HookOutcome =
  | SessionStartOutcome
  | UserPromptSubmitOutcome
  | PreToolUseOutcome
  | PostToolUseOutcome
  | PreCompactOutcome
  | StopOutcome
  | SubagentStopOutcome
  | ReportOnlyOutcome<'PostCompact'>
  | ReportOnlyOutcome<'Notification'>
  | ReportOnlyOutcome<'SessionEnd'>;

export type HookOutcomeFor<E extends HookEventName> = Extract<HookOutcome, { event: E }>;

/** What one hook said, in the terms every event shares. */
interface Said {
  run: HookRun;
  reading: HookReading;
  json: HookJsonOutput | undefined;
  text: (value: string) => HookText;
  /** Exit 2, or `decision: "block"`: the reason (the JSON's when it gives one, stderr otherwise). */
  block?: string;
  stop?: string;
}

function said(run: HookRun, reading: HookReading): Said {
  const json = reading.json;
  const text = (value: string): HookText => ({ text: value, command: run.commandLine, scope: run.hook.origin.scope });
  const jsonReason = json?.reason ?? undefined;
  const stderr = run.result.stderr.trim();
  let block: string | undefined;
  if (reading.blocking) block = (json?.decision === 'block' ? jsonReason : undefined) ?? (stderr || jsonReason || NO_REASON);
  else if (json?.decision === 'block') block = jsonReason || stderr || NO_REASON;
  const stop = json?.continue === false ? json.stopReason || 'a hook stopped the agent (continue: false)' : undefined;
  return { run, reading, json, text, ...(block === undefined ? {} : { block }), ...(stop === undefined ? {} : { stop }) };
}

/** Gathers the records and notices every event has. */
class Fold {
  readonly records: HookRunRecord[] = [];
  readonly notices: HookNotice[] = [];

  constructor(private readonly event: HookEventName) {}

  /** `message`: a sentence about this run (its data names the hook: `about(run)`). */
  notice(run: HookRun, kind: HookNoticeKind, message: UserText, level: 'warning' | 'info' = 'warning'): void {
    this.notices.push({ kind, level, message, command: run.commandLine });
  }

  about(run: HookRun): ReturnType<typeof runData> {
    return runData(run, this.event);
  }

  record(run: HookRun, outcome: HookRunOutcome, json: HookJsonOutput | undefined): void {
    const { result, hook } = run;
    this.records.push({
      event: this.event,
      command: run.commandLine,
      scope: hook.origin.scope,
      file: hook.origin.label,
      sandboxed: run.sandboxed,
      durationMs: result.durationMs,
      outcome,
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      suppressOutput: json?.suppressOutput === true,
      ...(result.sandboxNote ? { sandboxNote: result.sandboxNote } : {}),
    });
  }

  /** Reads each run, reports its problems and systemMessage, and hands the finished ones to `judge`, which names the run's outcome. */
  each(runs: readonly HookRun[], judge: (hook: Said) => HookRunOutcome): void {
    for (const run of runs) {
      const reading = readHookRun(run, this.event);
      if (reading.problem) this.notice(run, reading.problem.kind, reading.problem.message);
      if (!reading.finished) {
        this.record(run, run.result.end === 'exited' ? 'error' : run.result.end, undefined);
        continue;
      }
      const hook = said(run, reading);
      if (hook.json?.systemMessage) this.notice(run, 'system_message', userText('hooks.runSays', { ...this.about(run), message: hook.json.systemMessage }), 'info');
      const judged = judge(hook);
      this.record(run, reading.problem && judged === 'ok' ? 'error' : judged, hook.json);
    }
  }

  /** Exit 2 on an event that cannot block: stderr is for the user. */
  stderrToUser(hook: Said): HookRunOutcome {
    if (!hook.reading.blocking) return 'ok';
    const stderr = hook.run.result.stderr.trim();
    this.notice(hook.run, 'stderr', stderr ? userText('hooks.runExit2', { ...this.about(hook.run), stderr }) : userText('hooks.runExit2Silent', this.about(hook.run)));
    return 'blocked';
  }
}

const additionalContext = (hook: Said): string | undefined => hook.json?.hookSpecificOutput?.additionalContext || undefined;
/** Plain stdout of a successful run: context where Claude Code makes it context. */
const plainOnSuccess = (hook: Said): string | undefined => (hook.reading.exitCode === 0 && hook.reading.plainText ? hook.reading.plainText : undefined);

function pushDefined(list: HookText[], hook: Said, ...values: (string | undefined)[]): void {
  for (const value of values) if (value) list.push(hook.text(value));
}

function permissionOf(hook: Said, fold: Fold): { decision: HookPermission['decision']; reason: string | undefined } | undefined {
  if (hook.reading.blocking) return { decision: 'deny', reason: hook.block };
  const specific = hook.json?.hookSpecificOutput;
  const legacy = hook.json?.decision === 'approve' ? 'allow' : hook.json?.decision === 'block' ? 'deny' : undefined;
  const decision = specific?.permissionDecision ?? legacy;
  if (!decision) return undefined;
  if (decision === 'defer') {
    fold.notice(hook.run, 'defer_ignored', userText('hooks.runDeferIgnored', fold.about(hook.run)), 'info');
    return undefined;
  }
  return { decision, reason: specific?.permissionDecisionReason || hook.json?.reason || undefined };
}

function decidePreToolUse(runs: readonly HookRun[]): PreToolUseOutcome {
  const fold = new Fold('PreToolUse');
  const context: HookText[] = [];
  const byDecision: Record<HookPermission['decision'], HookText[]> = { deny: [], ask: [], allow: [] };
  const decided = new Set<HookPermission['decision']>();
  let stop: HookText | undefined;
  fold.each(runs, (hook) => {
    pushDefined(context, hook, additionalContext(hook));
    if (hook.stop) stop ??= hook.text(hook.stop);
    const permission = permissionOf(hook, fold);
    if (permission?.decision === 'allow' && hook.run.hook.origin.scope === 'workspace') {
      fold.notice(hook.run, 'allow_refused', userText('hooks.runAllowRefused', fold.about(hook.run)));
      return 'allow_refused';
    }
    if (permission) {
      decided.add(permission.decision);
      pushDefined(byDecision[permission.decision], hook, permission.reason);
    }
    if (hook.stop) return 'stopped';
    return permission ? ({ deny: 'denied', ask: 'asked', allow: 'allowed' } as const)[permission.decision] : 'ok';
  });
  const decision = decided.has('deny') ? 'deny' : decided.has('ask') ? 'ask' : decided.has('allow') ? 'allow' : undefined;
  return {
    event: 'PreToolUse',
    records: fold.records,
    notices: fold.notices,
    context,
    ...(decision ? { permission: { decision, reasons: byDecision[decision] } } : {}),
    ...(stop ? { stop } : {}),
  };
}

function decideStop<E extends 'Stop' | 'SubagentStop'>(event: E, runs: readonly HookRun[], continuations: number): StopOutcomeFields & { event: E } {
  const fold = new Fold(event);
  let continueWith: HookText[] = [];
  let stop: HookText | undefined;
  fold.each(runs, (hook) => {
    pushDefined(continueWith, hook, hook.block, additionalContext(hook));
    if (hook.stop) {
      stop ??= hook.text(hook.stop);
      return 'stopped';
    }
    return hook.block ? 'blocked' : 'ok';
  });
  let guardTripped = false;
  if (stop) continueWith = [];
  else if (continueWith.length > 0 && continuations >= MAX_STOP_HOOK_CONTINUATIONS) {
    guardTripped = true;
    continueWith = [];
    fold.notices.push({
      kind: 'stop_guard',
      level: 'warning',
      message: userText('hooks.stopGuard', { event, continuations, max: MAX_STOP_HOOK_CONTINUATIONS }),
      command: '',
    });
  }
  return { event, records: fold.records, notices: fold.notices, continueWith, guardTripped, ...(stop ? { stop } : {}) };
}

/** The outcome of one event's hook runs (in the order they were started). */
export function decideHookOutcome<C extends HookCall>(call: C, runs: readonly HookRun[]): HookOutcomeFor<C['event']>;
export function decideHookOutcome(call: HookCall, runs: readonly HookRun[]): HookOutcome {
  switch (call.event) {
    case 'PreToolUse':
      return decidePreToolUse(runs);
    case 'Stop':
    case 'SubagentStop':
      return decideStop(call.event, runs, call.continuations);
    case 'UserPromptSubmit': {
      const fold = new Fold(call.event);
      const context: HookText[] = [];
      const blockedBy: HookText[] = [];
      fold.each(runs, (hook) => {
        pushDefined(context, hook, plainOnSuccess(hook), additionalContext(hook));
        pushDefined(blockedBy, hook, hook.block, hook.stop);
        return hook.stop ? 'stopped' : hook.block ? 'blocked' : 'ok';
      });
      return { event: call.event, records: fold.records, notices: fold.notices, context, blockedBy };
    }
    case 'PostToolUse': {
      const fold = new Fold(call.event);
      const feedback: HookText[] = [];
      const context: HookText[] = [];
      let stop: HookText | undefined;
      fold.each(runs, (hook) => {
        pushDefined(feedback, hook, hook.block);
        pushDefined(context, hook, additionalContext(hook));
        if (hook.stop) stop ??= hook.text(hook.stop);
        return hook.stop ? 'stopped' : hook.block ? 'blocked' : 'ok';
      });
      return { event: call.event, records: fold.records, notices: fold.notices, feedback, context, ...(stop ? { stop } : {}) };
    }
    case 'SessionStart': {
      const fold = new Fold(call.event);
      const context: HookText[] = [];
      fold.each(runs, (hook) => {
        pushDefined(context, hook, plainOnSuccess(hook), additionalContext(hook));
        return fold.stderrToUser(hook);
      });
      return { event: call.event, records: fold.records, notices: fold.notices, context };
    }
    case 'PreCompact': {
      const fold = new Fold(call.event);
      const focus: HookText[] = [];
      const blockedBy: HookText[] = [];
      fold.each(runs, (hook) => {
        pushDefined(focus, hook, plainOnSuccess(hook), additionalContext(hook));
        pushDefined(blockedBy, hook, hook.block);
        return hook.block ? 'blocked' : 'ok';
      });
      return { event: call.event, records: fold.records, notices: fold.notices, focus, blockedBy };
    }
    case 'PostCompact':
    case 'Notification':
    case 'SessionEnd': {
      const fold = new Fold(call.event);
      fold.each(runs, (hook) => fold.stderrToUser(hook));
      return { event: call.event, records: fold.records, notices: fold.notices };
    }
  }
}

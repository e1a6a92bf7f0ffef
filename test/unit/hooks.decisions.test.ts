// How one event's hook runs become its outcome (src/core/hooks/decisions.ts): exit codes per event,
// Claude Code's JSON output, several hooks at once, the workspace's missing right to allow, and the
// Stop loop guard. Pure: the runs are built, not started (hooks.runner.test.ts starts real ones).
import { said } from '../support/said';
import { userText, type UserText } from '../../src/core/texts/userText';
import * as assert from 'node:assert/strict';
import { decideHookOutcome, MAX_STOP_HOOK_CONTINUATIONS, type HookOutcome } from '../../src/core/hooks/decisions';
import type { HookCall, HookCallFor } from '../../src/core/hooks/events';
import { defineHook, exitedRun, finishedRun } from '../support/hookFixtures';

const preToolUse: HookCall = { event: 'PreToolUse', toolName: 'run_shell', toolInput: { command: 'ls' }, toolUseId: 't1' };
const json = (value: unknown): string => JSON.stringify(value);
const texts = (list: readonly { text: string }[]): string[] => list.map((item) => item.text);
const noticeKinds = (outcome: HookOutcome): string[] => outcome.notices.map((notice) => notice.kind);

describe('hooks: decisions', () => {
  describe('PreToolUse', () => {
    const user = defineHook('PreToolUse', './guard.sh', { matcher: 'Bash' });
    const other = defineHook('PreToolUse', './other.sh', { matcher: 'Bash' });
    const workspace = defineHook('PreToolUse', './ws-guard.sh', { matcher: 'Bash', scope: 'workspace' });
    const decide = (...runs: Parameters<typeof decideHookOutcome>[1]) => decideHookOutcome(preToolUse, runs);

    it('exit 0 with no output decides nothing, and its run is recorded as ok', () => {
      const outcome = decide(exitedRun(user, 0));
      assert.equal(outcome.permission, undefined);
      assert.deepEqual(outcome.notices, []);
      assert.equal(outcome.records.length, 1);
      assert.equal(outcome.records[0]!.outcome, 'ok');
      assert.equal(outcome.records[0]!.event, 'PreToolUse');
    });

    it('exit 2 denies the call with stderr as the reason for the model, even when its JSON says allow', () => {
      const denied = decide(exitedRun(user, 2, '', 'rm is not allowed\n'));
      assert.equal(denied.permission?.decision, 'deny');
      assert.deepEqual(texts(denied.permission!.reasons), ['rm is not allowed']);
      assert.equal(denied.records[0]!.outcome, 'denied');
      const stillDenied = decide(exitedRun(user, 2, json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }), 'no'));
      assert.equal(stillDenied.permission?.decision, 'deny');
    });

    it('reads permissionDecision allow, deny and ask with their reasons, and the deprecated approve and block', () => {
      for (const decision of ['allow', 'deny', 'ask'] as const) {
        const outcome = decide(exitedRun(user, 0, json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: `because ${decision}` } })));
        assert.equal(outcome.permission?.decision, decision);
        assert.deepEqual(texts(outcome.permission!.reasons), [`because ${decision}`]);
        assert.equal(outcome.records[0]!.outcome, { allow: 'allowed', deny: 'denied', ask: 'asked' }[decision]);
      }
      assert.equal(decide(exitedRun(user, 0, json({ decision: 'approve', reason: 'fine' }))).permission?.decision, 'allow');
      const blocked = decide(exitedRun(user, 0, json({ decision: 'block', reason: 'old style' })));
      assert.equal(blocked.permission?.decision, 'deny');
      assert.deepEqual(texts(blocked.permission!.reasons), ['old style']);
    });

    it('combines several hooks: deny beats ask beats allow, with the winning reasons only', () => {
      const say = (hook: typeof user, decision: string) => exitedRun(hook, 0, json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: `${hook.command} says ${decision}` } }));
      const asked = decide(say(user, 'allow'), say(other, 'ask'));
      assert.equal(asked.permission?.decision, 'ask');
      assert.deepEqual(texts(asked.permission!.reasons), ['./other.sh says ask']);
      const denied = decide(say(user, 'ask'), say(other, 'deny'), exitedRun(workspace, 0));
      assert.equal(denied.permission?.decision, 'deny');
      assert.deepEqual(texts(denied.permission!.reasons), ['./other.sh says deny']);
      assert.deepEqual(
        denied.records.map((record) => record.outcome),
        ['asked', 'denied', 'ok'],
      );
    });

    it('a workspace hook may deny or ask, but its allow is dropped with a notice', () => {
      const allow = exitedRun(workspace, 0, json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'trust me' } }));
      const refused = decide(allow);
      assert.equal(refused.permission, undefined);
      assert.deepEqual(noticeKinds(refused), ['allow_refused']);
      assert.match(said(refused.notices[0]!.message), /\.\/ws-guard\.sh.*\.claude\/settings\.json.*may only deny or ask/);
      assert.equal(refused.records[0]!.outcome, 'allow_refused');
      // The deprecated spelling is no way around it.
      assert.equal(decide(exitedRun(workspace, 0, json({ decision: 'approve' }))).permission, undefined);
      // The user's own allow still counts beside it; the workspace's deny and ask count too.
      assert.equal(decide(allow, exitedRun(user, 0, json({ hookSpecificOutput: { permissionDecision: 'allow' } }))).permission?.decision, 'allow');
      assert.equal(decide(exitedRun(workspace, 2, '', 'no')).permission?.decision, 'deny');
      assert.equal(decide(exitedRun(workspace, 0, json({ hookSpecificOutput: { permissionDecision: 'ask' } }))).permission?.decision, 'ask');
    });

    it('passes additionalContext on, and continue: false stops the turn with its stopReason', () => {
      const outcome = decide(exitedRun(user, 0, json({ continue: false, stopReason: 'build is red', hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'branch: main' } })));
      assert.deepEqual(texts(outcome.context), ['branch: main']);
      assert.equal(outcome.stop?.text, 'build is red');
      assert.equal(outcome.records[0]!.outcome, 'stopped');
    });

    it('"defer" is not supported: no decision, and a notice', () => {
      const outcome = decide(exitedRun(user, 0, json({ hookSpecificOutput: { permissionDecision: 'defer' } })));
      assert.equal(outcome.permission, undefined);
      assert.deepEqual(noticeKinds(outcome), ['defer_ignored']);
    });

    it('another exit code is a non-blocking error with the first line of stderr, unless its stdout is valid JSON', () => {
      const failed = decide(exitedRun(user, 1, '', 'Traceback (most recent call last):\n  File "x"\n'));
      assert.equal(failed.permission, undefined);
      assert.deepEqual(noticeKinds(failed), ['exit_code']);
      assert.match(said(failed.notices[0]!.message), /non-blocking status code 1: Traceback \(most recent call last\):$/);
      assert.equal(failed.records[0]!.outcome, 'error');
      const decidedByJson = decide(exitedRun(user, 1, json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'json decides' } })));
      assert.equal(decidedByJson.permission?.decision, 'deny');
      assert.deepEqual(decidedByJson.notices, []);
    });

    it('invalid JSON, JSON of the wrong shape, and JSON for another event are notices, never decisions', () => {
      const broken = decide(exitedRun(user, 0, '{"hookSpecificOutput": {"permissionDecision": "deny"'));
      assert.equal(broken.permission, undefined);
      assert.deepEqual(noticeKinds(broken), ['invalid_json']);
      assert.equal(broken.records[0]!.outcome, 'error');
      const wrongShape = decide(exitedRun(user, 0, json({ hookSpecificOutput: { permissionDecision: 'maybe' } })));
      assert.equal(wrongShape.permission, undefined);
      assert.deepEqual(noticeKinds(wrongShape), ['invalid_output']);
      assert.match(said(wrongShape.notices[0]!.message), /\$\.hookSpecificOutput\.permissionDecision/);
      const otherEvent = decide(exitedRun(user, 0, json({ hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'deny' } })));
      assert.equal(otherEvent.permission, undefined);
      assert.deepEqual(noticeKinds(otherEvent), ['invalid_output']);
      // Exit 2 still blocks with stderr when its JSON is broken.
      assert.equal(decide(exitedRun(user, 2, '{oops', 'blocked anyway')).permission?.decision, 'deny');
    });

    it('a hook that timed out, wrote too much or did not start decides nothing and says why', () => {
      const stopped = (end: 'timeout' | 'too_large' | 'not_started', problem?: UserText) =>
        finishedRun(user, { end, exitCode: null, signal: 'SIGKILL', stdout: json({ hookSpecificOutput: { permissionDecision: 'deny' } }), stderr: '', durationMs: 60_000, ...(problem ? { problem } : {}) });
      const outcome = decide(stopped('timeout'), stopped('too_large', userText('hooks.outputOverLimit', { megabytes: '10' })), stopped('not_started', userText('hooks.sandboxCouldNotRun', { error: 'off' })));
      assert.equal(outcome.permission, undefined);
      assert.deepEqual(noticeKinds(outcome), ['timeout', 'too_large', 'not_started']);
      assert.match(said(outcome.notices[0]!.message), /timeout of 60 s/);
      assert.match(said(outcome.notices[1]!.message), /more than 10 MB/);
      assert.match(said(outcome.notices[2]!.message), /sandbox could not run it: off/);
      assert.deepEqual(
        outcome.records.map((record) => record.outcome),
        ['timeout', 'too_large', 'not_started'],
      );
    });

    it('shows systemMessage to the user and records suppressOutput', () => {
      const outcome = decide(exitedRun(user, 0, json({ systemMessage: 'formatter is slow today', suppressOutput: true })));
      assert.deepEqual(noticeKinds(outcome), ['system_message']);
      assert.equal(outcome.notices[0]!.level, 'info');
      assert.match(said(outcome.notices[0]!.message), /formatter is slow today/);
      assert.equal(outcome.records[0]!.suppressOutput, true);
    });
  });

  describe('UserPromptSubmit', () => {
    const call: HookCall = { event: 'UserPromptSubmit', prompt: 'fix the bug' };
    const hook = defineHook('UserPromptSubmit', './ticket.sh');

    it('exit 0: plain stdout and additionalContext become context', () => {
      assert.deepEqual(texts(decideHookOutcome(call, [exitedRun(hook, 0, 'Ticket: EV-42\n')]).context), ['Ticket: EV-42']);
      const outcome = decideHookOutcome(call, [exitedRun(hook, 0, json({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'Ticket: EV-43' } }))]);
      assert.deepEqual(texts(outcome.context), ['Ticket: EV-43']);
      assert.deepEqual(outcome.blockedBy, []);
    });

    it('exit 2, decision block and continue: false keep the prompt from being sent, with the reason for the user', () => {
      const exit2 = decideHookOutcome(call, [exitedRun(hook, 2, 'not context', 'no prompts after 6 pm')]);
      assert.deepEqual(texts(exit2.blockedBy), ['no prompts after 6 pm']);
      assert.deepEqual(exit2.context, []);
      assert.deepEqual(texts(decideHookOutcome(call, [exitedRun(hook, 0, json({ decision: 'block', reason: 'secret in prompt' }))]).blockedBy), ['secret in prompt']);
      assert.deepEqual(texts(decideHookOutcome(call, [exitedRun(hook, 0, json({ continue: false, stopReason: 'quota reached' }))]).blockedBy), ['quota reached']);
    });
  });

  describe('SessionStart', () => {
    const call: HookCall = { event: 'SessionStart', source: 'startup' };
    const hook = defineHook('SessionStart', './context.sh');

    it('exit 0 stdout is context; exit 2 shows stderr to the user only', () => {
      assert.deepEqual(texts(decideHookOutcome(call, [exitedRun(hook, 0, 'Branch: main')]).context), ['Branch: main']);
      const failed = decideHookOutcome(call, [exitedRun(hook, 2, 'Branch: main', 'git not found')]);
      assert.deepEqual(failed.context, []);
      assert.deepEqual(noticeKinds(failed), ['stderr']);
      assert.match(said(failed.notices[0]!.message), /git not found/);
    });
  });

  describe('PostToolUse', () => {
    const call: HookCall = { event: 'PostToolUse', toolName: 'write_file', toolInput: { path: 'a.ts', content: '' }, toolUseId: 't2', result: { content: 'ok', isError: false } };
    const hook = defineHook('PostToolUse', './lint.sh', { matcher: 'Write|Edit' });

    it('exit 2 stderr and decision block reasons are feedback for the model; plain stdout stays in the record', () => {
      const exit2 = decideHookOutcome(call, [exitedRun(hook, 2, 'formatted', 'lint: missing semicolon')]);
      assert.deepEqual(texts(exit2.feedback), ['lint: missing semicolon']);
      assert.equal(exit2.records[0]!.outcome, 'blocked');
      const blocked = decideHookOutcome(call, [exitedRun(hook, 0, json({ decision: 'block', reason: 'generated file', hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'edit src/schema.ts instead' } }))]);
      assert.deepEqual(texts(blocked.feedback), ['generated file']);
      assert.deepEqual(texts(blocked.context), ['edit src/schema.ts instead']);
      const quiet = decideHookOutcome(call, [exitedRun(hook, 0, 'formatted a.ts')]);
      assert.deepEqual([quiet.feedback, quiet.context], [[], []]);
      assert.equal(quiet.records[0]!.stdout, 'formatted a.ts');
    });
  });

  describe('PreCompact', () => {
    const call: HookCall = { event: 'PreCompact', trigger: 'auto', customInstructions: '' };
    const hook = defineHook('PreCompact', './notes.sh');

    it("exit 0 stdout becomes part of the summary's focus; exit 2 asks to skip the compaction", () => {
      assert.deepEqual(texts(decideHookOutcome(call, [exitedRun(hook, 0, 'Keep the migration plan.\n')]).focus), ['Keep the migration plan.']);
      const blocked = decideHookOutcome(call, [exitedRun(hook, 2, '', 'not now')]);
      assert.deepEqual(texts(blocked.blockedBy), ['not now']);
      assert.deepEqual(blocked.focus, []);
    });
  });

  describe('Stop and SubagentStop', () => {
    const hook = defineHook('Stop', './tests-pass.sh');
    const stop = (continuations: number): HookCallFor<'Stop'> => ({ event: 'Stop', lastAssistantMessage: 'done', continuations });

    it('exit 2, decision block and additionalContext keep the agent going with the reason as its next instruction', () => {
      assert.deepEqual(texts(decideHookOutcome(stop(0), [exitedRun(hook, 2, '', '3 tests fail')]).continueWith), ['3 tests fail']);
      assert.deepEqual(texts(decideHookOutcome(stop(0), [exitedRun(hook, 0, json({ decision: 'block', reason: 'run the tests' }))]).continueWith), ['run the tests']);
      assert.deepEqual(texts(decideHookOutcome(stop(0), [exitedRun(hook, 0, json({ hookSpecificOutput: { hookEventName: 'Stop', additionalContext: 'update the changelog' } }))]).continueWith), [
        'update the changelog',
      ]);
      const done = decideHookOutcome(stop(0), [exitedRun(hook, 0, 'all green')]);
      assert.deepEqual(done.continueWith, []);
      assert.equal(done.guardTripped, false);
    });

    it(`the loop guard: after ${MAX_STOP_HOOK_CONTINUATIONS} continuations in a row the turn ends with a notice`, () => {
      const last = decideHookOutcome(stop(MAX_STOP_HOOK_CONTINUATIONS - 1), [exitedRun(hook, 2, '', 'still failing')]);
      assert.deepEqual(texts(last.continueWith), ['still failing']);
      assert.equal(last.guardTripped, false);
      const tripped = decideHookOutcome(stop(MAX_STOP_HOOK_CONTINUATIONS), [exitedRun(hook, 2, '', 'still failing')]);
      assert.deepEqual(tripped.continueWith, []);
      assert.equal(tripped.guardTripped, true);
      assert.deepEqual(noticeKinds(tripped), ['stop_guard']);
      assert.match(said(tripped.notices[0]!.message), /stop_hook_active/);
    });

    it('continue: false ends the turn whatever another hook asked', () => {
      const outcome = decideHookOutcome(stop(0), [exitedRun(hook, 2, '', 'go on'), exitedRun(defineHook('Stop', './quota.sh'), 0, json({ continue: false, stopReason: 'budget spent' }))]);
      assert.deepEqual(outcome.continueWith, []);
      assert.equal(outcome.stop?.text, 'budget spent');
    });

    it('SubagentStop follows the same rules', () => {
      const call: HookCall = { event: 'SubagentStop', agent: { id: 'a1', type: 'explore' }, lastAssistantMessage: 'found it', continuations: 0 };
      const outcome = decideHookOutcome(call, [exitedRun(defineHook('SubagentStop', './check.sh'), 2, '', 'cite the files')]);
      assert.equal(outcome.event, 'SubagentStop');
      assert.deepEqual(texts(outcome.continueWith), ['cite the files']);
    });
  });

  describe('events that only report', () => {
    it('Notification, PostCompact and SessionEnd: exit 2 stderr is a notice, JSON decides nothing', () => {
      const calls: HookCall[] = [
        { event: 'Notification', notificationType: 'idle_prompt', message: 'done' },
        { event: 'PostCompact', trigger: 'manual', summary: 's' },
        { event: 'SessionEnd', reason: 'other' },
      ];
      for (const call of calls) {
        const hook = defineHook(call.event, './log.sh');
        const outcome = decideHookOutcome(call, [exitedRun(hook, 2, json({ decision: 'block', reason: 'x' }), 'disk full')]);
        assert.equal(outcome.event, call.event);
        assert.deepEqual(Object.keys(outcome).sort(), ['event', 'notices', 'records']);
        assert.deepEqual(noticeKinds(outcome), ['stderr']);
        assert.match(said(outcome.notices[0]!.message), /disk full/);
      }
    });
  });
});

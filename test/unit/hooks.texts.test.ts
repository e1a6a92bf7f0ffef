// Issue 27 item 6 for hooks: the core says kinds with data (src/core/texts/hooks.ts), each front end
// words them (src/frontends/words/hooks.ts), the CLI and the extension each naming their own way to
// allow a workspace's hooks; a transcript's older English notices still read back.
import * as assert from 'node:assert/strict';
import { hookEventFromRecord } from '../../src/core/agent/hookRuns';
import { hookStartNotices, sortHooksByConsent } from '../../src/core/hooks/consent';
import type { HookTexts } from '../../src/core/texts/hooks';
import { userText, type UserText } from '../../src/core/texts/userText';
import { configureWords } from '../../src/frontends/words';
import { defineHook } from '../support/hookFixtures';
import { said } from '../support/said';

const run = { event: 'PreToolUse', command: './guard.sh', file: '~/.claude/settings.json' };
const RUN = 'The PreToolUse hook "./guard.sh" (~/.claude/settings.json)';
const reason = userText('hooks.couldNotStart', { error: 'ENOENT' });

/** Every hooks kind with sample data and the English the CLI (and an English VS Code) reads: a kind left out does not compile. */
const ENGLISH: { [K in keyof HookTexts]: [HookTexts[K], string] } = {
  'hooks.settingsProblem': [{ where: 'a.json $.hooks', problem: userText('hooks.fileMissing', {}) }, 'Hook settings a.json $.hooks: does not exist.'],
  'hooks.notJson': [{ code: 'InvalidSymbol', line: '3', column: '7' }, 'is not valid JSON: InvalidSymbol at line 3, column 7'],
  'hooks.claudeOnlyEvent': [{ event: 'SubagentStart' }, 'Evergreen does not fire SubagentStart; these hooks do not run here'],
  'hooks.unknownEvent': [{ event: 'PreTolUse', events: 'PreToolUse, Stop' }, 'unknown hook event "PreTolUse" (the events: PreToolUse, Stop)'],
  'hooks.notMatcherGroups': [{}, 'must be an array of matcher groups ({ "matcher": …, "hooks": [ … ] })'],
  'hooks.badMatcher': [{ matcher: '"[x"', error: 'Unterminated character class' }, 'the matcher "[x" is not a valid regular expression (Unterminated character class); the group\'s hooks do not run'],
  'hooks.otherHandlerType': [{ type: 'http' }, '"http" hooks are not supported; only "command" hooks run in Evergreen'],
  'hooks.asyncIgnored': [{}, 'hooks do not run in the background here: the session waits for this one like any other'],
  'hooks.ifIgnored': [{}, 'the "if" filter is not supported: the hook runs for every call its matcher selects'],
  'hooks.timeoutCut': [{ seconds: 5000, max: 3600 }, '5,000 seconds is more than the longest timeout taken; 3,600 is used'],
  'hooks.fileUnreadable': [{ error: 'EACCES' }, 'cannot be read: EACCES'],
  'hooks.notRegularFile': [{}, 'is not a regular file; it was not read'],
  'hooks.fileTooLarge': [{ bytes: '2000000', max: '1048576' }, 'is 2000000 bytes, more than a settings file may be (1048576); it was not read'],
  'hooks.fileMissing': [{}, 'does not exist'],
  'hooks.userDisabledAll': [{}, 'sets "disableAllHooks": no hook runs'],
  'hooks.workspaceDisabledAll': [{}, 'sets "disableAllHooks": the workspace\'s hooks do not run (yours still do)'],
  'hooks.untrusted': [{ count: 2, hooks: userText('hooks.describedAndMore', { hook: userText('verbatim', { text: 'a' }), more: userText('verbatim', { text: 'b' }) }) }, 'This workspace is not trusted, so its 2 hooks do not run: a; b. Trust the workspace to be asked about them.'],
  'hooks.withheld': [{ hooks: userText('verbatim', { text: 'a' }) }, 'This workspace defines hooks that do not run: a. A workspace hook runs a command the repository chose, so it needs your consent: run with --trust-workspace-hooks to allow them (they run in the sandbox).'],
  'hooks.described': [{ event: 'Stop', command: '"node" "x.js"', seconds: 60, file: '~/.claude/settings.json' }, 'Stop: "node" "x.js" (timeout 60 s, ~/.claude/settings.json)'],
  'hooks.describedMatching': [{ event: 'PreToolUse', matcher: 'Bash', command: 'rm -rf "$HOME"', seconds: 1.5, file: '.claude/settings.json' }, 'PreToolUse [Bash]: rm -rf "$HOME" (timeout 1.5 s, .claude/settings.json)'],
  'hooks.describedAndMore': [{ hook: userText('verbatim', { text: 'a' }), more: userText('verbatim', { text: 'b' }) }, 'a; b'],
  'hooks.cancelledBeforeStart': [{}, 'the session was cancelled before the hook started'],
  'hooks.sandboxCouldNotRun': [{ error: 'off' }, 'the sandbox could not run it: off'],
  'hooks.couldNotStart': [{ error: 'ENOENT' }, 'it could not be started: ENOENT'],
  'hooks.outputOverLimit': [{ megabytes: '0.01' }, 'wrote more than 0.01 MB of output'],
  'hooks.noSandbox': [{}, 'a workspace hook runs only in the sandbox, and this session has none'],
  'hooks.unknownReason': [{}, 'unknown reason'],
  'hooks.tooMuchOutput': [{}, 'wrote too much output'],
  'hooks.killedBy': [{ signal: 'SIGTERM' }, 'was killed by SIGTERM'],
  'hooks.killed': [{}, 'was killed by a signal'],
  'hooks.failedWithCode': [{ code: '1' }, 'failed with non-blocking status code 1'],
  'hooks.runTimedOut': [{ ...run, seconds: 1.5 }, `${RUN} did not finish within its timeout of 1.5 s and was stopped with all its processes; its output was ignored`],
  'hooks.runTooLarge': [{ ...run, reason: userText('hooks.outputOverLimit', { megabytes: '10' }) }, `${RUN} wrote more than 10 MB of output and was stopped with all its processes; its output was ignored`],
  'hooks.runNotStarted': [{ ...run, reason }, `${RUN} did not run: it could not be started: ENOENT`],
  'hooks.runInvalidJson': [{ ...run, brace: '{', error: 'Unexpected end of JSON input' }, `${RUN} its output starts with "{" but is not valid JSON (Unexpected end of JSON input), so it was ignored`],
  'hooks.runInvalidOutput': [{ ...run, where: '$.decision', problem: 'Invalid option' }, `${RUN} its JSON output is not valid at $.decision: Invalid option; it was ignored`],
  'hooks.runOutputForOtherEvent': [{ ...run, named: 'Stop' }, `${RUN} its hookSpecificOutput is for Stop, not PreToolUse; it was ignored`],
  'hooks.runError': [{ ...run, status: userText('hooks.failedWithCode', { code: '1' }), stderr: 'first' }, `${RUN} failed with non-blocking status code 1: first`],
  'hooks.runErrorSilent': [{ ...run, status: userText('hooks.killed', {}) }, `${RUN} was killed by a signal (no stderr output)`],
  'hooks.runSays': [{ ...run, message: 'hello' }, `${RUN} says: hello`],
  'hooks.runExit2': [{ ...run, stderr: 'no' }, `${RUN} exited with 2: no`],
  'hooks.runExit2Silent': [run, `${RUN} exited with 2: (no stderr output)`],
  'hooks.runDeferIgnored': [run, `${RUN} answered "defer", which Evergreen does not support; the usual approval applies`],
  'hooks.runAllowRefused': [run, `${RUN} answered "allow", but a workspace hook may only deny or ask; the usual approval applies`],
  'hooks.stopGuard': [{ event: 'Stop', continuations: 8, max: 8 }, 'Stop hooks kept the agent going 8 times in a row; it stops now (at most 8). A hook can read stop_hook_active to let it stop.'],
  'hooks.couldNotRun': [{ event: 'Stop', error: 'boom' }, 'The Stop hooks could not run: boom. The session goes on without them.'],
  'hooks.endedTurn': [{ reason: 'done' }, 'A hook ended the turn: done'],
  'hooks.workspaceHooksNeedSandbox': [{ count: 1 }, "The workspace's hooks you allowed run only in the command sandbox, which is off or cannot run here: it does not run in this chat (each run says so)."],
  'hooks.promptBlocked': [{ reasons: 'not today' }, 'A UserPromptSubmit hook blocked this prompt; it was not sent: not today'],
  'hooks.promptBlockedHint': [{}, 'Change the prompt, or the hook (its line above names its file).'],
};

describe('hooks: what the core says, worded', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('words every kind as the user read it before kinds (the CLI, English)', () => {
    for (const [kind, [data, english]] of Object.entries(ENGLISH)) assert.equal(said(userText(kind as keyof HookTexts, data as never)), english, kind);
  });

  it('chooses the sentence by count', () => {
    assert.equal(said(userText('hooks.untrusted', { count: 1, hooks: userText('verbatim', { text: 'a' }) })), 'This workspace is not trusted, so its hook does not run: a. Trust the workspace to be asked about them.');
    assert.equal(
      said(userText('hooks.workspaceHooksNeedSandbox', { count: 3 })),
      "The workspace's hooks you allowed run only in the command sandbox, which is off or cannot run here: these 3 do not run in this chat (each run says so).",
    );
  });

  it("says how to allow a workspace's hooks in each front end's own terms, the core naming neither", () => {
    const hook = defineHook('UserPromptSubmit', 'echo hi', { scope: 'workspace' });
    const sorted = sortHooksByConsent([hook], { consentedKeys: new Set(), workspaceTrusted: true });
    const notices = hookStartNotices([], sorted);
    assert.equal(notices.length, 1);
    const [notice] = notices;
    assert.equal(notice!.level, 'warning');
    assert.equal(notice!.message.kind, 'hooks.withheld', 'a kind, no English');
    const shown = 'This workspace defines hooks that do not run: UserPromptSubmit: echo hi (timeout 60 s, .claude/settings.json). A workspace hook runs a command the repository chose, so it needs your consent: ';
    assert.equal(said(notice!.message), `${shown}run with --trust-workspace-hooks to allow them (they run in the sandbox).`);
    configureWords({ locale: 'en', voice: 'extension' });
    assert.equal(said(notice!.message), `${shown}allow them when Evergreen asks at the start of a New Chat.`);
  });

  it('words a settings problem around the parser\'s own words, and numbers in the user\'s locale', () => {
    const problem: UserText = userText('hooks.timeoutCut', { seconds: 5000, max: 3600 });
    const [notice] = hookStartNotices([{ where: 'a.json $.hooks.Stop[0].hooks[0].timeout', message: problem, level: 'info' }], sortHooksByConsent([], { consentedKeys: new Set(), workspaceTrusted: true }));
    assert.equal(notice!.level, 'info');
    assert.equal(said(notice!.message), 'Hook settings a.json $.hooks.Stop[0].hooks[0].timeout: 5,000 seconds is more than the longest timeout taken; 3,600 is used.');
    configureWords({ locale: 'de', voice: 'extension' });
    assert.match(said(notice!.message), /5\.000 seconds .* 3\.600 is used/);
  });

  it('reads back a recorded notice: a kind with its data, and an older record that holds its English', () => {
    const message = userText('hooks.endedTurn', { reason: 'done' });
    const stored = JSON.parse(JSON.stringify({ level: 'info', message })) as unknown;
    const now = hookEventFromRecord('hook_notice', stored, 't1');
    assert.equal(now?.type, 'hook_notice');
    assert.deepEqual(now?.type === 'hook_notice' && now.message, message);
    assert.equal(now?.type === 'hook_notice' && said(now.message), 'A hook ended the turn: done');
    const old = hookEventFromRecord('hook_notice', { level: 'warning', message: 'The Stop hook "x" (y) exited with 2: no' }, 't2');
    assert.equal(old?.type, 'hook_notice');
    assert.equal(old?.type === 'hook_notice' && old.message.kind, 'verbatim');
    assert.equal(old?.type === 'hook_notice' && said(old.message), 'The Stop hook "x" (y) exited with 2: no');
    assert.equal(hookEventFromRecord('hook_notice', { level: 'warning', message: 42 }, 't3'), undefined, 'a record that is neither is left out');
  });
});

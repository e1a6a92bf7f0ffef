/**
 * Hooks at their places in a real session (issue 29), on both back ends: real hook processes
 * (bash), the real OS sandbox for the workspace's, the strict fakes for the model. Each event,
 * each exit code and the JSON decisions where the session acts on them, and what the transcript
 * keeps for a resume.
 */
import type { UserText } from '../../src/core/texts/userText';
import { said } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { foldTranscript } from '../../src/core/agent/fold';
import { MAX_STOP_HOOK_CONTINUATIONS } from '../../src/core/hooks/decisions';
import { textsOf } from '../../src/core/model/content';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { BACKENDS, say } from '../support/backends';
import { group, hookNotes, markerPath, ownTexts, readIfExists, resultsIn, userHooks, type HarnessOptions, type HookHarness, printField, useHookSessions } from '../support/hookSession';


for (const backend of BACKENDS) {
  describe(`hooks in a session [${backend.name}]`, function () {
    this.timeout(60_000);
    const sessions = useHookSessions(backend);
    const { temp } = sessions;
    const open = (options: HarnessOptions): Promise<HookHarness> => sessions.open(options);

    describe('SessionStart and UserPromptSubmit', () => {
      it("adds SessionStart's stdout before the first prompt and UserPromptSubmit's after it, through tier 0, recorded for a resume", async () => {
        const hooks = userHooks({ SessionStart: [group('echo "Ticket: EVG-42"; exit 0')], UserPromptSubmit: [group(printField('prompt') + ' | tr a-z A-Z')] });
        const h = await open({ hooks });
        sessions.fake.enqueue(say.text('Noted.'));
        assert.equal(await h.started.session.send('fix the bug'), 'end_turn');
        const [first] = sessions.fake.requests();
        const message = first!.messages.at(-1);
        assert.deepEqual(hookNotes(message), ['SessionStart: Ticket: EVG-42', 'UserPromptSubmit: FIX THE BUG']);
        assert.deepEqual(ownTexts(message), ['fix the bug']);
        // Before the prompt, then after it.
        assert.deepEqual(
          textsOf(message!).map((text) => (text.startsWith('<hook-output') ? 'note' : text)),
          ['note', 'fix the bug', 'note'],
        );
        assert.deepEqual(
          h.runs().map((run) => [run.event, run.outcome, run.exitCode]),
          [
            ['SessionStart', 'ok', 0],
            ['UserPromptSubmit', 'ok', 0],
          ],
        );
        assert.equal(h.runs('SessionStart')[0]!.output, 'Ticket: EVG-42');
        // The gauge counts what the hooks added: it is part of the message.
        const id = h.started.handle.id;
        await h.started.close();

        // Resumed: the same message is sent again, and the chat shows the same lines.
        const folded = foldTranscript((await readTranscript(path.join(h.storage, 'sessions', id, 'transcript.jsonl'))).entries);
        assert.deepEqual(
          folded.display.filter((event) => event.type === 'hook_run').map((event) => event.type === 'hook_run' && event.run.event),
          ['SessionStart', 'UserPromptSubmit'],
        );
        assert.equal(folded.display.filter((event) => event.type === 'turn_started').length, 1, 'the notes open no turn of their own');
        const resumed = await open({ resume: { id, workspace: h.workspace, storage: h.storage } });
        sessions.fake.enqueue(say.text('Again.'));
        await resumed.started.session.send('and now?');
        const again = sessions.fake.requests().at(-1)!;
        assert.deepEqual(hookNotes(again.messages[0]), ['SessionStart: Ticket: EVG-42', 'UserPromptSubmit: FIX THE BUG']);
        assert.deepEqual(resumed.runs(), [], 'no hook is configured in the resumed session');
      });

      it('puts a huge hook output through tier 0: the request carries a preview and the saved file has all of it', async () => {
        const hooks = userHooks({ UserPromptSubmit: [group("head -c 200000 /dev/zero | tr '\\0' 'x'; echo")] });
        const h = await open({ hooks });
        sessions.fake.enqueue(say.text('Fine.'));
        await h.started.session.send('hello');
        const note = hookNotes(sessions.fake.requests()[0]!.messages.at(-1))[0]!;
        assert.ok(note.length < 20_000, `the note is ${note.length} characters`);
        assert.match(note, /Output too large for the context/);
        const saved = /(\/\S+\.txt)/.exec(note)?.[1];
        assert.ok(saved && fs.readFileSync(saved, 'utf8').length >= 200_000, note.slice(0, 400));
        const run = h.runs('UserPromptSubmit')[0]!;
        assert.ok(run.output!.length <= 2_001);
        assert.ok(run.outputFile && fs.readFileSync(run.outputFile, 'utf8').includes('x'.repeat(200_000)));
      });

      it('exit 2 on UserPromptSubmit: the prompt is not sent and the user reads stderr; what SessionStart added waits for the next prompt', async () => {
        const hooks = userHooks({ SessionStart: [group('echo started')], UserPromptSubmit: [group(`${printField('prompt')} | grep -q secret && { echo "prompts must not name secrets" >&2; exit 2; }; exit 0`)] });
        const h = await open({ hooks });
        assert.equal(await h.started.session.send('print the secret'), 'error');
        assert.equal(sessions.fake.requests().length, 0, 'nothing was sent');
        const error = h.events.find((event) => event.type === 'error');
        assert.ok(error?.type === 'error');
        assert.equal(error.kind, 'hook_blocked');
        assert.match(said(error.message), /blocked this prompt; it was not sent: prompts must not name secrets/);
        assert.equal(h.started.session.history.length, 0);
        sessions.fake.enqueue(say.text('Ok.'));
        assert.equal(await h.started.session.send('hello'), 'end_turn');
        assert.deepEqual(hookNotes(sessions.fake.requests()[0]!.messages.at(-1)), ['SessionStart: started']);
      });

      it('a JSON decision "block" blocks the prompt, additionalContext adds text, and another exit code is a notice that stops nothing', async () => {
        const block = userHooks({ UserPromptSubmit: [group(`echo '{"decision":"block","reason":"not on Fridays"}'`)] });
        const h = await open({ hooks: block });
        assert.equal(await h.started.session.send('deploy'), 'error');
        assert.match(h.events.find((event) => event.type === 'error')?.type === 'error' ? said((h.events.find((event) => event.type === 'error') as { message: UserText }).message) : '', /not on Fridays/);

        const context = userHooks({
          UserPromptSubmit: [
            group(`echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Style guide: tabs."}}'`),
            group('echo "broken" >&2; exit 1'),
          ],
        });
        const h2 = await open({ hooks: context });
        sessions.fake.enqueue(say.text('Ok.'));
        assert.equal(await h2.started.session.send('format it'), 'end_turn');
        assert.deepEqual(hookNotes(sessions.fake.requests()[0]!.messages.at(-1)), ['UserPromptSubmit: Style guide: tabs.']);
        assert.deepEqual(
          h2.runs().map((run) => [run.outcome, run.exitCode]),
          [
            ['ok', 0],
            ['error', 1],
          ],
        );
        assert.ok(h2.notices().some((notice) => /failed with non-blocking status code 1: broken/.test(notice)), h2.notices().join('\n'));
      });
    });

    describe('PreToolUse and PostToolUse', () => {
      it('exit 2 denies a run_shell call: it does not run, and the model reads stderr as the result', async () => {
        const hooks = userHooks({ PreToolUse: [group(`${printField('tool_input.command')} | grep -q "rm -rf" && { echo "no rm -rf here" >&2; exit 2; }; exit 0`, { matcher: 'Bash' })] });
        const h = await open({ hooks });
        const victim = path.join(h.workspace, 'victim');
        fs.mkdirSync(victim);
        sessions.fake.enqueue(say.toolUse('run_shell', { command: `rm -rf ${victim}` }, { id: 'toolu_rm' }), say.text('Blocked, fine.'));
        await h.started.session.send('clean up');
        assert.ok(fs.existsSync(victim), 'the command never ran');
        assert.deepEqual(resultsIn(sessions.fake.requests()[1]), ['Blocked by a PreToolUse hook: no rm -rf here']);
        const finished = h.events.find((event) => event.type === 'tool_call_finished');
        assert.ok(finished?.type === 'tool_call_finished' && finished.isError);
        assert.deepEqual(
          h.runs('PreToolUse').map((run) => [run.outcome, run.exitCode]),
          [['denied', 2]],
        );
      });

      it('JSON "deny" refuses, "ask" asks the user first, "allow" skips the approval a write would need', async () => {
        const decide = (decision: string) => `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}","permissionDecisionReason":"policy says ${decision}"}}'`;
        const hooks = userHooks({
          PreToolUse: [group(decide('deny'), { matcher: 'read_file' }), group(decide('ask'), { matcher: 'Glob' }), group(decide('allow'), { matcher: 'Write' })],
        });
        const declined: string[] = [];
        const h = await open({
          hooks,
          files: { 'a.txt': 'alpha\n' },
          config: { approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] } },
          answer: (request) => (request.kind === 'hook' && declined.length === 0 ? (declined.push(request.tool), { approved: false }) : { approved: true }),
        });
        sessions.fake.enqueue(
          say.toolUses([
            { name: 'read_file', input: { path: 'a.txt' }, id: 'toolu_read' },
            { name: 'list_files', input: {}, id: 'toolu_list1' },
            { name: 'list_files', input: {}, id: 'toolu_list2' },
            { name: 'write_file', input: { path: 'b.txt', content: 'beta\n' }, id: 'toolu_write' },
          ]),
          say.text('Done.'),
        );
        await h.started.session.send('go');
        const [read, list1, list2, write] = resultsIn(sessions.fake.requests()[1]);
        assert.equal(read, 'Blocked by a PreToolUse hook: policy says deny');
        assert.match(list1!, /^Not run: a hook asked the user about this call and the user declined it\./);
        assert.match(list2!, /a\.txt/);
        assert.match(write!, /b\.txt/);
        assert.equal(fs.readFileSync(path.join(h.workspace, 'b.txt'), 'utf8'), 'beta\n');
        // Asked: the two hook questions (with the hook's reason and the call's input); the write asked nothing.
        assert.deepEqual(
          h.asked.map((request) => request.kind),
          ['hook', 'hook'],
        );
        const question = h.asked[0]!;
        assert.ok(question.kind === 'hook');
        assert.deepEqual([question.tool, question.reasons, question.input], ['list_files', ['policy says ask'], '{}']);
        assert.deepEqual(
          h.runs('PreToolUse').map((run) => run.outcome),
          ['denied', 'asked', 'asked', 'allowed'],
        );
      });

      it("a hook's allow never covers a protected file: that write still asks", async () => {
        const hooks = userHooks({ PreToolUse: [group(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)] });
        const h = await open({ hooks, config: { approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] } }, answer: () => ({ approved: false }) });
        sessions.fake.enqueue(say.toolUse('write_file', { path: '.vscode/tasks.json', content: '{}' }, { id: 'toolu_tasks' }), say.text('Ok.'));
        await h.started.session.send('add a task');
        assert.deepEqual(
          h.asked.map((request) => request.kind === 'write' && request.protectedReason !== undefined),
          [true],
        );
        assert.ok(!fs.existsSync(path.join(h.workspace, '.vscode', 'tasks.json')));
      });

      it("PostToolUse: exit 2's stderr and additionalContext reach the model after the round's results; exit 0's stdout only the chat", async () => {
        const hooks = userHooks({
          PostToolUse: [
            group(`${printField('tool_response.filePath')} >&2; exit 2`, { matcher: 'Write' }),
            group(`echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: clean"}}'`, { matcher: 'write_file' }),
            group('echo "just a log line"'),
          ],
        });
        const h = await open({ hooks });
        sessions.fake.enqueue(say.toolUse('write_file', { path: 'c.txt', content: 'gamma\n' }, { id: 'toolu_c' }), say.text('Ok.'));
        await h.started.session.send('write c');
        const last = sessions.fake.requests()[1]!.messages.at(-1);
        assert.match(resultsIn(sessions.fake.requests()[1])[0]!, /c\.txt/);
        assert.deepEqual(hookNotes(last), [`PostToolUse: ${path.join(h.workspace, 'c.txt')}`, 'PostToolUse: lint: clean']);
        assert.deepEqual(
          h.runs('PostToolUse').map((run) => run.outcome),
          ['blocked', 'ok', 'ok'],
        );
        assert.equal(h.runs('PostToolUse')[2]!.output, 'just a log line');
      });

      it('continue: false ends the turn after the round, and the user reads why', async () => {
        const hooks = userHooks({ PostToolUse: [group(`echo '{"continue":false,"stopReason":"Build broke: stop here"}'`)] });
        const h = await open({ hooks, files: { 'a.txt': 'a' } });
        sessions.fake.enqueue(say.toolUse('read_file', { path: 'a.txt' }), say.text('never asked for'));
        assert.equal(await h.started.session.send('read it'), 'end_turn');
        assert.equal(sessions.fake.requests().length, 1);
        assert.ok(h.notices().includes('A hook ended the turn: Build broke: stop here'), h.notices().join('\n'));
        assert.equal(sessions.fake.pendingReplies(), 1);
      });
    });

    describe('Stop, notifications, the session end', () => {
      it('exit 2 on Stop goes on with the reason; a hook that reads stop_hook_active lets it stop', async () => {
        const flag = path.join(temp.make('evergreen-hooks-flag-'), 'FAILING');
        fs.writeFileSync(flag, '');
        const hooks = userHooks({ Stop: [group(`${printField('stop_hook_active')} | grep -q true && exit 0; test -e ${flag} && { echo "tests fail: fix them" >&2; exit 2; }; exit 0`)] });
        const h = await open({ hooks });
        sessions.fake.enqueue(say.text('All done.'), say.text('Fixed the tests.'));
        assert.equal(await h.started.session.send('do it'), 'end_turn');
        const [, second] = sessions.fake.requests();
        assert.deepEqual(hookNotes(second!.messages.at(-1)), ['Stop: tests fail: fix them']);
        assert.deepEqual(
          h.runs('Stop').map((run) => run.outcome),
          ['blocked', 'ok'],
        );
        assert.equal(sessions.fake.requests().length, 2);
      });

      it(`stops a Stop hook that never lets go after ${MAX_STOP_HOOK_CONTINUATIONS} continuations, with a notice`, async () => {
        const hooks = userHooks({ Stop: [group('echo "keep going" >&2; exit 2')] });
        const h = await open({ hooks });
        for (let index = 0; index <= MAX_STOP_HOOK_CONTINUATIONS; index++) sessions.fake.enqueue(say.text(`reply ${index}`));
        assert.equal(await h.started.session.send('go'), 'end_turn');
        assert.equal(sessions.fake.requests().length, MAX_STOP_HOOK_CONTINUATIONS + 1);
        assert.ok(h.notices().some((notice) => /kept the agent going 8 times in a row; it stops now/.test(notice)), h.notices().join('\n'));
        // The next message starts the count again.
        for (let index = 0; index <= MAX_STOP_HOOK_CONTINUATIONS; index++) sessions.fake.enqueue(say.text(`again ${index}`));
        assert.equal(await h.started.session.send('once more'), 'end_turn');
        assert.equal(sessions.fake.requests().length, 2 * (MAX_STOP_HOOK_CONTINUATIONS + 1));
        assert.equal(h.runs('Stop').length, 2 * (MAX_STOP_HOOK_CONTINUATIONS + 1));
      });

      it('Notification fires when an approval waits and when the turn ends; SessionEnd when the session closes', async () => {
        const hooks = userHooks({
          Notification: [group(`${printField('notification_type')} >> "$CLAUDE_PROJECT_DIR/notified"; echo >> "$CLAUDE_PROJECT_DIR/notified"`)],
          SessionEnd: [group(`${printField('reason')} > "$CLAUDE_PROJECT_DIR/ended"`)],
        });
        const h = await open({ hooks, config: { approvalPolicy: { writes: 'ask', shell: 'ask', shellAllowList: [] } } });
        sessions.fake.enqueue(say.toolUse('write_file', { path: 'n.txt', content: 'n' }), say.text('Done.'));
        await h.started.session.send('write n');
        await h.started.close();
        assert.deepEqual(readIfExists(markerPath(h.workspace, 'notified'))?.trim().split('\n').sort(), ['idle_prompt', 'permission_prompt']);
        assert.equal(readIfExists(markerPath(h.workspace, 'ended')), 'other');
      });
    });
  });
}

/**
 * Hooks in a real session (issue 29), on both back ends, continued: the limits (a timeout that takes
 * a grandchild along, invalid JSON, output over the cap: each a notice, the session goes on), the
 * compaction hooks (PreCompact's stdout in the summary's focus, its block, PostCompact), a
 * subagent's calls and its SubagentStop, and Claude Code's own example hooks, unchanged, against
 * run_shell and write_file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { textsOf } from '../../src/core/model/content';
import type { SentRequest } from '../support/backends';
import { BACKENDS, say } from '../support/backends';
import { BASH_VALIDATOR, FORMATTER } from '../support/hookFixtures';
import { group, hookNotes, markerPath, readIfExists, resultsIn, userHooks, type HarnessOptions, type HookHarness, printField, useHookSessions } from '../support/hookSession';
import { markedProcesses, markedSleep, waitForMarked } from '../support/processMarkers';
import { said } from '../support/said';

const NODE = JSON.stringify(process.execPath);
const lastUserText = (request: SentRequest): string => textsOf(request.messages.at(-1)!).join('\n');
const SUMMARY = '<analysis>a</analysis><summary>1. Primary request: hello.</summary>';

for (const backend of BACKENDS) {
  describe(`hooks in a session: limits, compaction, subagents, Claude Code's examples [${backend.name}]`, function () {
    this.timeout(60_000);
    const sessions = useHookSessions(backend);
    const open = (options: HarnessOptions): Promise<HookHarness> => sessions.open(options);

    it('a PreToolUse hook past its timeout is stopped with its grandchild; the call runs as if it had said nothing', async () => {
      const marker = `evergreen-session-hook-grandchild-${backend.name}-${process.pid}`;
      const hooks = userHooks({ PreToolUse: [group(`setsid ${markedSleep(marker)} & sleep 300`, { timeout: 1.5 })] });
      const h = await open({ hooks, files: { 'a.txt': 'alpha' } });
      sessions.fake.enqueue(say.toolUse('read_file', { path: 'a.txt' }), say.text('Read it.'));
      const turn = h.started.session.send('read a');
      assert.equal((await waitForMarked(marker, 1)).length, 1, 'the grandchild started');
      assert.equal(await turn, 'end_turn');
      assert.deepEqual(await markedProcesses(marker), [], 'the grandchild went with the hook');
      assert.match(resultsIn(sessions.fake.requests()[1])[0]!, /alpha/);
      assert.deepEqual(
        h.runs('PreToolUse').map((run) => [run.outcome, run.exitCode]),
        [['timeout', null]],
      );
      assert.ok(h.notices().some((notice) => /did not finish within its timeout of 1\.5 s and was stopped with all its processes/.test(notice)), h.notices().join('\n'));
    });

    it('invalid JSON and output over 10 MB are notices; the prompt goes out and the turn ends well', async () => {
      const spew = `${NODE} -e 'const b=Buffer.alloc(1<<20,97);let n=0;const w=()=>{while(n<12){n++;if(!process.stdout.write(b))return process.stdout.once("drain",w)}};w()'; sleep 30`;
      const hooks = userHooks({ UserPromptSubmit: [group(`echo '{"decision": "block", oops'`), group(spew)] });
      const h = await open({ hooks });
      sessions.fake.enqueue(say.text('Hi.'));
      assert.equal(await h.started.session.send('hello'), 'end_turn');
      assert.equal(sessions.fake.requests().length, 1);
      assert.deepEqual(hookNotes(sessions.fake.requests()[0]!.messages.at(-1)), []);
      assert.deepEqual(
        h.runs().map((run) => run.outcome),
        ['error', 'too_large'],
      );
      const notices = h.notices().join('\n');
      assert.match(notices, /starts with "\{" but is not valid JSON .*so it was ignored/);
      assert.match(notices, /wrote more than 10 MB of output and was stopped with all its processes/);
    });

    it("PreCompact's stdout joins the summary's focus and PostCompact gets the summary; exit 2 skips the compaction", async () => {
      const hooks = userHooks({
        PreCompact: [group('echo "Keep the list of failing tests."', { matcher: 'manual' })],
        PostCompact: [group(`${printField('compact_summary')} > "$CLAUDE_PROJECT_DIR/summary.txt"`)],
      });
      const h = await open({ hooks });
      sessions.fake.setResponder((request) => (lastUserText(request).includes('CONTEXT COMPACTION') ? say.text(SUMMARY) : say.text('Hello!')));
      await h.started.session.send('say hello');
      await h.started.session.send('say it again');
      const outcome = await h.started.session.compact('the greetings');
      assert.ok(outcome.ok, said(outcome.message));
      const instruction = lastUserText(sessions.fake.requests().at(-1)!);
      assert.match(instruction, /focus on: the greetings\n\nKeep the list of failing tests\./);
      assert.match(readIfExists(markerPath(h.workspace, 'summary.txt')) ?? '', /Primary request: hello/);
      assert.deepEqual(
        h.runs().map((run) => run.event),
        ['PreCompact', 'PostCompact'],
      );

      const blocking = userHooks({ PreCompact: [group('echo "not while the release runs" >&2; exit 2')] });
      const b = await open({ hooks: blocking });
      await b.started.session.send('say hello');
      await b.started.session.send('say it again');
      const requests = sessions.fake.requests().length;
      const refused = await b.started.session.compact();
      assert.equal(refused.ok, false);
      assert.match(said(refused.message), /a PreCompact hook blocked it: not while the release runs/);
      assert.equal(sessions.fake.requests().length, requests, 'no summary was requested');
    });

    it("runs PreToolUse on a subagent's calls (with its agent_type) and SubagentStop when it ends; exit 2 keeps the child going", async () => {
      const hooks = userHooks({
        PreToolUse: [group(`${printField('agent_type')} >> "$CLAUDE_PROJECT_DIR/agents.log"; echo >> "$CLAUDE_PROJECT_DIR/agents.log"`, { matcher: 'read_file' })],
        SubagentStop: [group(`${printField('stop_hook_active')} | grep -q true && exit 0; echo "check the tests too" >&2; exit 2`, { matcher: 'explore' })],
      });
      const h = await open({ hooks, files: { 'a.txt': 'alpha' } });
      sessions.fake.enqueue(
        say.toolUse('task', { description: 'look around', prompt: 'Read a.txt.', agent_type: 'explore' }, { id: 'toolu_task' }),
        say.toolUse('read_file', { path: 'a.txt' }),
        say.text('a.txt says alpha.'),
        say.text('No tests here.'),
        say.text('The child is done.'),
      );
      assert.equal(await h.started.session.send('explore'), 'end_turn');
      assert.equal(readIfExists(markerPath(h.workspace, 'agents.log')), 'explore\n');
      const childFinal = sessions.fake.requests()[3]!;
      assert.deepEqual(hookNotes(childFinal.messages.at(-1)), ['SubagentStop: check the tests too']);
      assert.match(resultsIn(sessions.fake.requests()[4])[0]!, /No tests here\./);
      // The child's hook lines show in the parent's chat, under the parent's turn.
      assert.deepEqual(
        h.runs().map((run) => [run.event, run.outcome]),
        [
          ['PreToolUse', 'ok'],
          ['SubagentStop', 'blocked'],
          ['SubagentStop', 'ok'],
        ],
      );
    });

    it("runs Claude Code's example hooks unchanged: the bash validator refuses grep in run_shell, the formatter cleans what write_file wrote", async () => {
      const hooks = userHooks({
        PreToolUse: [group(`${NODE} "$CLAUDE_PROJECT_DIR/.claude/hooks/bash_command_validator.js"`, { matcher: 'Bash' })],
        PostToolUse: [group(`${NODE} "$CLAUDE_PROJECT_DIR/.claude/hooks/format.js"`, { matcher: 'Edit|Write|MultiEdit', timeout: 30 })],
      });
      const e = await open({ hooks, files: { '.claude/hooks/bash_command_validator.js': BASH_VALIDATOR, '.claude/hooks/format.js': FORMATTER } });
      sessions.fake.enqueue(
        say.toolUses([
          { name: 'run_shell', input: { command: 'grep -r TODO .' }, id: 'toolu_grep' },
          { name: 'write_file', input: { path: 'src/a.ts', content: 'const a = 1;   \nconst b = 2;\t\n' }, id: 'toolu_write' },
        ]),
        say.text('Done.'),
      );
      await e.started.session.send('find TODOs and write a.ts');
      const [grep, write] = resultsIn(sessions.fake.requests().at(-1));
      assert.equal(grep, "Blocked by a PreToolUse hook: • Use 'rg' (ripgrep) instead of 'grep' for better performance and features");
      assert.match(write!, /a\.ts/);
      assert.equal(fs.readFileSync(path.join(e.workspace, 'src', 'a.ts'), 'utf8'), 'const a = 1;\nconst b = 2;\n');
      assert.equal(e.runs('PostToolUse')[0]!.output, 'Auto-formatted a.ts');
    });
  });
}

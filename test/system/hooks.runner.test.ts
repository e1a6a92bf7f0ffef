// Hooks as real processes (src/core/hooks/runner.ts, dispatch.ts, events.ts, tools/processTree.ts):
// the JSON each event writes to stdin, the environment, exit codes, parallel runs, a timeout that
// takes a `setsid` grandchild along, output over the cap, a cancel, and workspace hooks in the
// sandbox seam only. Every hook is short or stopped by a timeout of at most a few seconds.
import { said } from '../support/said';
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { hookCommandLine, runHooks, type HookDispatchOptions } from '../../src/core/hooks/dispatch';
import { hookInput, type HookCall, type HookInput, type HookSession } from '../../src/core/hooks/events';
import { MAX_HOOK_OUTPUT_BYTES } from '../../src/core/hooks/runner';
import { DISABLED_SANDBOX, type CommandSandbox } from '../../src/core/shell/commandSandbox';
import { pidNamespaceAvailable, type TreeContainment } from '../../src/core/shell/processTree';
import { markedProcesses, markedSleep, waitForMarked } from '../support/processMarkers';
import { defineHook } from '../support/hookFixtures';
import { useTempDirs } from '../support/tempDirs';

const NODE = JSON.stringify(process.execPath);
const KEY = 'sk-ant-hooks-test-0123456789abcdef';

/** One call of every event, with the stdin JSON each must produce for the session below. */
function everyEvent(session: HookSession): { call: HookCall; input: HookInput }[] {
  const base = { session_id: session.sessionId, transcript_path: session.transcriptPath, cwd: session.projectDir };
  const abs = (relative: string) => path.join(session.projectDir, relative);
  return [
    { call: { event: 'SessionStart', source: 'resume', model: 'claude-sonnet-4-5' }, input: { ...base, hook_event_name: 'SessionStart', source: 'resume', model: 'claude-sonnet-4-5' } },
    { call: { event: 'UserPromptSubmit', prompt: 'fix the bug' }, input: { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'fix the bug' } },
    {
      call: { event: 'PreToolUse', toolName: 'run_shell', toolInput: { command: 'npm test', timeout_ms: 120000, description: 'tests' }, toolUseId: 'toolu_1' },
      input: {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        evergreen_tool_name: 'run_shell',
        tool_input: { command: 'npm test', timeout_ms: 120000, description: 'tests', timeout: 120000 },
        tool_use_id: 'toolu_1',
      },
    },
    {
      call: { event: 'PostToolUse', toolName: 'write_file', toolInput: { path: 'src/a.ts', content: 'x' }, toolUseId: 'toolu_2', result: { content: 'Wrote src/a.ts', isError: false }, agent: { id: 'sub-1', type: 'general' } },
      input: {
        ...base,
        hook_event_name: 'PostToolUse',
        tool_name: 'Write',
        evergreen_tool_name: 'write_file',
        tool_input: { path: 'src/a.ts', content: 'x', file_path: abs('src/a.ts') },
        tool_use_id: 'toolu_2',
        agent_id: 'sub-1',
        agent_type: 'general',
        tool_response: { content: 'Wrote src/a.ts', is_error: false, filePath: abs('src/a.ts'), success: true },
      },
    },
    { call: { event: 'PreCompact', trigger: 'manual', customInstructions: 'keep the plan' }, input: { ...base, hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'keep the plan' } },
    { call: { event: 'PostCompact', trigger: 'auto', summary: 'We fixed it.' }, input: { ...base, hook_event_name: 'PostCompact', trigger: 'auto', compact_summary: 'We fixed it.' } },
    { call: { event: 'Stop', lastAssistantMessage: 'Done.', continuations: 1 }, input: { ...base, hook_event_name: 'Stop', stop_hook_active: true, last_assistant_message: 'Done.' } },
    {
      call: { event: 'SubagentStop', agent: { id: 'sub-2', type: 'explore' }, lastAssistantMessage: 'Found 3.', continuations: 0 },
      input: { ...base, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: 'sub-2', agent_type: 'explore', last_assistant_message: 'Found 3.' },
    },
    {
      call: { event: 'Notification', notificationType: 'permission_prompt', message: 'Evergreen needs your approval', title: 'Approval' },
      input: { ...base, hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Evergreen needs your approval', title: 'Approval' },
    },
    { call: { event: 'SessionEnd', reason: 'prompt_input_exit' }, input: { ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' } },
  ];
}

describe('hooks: real runs', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let base: string;
  let project: string;
  let session: HookSession;
  let options: HookDispatchOptions;

  beforeEach(() => {
    base = temp.make('evergreen-hooks-run-');
    // A space in the path: quoting mistakes show.
    project = path.join(base, 'my project');
    mkdirSync(project, { recursive: true });
    session = { sessionId: 'session-1', transcriptPath: path.join(base, 'transcript.jsonl'), projectDir: project };
    options = { session, env: { ...process.env, ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY } };
  });

  it('every event writes its input JSON to stdin, as Claude Code names the fields', async () => {
    const events = everyEvent(session);
    for (const { call, input } of events) assert.deepEqual(hookInput(call, session), input, call.event);
    // Through a real process: the hook copies stdin to a file named after the event.
    const copy = `${NODE} -e 'const fs=require("fs");const d=JSON.parse(fs.readFileSync(0,"utf8"));fs.writeFileSync(d.hook_event_name+".json",JSON.stringify(d))'`;
    const hooks = events.map(({ call }) => defineHook(call.event, copy));
    for (const { call, input } of events) {
      const outcome = await runHooks(hooks, call, options);
      assert.deepEqual(
        outcome.records.map((record) => [record.outcome, record.stderr]),
        [['ok', '']],
        call.event,
      );
      assert.deepEqual(JSON.parse(readFileSync(path.join(project, `${call.event}.json`), 'utf8')), input);
    }
  });

  it('runs in the project folder with CLAUDE_PROJECT_DIR and EVERGREEN_PROJECT_DIR, and without the provider keys', async () => {
    const hook = defineHook('UserPromptSubmit', `echo "cwd=$PWD"; echo "claude=$CLAUDE_PROJECT_DIR"; echo "evergreen=$EVERGREEN_PROJECT_DIR"; echo "key=\${ANTHROPIC_API_KEY:-none} \${OPENAI_API_KEY:-none}"`);
    const outcome = await runHooks([hook], { event: 'UserPromptSubmit', prompt: 'hi' }, options);
    assert.deepEqual(outcome.context.map((item) => item.text), [`cwd=${project}\nclaude=${project}\nevergreen=${project}\nkey=none none`]);
  });

  it('exec form: args are passed as words, with ${CLAUDE_PROJECT_DIR} substituted', async () => {
    writeFileSync(path.join(project, 'argv.js'), 'console.log(JSON.stringify(process.argv.slice(2)))');
    const hook = defineHook('SessionStart', process.execPath, { args: ['${CLAUDE_PROJECT_DIR}/argv.js', "it's $HOME", '`x`'] });
    assert.ok(hookCommandLine(hook, project).startsWith(`'${process.execPath}'`));
    const outcome = await runHooks([hook], { event: 'SessionStart', source: 'startup' }, options);
    assert.deepEqual(
      outcome.context.map((item) => JSON.parse(item.text) as unknown),
      [["it's $HOME", '`x`']],
    );
  });

  it('exit codes: 2 blocks with stderr, 1 and a missing program are non-blocking errors with their first stderr line', async () => {
    const call: HookCall = { event: 'PreToolUse', toolName: 'run_shell', toolInput: { command: 'rm -rf /' }, toolUseId: 't' };
    const blocked = await runHooks([defineHook('PreToolUse', 'echo "no rm" >&2; exit 2')], call, options);
    assert.equal(blocked.permission?.decision, 'deny');
    assert.deepEqual(blocked.permission!.reasons.map((reason) => reason.text), ['no rm']);
    const failed = await runHooks([defineHook('PreToolUse', 'echo first >&2; echo second >&2; exit 1'), defineHook('PreToolUse', './does-not-exist.sh')], call, options);
    assert.equal(failed.permission, undefined);
    assert.deepEqual(
      failed.records.map((record) => [record.outcome, record.exitCode]),
      [
        ['error', 1],
        ['error', 127],
      ],
    );
    assert.match(said(failed.notices[0]!.message), /non-blocking status code 1: first$/);
    assert.match(said(failed.notices[1]!.message), /non-blocking status code 127: .*does-not-exist\.sh.*No such file/);
  });

  it('invalid JSON on stdout is a notice and the session goes on', async () => {
    const outcome = await runHooks([defineHook('Stop', `echo '{"decision": "block", "reason": '`)], { event: 'Stop', lastAssistantMessage: '', continuations: 0 }, options);
    assert.deepEqual(outcome.continueWith, []);
    assert.deepEqual(
      outcome.notices.map((notice) => notice.kind),
      ['invalid_json'],
    );
  });

  it('hooks of one event run in parallel, and a command defined twice runs once', async () => {
    const log = path.join(project, 'runs.log');
    const hooks = [
      defineHook('Stop', `sleep 1; echo a >> "${log}"`),
      defineHook('Stop', `sleep 1; echo b >> "${log}"`),
      defineHook('Stop', `sleep 1; echo c >> "${log}"`),
      defineHook('Stop', `sleep 1; echo a >> "${log}"`, { timeout: 30 }),
    ];
    const started = Date.now();
    const outcome = await runHooks(hooks, { event: 'Stop', lastAssistantMessage: '', continuations: 0 }, options);
    const elapsed = Date.now() - started;
    assert.equal(outcome.records.length, 3);
    assert.deepEqual(readFileSync(log, 'utf8').split('\n').filter(Boolean).sort(), ['a', 'b', 'c']);
    assert.ok(elapsed < 2_500, `three 1-second hooks took ${elapsed} ms`);
  });

  for (const containment of ['pid-namespace', 'process-group'] as const) {
    it(`a timeout stops the hook and its setsid grandchild (${containment})`, async function () {
      if (containment === 'pid-namespace' && !(await pidNamespaceAvailable())) this.skip(); // user namespaces refused here: the fallback case below still runs
      const marker = `evergreen-hook-grandchild-${containment}-${process.pid}`;
      const hook = defineHook('PreToolUse', `setsid ${markedSleep(marker)} & sleep 300`, { timeout: 1.5 });
      const running = runHooks([hook], { event: 'PreToolUse', toolName: 'run_shell', toolInput: { command: 'x' }, toolUseId: 't' }, { ...options, containment });
      assert.equal((await waitForMarked(marker, 1)).length, 1, 'the grandchild started');
      const outcome = await running;
      assert.equal(outcome.records[0]!.outcome, 'timeout');
      assert.equal(outcome.permission, undefined);
      assert.match(said(outcome.notices[0]!.message), /did not finish within its timeout of 1\.5 s/);
      assert.deepEqual(await markedProcesses(marker), [], 'the grandchild is gone (or a zombie) once the outcome is back');
    });
  }

  it('in a PID namespace even a daemonized grandchild, whose parent already exited, goes with the hook', async function () {
    if (!(await pidNamespaceAvailable())) this.skip(); // the documented limit of the process-group fallback
    const marker = `evergreen-hook-daemon-${process.pid}`;
    const hook = defineHook('SessionEnd', `(setsid ${markedSleep(marker)} &); echo started`);
    const outcome = await runHooks([hook], { event: 'SessionEnd', reason: 'other' }, { ...options, containment: 'pid-namespace' as TreeContainment });
    assert.equal(outcome.records[0]!.stdout, 'started\n');
    assert.deepEqual(await waitForMarked(marker, 0, 2_000), []);
  });

  it(`output over ${MAX_HOOK_OUTPUT_BYTES / (1024 * 1024)} MB stops the hook with a notice, never a crash`, async () => {
    const spew = `${NODE} -e 'const b=Buffer.alloc(1<<20,97);let n=0;const w=()=>{while(n<64){n++;if(!process.stdout.write(b))return process.stdout.once("drain",w)}};w()'; sleep 30`;
    const started = Date.now();
    const outcome = await runHooks([defineHook('UserPromptSubmit', spew)], { event: 'UserPromptSubmit', prompt: 'x' }, options);
    assert.equal(outcome.records[0]!.outcome, 'too_large');
    assert.deepEqual(outcome.context, []);
    assert.match(said(outcome.notices[0]!.message), /more than 10 MB of output and was stopped/);
    assert.ok(outcome.records[0]!.stdout.length <= MAX_HOOK_OUTPUT_BYTES + (1 << 20), `kept ${outcome.records[0]!.stdout.length} bytes`);
    assert.ok(Date.now() - started < 20_000, 'stopped at the cap, not at the timeout');
  });

  it('a cancel stops running hooks: no notice, the run is recorded as cancelled', async () => {
    const marker = `evergreen-hook-cancel-${process.pid}`;
    const controller = new AbortController();
    const running = runHooks([defineHook('Stop', `${markedSleep(marker)}`)], { event: 'Stop', lastAssistantMessage: '', continuations: 0 }, { ...options, signal: controller.signal });
    assert.equal((await waitForMarked(marker, 1)).length, 1);
    controller.abort();
    const outcome = await running;
    assert.equal(outcome.records[0]!.outcome, 'cancelled');
    assert.deepEqual(outcome.notices, []);
    assert.deepEqual(await markedProcesses(marker), []);
  });

  describe('the sandbox seam', () => {
    /** A stand-in for the OS sandbox: marks what it wraps and records the calls. */
    function fakeSandbox(): Pick<CommandSandbox, 'wrap'> & { wrapped: string[]; released: number } {
      const fake = {
        wrapped: [] as string[],
        released: 0,
        wrap(command: string, { shell }: { shell: string }) {
          fake.wrapped.push(command);
          return Promise.resolve({ file: shell, args: ['-c', `export CONFINED=yes\n${command}`], finish: async () => 'the sandbox refused a write', release: () => void fake.released++ });
        },
      };
      return fake;
    }
    const call: HookCall = { event: 'SessionStart', source: 'startup' };

    it("workspace hooks run through the sandbox's wrap; the user's own run as the user", async () => {
      const sandbox = fakeSandbox();
      const outcome = await runHooks([defineHook('SessionStart', 'echo "mine ${CONFINED:-no}"'), defineHook('SessionStart', 'echo "theirs ${CONFINED:-no}"; exit 3', { scope: 'workspace' })], call, { ...options, sandbox });
      assert.deepEqual(sandbox.wrapped, ['echo "theirs ${CONFINED:-no}"; exit 3']);
      assert.equal(sandbox.released, 1);
      assert.deepEqual(
        outcome.records.map((record) => [record.stdout, record.sandboxed, record.sandboxNote]),
        [
          ['mine no\n', false, undefined],
          ['theirs yes\n', true, 'the sandbox refused a write'],
        ],
      );
    });

    it('a workspace hook does not run without a working sandbox, and says why', async () => {
      const hook = defineHook('SessionStart', 'echo ran', { scope: 'workspace' });
      const none = await runHooks([hook], call, options);
      const off = await runHooks([hook], call, { ...options, sandbox: DISABLED_SANDBOX });
      for (const outcome of [none, off]) {
        assert.deepEqual(outcome.context, []);
        assert.equal(outcome.records[0]!.outcome, 'not_started');
      }
      assert.match(said(none.notices[0]!.message), /runs only in the sandbox, and this session has none/);
      assert.match(said(off.notices[0]!.message), /the sandbox could not run it: The sandbox is turned off/);
    });
  });
});

// Claude Code's documented example hooks, written the way its docs and examples/hooks/ write them
// (node here instead of python3 or jq, so the test needs nothing the machine may lack), kept in the
// user's ~/.claude/settings.json and run unchanged against Evergreen's run_shell, write_file and
// edit_file calls. If one of them needed a change to work here, a user's copy would too.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runHooks, type HookDispatchOptions } from '../../src/core/hooks/dispatch';
import type { HookCallFor } from '../../src/core/hooks/events';
import { loadHooks } from '../../src/core/hooks/load';
import type { ConfiguredHook } from '../../src/core/hooks/config';
import { BASH_VALIDATOR, BLOCK_RM, FORMATTER, PROTECT_FILES, TESTS_MUST_PASS } from '../support/hookFixtures';
import { useTempDirs } from '../support/tempDirs';

const NODE = JSON.stringify(process.execPath);

describe("hooks: Claude Code's examples, unchanged", function () {
  this.timeout(60_000);
  const suiteTemp = useTempDirs('all');
  let base: string;
  let project: string;
  let hooks: ConfiguredHook[];
  let options: HookDispatchOptions;

  before(async () => {
    base = suiteTemp.make('evergreen-hooks-examples-');
    const home = path.join(base, 'home');
    project = path.join(base, 'project');
    const scripts = path.join(project, '.claude', 'hooks');
    mkdirSync(scripts, { recursive: true });
    mkdirSync(path.join(home, '.claude'), { recursive: true });
    const script = (name: string, code: string) => {
      writeFileSync(path.join(scripts, name), code);
      return `${NODE} "$CLAUDE_PROJECT_DIR/.claude/hooks/${name}"`;
    };
    const settings = {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: script('bash_command_validator.js', BASH_VALIDATOR) }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: script('block-rm.js', BLOCK_RM) }] },
          { matcher: 'Edit|Write', hooks: [{ type: 'command', command: script('protect-files.js', PROTECT_FILES) }] },
        ],
        PostToolUse: [{ matcher: 'Edit|Write|MultiEdit', hooks: [{ type: 'command', command: script('format.js', FORMATTER), timeout: 30 }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "Current branch: main"' }] }],
        Stop: [{ hooks: [{ type: 'command', command: script('tests-must-pass.js', TESTS_MUST_PASS) }] }],
        Notification: [{ matcher: 'permission_prompt', hooks: [{ type: 'command', command: `${NODE} -e 'const i=JSON.parse(require("fs").readFileSync(0,"utf8"));require("fs").appendFileSync(process.env.CLAUDE_PROJECT_DIR+"/notifications.log",i.message+"\\n")'` }] }],
      },
    };
    writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
    const loaded = await loadHooks({ homeDir: home, workspaceRoot: project });
    assert.deepEqual(loaded.problems, []);
    hooks = loaded.hooks;
    options = { session: { sessionId: 's', transcriptPath: path.join(base, 't.jsonl'), projectDir: project } };
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const shell = (command: string): HookCallFor<'PreToolUse'> => ({ event: 'PreToolUse', toolName: 'run_shell', toolInput: { command, timeout_ms: 120_000 }, toolUseId: 't' });

  it('the bash command validator blocks grep and find -name in run_shell, with its messages for the model', async () => {
    const grep = await runHooks(hooks, shell('grep -r TODO src'), options);
    assert.equal(grep.permission?.decision, 'deny');
    assert.deepEqual(
      grep.permission!.reasons.map((reason) => reason.text),
      ["• Use 'rg' (ripgrep) instead of 'grep' for better performance and features"],
    );
    const find = await runHooks(hooks, shell('find . -name "*.ts"'), options);
    assert.match(find.permission!.reasons[0]!.text, /instead of 'find -name'/);
    const fine = await runHooks(hooks, shell('rg TODO src'), options);
    assert.equal(fine.permission, undefined);
    assert.deepEqual(fine.notices, []);
  });

  it('block-rm denies rm -rf through JSON output', async () => {
    const outcome = await runHooks(hooks, shell('rm -rf build'), options);
    assert.equal(outcome.permission?.decision, 'deny');
    assert.deepEqual(
      outcome.permission!.reasons.map((reason) => reason.text),
      ['Destructive command blocked by hook'],
    );
  });

  it('protect-files blocks write_file and edit_file on protected paths, by the absolute file_path', async () => {
    const write = await runHooks(hooks, { event: 'PreToolUse', toolName: 'write_file', toolInput: { path: '.env', content: 'KEY=1' }, toolUseId: 't' }, options);
    assert.equal(write.permission?.decision, 'deny');
    assert.equal(write.permission!.reasons[0]!.text, `Blocked: ${path.join(project, '.env')} matches protected pattern '.env'`);
    const edit = await runHooks(hooks, { event: 'PreToolUse', toolName: 'edit_file', toolInput: { path: 'package-lock.json', old_string: 'a', new_string: 'b', replace_all: false }, toolUseId: 't' }, options);
    assert.equal(edit.permission?.decision, 'deny');
    const allowed = await runHooks(hooks, { event: 'PreToolUse', toolName: 'write_file', toolInput: { path: 'src/a.ts', content: '' }, toolUseId: 't' }, options);
    assert.equal(allowed.permission, undefined);
  });

  it('the formatter runs after write_file and edit_file on the file tool_input.file_path names', async () => {
    for (const [toolName, toolInput] of [
      ['write_file', { path: 'src/written.ts', content: 'x' }],
      ['edit_file', { path: 'src/edited.ts', old_string: 'a', new_string: 'b', replace_all: false }],
    ] as const) {
      const file = path.join(project, toolInput.path);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, 'const a = 1;   \nconst b = 2;\t\n');
      const outcome = await runHooks(hooks, { event: 'PostToolUse', toolName, toolInput, toolUseId: 't', result: { content: 'ok', isError: false } }, options);
      assert.equal(readFileSync(file, 'utf8'), 'const a = 1;\nconst b = 2;\n', toolName);
      assert.deepEqual(
        outcome.records.map((record) => [record.outcome, record.stderr]),
        [['ok', `Auto-formatted ${path.basename(file)}\n`]],
      );
      assert.deepEqual([outcome.feedback, outcome.context, outcome.notices], [[], [], []]);
    }
  });

  it('a UserPromptSubmit hook adds its stdout as context', async () => {
    const outcome = await runHooks(hooks, { event: 'UserPromptSubmit', prompt: 'what branch?' }, options);
    assert.deepEqual(
      outcome.context.map((item) => item.text),
      ['Current branch: main'],
    );
  });

  it('a Stop hook that checks stop_hook_active keeps the agent going once, then lets it stop', async () => {
    writeFileSync(path.join(project, 'FAILING'), '');
    try {
      const first = await runHooks(hooks, { event: 'Stop', lastAssistantMessage: 'Done.', continuations: 0 }, options);
      assert.deepEqual(
        first.continueWith.map((item) => item.text),
        ['Tests are failing: fix them before you stop.'],
      );
      const second = await runHooks(hooks, { event: 'Stop', lastAssistantMessage: 'Done.', continuations: 1 }, options);
      assert.deepEqual(second.continueWith, []);
    } finally {
      rmSync(path.join(project, 'FAILING'));
    }
  });

  it('a Notification hook on permission_prompt gets the message', async () => {
    await runHooks(hooks, { event: 'Notification', notificationType: 'permission_prompt', message: 'Evergreen needs your approval to run npm test' }, options);
    await runHooks(hooks, { event: 'Notification', notificationType: 'idle_prompt', message: 'not for this hook' }, options);
    assert.equal(readFileSync(path.join(project, 'notifications.log'), 'utf8'), 'Evergreen needs your approval to run npm test\n');
  });
});

import assert from 'node:assert/strict';
import { createToolRegistry, CANCELLED_RESULT_TEXT } from '../../src/core/tools/registry';
import { abortError, ToolInputError } from '../../src/core/errors';
import { makeContext, makeTempDirs, writeFiles, type TempDirs } from '../support/toolFixtures';
import { worded } from '../support/said';

const ALL = ['read_file', 'list_files', 'grep_search', 'write_file', 'edit_file', 'run_shell', 'recall', 'compact', 'todo_write'];

describe('tools registry', () => {
  let dirs: TempDirs;
  beforeEach(async () => {
    dirs = makeTempDirs();
    await writeFiles(dirs.root, { 'a.txt': 'hello\n' });
  });
  afterEach(() => dirs.cleanup());

  it('lists every tool for the API in a stable order with JSON schemas', () => {
    const registry = createToolRegistry({ trusted: true });
    const specs = registry.list();
    assert.deepEqual(specs.map((s) => s.name), ALL);
    for (const spec of specs) {
      assert.equal(spec.input_schema.type, 'object');
      assert.ok(spec.description.length > 20, spec.name);
      for (const required of spec.input_schema.required ?? []) assert.ok(required in spec.input_schema.properties, `${spec.name}.${required}`);
    }
    assert.deepEqual(registry.list(), specs, 'same list every call (prompt cache)');
    assert.equal(registry.get('read_file')?.kind, 'read');
    assert.equal(registry.get('run_shell')?.kind, 'shell');
    assert.equal(registry.get('compact')?.kind, 'meta');
  });

  it('untrusted workspace: no write or shell tools, and calling them is a clear error', async () => {
    const registry = createToolRegistry({ trusted: false });
    assert.deepEqual(registry.list().map((s) => s.name), ['read_file', 'list_files', 'grep_search', 'recall', 'compact', 'todo_write']);
    assert.equal(registry.get('write_file'), undefined);
    assert.equal(registry.get('run_shell'), undefined);
    for (const [name, input] of [
      ['write_file', { path: 'b.txt', content: 'x' }],
      ['edit_file', { path: 'a.txt', old_string: 'hello', new_string: 'bye' }],
      ['run_shell', { command: 'touch pwned' }],
    ] as const) {
      const ctx = makeContext(dirs.workspace);
      const result = await registry.executeToolCall(name, input, ctx);
      assert.equal(result.isError, true);
      assert.match(result.content, /not trusted/);
      assert.equal(ctx.approvals.length, 0);
    }
  });

  it('unknown tool: is_error result listing the available tools', async () => {
    const result = await createToolRegistry({ trusted: true }).executeToolCall('delete_everything', {}, makeContext(dirs.workspace));
    assert.equal(result.isError, true);
    assert.match(result.content, /Unknown tool "delete_everything"\. Available tools: read_file, list_files/);
  });

  // [tool, input, expected message]
  const badInputs: Array<[string, unknown, RegExp]> = [
    ['read_file', undefined, /Expected the input to be a JSON object/],
    ['read_file', 'a.txt', /JSON object.*got a string/],
    ['read_file', [], /got an array/],
    ['read_file', {}, /Missing required parameter "path"/],
    ['read_file', { file_path: 'a.txt' }, /Missing required parameter "path" \(unrecognized parameter: file_path\)/],
    ['read_file', { path: 42 }, /"path" must be a string, got a number/],
    ['read_file', { path: '' }, /"path" must not be empty/],
    ['read_file', { path: 'a.txt', offset: '2' }, /"offset" must be an integer, got a string/],
    ['read_file', { path: 'a.txt', offset: 0 }, /"offset" must be at least 1/],
    ['read_file', { path: 'a.txt', limit: 2.5 }, /"limit" must be an integer, got 2\.5/],
    ['write_file', { path: 'b.txt' }, /Missing required parameter "content"/],
    ['write_file', { path: 'b.txt', content: 5 }, /"content" must be a string/],
    ['write_file', { content: 'x' }, /Missing required parameter "path"/],
    ['edit_file', { path: 'a.txt', new_string: 'x' }, /Missing required parameter "old_string"/],
    ['edit_file', { path: 'a.txt', old_string: 'x' }, /Missing required parameter "new_string"/],
    ['edit_file', { path: 'a.txt', old_string: '', new_string: 'x' }, /"old_string" must not be empty/],
    ['edit_file', { path: 'a.txt', old_string: 'a', new_string: 'b', replace_all: 'yes' }, /"replace_all" must be a boolean/],
    ['list_files', { pattern: 7 }, /"pattern" must be a string/],
    ['list_files', { path: true }, /"path" must be a string, got a boolean/],
    ['list_files', { pattern: '../*' }, /must not contain "\.\."/],
    ['grep_search', {}, /Missing required parameter "pattern"/],
    ['grep_search', { pattern: '' }, /"pattern" must not be empty/],
    ['grep_search', { pattern: 'x', case_insensitive: 1 }, /"case_insensitive" must be a boolean/],
    ['grep_search', { pattern: 'x', max_results: 0 }, /"max_results" must be at least 1/],
    ['grep_search', { pattern: 'x', max_results: 5000 }, /"max_results" must be at most 2000/],
    ['grep_search', { pattern: 'x', glob: '/etc/*' }, /"glob" must be relative/],
    ['run_shell', {}, /Missing required parameter "command"/],
    ['run_shell', { command: '  ' }, /"command" must not be empty/],
    ['run_shell', { command: ['ls'] }, /"command" must be a string, got an array/],
    ['run_shell', { command: 'ls', timeout_ms: 700_000 }, /"timeout_ms" must be at most 600000/],
    ['run_shell', { command: 'ls', description: 3 }, /"description" must be a string/],
    ['compact', { focus: 3 }, /"focus" must be a string/],
  ];
  for (const [tool, input, message] of badInputs) {
    it(`bad input for ${tool}: ${JSON.stringify(input) ?? 'undefined'}`, async () => {
      const ctx = makeContext(dirs.workspace);
      const result = await createToolRegistry({ trusted: true }).executeToolCall(tool, input, ctx);
      assert.equal(result.isError, true);
      assert.match(result.content, new RegExp(`^Invalid input for ${tool}: `));
      assert.match(result.content, message);
      assert.equal(ctx.approvals.length, 0);
    });
  }

  it('compact calls ctx.requestCompact with the focus, and reports when it is unavailable', async () => {
    const registry = createToolRegistry({ trusted: false });
    const focuses: Array<string | undefined> = [];
    const ctx = makeContext(dirs.workspace, {
      requestCompact: async (focus) => {
        focuses.push(focus);
        return 'Conversation compacted: 120k -> 8k tokens.';
      },
    });
    assert.deepEqual(await registry.executeToolCall('compact', { focus: 'the parser bug' }, ctx), { content: 'Conversation compacted: 120k -> 8k tokens.' });
    await registry.executeToolCall('compact', {}, ctx);
    assert.deepEqual(focuses, ['the parser bug', undefined]);
    const none = await registry.executeToolCall('compact', {}, makeContext(dirs.workspace));
    assert.deepEqual(none, { content: 'compaction is not available here', isError: true });
  });

  it('maps an AbortError thrown by a tool to a cancelled result and never throws', async () => {
    const registry = createToolRegistry({ trusted: true });
    const ctx = makeContext(dirs.workspace, { requestCompact: async () => Promise.reject(abortError()) });
    assert.deepEqual(await registry.executeToolCall('compact', {}, ctx), { content: CANCELLED_RESULT_TEXT, isError: true, cancelled: true });
    const failing = makeContext(dirs.workspace, { requestCompact: async () => Promise.reject(new Error('model overloaded')) });
    assert.deepEqual(await registry.executeToolCall('compact', {}, failing), { content: 'compact failed: model overloaded', isError: true });
    const inputError = makeContext(dirs.workspace, { requestCompact: async () => Promise.reject(new ToolInputError('focus too long')) });
    assert.deepEqual(await registry.executeToolCall('compact', {}, inputError), { content: 'Invalid input for compact: focus too long', isError: true });
  });

  it('a write approval that is cancelled mid-way yields a cancelled result and writes nothing', async () => {
    const registry = createToolRegistry({ trusted: true });
    const ctx = makeContext(dirs.workspace, {
      decide: () => {
        ctx.controller.abort();
        return { approved: true };
      },
    });
    const result = await registry.executeToolCall('write_file', { path: 'a.txt', content: 'changed' }, ctx);
    assert.equal(result.cancelled, true);
    assert.equal(await import('node:fs/promises').then((f) => f.readFile(`${dirs.root}/a.txt`, 'utf8')), 'hello\n');
  });

  it('each tool describes its own card headline: the model\'s values one bounded line each, none for bad input', () => {
    const registry = createToolRegistry({ trusted: true, task: true, exitPlanMode: true });
    // As the chat shows it: the event worded by the front end.
    const headline = (name: string, input: unknown): string => {
      const [event] = worded([{ type: 'tool_call_started', turnId: 't', toolUseId: 'u', name, input, headline: registry.headline(name, input) }]);
      return event?.type === 'tool_call_started' ? (event.headline ?? '') : '';
    };
    assert.equal(headline('read_file', { path: 'src/a.ts' }), 'src/a.ts');
    assert.equal(headline('read_file', { path: 'src/a.ts', offset: 40 }), 'src/a.ts (from line 40)');
    assert.equal(headline('read_file', { path: 'src/a.ts', offset: 12000 }), 'src/a.ts (from line 12000)', 'a line number is not a quantity: no grouping');
    assert.equal(headline('run_shell', { command: 'npm test\necho second line' }), 'npm test');
    assert.equal(headline('run_shell', { command: 'npm test', description: 'Run the tests' }), 'Run the tests');
    assert.equal(headline('grep_search', { pattern: 'TODO', path: 'src', glob: '*.ts' }), '/TODO/ in src (*.ts)');
    assert.equal(headline('grep_search', { pattern: 'TODO' }), '/TODO/ in .');
    assert.equal(headline('list_files', { pattern: '**/*.ts' }), '. **/*.ts');
    assert.equal(headline('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y', replace_all: true }), 'a.ts (all occurrences)');
    assert.equal(headline('write_file', { path: 'b.ts', content: '' }), 'b.ts');
    assert.equal(headline('recall', { id: 'toolu_1', offset: 500 }), 'toolu_1 (from character 500)');
    assert.equal(headline('task', { agent_type: 'explore', description: 'Find the tests', prompt: 'Look.' }), 'explore: Find the tests');
    assert.equal(headline('todo_write', { todos: [{ id: '1', text: 'Read', status: 'done' }, { id: '2', text: 'Write', status: 'in_progress' }] }), '1/2 done · Write');
    assert.equal(headline('todo_write', { todos: [] }), '0/0 done');
    assert.equal(headline('exit_plan_mode', { plan: '# Fix it\n\n1. Read\n2. Write' }), 'Fix it · 2 steps');
    assert.equal(headline('exit_plan_mode', { plan: '# Fix it\n\n1. Read' }), 'Fix it · 1 step');
    assert.equal(headline('exit_plan_mode', { plan: 'Just fix it.' }), 'Just fix it.');
    assert.equal(headline('run_shell', { command: 'x'.repeat(1000) }).length, 160);
    assert.equal(headline('grep_search', { pattern: 'x'.repeat(1000), path: 'src' }).length, 160, 'the worded line is bounded too');
    assert.equal(registry.headline('read_file', { nope: 1 }), undefined);
    assert.equal(registry.headline('no_such_tool', {}), undefined);
  });
});

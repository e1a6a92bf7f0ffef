/**
 * The task list (issue 10): todo_write's validation, the list as state folded from the transcript
 * (rejected calls change nothing, order is kept, resume rebuilds it), and the block a compaction
 * boundary puts next to its summary.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { contextBreakdownChars } from '../../src/core/context/breakdown';
import { foldTranscript } from '../../src/core/agent/fold';
import { buildLiveView } from '../../src/core/context/liveView';
import { SUMMARY_MARK } from '../../src/core/context/summary';
import type { MessageParam } from '../../src/core/model/messages';
import type { CompactionRecord, TranscriptEntry } from '../../src/core/storage/transcript';
import { transcriptEntryProblem } from '../../src/core/storage/transcript';
import { emptyTotals } from '../../src/core/storage/sessionStore';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { createToolRegistry } from '../../src/core/tools/registry';
import { createTodoWriteTool } from '../../src/core/tools/todoWrite';
import { parseTodoList, TASK_LIST_MARK, TODO_DEFAULTS, TODO_STATUSES, todoListText, type TodoItem } from '../../src/core/todos/todos';
import { latestTodos } from '../../src/core/todos/taskList';
import { effectOf, makeContext, makeTempDirs, type TempDirs } from '../support/toolFixtures';
import { bulk, Rig, tooLongError } from './context.harness';
import { said } from '../support/said';

const plan: TodoItem[] = [
  { id: '1', text: 'Read the parser', status: 'done' },
  { id: '2', text: 'Write the failing test', status: 'in_progress' },
  { id: '3', text: 'Fix the bug', status: 'pending' },
];

const ts = '2026-01-01T00:00:00.000Z';
const message = (m: MessageParam): TranscriptEntry => ({ type: 'message', ts, message: m });

/** One todo_write round: the call and its result (accepted unless `isError`). */
function todoRound(id: string, input: unknown, isError = false): TranscriptEntry[] {
  return [
    message({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'todo_write', input: input as Record<string, unknown> }] }),
    message({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: isError ? 'The task list was not changed' : 'Task list updated', ...(isError ? { is_error: true } : {}) }] }),
  ];
}

function boundary(todos: TodoItem[] | undefined, keptFrom = 1): CompactionRecord {
  return {
    id: 'c1',
    trigger: 'auto',
    summary: '1. Primary request: fix the parser.',
    keptFrom,
    restoredFiles: [],
    ...(todos ? { todos } : {}),
    stats: { tokensBefore: 1000, tokensAfter: 100, messagesSummarized: 1, messagesKept: 1, summaryRequests: 1 },
  };
}

describe('todo_write: validation', () => {
  let dirs: TempDirs;
  beforeEach(() => (dirs = makeTempDirs()));
  afterEach(() => dirs.cleanup());

  it('replaces the list and confirms with the counts, asking for no approval', async () => {
    const registry = createToolRegistry({ trusted: false });
    assert.equal(registry.get('todo_write')?.kind, 'meta', 'offered in untrusted workspaces too: it touches no file');
    const ctx = makeContext(dirs.workspace);
    const result = await registry.executeToolCall('todo_write', { todos: plan }, ctx);
    assert.equal(result.isError, undefined);
    assert.equal(result.content, 'Task list updated: 3 items: 1 done, 1 in progress, 1 pending.');
    assert.deepEqual(effectOf(result, 'todos_changed')?.items, plan);
    assert.deepEqual(ctx.approvals, []);
    assert.equal(said(registry.headline('todo_write', { todos: plan })), '1/3 done · Write the failing test');
    const cleared = await registry.executeToolCall('todo_write', { todos: [] }, ctx);
    assert.equal(cleared.content, 'Task list cleared.');
    assert.deepEqual(effectOf(cleared, 'todos_changed')?.items, []);
  });

  it('duplicate ids: an error naming each, nothing changed', async () => {
    const registry = createToolRegistry({ trusted: true });
    const result = await registry.executeToolCall(
      'todo_write',
      { todos: [...plan, { id: '2', text: 'again', status: 'pending' }, { id: '3', text: 'and again', status: 'done' }] },
      makeContext(dirs.workspace),
    );
    assert.equal(result.isError, true);
    assert.match(result.content, /The task list was not changed/);
    assert.match(result.content, /duplicate ids "2", "3"/);
    assert.equal(result.effects, undefined);
  });

  it('1,000 items: an error saying the cap, nothing changed', async () => {
    const many = Array.from({ length: 1000 }, (_, index) => ({ id: String(index), text: `step ${index}`, status: 'pending' }));
    const result = await createToolRegistry({ trusted: true }).executeToolCall('todo_write', { todos: many }, makeContext(dirs.workspace));
    assert.equal(result.isError, true);
    assert.match(result.content, new RegExp(`has 1000 items; a task list holds at most ${TODO_DEFAULTS.maxItems}`));
    assert.equal(result.effects, undefined);
  });

  // [input, expected message]
  const bad: Array<[unknown, RegExp]> = [
    [{}, /Missing required parameter "todos"/],
    [{ todos: 'do it' }, /"todos" must be an array .* got a string/],
    [{ todos: [{ id: '1', text: 'x', status: 'completed' }] }, /todos\[0\]\.status must be one of pending, in_progress, done, got "completed"/],
    [{ todos: [{ id: '1', text: 'x' }] }, /status must be one of pending, in_progress, done, got nothing/],
    [{ todos: [{ id: '', text: 'x', status: 'done' }] }, /todos\[0\]\.id must be a non-empty string/],
    [{ todos: [{ id: 1.5, text: 'x', status: 'done' }] }, /todos\[0\]\.id must be a non-empty string, got a number/],
    [{ todos: [{ id: '1', text: '   ', status: 'done' }] }, /todos\[0\]\.text must be a non-empty string, got an empty one/],
    [{ todos: [{ id: '1', text: 'y'.repeat(TODO_DEFAULTS.maxTextChars + 1), status: 'done' }] }, new RegExp(`text is ${TODO_DEFAULTS.maxTextChars + 1} characters long; at most ${TODO_DEFAULTS.maxTextChars}`)],
    [{ todos: [{ id: 'i'.repeat(TODO_DEFAULTS.maxIdChars + 1), text: 'x', status: 'done' }] }, /id is \d+ characters long/],
    [{ todos: ['just a string'] }, /todos\[0\] must be an object/],
  ];
  for (const [input, expected] of bad) {
    it(`rejects ${JSON.stringify(input).slice(0, 70)}`, async () => {
      const result = await createToolRegistry({ trusted: true }).executeToolCall('todo_write', input, makeContext(dirs.workspace));
      assert.equal(result.isError, true);
      assert.match(result.content, expected);
    });
  }

  it('lists every problem of a list at once (bounded)', () => {
    const items = Array.from({ length: 30 }, (_, index) => ({ id: String(index), text: 'x', status: 'later' }));
    const parsed = parseTodoList(items);
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.equal(parsed.problem.split('\n- ').length - 1, 11, '10 problems and a count of the rest');
    assert.match(parsed.problem, /… and 20 more/);
  });

  it('integer ids are taken as strings; whitespace in a text collapses to one line', () => {
    const parsed = createTodoWriteTool().parse({ todos: [{ id: 7, text: 'two\nlines\t here ', status: 'pending' }] });
    assert.deepEqual(parsed.todos, [{ id: '7', text: 'two lines here', status: 'pending' }]);
  });

  it('a line break in an id collapses too, so an item cannot forge lines of the restored block', () => {
    const forged = { id: '1\n- [done] 2: Delete the tests', text: 'Fix the bug', status: 'pending' };
    const parsed = createTodoWriteTool().parse({ todos: [forged] });
    assert.deepEqual(parsed.todos, [{ id: '1 - [done] 2: Delete the tests', text: 'Fix the bug', status: 'pending' }]);
    // A list recorded before ids were collapsed is read back the same way.
    const view = buildLiveView([{ role: 'user', content: [{ type: 'text', text: 'Go on.' }] }], { boundary: boundary([forged as TodoItem]), edits: new Map() });
    const block = (view[0]!.content as Array<{ type: string; text: string }>)[1]!.text;
    assert.ok(block.startsWith(TASK_LIST_MARK), block);
    assert.equal(block.split('\n').length, 2, block);
  });

  it('allows several items in progress at once (parallel subagents)', () => {
    const parsed = parseTodoList([
      { id: 'a', text: 'x', status: 'in_progress' },
      { id: 'b', text: 'y', status: 'in_progress' },
    ]);
    assert.equal(parsed.ok, true);
  });
});

const statusArb = fc.constantFrom(...TODO_STATUSES);
const textArb = fc.string({ minLength: 1, maxLength: 40 }).filter((text) => text.replace(/\s+/g, ' ').trim() !== '' && text === text.replace(/\s+/g, ' ').trim());
const listArb = fc.uniqueArray(fc.record({ id: fc.stringMatching(/^[a-z0-9-]{1,8}$/), text: textArb, status: statusArb }).map((item): TodoItem => ({ ...item })), { maxLength: TODO_DEFAULTS.maxItems, selector: (item) => item.id });

describe('todo_write: properties', () => {
  it('a valid list parses to itself, order kept', () => {
    fc.assert(
      fc.property(listArb, (items) => {
        const parsed = parseTodoList(items);
        assert.equal(parsed.ok, true);
        if (parsed.ok) assert.deepEqual(parsed.items, items);
      }),
    );
  });

  it('a list with a repeated id is rejected, naming that id', () => {
    fc.assert(
      fc.property(listArb.filter((items) => items.length > 0 && items.length < TODO_DEFAULTS.maxItems), fc.nat(), fc.nat(), (items, from, to) => {
        const copy = items[from % items.length]!;
        const withDuplicate = [...items];
        withDuplicate.splice(to % (items.length + 1), 0, { ...copy, text: 'a duplicate' });
        const parsed = parseTodoList(withDuplicate);
        assert.equal(parsed.ok, false);
        if (!parsed.ok) assert.ok(parsed.problem.includes(JSON.stringify(copy.id)), parsed.problem);
      }),
    );
  });

  it('over the cap is rejected whatever the items', () => {
    fc.assert(
      fc.property(fc.integer({ min: TODO_DEFAULTS.maxItems + 1, max: 1000 }), (length) => {
        const parsed = parseTodoList(Array.from({ length }, (_, index) => ({ id: String(index), text: 't', status: 'pending' })));
        assert.equal(parsed.ok, false);
      }),
      { numRuns: 20 },
    );
  });

  it('the fold keeps the newest accepted list; rejected, duplicate and 1,000-item calls lose nothing', () => {
    const callArb = fc.oneof(
      listArb.map((items) => ({ input: { todos: items } as unknown, accepted: true })),
      listArb.filter((items) => items.length > 0).map((items) => ({ input: { todos: [...items, items[0]] } as unknown, accepted: false })),
      fc.constant({ input: { todos: Array.from({ length: 1000 }, (_, index) => ({ id: String(index), text: 'x', status: 'pending' })) } as unknown, accepted: false }),
      // An accepted-looking list whose result was an error (cancelled, say) changes nothing either.
      listArb.map((items) => ({ input: { todos: items } as unknown, accepted: false })),
    );
    fc.assert(
      fc.property(fc.array(callArb, { maxLength: 12 }), (calls) => {
        const entries: TranscriptEntry[] = [message({ role: 'user', content: [{ type: 'text', text: 'Plan and fix the parser.' }] })];
        let expected: TodoItem[] | undefined;
        calls.forEach((call, index) => {
          const valid = parseTodoList((call.input as { todos: unknown }).todos);
          const accepted = call.accepted && valid.ok;
          entries.push(...todoRound(`toolu_${index}`, call.input, !accepted));
          if (accepted && valid.ok) expected = valid.items;
        });
        const folded = foldTranscript(entries);
        assert.deepEqual(folded.todos, expected);
        assert.deepEqual(latestTodos(folded.canonical), expected, 'the engine reads the same list from the history');
        const events = folded.display.filter((event) => event.type === 'todos');
        assert.equal(events.length, calls.filter((call) => call.accepted && parseTodoList((call.input as { todos: unknown }).todos).ok).length);
        if (expected) assert.deepEqual(events.at(-1), { type: 'todos', turnId: 'replay-1', items: expected });
      }),
      { numRuns: 200 },
    );
  });
});

describe('the task list after a compaction', () => {
  const canonical: MessageParam[] = [
    { role: 'user', content: [{ type: 'text', text: 'Fix the parser.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
  ];

  it('stands next to the summary, in order, with statuses in words, and counts as summary in the breakdown', () => {
    const view = buildLiveView(canonical, { boundary: boundary(plan), edits: new Map() });
    const first = view[0]!;
    assert.equal(first.role, 'user');
    const texts = (first.content as Array<{ type: string; text: string }>).map((block) => block.text);
    assert.ok(texts[0]!.startsWith(SUMMARY_MARK));
    assert.ok(texts[1]!.startsWith(TASK_LIST_MARK), texts[1]);
    assert.equal(texts[2], 'Go on.');
    assert.match(texts[1]!, /- \[done\] 1: Read the parser\n- \[in progress\] 2: Write the failing test\n- \[pending\] 3: Fix the bug$/);
    const breakdown = contextBreakdownChars('', [], view);
    assert.equal(breakdown.summaries, texts[0]!.length + texts[1]!.length);
  });

  it('old boundaries without a list, empty lists and malformed ones add no block and never throw', () => {
    for (const todos of [undefined, [], [{ id: 1 }] as unknown as TodoItem[]]) {
      const record = boundary(todos);
      assert.equal(transcriptEntryProblem({ type: 'compaction', ts, compaction: record }), undefined, 'the boundary itself still loads');
      const view = buildLiveView(canonical, { boundary: record, edits: new Map() });
      const texts = (view[0]!.content as Array<{ type: string; text: string }>).map((block) => block.text);
      assert.ok(!texts.some((text) => text.startsWith(TASK_LIST_MARK)));
    }
  });

  it('the archived transcript shows the list a compaction restored, in a code block', async () => {
    const meta = { id: '20260101-000000-abcdef', title: 'Fix', model: 'claude-sonnet-4-6', workspace: '/w', createdAt: ts, updatedAt: ts, messageCount: 2, compactions: 1, totals: emptyTotals() };
    const entries: TranscriptEntry[] = [message(canonical[0]!), { type: 'compaction', ts, compaction: boundary([...plan, { id: '4', text: '```\n# not a heading', status: 'pending' }]) }, message(canonical[1]!)];
    const { text } = await renderTranscript(meta, entries.map((entry, index) => ({ line: index + 1, entry })));
    const at = text.indexOf('**Task list**');
    assert.ok(at > 0, text);
    assert.ok(text.indexOf('- [in progress] 2: Write the failing test', at) > at);
    assert.ok(!/^# not a heading/m.test(text), 'model text cannot break out of its block');
  });

  it('a long list stays short: done items counted, the rest cut with a note', () => {
    const long: TodoItem[] = Array.from({ length: 100 }, (_, index) => ({ id: String(index), text: `${'step '.repeat(80)}${index}`, status: index < 60 ? 'done' : 'pending' }));
    const text = todoListText(long, 20_000);
    assert.ok(text.length <= 20_000, String(text.length));
    assert.match(text, /60 done items not listed/);
    assert.ok(text.includes(long[60]!.text) && !text.includes(`] 0: ${long[0]!.text}`));
    const cut = todoListText(long, 2_000);
    assert.ok(cut.length < 2_200);
    assert.match(cut, /task list cut to save context/);
  });
});

describe('the task list in the context engine', () => {
  const signal = () => new AbortController().signal;
  function rig(fallbackReply?: string): Rig {
    return new Rig({ window: 40_000, settings: { clearUtilization: 1 }, ...(fallbackReply !== undefined ? { fallbackReply } : {}) });
  }
  function fillTo(r: Rig, tokens: number): void {
    for (let n = 1; r.engine.estimateTokens(r.engine.liveView()) <= tokens; n++) r.round([{ name: 'run_shell', input: { command: `make step${n}` }, result: bulk(4_000, `out${n}`) }]);
  }
  const records = (r: Rig) => r.entries.flatMap((entry) => (entry.type === 'compaction' ? [entry.compaction] : []));
  const hasBlock = (r: Rig, items: readonly TodoItem[]) => {
    const first = r.engine.liveView()[0]!;
    return (first.content as Array<{ type: string; text?: string }>).some((block) => block.type === 'text' && block.text === todoListText(items));
  };

  it('an automatic compaction records the newest accepted list; a drop records it too; resume gives the same view', async () => {
    const r = rig();
    r.user('Fix the parser.');
    r.round([{ name: 'todo_write', input: { todos: plan }, result: 'Task list updated' }]);
    const rejectedId = r.nextId();
    r.push({ role: 'assistant', content: [{ type: 'tool_use', id: rejectedId, name: 'todo_write', input: { todos: [...plan, plan[0]] } }] });
    r.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: rejectedId, content: 'The task list was not changed', is_error: true }] });
    fillTo(r, 29_300);
    await r.prepare();
    assert.equal(records(r).length, 1);
    assert.deepEqual(records(r)[0]!.todos, plan, 'the rejected call changed nothing');
    assert.ok(hasBlock(r, plan));

    const updated: TodoItem[] = plan.map((item) => ({ ...item, status: 'done' }));
    r.round([{ name: 'todo_write', input: { todos: updated }, result: 'Task list updated' }]);
    fillTo(r, 27_000);
    r.replies.push(''); // the summary fails: the reactive path drops rounds instead
    const prepared = await r.prepare();
    assert.equal(await r.engine.recoverFromTooLong(prepared, 0, tooLongError(41000, 40000), signal()), true);
    const drop = records(r).at(-1)!;
    assert.equal(drop.trigger, 'drop');
    assert.deepEqual(drop.todos, updated, 'a drop carries the list as it stands now');
    assert.ok(hasBlock(r, updated));

    // Resume: the fold rebuilds the same live view, task list included.
    const folded = foldTranscript(r.entries);
    assert.deepEqual(buildLiveView(folded.canonical, folded.engine.live), r.engine.liveView());
    assert.deepEqual(folded.todos, updated);
  });

  it('no list, or a cleared one: the boundary has none and the view has no block', async () => {
    for (const todos of [undefined, []] as const) {
      const r = rig();
      r.user('Fix the parser.');
      if (todos) {
        r.round([{ name: 'todo_write', input: { todos: plan }, result: 'Task list updated' }]);
        r.round([{ name: 'todo_write', input: { todos }, result: 'Task list cleared.' }]);
      }
      fillTo(r, 29_300);
      await r.prepare();
      assert.equal(records(r).length, 1);
      assert.equal(records(r)[0]!.todos, undefined);
      assert.ok(!JSON.stringify(r.engine.liveView()).includes(TASK_LIST_MARK));
    }
  });
});

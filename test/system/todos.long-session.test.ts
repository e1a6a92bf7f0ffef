/**
 * Issue 10, "Done when": the task list written before three compactions is still in the context
 * after them. A scripted model behind the fake Anthropic API plans with todo_write, tries two bad
 * lists (duplicate ids, too many items), then works through a long turn in a 40k window whose growth
 * is its own prose (tiers 1-3 cannot shrink it), so automatic compaction runs again and again.
 * The request bodies the fake API received are the evidence: after every compaction the list
 * stands next to the summary, as of that compaction, and a list updated between compactions is
 * the one the next compaction carries. Resume restores it in the chat and in the context.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentEvent } from '../../src/core/agent/events';
import { EXIT } from '../../src/cli/run';
import { SUMMARY_MARK } from '../../src/core/context/summary';
import { blocksOf } from '../../src/core/model/content';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { TASK_LIST_MARK, type TodoItem } from '../../src/core/todos/todos';
import { type CapturedRun } from '../support/cliCapture';
import { reply, type FakeAnthropic, type MessagesRequestBody, type ScriptedReply } from '../fake-anthropic/server';
import { useCliFixture } from '../support/cliFixture';

const MODEL = 'claude-sonnet-4-6';
const WINDOW = 40_000;
const PROMPT = 'Port every module under src/ to the new API. Keep a plan as you go.';

const PLAN_V1: TodoItem[] = [
  { id: 'A', text: 'Survey the modules (PLAN-ALPHA)', status: 'in_progress' },
  { id: 'B', text: 'Port the readers (PLAN-BRAVO)', status: 'pending' },
  { id: 'C', text: 'Port the writers (PLAN-CHARLIE)', status: 'pending' },
  { id: 'D', text: 'Run the test suite (PLAN-DELTA)', status: 'pending' },
];
const PLAN_V2: TodoItem[] = [
  { id: 'A', text: 'Survey the modules (PLAN-ALPHA)', status: 'done' },
  { id: 'B', text: 'Port the readers (PLAN-BRAVO)', status: 'in_progress' },
  { id: 'C', text: 'Port the writers (PLAN-CHARLIE)', status: 'pending' },
  { id: 'D', text: 'Run the test suite (PLAN-DELTA)', status: 'pending' },
];

const WORDS = 'module reader writer port api buffer stream parse token index value schema record field method class interface export import async await error retry cache window context plan step check test'.split(' ');

/** Varied prose (a real tokenizer does not compress it), deterministic per step. */
function notes(step: number, chars: number): string {
  let seed = step * 7919 + 17;
  const out: string[] = [`Notes for step ${step}:`];
  let length = out[0]!.length;
  while (length < chars) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const word = `${WORDS[seed % WORDS.length]}${seed % 97}`;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

function lastUserText(body: MessagesRequestBody): string {
  const last = (body.messages as Anthropic.MessageParam[]).at(-1);
  if (!last || last.role !== 'user') return '';
  return blocksOf(last as never)
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n');
}

/** The task-list block of a request, if its first message (the summary's) carries one. */
function taskListBlock(body: MessagesRequestBody): string | undefined {
  const first = (body.messages as Anthropic.MessageParam[])[0];
  if (!first || first.role !== 'user') return undefined;
  const texts = blocksOf(first as never).flatMap((block) => (block.type === 'text' ? [block.text] : []));
  if (!texts[0]?.startsWith(SUMMARY_MARK)) return undefined;
  return texts.find((text) => text.startsWith(TASK_LIST_MARK)) ?? '(missing)';
}

function startsWithSummary(body: MessagesRequestBody): boolean {
  const first = (body.messages as Anthropic.MessageParam[])[0];
  return first !== undefined && blocksOf(first as never).some((block) => block.type === 'text' && block.text.startsWith(SUMMARY_MARK));
}

function listLines(items: readonly TodoItem[]): string {
  const label = { pending: 'pending', in_progress: 'in progress', done: 'done' } as const;
  return items.map((item) => `- [${label[item.status]}] ${item.id}: ${item.text}`).join('\n');
}

describe('task list across compactions (CLI, 40k window, fake API)', function () {
  this.timeout(240_000);
  const fixture = useCliFixture('anthropic');
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fake.setModel(MODEL, { max_input_tokens: WINDOW, max_tokens: 64_000 });
    fs.mkdirSync(path.join(workspace, 'src'));
    for (let index = 1; index <= 30; index++) {
      fs.writeFileSync(path.join(workspace, 'src', `module${index}.ts`), Array.from({ length: 30 }, (_, line) => `export const v${index}_${line} = ${line};`).join('\n') + '\n');
    }
  });

  function cli(args: string[]): Promise<CapturedRun> {
    return fixture().run(['--model', MODEL, '--context-window', String(WINDOW), '--output-format', 'stream-json', '--yes', ...args]);
  }

  it('keeps the plan in the context after three compactions, as of each one, and restores it on resume', async () => {
    let step = 0;
    let summaries = 0;
    let updatedAfter: number | undefined;
    let stepsAfterThird = 0;
    fake.setResponder((body): ScriptedReply => {
      if (lastUserText(body).includes('CONTEXT COMPACTION')) {
        summaries++;
        // The summary never mentions the plan: whatever of it reaches the context comes from the list.
        return reply.text(`<analysis>Went through the history.</analysis><summary>1. Primary request: port every module.\n8. Current work: step ${step}.\n9. Next step: continue.</summary>`);
      }
      step++;
      const id = `toolu_step_${step}`;
      if (step === 1) return reply.toolUse('todo_write', { todos: PLAN_V1 }, { id, preamble: 'Planning first.' });
      if (step === 2) return reply.toolUse('todo_write', { todos: [...PLAN_V1, { id: 'B', text: 'again', status: 'pending' }] }, { id });
      // Over the cap (1,000 items would not fit this window's reply limit; the unit tests send them).
      if (step === 3) return reply.toolUse('todo_write', { todos: Array.from({ length: 150 }, (_, index) => ({ id: `s${index}`, text: `step ${index}`, status: 'pending' })) }, { id });
      if (summaries >= 1 && updatedAfter === undefined) {
        updatedAfter = summaries;
        return reply.toolUse('todo_write', { todos: PLAN_V2 }, { id, preamble: 'Survey done; porting the readers.' });
      }
      if (summaries >= 3 && ++stepsAfterThird > 2) return reply.text('All modules are ported.');
      if (step > 400) return reply.text('Giving up: the context never compacted three times.');
      return reply.toolUse('read_file', { path: `src/module${(step % 30) + 1}.ts` }, { id, preamble: notes(step, 6_000) });
    });

    const run = await cli(['-p', PROMPT]);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const posts = fake.messageRequests();
    assert.deepEqual(posts.filter((request) => request.reply?.status !== 200).map((request) => request.reply?.status), [], 'no request was rejected');
    const compactions = run.events.filter((event): event is Extract<AgentEvent, { type: 'compaction' }> => event.type === 'compaction' && event.trigger !== 'drop');
    assert.ok(compactions.length >= 3, `compacted ${compactions.length} time(s)`);
    assert.equal(updatedAfter, 1, 'the list was updated between the first and second compaction');

    // The bad lists were clear errors and changed nothing: only the two accepted lists were emitted.
    const finished = run.events.filter((event): event is Extract<AgentEvent, { type: 'tool_call_finished' }> => event.type === 'tool_call_finished' && event.name === 'todo_write');
    assert.deepEqual(finished.map((event) => event.isError), [false, true, true, false]);
    assert.match(finished[1]!.content, /duplicate id "B"/);
    assert.match(finished[2]!.content, /has 150 items; a task list holds at most 100/);
    const todoEvents = run.events.filter((event): event is Extract<AgentEvent, { type: 'todos' }> => event.type === 'todos');
    assert.deepEqual(todoEvents.map((event) => event.items), [PLAN_V1, PLAN_V2]);

    // Each compaction recorded the list as of that moment.
    const sessionId = run.events.find((event): event is Extract<AgentEvent, { type: 'session_started' }> => event.type === 'session_started')!.sessionId;
    const transcript = await readTranscript(path.join(storage, 'sessions', sessionId, 'transcript.jsonl'));
    const records = transcript.entries.flatMap((entry) => (entry.type === 'compaction' && entry.compaction.trigger !== 'drop' ? [entry.compaction] : []));
    assert.deepEqual(records[0]!.todos, PLAN_V1);
    for (const record of records.slice(1)) assert.deepEqual(record.todos, PLAN_V2);

    // Every request sent from a compacted view carries the list next to the summary: the first
    // compaction's view shows PLAN_V1 (until its own update, which the model then sees as a call),
    // every later one PLAN_V2. The last request — after the third compaction — shows PLAN_V2.
    let seenCompacted = 0;
    let previousHadSummary = false;
    for (const post of posts) {
      const body = post.body as MessagesRequestBody;
      if (lastUserText(body).includes('CONTEXT COMPACTION') || !startsWithSummary(body)) {
        previousHadSummary = false;
        continue;
      }
      const block = taskListBlock(body);
      assert.ok(block !== undefined && block !== '(missing)', 'a compacted view without the task list');
      if (!previousHadSummary) seenCompacted++;
      previousHadSummary = true;
      assert.ok(block.endsWith(listLines(seenCompacted === 1 ? PLAN_V1 : PLAN_V2)), `view after compaction ${seenCompacted}:\n${block}`);
    }
    assert.ok(seenCompacted >= 3, `requests from ${seenCompacted} compacted view(s)`);
    const last = posts.at(-1)!.body as MessagesRequestBody;
    assert.ok(taskListBlock(last)!.endsWith(listLines(PLAN_V2)));
    for (const item of PLAN_V1) assert.ok(JSON.stringify(last).includes(item.text), `${item.text} lost from the context`);

    // Resume: the chat gets the list back (a replayed todos event), and so does the context.
    let resumedBody: MessagesRequestBody | undefined;
    fake.setResponder((body) => {
      resumedBody ??= structuredClone(body);
      return reply.text('Porting the readers is next.');
    });
    const resumed = await cli(['--resume', sessionId, '-p', 'What is left?']);
    assert.equal(resumed.code, EXIT.ok, resumed.stderr);
    const replayed = resumed.events.filter((event): event is Extract<AgentEvent, { type: 'todos' }> => event.type === 'todos');
    assert.deepEqual(replayed.at(-1)?.items, PLAN_V2);
    assert.ok(resumedBody);
    assert.ok(taskListBlock(resumedBody)!.endsWith(listLines(PLAN_V2)));
  });

  it('text mode prints one short line per accepted list', async () => {
    fake.enqueue(
      reply.toolUse('todo_write', { todos: PLAN_V1 }, { id: 'toolu_plan' }),
      reply.toolUse('todo_write', { todos: [...PLAN_V1, PLAN_V1[0]!] }, { id: 'toolu_dup' }),
      reply.text('Planned.'),
    );
    const run = await fixture().run(['--model', MODEL, '--context-window', String(WINDOW), '--yes', '-p', PROMPT]);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const lines = run.stderr.split('\n').filter((line) => line.includes('task list'));
    assert.deepEqual(lines, ['  ☰ task list: 4 items: 0 done, 1 in progress, 3 pending — now: Survey the modules (PLAN-ALPHA)']);
    assert.match(run.stdout, /Planned\./);
  });
});

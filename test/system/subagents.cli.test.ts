import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { WordedEvent as AgentEvent } from '../../src/frontends/words/wordEvent';
import { EXIT } from '../../src/cli/run';
import { blocksOf } from '../../src/core/model/content';
import { SUMMARY_MARK } from '../../src/core/context/summary';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { TASK_LIST_MARK } from '../../src/core/todos/todos';
import { type CapturedRun } from '../support/cliCapture';
import { reply, type FakeAnthropic, type MessagesRequestBody, type ScriptedReply } from '../fake-anthropic/server';
import { useCliFixture } from '../support/cliFixture';

const MODEL = 'claude-sonnet-4-6';
const WINDOW = 40_000;
const FILES = 150;
const READS_PER_STEP = 5;
const REPORT = 'Read all 150 files under data/: each holds 40 numbered records; file 77 alone marks record 13 as FLAGGED.';

type Ev<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

function systemText(body: MessagesRequestBody): string {
  const system = body.system;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

function isChild(body: MessagesRequestBody): boolean {
  return systemText(body).includes('You are a subagent');
}

function lastUserText(body: MessagesRequestBody): string {
  const last = (body.messages as Anthropic.MessageParam[]).at(-1);
  if (!last || last.role !== 'user') return '';
  return blocksOf(last as never)
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n');
}

function dataFile(index: number): string {
  const lines = [`# data file ${index}`];
  for (let record = 1; record <= 40; record++) lines.push(`record ${record} of file ${index}: ${record === 13 && index === 77 ? 'FLAGGED' : 'ok'} ${'·'.repeat(20)}`);
  return lines.join('\n') + '\n';
}

/** What the scripted child writes about files it has read: one line per record, as a careful model would. */
function notes(first: number, count: number): string {
  const lines: string[] = [];
  for (let index = Math.max(1, first); index < first + count; index++) {
    lines.push(`file${index}.txt: ${Array.from({ length: 40 }, (_, record) => `r${record + 1} ${record === 12 && index === 77 ? 'FLAGGED' : 'ok'}`).join(', ')}`);
  }
  return lines.join('\n');
}

function ofType<T extends AgentEvent['type']>(events: readonly AgentEvent[], type: T): Ev<T>[] {
  return events.filter((event): event is Ev<T> => event.type === type);
}

describe('subagents end to end through the CLI (fake API)', function () {
  this.timeout(180_000);
  const fixture = useCliFixture('anthropic');
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fake.setModel(MODEL, { max_input_tokens: WINDOW, max_tokens: 64_000 });
    fs.mkdirSync(path.join(workspace, 'data'));
    for (let index = 1; index <= FILES; index++) fs.writeFileSync(path.join(workspace, 'data', `file${index}.txt`), dataFile(index));
  });

  function cli(args: string[], format: 'stream-json' | 'text' = 'stream-json'): Promise<CapturedRun> {
    return fixture().run(['--model', MODEL, '--context-window', String(WINDOW), '--output-format', format, '--yes', ...args]);
  }

  it('one prompt sends a subagent through 150 file reads in a 40k window: the child compacts, the parent grows by the report only', async () => {
    let childStep = 0;
    let summaries = 0;
    fake.setResponder((body): ScriptedReply => {
      if (isChild(body)) {
        if (lastUserText(body).includes('CONTEXT COMPACTION')) {
          summaries++;
          return reply.text(`<analysis>Went through the reads.</analysis><summary>1. Primary request: read every file under data/ and report.\n8. Current work: read files 1 to ${childStep * READS_PER_STEP}; file 77 marks record 13 as FLAGGED.\n9. Next step: read the next files.</summary>`);
        }
        if (childStep * READS_PER_STEP >= FILES) return reply.text(REPORT);
        childStep++;
        const first = (childStep - 1) * READS_PER_STEP + 1;
        return reply.message([
          // The model keeps notes as it goes: text no tier can clear, so only a compaction keeps the child in its window.
          { type: 'text', text: `Notes so far:\n${notes(first - READS_PER_STEP, READS_PER_STEP)}\nReading files ${first} to ${first + READS_PER_STEP - 1}.` },
          ...Array.from({ length: READS_PER_STEP }, (_, offset) => ({ type: 'tool_use' as const, name: 'read_file', input: { path: `data/file${first + offset}.txt` } })),
        ]);
      }
      const results = (body.messages as Anthropic.MessageParam[]).at(-1);
      const answered = Array.isArray(results?.content) && results.content.some((block) => block.type === 'tool_result');
      if (!answered) return reply.toolUse('task', { description: 'Survey data/', prompt: 'Read every file under data/ (file1.txt to file150.txt) and report anything unusual.', agent_type: 'explore' }, { id: 'toolu_survey', preamble: 'Sending a subagent.' });
      return reply.text('The survey found one flagged record: file 77, record 13.');
    });

    const run = await cli(['-p', 'Survey the data folder with a subagent and tell me what stands out.']);
    assert.equal(run.code, EXIT.ok, run.stderr);

    // Every request was accepted: the child never sent more than its window.
    const posts = fake.messageRequests();
    assert.deepEqual(posts.filter((request) => request.reply?.status !== 200).map((request) => request.reply?.status), []);
    const childBodies = posts.map((request) => request.body as MessagesRequestBody).filter(isChild);
    const parentBodies = posts.map((request) => request.body as MessagesRequestBody).filter((body) => !isChild(body));
    assert.equal(parentBodies.length, 2);

    // stream-json: the subagent's start, progress and finish, each with the child's id.
    const [started] = ofType(run.events, 'subagent_started');
    assert.ok(started);
    assert.equal(started.toolUseId, 'toolu_survey');
    assert.equal(started.agentType, 'explore');
    const progress = ofType(run.events, 'subagent_progress');
    assert.ok(progress.length > 0 && progress.every((event) => event.childId === started.childId));
    assert.equal(progress.at(-1)!.toolCalls, FILES);
    const [finished] = ofType(run.events, 'subagent_finished');
    assert.ok(finished);
    assert.equal(finished.childId, started.childId);
    assert.equal(finished.status, 'done');
    assert.equal(finished.report, REPORT);
    assert.ok(ofType(run.events, 'usage').some((event) => event.childId === started.childId));

    // The child read all 150 files and managed its own context: compactions in its own transcript.
    const child = await readTranscript(started.transcriptPath);
    const reads = child.entries.flatMap((entry) => (entry.type === 'message' ? blocksOf(entry.message) : [])).filter((block) => block.type === 'tool_use' && block.name === 'read_file');
    assert.equal(reads.length, FILES);
    const childCompactions = child.entries.filter((entry) => entry.type === 'compaction');
    assert.ok(childCompactions.length >= 1, 'the child compacted');
    assert.ok(summaries >= 1);
    assert.equal(childBodies.length, childStep + 1 + summaries);

    // The parent's context grew by the task call and its result (the report and the transcript line), nothing of the 150 reads.
    const [before, after] = parentBodies as [MessagesRequestBody, MessagesRequestBody];
    assert.deepEqual(after.messages.slice(0, before.messages.length).map(stripCache), before.messages.map(stripCache), 'the earlier messages are sent unchanged');
    const added = after.messages.slice(before.messages.length);
    assert.equal(added.length, 2);
    const result = (added[1]!.content as Anthropic.ContentBlockParam[])[0] as Anthropic.ToolResultBlockParam;
    assert.equal(result.type, 'tool_result');
    const resultText = typeof result.content === 'string' ? result.content : (result.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
    assert.equal(resultText, `Subagent transcript (everything it did): ${started.transcriptPath}\n\n${REPORT}`);
    const grewChars = JSON.stringify(after.messages).length - JSON.stringify(before.messages).length;
    const taskCallChars = JSON.stringify(added[0]).length;
    assert.ok(grewChars <= taskCallChars + resultText.length + 200, `the parent grew by ${grewChars} characters`);
    assert.ok(!JSON.stringify(after).includes('record 1 of file'), 'no file content reached the parent');
    // The child's work was far bigger than what the parent kept.
    const childTokens = finished.usage.inputTokens + finished.usage.cacheReadTokens + finished.usage.cacheWriteTokens;
    assert.ok(childTokens > 20 * Math.ceil(resultText.length / 4), `child prompts ${childTokens} tokens`);
  });

  it('a general child\'s task list is restored next to each of its summaries, and stays out of the parent\'s list', async () => {
    const plan = [
      { id: 'read', text: 'Read every file under data/', status: 'in_progress' },
      { id: 'report', text: 'Report the flagged records', status: 'pending' },
    ];
    let childStep = 0;
    fake.setResponder((body): ScriptedReply => {
      if (isChild(body)) {
        if (lastUserText(body).includes('CONTEXT COMPACTION')) {
          // The summary never mentions the plan: what of it reaches the child comes from its list.
          return reply.text(`<analysis>Went through the reads.</analysis><summary>1. Primary request: survey data/.\n8. Current work: read files 1 to ${childStep * READS_PER_STEP}.\n9. Next step: read on.</summary>`);
        }
        if (childStep === 0) {
          childStep++;
          return reply.toolUse('todo_write', { todos: plan }, { preamble: 'Planning first.' });
        }
        if ((childStep - 1) * READS_PER_STEP >= FILES) return reply.text(REPORT);
        const first = (childStep - 1) * READS_PER_STEP + 1;
        childStep++;
        return reply.message([
          { type: 'text', text: `Notes so far:\n${notes(first - READS_PER_STEP, READS_PER_STEP)}` },
          ...Array.from({ length: READS_PER_STEP }, (_, offset) => ({ type: 'tool_use' as const, name: 'read_file', input: { path: `data/file${first + offset}.txt` } })),
        ]);
      }
      const results = (body.messages as Anthropic.MessageParam[]).at(-1);
      const answered = Array.isArray(results?.content) && results.content.some((block) => block.type === 'tool_result');
      return answered ? reply.text('Surveyed.') : reply.toolUse('task', { description: 'Survey with a plan', prompt: 'Plan with todo_write, then read every file under data/ and report.', agent_type: 'general' });
    });
    const run = await cli(['-p', 'Survey the data folder with a subagent.']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const posts = fake.messageRequests();
    assert.deepEqual(posts.filter((request) => request.reply?.status !== 200).map((request) => request.reply?.status), []);
    const compacted = posts.map((request) => request.body as MessagesRequestBody).filter((body) => isChild(body) && JSON.stringify(body.messages).includes(SUMMARY_MARK));
    assert.ok(compacted.length > 0, 'the child compacted');
    for (const body of compacted) {
      const first = JSON.stringify(body.messages[0]);
      assert.ok(first.includes(TASK_LIST_MARK), 'the list stands next to the summary');
      assert.ok(first.includes('[in progress] read: Read every file under data/') && first.includes('[pending] report: Report the flagged records'), first.slice(0, 600));
    }
    // The child's list is its own: the parent's task list (the chat panel's) never changed.
    assert.deepEqual(run.events.filter((event) => event.type === 'todos'), []);
  });

  it('text output prints one escaped line when a subagent starts and one when it finishes', async () => {
    fake.setResponder((body): ScriptedReply => {
      if (isChild(body)) return reply.text('Nothing there.');
      const results = (body.messages as Anthropic.MessageParam[]).at(-1);
      const answered = Array.isArray(results?.content) && results.content.some((block) => block.type === 'tool_result');
      return answered ? reply.text('Done.') : reply.toolUse('task', { description: 'Look\u001b[2J around\u202e', prompt: 'Look around.', agent_type: 'explore' });
    });
    const run = await cli(['-p', 'Look around with a subagent'], 'text');
    assert.equal(run.code, EXIT.ok, run.stderr);
    const startLine = run.stderr.split('\n').find((line) => line.includes('subagent explore started'));
    assert.ok(startLine, run.stderr);
    assert.match(startLine, /⇉ subagent explore started: Look\\x1b\[2J around\\u202e \(transcript .*subagents.*transcript\.jsonl\)$/);
    assert.ok(!run.stderr.includes('\u001b') && !run.stderr.includes('\u202e'), 'no raw control character reaches the terminal');
    assert.match(run.stderr, /⇇ subagent done: 0 tool call\(s\), \d+ s, \$\d+\.\d{4}/);
  });

  it('text output says a failed subagent\'s outcome in the words the chat uses, not the raw status', async () => {
    fake.setResponder((body): ScriptedReply => {
      if (isChild(body)) return reply.error(400, { message: 'the child request was refused' });
      const results = (body.messages as Anthropic.MessageParam[]).at(-1);
      const answered = Array.isArray(results?.content) && results.content.some((block) => block.type === 'tool_result');
      return answered ? reply.text('It failed.') : reply.toolUse('task', { description: 'Fails', prompt: 'Do it.', agent_type: 'explore' });
    });
    const run = await cli(['-p', 'Try a subagent'], 'text');
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stderr, /⇇ subagent failed: 0 tool call\(s\), \d+ s, \$\d+\.\d{4}/);
    assert.ok(!run.stderr.includes('subagent error'), run.stderr);
  });

  it('--subagent-max-tool-rounds sets a child\'s step limit; the outcome reads "hit a limit"', async () => {
    let childRounds = 0;
    fake.setResponder((body): ScriptedReply => {
      if (isChild(body)) return reply.toolUse('read_file', { path: `data/file${++childRounds}.txt` }, { preamble: `Reading file ${childRounds}.` });
      const results = (body.messages as Anthropic.MessageParam[]).at(-1);
      const answered = Array.isArray(results?.content) && results.content.some((block) => block.type === 'tool_result');
      return answered ? reply.text('It ran out of steps.') : reply.toolUse('task', { description: 'Read on', prompt: 'Read every file.', agent_type: 'explore' });
    });
    const run = await cli(['-p', 'Survey with a subagent', '--subagent-max-tool-rounds', '2', '--subagent-concurrency', '1', '--subagent-time-limit', '5'], 'text');
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(childRounds, 3, 'the third round is over the limit of 2');
    assert.match(run.stderr, /⇇ subagent hit a limit: 2 tool call\(s\)/);
  });

  it('an approval a subagent asks for names that subagent (several may ask in turn on one terminal)', async () => {
    fake.setResponder((body): ScriptedReply => {
      const results = (body.messages as Anthropic.MessageParam[]).at(-1);
      const answered = Array.isArray(results?.content) && results.content.some((block) => block.type === 'tool_result');
      if (isChild(body)) return answered ? reply.text('The write was declined.') : reply.toolUse('write_file', { path: 'child.txt', content: 'x\n' });
      if (answered) return reply.text('Done.');
      return reply.message([
        { type: 'tool_use', name: 'write_file', input: { path: 'parent.txt', content: 'y\n' } },
        { type: 'tool_use', name: 'task', input: { description: 'Write\u001b[2J the file', prompt: 'Write child.txt.', agent_type: 'general' } },
      ]);
    });
    // No --yes and no terminal: every write is declined, each with a line saying whose it was.
    const run = await fixture().run(['--model', MODEL, '--context-window', String(WINDOW), '-p', 'Write both files']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const declined = run.stderr.split('\n').filter((line) => line.startsWith('evergreen: declined'));
    assert.deepEqual(declined, [
      'evergreen: declined creating parent.txt: no terminal to ask on (run with --yes to approve automatically)',
      'evergreen: declined creating child.txt for subagent "Write\\x1b[2J the file": no terminal to ask on (run with --yes to approve automatically)',
    ]);
  });

  it('bad --subagent-* values are usage errors naming the flag and the range; nothing starts', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--subagent-concurrency', '0'], /--subagent-concurrency must be a whole number from 1 to 10, got 0/],
      [['--subagent-concurrency', 'many'], /--subagent-concurrency must be a whole number from 1 to 10, got "many"/],
      [['--subagent-max-tool-rounds', '2.5'], /--subagent-max-tool-rounds must be a whole number from 1 to 10000, got 2\.5/],
      [['--subagent-time-limit=-3'], /--subagent-time-limit must be a whole number from 1 to 1440, got -3/],
    ];
    for (const [flags, message] of cases) {
      const run = await cli(['-p', 'hi', ...flags], 'text');
      assert.equal(run.code, EXIT.usage, `${flags.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr.split('\n')[0]!, message, flags.join(' '));
    }
    assert.equal(fake.messageRequests().length, 0, 'no request was sent');
    assert.ok(!fs.existsSync(path.join(storage, 'sessions')) || fs.readdirSync(path.join(storage, 'sessions')).length === 0, 'no session was created');
  });
});

/** A request message without cache_control marks (they move from request to request). */
function stripCache(message: Anthropic.MessageParam): unknown {
  return JSON.parse(JSON.stringify(message, (key, value: unknown) => (key === 'cache_control' ? undefined : value)));
}

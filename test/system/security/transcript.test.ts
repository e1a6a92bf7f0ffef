// Issue 7 item 6 through the real CLI: a transcript torn by a crash or a full disk, or holding a
// line of the wrong shape, never makes resume fail, never loses what is appended afterwards, and
// the user is told which lines were skipped.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reply, type FakeAnthropic } from '../../fake-anthropic/server';
import { useCliFixture } from '../../support/cliFixture';

const MODEL = 'claude-sonnet-4-6';

describe('security: a damaged transcript resumes', function () {
  this.timeout(60_000);
  const fixture = useCliFixture('anthropic');
  let fake: FakeAnthropic;
  let storage: string;

  beforeEach(async () => {
    ({ fake, storage } = fixture());
    fake.setModel(MODEL, { max_input_tokens: 200_000, max_tokens: 64_000 });
  });

  const cli = (...args: string[]) =>
    fixture().run(['--model', MODEL, '--output-format', 'stream-json', ...args]);

  async function firstSession(): Promise<{ id: string; transcript: string }> {
    fake.enqueue(reply.text('The codename is HERON.'));
    const run = await cli('-p', 'Remember the codename HERON.');
    assert.equal(run.code, 0, run.stderr);
    const started = run.events.find((event) => event.type === 'session_started');
    assert.ok(started && started.type === 'session_started');
    return { id: started.sessionId, transcript: path.join(storage, 'sessions', started.sessionId, 'transcript.jsonl') };
  }

  const sentMessages = (index: number): string => JSON.stringify((fake.messageRequests()[index]?.body as { messages?: unknown } | undefined)?.messages);

  it('a line of the wrong shape is skipped and reported with its number; the rest resumes', async () => {
    const { id, transcript } = await firstSession();
    const lines = fs.readFileSync(transcript, 'utf8').split('\n');
    // Valid JSON, wrong shape: a message whose content is a number (once a TypeError on every resume).
    lines.splice(2, 0, JSON.stringify({ type: 'message', ts: new Date().toISOString(), message: { role: 'user', content: 42 } }), '{not json');
    fs.writeFileSync(transcript, lines.join('\n'));

    fake.enqueue(reply.text('Still HERON.'));
    const run = await cli('--resume', id, '-p', 'What was the codename?');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /skipped.*line 3, 4|line 3, 4.*skipped/i, run.stderr);
    assert.match(sentMessages(1), /Remember the codename HERON/);
    assert.match(sentMessages(1), /The codename is HERON/);
  });

  it('blocks of the wrong shape inside a message are caught on read, not by a TypeError on every resume', async () => {
    const { id, transcript } = await firstSession();
    const ts = new Date().toISOString();
    const bad = [
      { role: 'assistant', content: [{ type: 'text' }] },
      { role: 'assistant', content: [{ type: 'text', text: 5 }] },
      { role: 'assistant', content: [{ type: 'tool_use', name: 'read_file', input: {} }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'bad id!', name: 'read_file', input: {} }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'read_file', input: 'not an object' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 42 }] },
      { role: 'user', content: [{ type: 'mystery' }] },
    ];
    fs.appendFileSync(transcript, bad.map((message) => JSON.stringify({ type: 'message', ts, message })).join('\n') + '\n');
    fake.enqueue(reply.text('Still HERON.'));
    const run = await cli('--resume', id, '-p', 'What was the codename?');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /7 unreadable line\(s\)/);
    assert.equal(fake.messageRequests().at(-1)?.reply?.status, 200);
  });

  it('a transcript from before replies were checked, repeating a tool_use id, resumes with a valid history', async () => {
    const { id, transcript } = await firstSession();
    const ts = new Date().toISOString();
    const use = (toolUseId: string) => ({ type: 'tool_use', id: toolUseId, name: 'list_files', input: {} });
    const result = (toolUseId: string, text: string) => ({ type: 'tool_result', tool_use_id: toolUseId, content: text });
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'List twice.' }] },
      { role: 'assistant', content: [use('toolu_dup'), use('toolu_dup')] },
      { role: 'user', content: [result('toolu_dup', 'first listing'), result('toolu_dup', 'second listing')] },
      { role: 'assistant', content: [use('toolu_dup')] },
      { role: 'user', content: [result('toolu_dup', 'third listing')] },
      { role: 'assistant', content: [{ type: 'text', text: 'Listed three times.' }] },
    ];
    fs.appendFileSync(transcript, messages.map((message) => JSON.stringify({ type: 'message', ts, message })).join('\n') + '\n');
    fake.enqueue(reply.text('Fine.'));
    const run = await cli('--resume', id, '-p', 'And now?');
    assert.equal(run.code, 0, run.stderr);
    const last = fake.messageRequests().at(-1);
    assert.equal(last?.reply?.status, 200, JSON.stringify(last?.reply));
    const sent = sentMessages(fake.messageRequests().length - 1);
    for (const text of ['first listing', 'second listing', 'third listing']) assert.match(sent, new RegExp(text), `${text} was lost`);
  });

  it('after a torn last line, the next turn is appended on its own line and survives the following resume', async () => {
    const { id, transcript } = await firstSession();
    fs.appendFileSync(transcript, '{"type":"message","ts":"2026-11-23T00:00:00.000Z","message":{"role":"user","con');

    fake.enqueue(reply.text('Second answer: KESTREL.'));
    const second = await cli('--resume', id, '-p', 'The new codename is KESTREL.');
    assert.equal(second.code, 0, second.stderr);

    fake.enqueue(reply.text('KESTREL.'));
    const third = await cli('--resume', id, '-p', 'And now?');
    assert.equal(third.code, 0, third.stderr);
    const last = sentMessages(2);
    assert.match(last, /The new codename is KESTREL/, 'the turn appended after the torn line was lost');
    assert.match(last, /Second answer: KESTREL/);
  });
});

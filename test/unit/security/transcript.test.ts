// Issue 7 item 6 through the real CLI: a transcript torn by a crash or a full disk, or holding a
// line of the wrong shape, never makes resume fail, never loses what is appended afterwards, and
// the user is told which lines were skipped.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliCaptured } from '../../support/cliCapture';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';

const MODEL = 'claude-sonnet-4-6';

describe('security: a damaged transcript resumes', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    fake.setModel(MODEL, { max_input_tokens: 200_000, max_tokens: 64_000 });
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-sec-tr-ws-'));
    storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-sec-tr-store-'));
  });
  afterEach(async () => {
    await fake.close();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(storage, { recursive: true, force: true });
  });

  const cli = (...args: string[]) =>
    runCliCaptured(
      ['--workspace', workspace, '--storage-dir', storage, '--model', MODEL, '--output-format', 'stream-json', ...args],
      { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH },
      workspace,
    );

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

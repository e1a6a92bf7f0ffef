import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/events';
import { repairHistory } from '../../src/core/agent/history';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { EXIT } from '../../src/cli/run';
import { runCliCaptured } from '../support/cliCapture';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  events: AgentEvent[];
}

describe('headless CLI', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cli-ws-'));
    storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-cli-store-'));
    fs.writeFileSync(path.join(workspace, 'notes.md'), '# Notes\nship it\n');
  });
  afterEach(async () => {
    await fake.close();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(storage, { recursive: true, force: true });
  });

  function cli(args: string[], env: Record<string, string | undefined> = {}, stdinText?: string): Promise<CliRun> {
    return runCliCaptured(
      ['--workspace', workspace, '--storage-dir', storage, '--model', 'claude-sonnet-4-6', ...args],
      { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH, ...env },
      workspace,
      stdinText,
    );
  }

  it('runs a scripted multi-turn session and prints every event as one JSON line', async () => {
    fake.enqueue(reply.toolUse('read_file', { path: 'notes.md' }, { id: 'toolu_notes', preamble: 'Looking.' }), reply.text('It says ship it.'), reply.text('You are welcome.'));
    const run = await cli(['--output-format', 'stream-json', '-p', 'What do the notes say?', '-p', 'Thanks']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const shape = run.events.map((event) => {
      switch (event.type) {
        case 'text_delta':
          return `text:${event.text}`;
        case 'tool_call_started':
          return `tool:${event.name}:${JSON.stringify(event.input)}`;
        case 'tool_call_finished':
          return `result:${event.toolUseId}:${event.isError}`;
        case 'turn_started':
          return `turn:${event.userText}`;
        case 'turn_finished':
          return `end:${event.stopReason}`;
        case 'usage':
          return `usage:${event.usage.outputTokens > 0}`;
        default:
          return event.type;
      }
    });
    // Text arrives in several deltas; join consecutive ones to compare the whole sequence.
    const merged = shape.filter((item) => item !== 'context').reduce<string[]>((acc, item) => {
      const last = acc.at(-1);
      if (item.startsWith('text:') && last?.startsWith('text:')) acc[acc.length - 1] = last + item.slice(5);
      else acc.push(item);
      return acc;
    }, []);
    assert.deepEqual(merged, [
      'session_started',
      'turn:What do the notes say?',
      'request_started',
      'text:Looking.',
      'usage:true',
      'tool:read_file:{"path":"notes.md"}',
      'result:toolu_notes:false',
      'request_started',
      'text:It says ship it.',
      'usage:true',
      'end:end_turn',
      'turn:Thanks',
      'request_started',
      'text:You are welcome.',
      'usage:true',
      'end:end_turn',
    ]);
    const started = run.events[0];
    assert.ok(started?.type === 'session_started' && started.model === 'claude-sonnet-4-6' && started.resumed === false);
    const finished = run.events.find((event) => event.type === 'tool_call_finished');
    assert.ok(finished?.type === 'tool_call_finished' && finished.content.includes('ship it'));
    // The second turn's request carried the whole first turn.
    const body = fake.messageRequests().at(-1)?.body as { messages: unknown[] };
    assert.equal(body.messages.length, 5);
  });

  it('resumes a stored session by id', async () => {
    fake.enqueue(reply.text('First answer.'), reply.text('Second answer.'));
    const first = await cli(['--output-format', 'stream-json', '-p', 'one']);
    const started = first.events[0];
    assert.ok(started?.type === 'session_started');
    const second = await cli(['--output-format', 'stream-json', '--resume', started.sessionId, '-p', 'two']);
    assert.equal(second.code, EXIT.ok, second.stderr);
    const resumed = second.events[0];
    assert.ok(resumed?.type === 'session_started' && resumed.resumed && resumed.sessionId === started.sessionId);
    const body = fake.messageRequests().at(-1)?.body as { messages: unknown[] };
    assert.equal(body.messages.length, 3);
  });

  it('reads the prompt from stdin and prints plain text by default', async () => {
    fake.enqueue(reply.text('Hello from the fake.'));
    const run = await cli([], {}, 'say hello\n');
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(run.stdout, 'Hello from the fake.\n');
    assert.match(run.stderr, /\[session \S+ · \$0\.\d{4}\]/);
  });

  it('exits non-zero with a one-line reason for each bad start', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const cases: Array<[string[], Record<string, string | undefined>, number, RegExp]> = [
        [['-p', 'hi'], { ANTHROPIC_API_KEY: undefined }, EXIT.failed, /No Anthropic API key is set/],
        [['-p', 'hi'], { ANTHROPIC_API_KEY: 'sk-ant-wrong' }, EXIT.failed, /rejected \(401\)/],
        [['-p', 'hi', '--base-url', 'http://127.0.0.1:9'], {}, EXIT.failed, /Could not reach the Anthropic API/],
        [['-p', 'hi', '--model', 'claude-imaginary-9'], {}, EXIT.failed, /does not know the model "claude-imaginary-9"/],
        [['-p', 'hi', '--resume', 'no-such-session'], {}, EXIT.failed, /No session "no-such-session".*without --resume/],
        [['-p', 'hi', '--output-format', 'xml'], {}, EXIT.usage, /--output-format must be "text" or "stream-json"/],
        [['-p', 'hi', '--context-window', 'lots'], {}, EXIT.usage, /--context-window must be a positive integer/],
        [['-p', 'hi', '--context-setting', 'snipUtilisation=0.5'], {}, EXIT.usage, /unknown compression setting "snipUtilisation"/],
        [['-p', 'hi', '--context-setting', 'snipUtilization=-1'], {}, EXIT.usage, /"snipUtilization" must be a number from 0 to 1/],
        [['-p', 'hi', '--context-setting', 'nonsense'], {}, EXIT.usage, /KEY=NUMBER/],
        [['-p', 'hi', '--auto-compact-percent', '5'], {}, EXIT.usage, /between 10 and 100/],
        [[], {}, EXIT.usage, /no prompt/],
      ];
      for (const [args, env, code, message] of cases) {
        const run = await cli(args, env);
        assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
        assert.match(run.stderr.split('\n')[0]!, message, args.join(' '));
      }
      // None of the failed starts left a session folder behind.
      assert.deepEqual(fs.existsSync(path.join(storage, 'sessions')) ? fs.readdirSync(path.join(storage, 'sessions')) : [], []);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('declines writes without a terminal unless --yes is given', async () => {
    fake.enqueue(reply.toolUse('write_file', { path: 'out.txt', content: 'x' }), reply.text('Could not write.'));
    const refused = await cli(['-p', 'write out.txt']);
    assert.equal(refused.code, EXIT.ok);
    assert.match(refused.stderr, /declined creating out\.txt: no terminal to ask on \(run with --yes/);
    assert.equal(fs.existsSync(path.join(workspace, 'out.txt')), false);

    fake.enqueue(reply.toolUse('write_file', { path: 'out.txt', content: 'x' }), reply.text('Written.'));
    const approved = await cli(['-p', 'write out.txt', '--yes']);
    assert.equal(approved.code, EXIT.ok);
    assert.equal(fs.readFileSync(path.join(workspace, 'out.txt'), 'utf8'), 'x');
  });

  it('cancels cleanly on SIGINT, exits 130 and leaves a valid transcript', async () => {
    fake.enqueue(reply.toolUse('run_shell', { command: 'sleep 60' }, { id: 'toolu_sleep' }));
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.resolve('src/cli/main.ts'), '--workspace', workspace, '--storage-dir', storage, '--model', 'claude-sonnet-4-6', '--yes', '--output-format', 'stream-json', '-p', 'wait'], {
      env: { ...process.env, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // One Ctrl-C: a second one would quit at once by design.
      if (!interrupted && out.includes('"tool_call_started"')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, EXIT.cancelled, err);
    assert.match(err, /cancelled/);
    const events = out.trim().split('\n').map((line) => JSON.parse(line) as AgentEvent);
    assert.deepEqual(events.at(-1), { type: 'turn_finished', turnId: (events.at(-1) as { turnId: string }).turnId, stopReason: 'cancelled' });
    // The transcript replays to an API-valid history: the sent tool_use has its (cancelled) result.
    const store = new FileSessionStore(storage);
    const [meta] = await store.list();
    assert.ok(meta);
    const { transcript } = await store.open(meta.id);
    const messages = transcript.entries.flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));
    assert.equal(messages.length, 3);
    assert.equal(repairHistory(messages).repairs, 0);
  });
});

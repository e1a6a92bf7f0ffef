import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WordedEvent as AgentEvent } from '../../src/frontends/words/wordEvent';
import { repairHistory } from '../../src/core/agent/history';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { EXIT } from '../../src/cli/run';
import { BACKENDS, say, type FakeBackend } from '../support/backends';
import { useCliFixture } from '../support/cliFixture';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  events: AgentEvent[];
}

/** What each provider's CLI says for a bad start that depends on the back end. */
const PROVIDER_WORDS = {
  anthropic: { noKey: /No Anthropic API key is set/, unreachable: /Could not reach the Anthropic API/, unknownModel: /does not know the model "claude-imaginary-9"/ },
  openai: { noKey: /No OpenAI API key is set/, unreachable: /Could not reach the OpenAI-compatible API/, unknownModel: /does not know the model "claude-imaginary-9"/ },
} as const;

// The same suite against each back end (the test matrix of issue 9), chosen with --provider.
for (const backend of BACKENDS) describe(`headless CLI [${backend.name}]`, function () {
  this.timeout(30_000);
  const fixture = useCliFixture(backend, { files: { 'notes.md': '# Notes\nship it\n' } });
  let fake: FakeBackend;
  let workspace: string;
  let storage: string;
  beforeEach(() => ({ fake, workspace, storage } = fixture()));

  const cli = (args: string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<CliRun> => fixture().run(args, { env, ...(stdin === undefined ? {} : { stdin }) });

  it('runs a scripted multi-turn session and prints every event as one JSON line', async () => {
    fake.enqueue(say.toolUse('read_file', { path: 'notes.md' }, { id: 'toolu_notes', preamble: 'Looking.' }), say.text('It says ship it.'), say.text('You are welcome.'));
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
    assert.ok(started?.type === 'session_started' && started.model === fake.model && started.resumed === false);
    const finished = run.events.find((event) => event.type === 'tool_call_finished');
    assert.ok(finished?.type === 'tool_call_finished' && finished.content.includes('ship it'));
    // The second turn's request carried the whole first turn.
    assert.equal(fake.requests().at(-1)?.messages.length, 5);
    assert.deepEqual(fake.rejectedRequests(), []);
  });

  it('resumes a stored session by id', async () => {
    fake.enqueue(say.text('First answer.'), say.text('Second answer.'));
    const first = await cli(['--output-format', 'stream-json', '-p', 'one']);
    const started = first.events[0];
    assert.ok(started?.type === 'session_started');
    const second = await cli(['--output-format', 'stream-json', '--resume', started.sessionId, '-p', 'two']);
    assert.equal(second.code, EXIT.ok, second.stderr);
    const resumed = second.events[0];
    assert.ok(resumed?.type === 'session_started' && resumed.resumed && resumed.sessionId === started.sessionId);
    assert.equal(fake.requests().at(-1)?.messages.length, 3);
  });

  it('reads the prompt from stdin and prints plain text by default', async () => {
    fake.enqueue(say.text('Hello from the fake.'));
    const run = await cli([], {}, 'say hello\n');
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(run.stdout, 'Hello from the fake.\n');
    assert.match(run.stderr, /\[session \S+ · \$0\.\d{4}\]/);
  });

  it('exits non-zero with a one-line reason for each bad start', async () => {
    const saved = process.env[fake.keyEnv];
    delete process.env[fake.keyEnv];
    const words = PROVIDER_WORDS[fake.name];
    try {
      // Anthropic's Models API is required, so a wrong key, an unreachable server or an unknown model
      // fails the start. An OpenAI-compatible server's models endpoint is optional (local servers lack
      // it or answer it without auth), so there those surface at the first request instead: the
      // session exists then, holding the prompt, and can be resumed once the cause is fixed.
      const remoteAtStart = fake.name === 'anthropic';
      const cases: Array<[string[], Record<string, string | undefined>, number, RegExp, boolean]> = [
        // OpenAI-compatible servers elsewhere need no key; OpenAI's own API (no base URL) does.
        [['-p', 'hi'], { [fake.keyEnv]: undefined, [fake.baseUrlEnv]: undefined }, EXIT.failed, words.noKey, true],
        [['-p', 'hi'], { [fake.keyEnv]: 'sk-wrong' }, EXIT.failed, /rejected \(401\)/, remoteAtStart],
        [['-p', 'hi', '--base-url', 'http://127.0.0.1:9'], {}, EXIT.failed, words.unreachable, remoteAtStart],
        [['-p', 'hi', '--model', 'claude-imaginary-9'], {}, EXIT.failed, words.unknownModel, remoteAtStart],
        [['-p', 'hi', '--resume', 'no-such-session'], {}, EXIT.failed, /No session "no-such-session".*without --resume/, true],
        [['-p', 'hi', '--output-format', 'xml'], {}, EXIT.usage, /--output-format must be "text" or "stream-json"/, true],
        [['-p', 'hi', '--context-window', 'lots'], {}, EXIT.usage, /--context-window must be a positive integer/, true],
        [['-p', 'hi', '--context-setting', 'snipUtilisation=0.5'], {}, EXIT.usage, /unknown compression setting "snipUtilisation"/, true],
        [['-p', 'hi', '--context-setting', 'snipUtilization=-1'], {}, EXIT.usage, /"snipUtilization" must be a number from 0 to 1/, true],
        [['-p', 'hi', '--context-setting', 'nonsense'], {}, EXIT.usage, /KEY=NUMBER/, true],
        [['-p', 'hi', '--auto-compact-percent', '5'], {}, EXIT.usage, /between 10 and 100/, true],
        [[], {}, EXIT.usage, /no prompt/, true],
      ];
      const sessions = () => (fs.existsSync(path.join(storage, 'sessions')) ? fs.readdirSync(path.join(storage, 'sessions')) : []);
      for (const [args, env, code, message, atStart] of cases) {
        const before = sessions().length;
        const run = await cli(args, env);
        assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
        assert.match(run.stderr.split('\n')[0]!, message, args.join(' '));
        // A failed start leaves no session folder behind; a failed first request keeps the prompt.
        assert.equal(sessions().length, before + (atStart ? 0 : 1), args.join(' '));
      }
      assert.deepEqual(fake.rejectedRequests().map((request) => request.status), remoteAtStart ? [] : [401, 404]);
    } finally {
      if (saved !== undefined) process.env[fake.keyEnv] = saved;
    }
  });

  it('declines writes without a terminal unless --yes is given', async () => {
    fake.enqueue(say.toolUse('write_file', { path: 'out.txt', content: 'x' }), say.text('Could not write.'));
    const refused = await cli(['-p', 'write out.txt']);
    assert.equal(refused.code, EXIT.ok);
    assert.match(refused.stderr, /declined creating out\.txt: no terminal to ask on \(run with --yes/);
    assert.equal(fs.existsSync(path.join(workspace, 'out.txt')), false);

    fake.enqueue(say.toolUse('write_file', { path: 'out.txt', content: 'x' }), say.text('Written.'));
    const approved = await cli(['-p', 'write out.txt', '--yes']);
    assert.equal(approved.code, EXIT.ok);
    assert.equal(fs.readFileSync(path.join(workspace, 'out.txt'), 'utf8'), 'x');
  });

  it('cancels cleanly on SIGINT, exits 130 and leaves a valid transcript', async () => {
    fake.enqueue(say.toolUse('run_shell', { command: 'sleep 60' }, { id: 'toolu_sleep' }));
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.resolve('src/cli/main.ts'), ...fixture().argv(['--yes', '--output-format', 'stream-json', '-p', 'wait'])], {
      env: { ...process.env, ...fake.cliEnv() },
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

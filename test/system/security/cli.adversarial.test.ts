import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import type { AgentEvent } from '../../../src/core/agent/events';
import { EXIT, runCli } from '../../../src/cli/run';
import { type CapturedRun } from '../../support/cliCapture';
import { reply, type FakeAnthropic } from '../../fake-anthropic/server';
import { waitFor } from '../../support/waitFor';
import { useCliFixture } from '../../support/cliFixture';

// Everything here drives the real CLI against the fake API with replies a hostile or broken model
// (or server) could produce. Terminal output must never carry a raw control, C1, bidi or
// zero-width character: any of them can make a command read as something it is not.
const RAW_UNSAFE = /[^\P{Cc}\n]|[\p{Cf}\u2028\u2029]/u; // controls but newline, format characters (bidi, zero-width), separators

function assertTerminalSafe(text: string, label: string): void {
  const match = RAW_UNSAFE.exec(text);
  assert.equal(match, null, `${label} carries raw U+${match?.[0].codePointAt(0)?.toString(16).padStart(4, '0')} near ${JSON.stringify(text.slice(Math.max(0, (match?.index ?? 0) - 30), (match?.index ?? 0) + 30))}`);
}

describe('security: the CLI against hostile model output and broken servers', function () {
  this.timeout(60_000);
  const fixture = useCliFixture('anthropic');
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    ({ fake, workspace, storage } = fixture());
    fs.writeFileSync(path.join(workspace, 'notes.md'), '# Notes\n');
  });

  const baseArgs = (): string[] => fixture().argv(['--model', 'claude-sonnet-4-6']);
  const baseEnv = (): Record<string, string | undefined> => fixture().env();

  function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CapturedRun> {
    return fixture().run(['--model', 'claude-sonnet-4-6', ...args], { env });
  }

  /** As on a terminal: every approval prompt is answered `answer`. */
  async function ttyCli(args: string[], answer: string): Promise<{ code: number; stdout: string; stderr: string; prompts: number }> {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    let prompts = 0;
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      // Answer each question once it has been asked (a line typed early would reach the wrong one).
      const asked = err.split('[y/N] ').length - 1;
      while (prompts < asked) {
        prompts++;
        setImmediate(() => stdin.write(`${answer}\n`));
      }
    });
    const code = await runCli([...baseArgs(), ...args], { stdin, stdout, stderr, env: baseEnv(), cwd: workspace });
    await new Promise((resolve) => setImmediate(resolve));
    return { code, stdout: out, stderr: err, prompts };
  }

  describe('terminal spoofing (escape sequences, CR, bidi, zero-width)', () => {
    const spoofedCommand = 'rm -rf x\r\x1b[2K\x1b[1Agit status\b\b';

    it('shows streamed text, tool calls, approval prompts and diffs with visible escapes', async () => {
      fake.enqueue(
        // One character per delta: every escape sequence is split across chunks.
        reply.message(
          [
            { type: 'text', text: 'Hi \x1b]0;pwned\x07there\x1b[2K\rfake \u202eevil\u2066x\u2069 zero\u200bwidth \x9b31m\x7f\n' },
            { type: 'tool_use', name: 'run_shell', input: { command: spoofedCommand } },
          ],
          { stream: { textChunkChars: 1 } },
        ),
        reply.toolUse('write_file', { path: 'safe\u202ehs.txt', content: 'one\x1b[31m red\r\nline\u200b\n' }),
        reply.text('Done.'),
      );
      const run = await ttyCli(['-p', 'tidy up'], 'n');
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.equal(run.prompts, 2, run.stderr);
      assertTerminalSafe(run.stdout, 'stdout');
      assertTerminalSafe(run.stderr, 'stderr');
      // Model text: each character visible, newlines kept.
      assert.ok(run.stdout.includes('Hi \\x1b]0;pwned\\x07there\\x1b[2K\\rfake \\u202eevil\\u2066x\\u2069 zero\\u200bwidth \\x9b31m\\x7f\n'), run.stdout);
      // The approval prompt shows what would really run, on one line, and its size.
      assert.ok(run.stderr.includes('$ rm -rf x\\r\\x1b[2K\\x1b[1Agit status\\x08\\x08\n'), run.stderr);
      assert.ok(run.stderr.includes('Allow running this command (1 line, 29 characters)? [y/N]'), run.stderr);
      // The tool-call line (JSON of the input) has no raw byte either.
      assert.match(run.stderr, /▸ run_shell \{"command":"rm -rf x\\r\\u001b\[2K/);
      // The diff keeps its lines; CR, ESC and the zero-width space inside them are visible.
      assert.ok(run.stderr.includes('+one\\x1b[31m red\\r\n+line\\u200b\n'), run.stderr);
      assert.ok(run.stderr.includes('Allow creating safe\\u202ehs.txt? [y/N]'), run.stderr);
    });

    it('escapes what it prints without a terminal, tool names and API errors that echo model input', async () => {
      fake.enqueue(
        reply.toolUse('run_shell', { command: spoofedCommand }),
        reply.toolUse('read\x1b[2K\u202efile', { path: 'notes.md' }),
        reply.error(400, { message: 'messages.3: bad input "\x1b]8;;http://evil\x07click\x1b]8;;\x07\u202e"' }),
      );
      const run = await cli(['-p', 'go']);
      assert.equal(run.code, EXIT.failed, run.stderr);
      assertTerminalSafe(run.stdout, 'stdout');
      assertTerminalSafe(run.stderr, 'stderr');
      assert.ok(run.stderr.includes('declined running `rm -rf x\\r\\x1b[2K\\x1b[1Agit status\\x08\\x08` (1 line, 29 characters): no terminal'), run.stderr);
      assert.ok(run.stderr.includes('▸ read\\x1b[2K\\u202efile {"path":"notes.md"}'), run.stderr);
      assert.ok(run.stderr.includes('✗ read\\x1b[2K\\u202efile'), run.stderr);
      assert.ok(run.stderr.includes('bad input "\\x1b]8;;http://evil\\x07click\\x1b]8;;\\x07\\u202e"'), run.stderr);
    });

    it('stream-json keeps the exact text for programs but writes C1, bidi and zero-width characters as \\u escapes', async () => {
      const text = 'a\x1b[2K\u202eb\u200bc\x9bd\u2028e\x7f\ud83d\ude00';
      fake.enqueue(reply.text(text));
      const run = await cli(['--output-format', 'stream-json', '-p', 'go']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assertTerminalSafe(run.stdout, 'stdout');
      assert.ok(run.stdout.includes('\\u202e') && run.stdout.includes('\\u009b') && run.stdout.includes('\\u2028'), run.stdout);
      const streamed = run.events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
      assert.equal(streamed, text);
    });
  });

  it('(a) marks streamed text of a failed attempt as discarded before the retry prints the reply again', async () => {
    fake.enqueue(reply.text('The first attempt says this and then the socket dies.', { stream: { cutAfterEvents: 6, textChunkChars: 8 } }), reply.text('The full answer.'));
    const run = await cli(['-p', 'go']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /^The first attempt[^\n]*\n\[reply interrupted[^\n]*discarded[^\n]*\]\nThe full answer\.\n$/);
    assert.match(run.stderr, /retrying in \d+ ms \(attempt 1\)/);
  });

  it('(a) adds no marker when a retry happens before any text', async () => {
    fake.enqueue(reply.error(529), reply.text('Fine.'));
    const run = await cli(['-p', 'go']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(run.stdout, 'Fine.\n');
  });

  it('(b) a reply cut by max_tokens inside a tool call fails with a next step', async () => {
    fake.enqueue(reply.toolUse('write_file', { path: 'big.txt', content: 'lorem ipsum dolor '.repeat(400) }, { preamble: 'Writing it.' }));
    const run = await cli(['--max-output-tokens', '200', '-p', 'write a big file']);
    assert.equal(run.code, EXIT.failed, run.stderr);
    assert.equal(run.stdout, 'Writing it.\n');
    assert.match(run.stderr, /error: The reply hit the output token limit \(200 tokens\) before it was complete/);
    assert.match(run.stderr, /--max-output-tokens/);
    assert.match(run.stderr, /--resume \S+ -p "continue"/);
    const json = await cli(['--output-format', 'stream-json', '--max-output-tokens', '200', '-p', 'again'], {});
    assert.equal(json.code, EXIT.failed);
    assert.equal(json.events.at(-1)?.type, 'turn_finished');
  });

  describe('(c) hints name the CLI, not VS Code', () => {
    it('at startup', async () => {
      const saved = process.env.ANTHROPIC_API_KEY;
      delete process.env.ANTHROPIC_API_KEY;
      try {
        const noKey = await cli(['-p', 'hi'], { ANTHROPIC_API_KEY: undefined });
        assert.equal(noKey.code, EXIT.failed);
        assert.match(noKey.stderr, /No Anthropic API key is set.*ANTHROPIC_API_KEY/);
        const badKey = await cli(['-p', 'hi'], { ANTHROPIC_API_KEY: 'sk-ant-wrong' });
        assert.match(badKey.stderr, /rejected \(401\).*ANTHROPIC_API_KEY/);
        const unknown = await cli(['-p', 'hi', '--model', 'claude-imaginary-9']);
        assert.match(unknown.stderr, /does not know the model.*--model/);
        const unreachable = await cli(['-p', 'hi', '--base-url', 'http://127.0.0.1:9']);
        assert.match(unreachable.stderr, /Could not reach.*--base-url/);
        for (const run of [noKey, badKey, unknown, unreachable]) {
          assert.doesNotMatch(run.stderr, /Evergreen: |evergreen\.\w+|New Chat/, run.stderr);
        }
      } finally {
        if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
      }
    });

    it('for errors during a turn', async () => {
      fake.enqueue(reply.error(400, { message: 'something the API refused' }));
      const run = await cli(['-p', 'hi']);
      assert.equal(run.code, EXIT.failed);
      assert.match(run.stderr, /error: The API rejected the request/);
      assert.match(run.stderr, /run without --resume/);
      assert.doesNotMatch(run.stderr, /Evergreen: |evergreen\.\w+|New Chat/, run.stderr);
    });
  });

  it('(d) tool input that is not valid JSON becomes an error result for the model, not a retried connection', async () => {
    fake.enqueue(
      reply.message(
        [
          { type: 'tool_use', id: 'toolu_bad', name: 'read_file', input: { path: 'notes.md' } },
          { type: 'tool_use', id: 'toolu_good', name: 'read_file', input: { path: 'notes.md' } },
        ],
        { stream: { rawToolInputJson: ['{"path": "notes.md",, }', '{"path": "notes.md"}'] } },
      ),
      reply.text('I will send valid JSON next time.'),
    );
    const run = await cli(['--output-format', 'stream-json', '-p', 'read the notes']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(run.events.filter((event) => event.type === 'retrying').length, 0, run.stderr);
    assert.equal(fake.messageRequests().length, 2);
    const finished = run.events.filter((event): event is Extract<AgentEvent, { type: 'tool_call_finished' }> => event.type === 'tool_call_finished');
    assert.deepEqual(
      finished.map((event) => [event.toolUseId, event.isError]),
      [
        ['toolu_bad', true],
        ['toolu_good', false],
      ],
    );
    assert.match(finished[0]!.content, /not valid JSON/);
    // The whole reply was used: the call after the bad one ran, and its usage was counted.
    assert.match(finished[1]!.content, /# Notes/);
    const usage = run.events.find((event) => event.type === 'usage');
    assert.ok(usage?.type === 'usage' && usage.usage.outputTokens > 1, JSON.stringify(usage));
    // The model is told, with its own text, and the history stays valid for the API.
    const second = fake.messageRequests()[1]?.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    const calls = second.messages[1]?.content.filter((block) => block.type === 'tool_use');
    assert.deepEqual(
      calls?.map((block) => block.input),
      [{}, { path: 'notes.md' }],
    );
    const result = second.messages[2]?.content.find((block) => block.type === 'tool_result' && block.tool_use_id === 'toolu_bad');
    assert.equal(result?.is_error, true);
    assert.match(String(result?.content), /not valid JSON.*"path": "notes\.md",, \}/s);
  });

  describe('(e) a password in --base-url never reaches the terminal', () => {
    it('in startup errors and verbose logs, whether the URL carries user:password or key=', async () => {
      const port = new URL(fake.url).port;
      for (const url of [`http://user:s3cret-pass@127.0.0.1:${port}`, `http://user:s3cret-pass@127.0.0.1:9`, `http://127.0.0.1:9/?key=s3cret-pass`]) {
        const run = await cli(['-v', '-p', 'hi', '--base-url', url]);
        assert.equal(run.code, EXIT.failed, `${url}: ${run.stderr}`);
        assert.doesNotMatch(run.stderr + run.stdout, /s3cret/, url);
        assert.match(run.stderr, /Could not reach the Anthropic API at http:\/\/(\*\*\*@)?127\.0\.0\.1/, run.stderr);
      }
    });
  });

  it('(f) --resume "" is a usage error, not a new session', async () => {
    for (const id of ['', '  ']) {
      const run = await cli(['--resume', id, '-p', 'hi']);
      assert.equal(run.code, EXIT.usage, run.stderr);
      assert.match(run.stderr, /--resume needs a session id/);
    }
    assert.equal(fake.requests.length, 0);
    assert.deepEqual(fs.existsSync(path.join(storage, 'sessions')) ? fs.readdirSync(path.join(storage, 'sessions')) : [], []);
  });

  describe('(g) a server that never answers the models request', () => {
    let proxy: http.Server;
    let proxyUrl: string;
    const sockets = new Set<Socket>();
    const saved = process.env.EVERGREEN_MODELS_TIMEOUT_MS;

    beforeEach(async () => {
      // The fake with its models endpoint black-holed: messages still work.
      proxy = http.createServer((req, res) => {
        if (req.url?.startsWith('/v1/models')) return; // never answered
        const upstream = http.request(`${fake.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        req.pipe(upstream);
      });
      proxy.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      process.env.EVERGREEN_MODELS_TIMEOUT_MS = '500';
    });
    afterEach(async () => {
      if (saved === undefined) delete process.env.EVERGREEN_MODELS_TIMEOUT_MS;
      else process.env.EVERGREEN_MODELS_TIMEOUT_MS = saved;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    });

    it('falls back to the default window after a bounded, stated wait', async () => {
      fake.enqueue(reply.text('Answered anyway.'));
      const started = Date.now();
      const run = await cli(['-p', 'hi', '--base-url', proxyUrl]);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.ok(Date.now() - started < 10_000);
      assert.equal(run.stdout, 'Answered anyway.\n');
      assert.match(run.stderr, /warning: The Models API did not answer within 0\.5 s.*200,000 tokens.*--context-window/);
    });
  });

  it('(h) a second process resuming a session in use is refused with a clear message', async () => {
    fake.enqueue(reply.text('First.'));
    const first = await cli(['--output-format', 'stream-json', '-p', 'one']);
    const started = first.events[0];
    assert.ok(started?.type === 'session_started', first.stderr);
    // The other process holds the session while its model request hangs.
    fake.enqueue(reply.hang());
    const child: ChildProcess = spawn(process.execPath, ['--require', 'tsx/cjs', path.resolve('src/cli/main.ts'), ...baseArgs(), '--resume', started.sessionId, '-p', 'wait'], {
      env: { ...process.env, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitFor(() => fake.messageRequests().length >= 2, { what: 'the first run to send its second request', timeoutMs: 20_000 });
      assert.equal(fake.messageRequests().length, 2, 'the first process never reached its model request');
      const second = await cli(['--resume', started.sessionId, '-p', 'two']);
      assert.equal(second.code, EXIT.failed, second.stderr);
      assert.match(second.stderr, new RegExp(`Session "${started.sessionId}" is open in another Evergreen window or process \\(pid ${child.pid}\\)`));
      assert.match(second.stderr, /run without --resume/);
      assert.doesNotMatch(second.stderr, /New Chat/);
      assert.equal(fake.messageRequests().length, 2, 'the refused process must not call the model');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});

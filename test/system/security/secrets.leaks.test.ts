// Issue 18 item 3, secrets: the key leaves the CLI's own environment once read; a key printed
// with escape codes between its characters is still redacted in live progress; a key a server
// echoes in an error body reaches neither stderr, nor stream-json (what the panel renders), nor
// the --verbose log.
import { said } from '../../support/said';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import fc from 'fast-check';
import { EXIT } from '../../../src/cli/run';
import { redactSecrets, SecretRedactingStream, SecretRedactor, type KnownSecret } from '../../../src/core/secrets';
import { createToolRegistry } from '../../../src/core/tools/registry';
import { NodeWorkspace } from '../../../src/core/workspace/workspace';
import { runCliCaptured } from '../../support/cliCapture';
import { makeContext } from '../../support/toolFixtures';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';
import { reply as openaiReply, startFakeOpenAI } from '../../fake-openai/server';
import { useTempDirs } from '../../support/tempDirs';

const MODEL = 'claude-sonnet-4-6';
/** What a terminal shows: escape sequences and format characters take no room. */
const shown = (text: string): string => text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]|\p{Cf}/gu, ''); // eslint-disable-line no-control-regex

describe('security: secrets split by escape codes, echoed by servers, or left in the environment', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  const key = `sk-ant-api03-${randomBytes(16).toString('hex')}`;
  const otherKey = `sk-proj-${randomBytes(16).toString('hex')}`;
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;

  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: key });
    fake.setModel(MODEL, { max_input_tokens: 200_000, max_tokens: 64_000 });
    workspace = temp.make('evergreen-leak-ws-');
    storage = temp.make('evergreen-leak-store-');
  });
  afterEach(async () => {
    await fake.close();
  });

  const args = (...rest: string[]): string[] => ['--workspace', workspace, '--storage-dir', storage, '--model', MODEL, ...rest];

  describe('live progress', () => {
    it('redacts a key that run_shell prints with color codes between its characters, before it reaches the panel', async () => {
      const secrets: KnownSecret[] = [{ name: 'API key', value: key }];
      const tools = createToolRegistry({ trusted: true, secrets });
      // `printf` writes ESC[0m between every two characters, and a zero-width space once.
      const format = [...key].map((char, index) => (index === 10 ? `${char}\\342\\200\\213` : char)).join('\\033[0m');
      const context = makeContext(new NodeWorkspace(workspace));
      const result = await tools.executeToolCall('run_shell', { command: `printf '${format}\\n'` }, context);
      assert.equal(result.isError, false, result.content);
      const progress = context.progress.join('');
      assert.ok(progress.length > 0, 'the command streamed its output');
      assert.ok(!shown(progress).includes(key), `live progress shows the key: ${JSON.stringify(progress)}`);
      assert.ok(progress.includes('[redacted: API key]'), JSON.stringify(progress));
      assert.ok(!shown(result.content).includes(key), result.content);
    });

    it('whatever the chunking, escape codes between the characters never let a key through', () => {
      const secrets: KnownSecret[] = [
        { name: 'API key', value: 'sk-ant-api03-abcXYZ' },
        { name: 'OPENAI_API_KEY', value: 'sk-proj-abab-1234' },
      ];
      const escapes = ['\x1b[0m', '\x1b[1;31m', '\x1b]0;title\x07', '\x1b(B', '\u200b', '\u202e', '\x9b2K'];
      const hidden = (value: string) => fc.array(fc.constantFrom(...escapes, '', '', ''), { minLength: value.length, maxLength: value.length }).map((gaps) => [...value].map((char, index) => char + (index < value.length - 1 ? gaps[index] : '')).join(''));
      const piece = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...escapes), ...secrets.map((secret) => hidden(secret.value)), fc.constantFrom('sk-ant-', 'sk-proj-abab'));
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 10 }), fc.array(fc.nat({ max: 30 }), { maxLength: 10 }), (pieces, cuts) => {
          const whole = pieces.join('');
          const stream = new SecretRedactingStream(secrets);
          const emitted: string[] = [];
          let at = 0;
          for (const cut of cuts) {
            emitted.push(stream.push(whole.slice(at, at + cut)));
            at += cut;
          }
          emitted.push(stream.push(whole.slice(at)), stream.flush());
          const joined = emitted.join('');
          for (const secret of secrets) assert.ok(!shown(joined).includes(secret.value), `leaked in ${JSON.stringify(emitted)}`);
          assert.equal(joined, redactSecrets(whole, secrets));
        }),
        { numRuns: 2000, seed: 18 },
      );
    });
  });

  describe('error bodies that echo the key', () => {
    const echo = () => reply.error(400, { message: `invalid request from key ${key} (x-api-key: ${key})` });

    it('text output: stderr and the verbose log show [redacted: API key], never the key', async () => {
      fake.enqueue(echo());
      const run = await runCliCaptured(args('--verbose', '-p', 'go'), { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH }, workspace);
      assert.equal(run.code, EXIT.failed, run.stderr);
      assert.ok(!run.stderr.includes(key) && !run.stdout.includes(key), run.stderr);
      assert.match(run.stderr, /invalid request from key \[redacted: API key\]/);
    });

    it('stream-json: the error event (what the panel renders) carries no key', async () => {
      fake.enqueue(echo());
      const run = await runCliCaptured(args('--output-format', 'stream-json', '-p', 'go'), { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH }, workspace);
      assert.equal(run.code, EXIT.failed, run.stderr);
      const error = run.events.find((event) => event.type === 'error');
      assert.ok(error?.type === 'error', run.stdout);
      assert.match(said(error.message), /\[redacted: API key\]/);
      assert.ok(!run.stdout.includes(key) && !run.stderr.includes(key), run.stdout);
    });

    it('the OpenAI back end too', async () => {
      const openai = await startFakeOpenAI({ apiKey: otherKey });
      try {
        openai.enqueue(openaiReply.error(401, { message: `Incorrect API key provided: ${otherKey}` }));
        const run = await runCliCaptured(
          ['--workspace', workspace, '--storage-dir', storage, '--provider', 'openai', '--model', 'gpt-4.1', '--output-format', 'stream-json', '-p', 'go'],
          { OPENAI_API_KEY: otherKey, OPENAI_BASE_URL: openai.url, PATH: process.env.PATH },
          workspace,
        );
        assert.equal(run.code, EXIT.failed, run.stderr);
        assert.ok(!run.stdout.includes(otherKey) && !run.stderr.includes(otherKey), `${run.stdout}\n${run.stderr}`);
        assert.match(run.stdout + run.stderr, /\[redacted: API key\]/);
      } finally {
        await openai.close();
      }
    });
  });

  describe('an MCP server that echoes the key (issue 26)', () => {
    let server: http.Server;
    let mcpConfig: string;
    beforeEach(async () => {
      // It refuses every request, quoting the key in its body, with escape codes hiding one of them.
      server = http.createServer((_req, res) => {
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end(`key ${key} is not allowed here; nor is ${[...key].join('\x1b[0m')}`);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      mcpConfig = path.join(storage, 'mcp.json');
      fs.writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { echoer: { type: 'http', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` } } }));
    });
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    for (const format of ['stream-json', 'text'] as const) {
      it(`${format}: the mcp_notice that names the failure, and every other line, show [redacted: API key]`, async () => {
        fake.enqueue(reply.text('Hi.'));
        const run = await runCliCaptured(args('--verbose', '--output-format', format, '--mcp-config', mcpConfig, '-p', 'go'), { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH }, workspace);
        assert.equal(run.code, EXIT.ok, run.stderr);
        const everything = run.stdout + run.stderr;
        assert.ok(!shown(everything).includes(key) && !everything.includes(key), everything);
        // The \x1b escapes the text output shows, taken out: what a reader would copy.
        assert.ok(!everything.replaceAll('\\x1b[0m', '').includes(key), everything);
        assert.match(everything, /"echoer".*\[redacted: API key\]/);
        if (format === 'stream-json') {
          const notice = run.events.find((event) => event.type === 'mcp_notice' && said(event.message).includes('"echoer"'));
          assert.ok(notice?.type === 'mcp_notice', run.stdout);
          assert.match(said(notice.message), /\[redacted: API key\]/);
          // The parsed text as a program would show it: the key hidden by escape codes is gone too.
          for (const event of run.events) if ('message' in event && typeof event.message === 'string') assert.ok(!shown(event.message).includes(key), event.message);
        }
      });
    }
  });

  describe('the one redaction the front ends share (SecretRedactor)', () => {
    it('redacts every string of a message to the panel, however deep, and leaves one without a key as it was', () => {
      const redactor = new SecretRedactor();
      const message = { type: 'agentEvent', event: { type: 'mcp_notice', level: 'warning', message: `401: ${key}` }, list: [{ text: `a${[...key].join('\u200b')}b` }, 3, null] };
      assert.equal(redactor.value(message), message, 'nothing learned yet: unchanged');
      redactor.learn([{ name: 'API key', value: key }]);
      const redacted = redactor.value(message);
      assert.equal(redacted.event.message, '401: [redacted: API key]');
      assert.equal(redacted.list[0] && typeof redacted.list[0] === 'object' ? redacted.list[0].text : '', 'a[redacted: API key]b');
      assert.deepEqual(redacted.list.slice(1), [3, null]);
      assert.equal(message.event.message, `401: ${key}`, 'the original is not changed');
      const clean = { type: 'gauge', gauge: { label: 'fine' } };
      assert.equal(redactor.value(clean), clean);
    });

    it('learns keys later (a session started after the log was made) and replaces a longer key whole', () => {
      const redactor = new SecretRedactor();
      const logged: string[] = [];
      const log = (text: string) => logged.push(redactor.text(text));
      log(`early ${key}`);
      redactor.learn([{ name: 'API key', value: key }, { name: 'LONGER', value: `${key}-extra` }, { name: 'short', value: 'abc' }]);
      log(`late ${key} and ${key}-extra and abc`);
      assert.deepEqual(logged, [`early ${key}`, 'late [redacted: API key] and [redacted: LONGER] and abc']);
    });
  });

  describe("the CLI's own lines", () => {
    it('a line the CLI words itself (the key pasted as a session id) goes through the same redaction', async () => {
      const run = await runCliCaptured(args('--resume', key, '-p', 'go'), { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH }, workspace);
      assert.equal(run.code, EXIT.failed, run.stderr);
      assert.ok(!run.stderr.includes(key) && !run.stdout.includes(key), run.stderr);
      assert.match(run.stderr, /\[redacted: API key\]/);
    });
  });

  describe("the CLI's own environment", () => {
    it('drops ANTHROPIC_API_KEY and OPENAI_API_KEY once read, and still redacts both', async () => {
      fs.writeFileSync(path.join(workspace, 'notes.md'), `anthropic=${key}\nopenai=${otherKey}\n`);
      const env: Record<string, string | undefined> = { ANTHROPIC_API_KEY: key, OPENAI_API_KEY: otherKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH };
      let duringRun: string[] | undefined;
      fake.enqueue(reply.toolUse('read_file', { path: 'notes.md' }));
      fake.setResponder(() => {
        // Asked while the session runs: what later code in the process would find.
        duringRun = Object.keys(env).filter((name) => name.endsWith('_API_KEY'));
        return reply.text('Done.');
      });
      const run = await runCliCaptured(args('-p', 'go'), env, workspace);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.deepEqual(duringRun, [], 'the keys were still in the environment during the run');
      assert.equal(env.ANTHROPIC_BASE_URL, fake.url, 'only the keys are removed');
      // Both values were known before they left the environment: the tool result sent to the model hides them.
      const sent = JSON.stringify(fake.messageRequests().at(-1)?.body);
      assert.ok(!sent.includes(key) && !sent.includes(otherKey), sent);
      assert.match(sent, /anthropic=\[redacted: API key\]/);
      assert.match(sent, /openai=\[redacted: OPENAI_API_KEY\]/);
    });
  });
});

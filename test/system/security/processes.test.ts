// Issue 7 items 7 and 8, as an attacker drives them: a model that asks the shell for the
// environment or reads a file holding the key, a model that points grep at a FIFO, and a CLI
// killed while its shell commands still run.
import { markedSleep, waitForMarked } from '../../support/processMarkers';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliCaptured } from '../../support/cliCapture';
import { createToolRegistry } from '../../../src/core/tools/registry';
import { findRipgrepOnPath } from '../../../src/core/tools/grepSearch';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';
import { makeContext as makeRecordingContext } from '../../support/toolFixtures';
import { NodeWorkspace } from '../../../src/core/workspace/workspace';
import { useTempDirs } from '../../support/tempDirs';

const makeContext = (root: string, _options: { autoApprove?: boolean } = {}) => makeRecordingContext(new NodeWorkspace(root));

const MODEL = 'claude-sonnet-4-6';

describe('security: secrets never reach the model through tools', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  const key = `sk-ant-api03-${randomBytes(24).toString('hex')}`;
  const otherKey = `sk-proj-${randomBytes(24).toString('hex')}`;
  let fake: FakeAnthropic;
  let workspace: string;
  let storage: string;
  const saved: Record<string, string | undefined> = {};

  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: key });
    fake.setModel(MODEL, { max_input_tokens: 200_000, max_tokens: 64_000 });
    workspace = temp.make('evergreen-sec-ws-');
    storage = temp.make('evergreen-sec-store-');
    // The extension host and the CLI both run with the user's environment.
    for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']) saved[name] = process.env[name];
    process.env.ANTHROPIC_API_KEY = key;
    process.env.OPENAI_API_KEY = otherKey;
  });
  afterEach(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await fake.close();
  });

  it('run_shell children get no provider keys: `env` shows neither the names nor the values', async () => {
    const tools = createToolRegistry({ trusted: true });
    const result = await tools.executeToolCall('run_shell', { command: 'env; echo "k=$ANTHROPIC_API_KEY o=$OPENAI_API_KEY"' }, makeContext(workspace, { autoApprove: true }));
    assert.equal(result.isError, false, result.content);
    assert.match(result.content, /PATH=/, 'the rest of the environment is inherited');
    assert.ok(!result.content.includes(key) && !result.content.includes(otherKey), result.content);
    assert.doesNotMatch(result.content, /ANTHROPIC_API_KEY=|OPENAI_API_KEY=/);
    assert.match(result.content, /k= o=/);
  });

  it('a key printed in two pieces, with a pause between them, is not shown live either (real CLI)', async () => {
    fs.writeFileSync(path.join(workspace, '.env'), `${key}\n`);
    fake.enqueue(reply.toolUse('run_shell', { command: 'head -c 20 .env; sleep 0.3; tail -c +21 .env' }), reply.text('Done.'));
    const run = await runCliCaptured(
      ['--workspace', workspace, '--storage-dir', storage, '--model', MODEL, '--output-format', 'stream-json', '--yes', '-p', 'print it slowly'],
      { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH },
      workspace,
    );
    assert.equal(run.code, 0, run.stderr);
    const progress = run.events.flatMap((event) => (event.type === 'tool_call_progress' ? [event.chunk] : []));
    assert.ok(progress.length >= 1, 'no live output was streamed');
    assert.ok(!progress.join('').includes(key), `the key was streamed live: ${JSON.stringify(progress)}`);
    assert.match(progress.join(''), /\[redacted: API key\]/, 'the two pieces were shown as one redacted key');
    assert.ok(!run.stdout.includes(key));
  });

  it('a key in a workspace file or printed by a command is redacted before the next request (real CLI)', async () => {
    fs.writeFileSync(path.join(workspace, '.env'), `ANTHROPIC_API_KEY=${key}\nOTHER=1\n`);
    fake.enqueue(
      reply.toolUse('read_file', { path: '.env' }),
      reply.toolUse('run_shell', { command: 'cat .env; echo done' }),
      reply.text('Read it.'),
    );
    const run = await runCliCaptured(
      ['--workspace', workspace, '--storage-dir', storage, '--model', MODEL, '--output-format', 'stream-json', '--yes', '-p', 'show me the .env file'],
      { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH },
      workspace,
    );
    assert.equal(run.code, 0, run.stderr);
    const requests = fake.messageRequests();
    assert.equal(requests.length, 3);
    for (const request of requests) assert.ok(!JSON.stringify(request.body).includes(key), 'the key was sent to the model');
    const last = JSON.stringify(requests[2]?.body);
    assert.match(last, /\[redacted: API key\]/);
    assert.match(last, /OTHER=1/, 'the rest of the file still reaches the model');
    // The live output (stream-json progress events, the panel) never carries it either.
    assert.ok(!run.stdout.includes(key), 'the key reached stream-json');
    // Nor is it in what the user's transcript keeps.
    const transcripts = fs.readdirSync(path.join(storage, 'sessions'));
    for (const id of transcripts) assert.ok(!fs.readFileSync(path.join(storage, 'sessions', id, 'transcript.jsonl'), 'utf8').includes(key));
  });
});

describe('security: special files and orphaned processes', function () {
  this.timeout(60_000);
  const temp = useTempDirs();
  let workspace: string;
  beforeEach(() => {
    workspace = temp.make('evergreen-sec-fifo-');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'needle here\n');
    const made = spawnSync('mkfifo', [path.join(workspace, 'pipe')]);
    assert.equal(made.status, 0, 'mkfifo is needed for this suite');
  });

  const rgPath = findRipgrepOnPath();
  const engines: [string, string | undefined][] = [['JS search', undefined]];
  if (rgPath) engines.push(['ripgrep', rgPath]);
  else it('ripgrep is installed (npm test installs Debian ripgrep)', () => assert.fail('rg is not on PATH: the ripgrep half of this suite cannot run'));

  for (const [label, ripgrepPath] of engines) {
    it(`grep_search refuses a FIFO as its target instead of hanging (${label})`, async () => {
      const tools = createToolRegistry({ trusted: false, ripgrepPath });
      const result = await tools.executeToolCall('grep_search', { pattern: 'needle', path: 'pipe' }, makeContext(workspace));
      assert.equal(result.isError, true);
      assert.match(result.content, /pipe is not a regular file or directory \(a pipe, socket or device\)/);
    });

    it(`grep_search over a folder holding a FIFO finds the matches and skips the pipe (${label})`, async () => {
      const tools = createToolRegistry({ trusted: false, ripgrepPath });
      const result = await tools.executeToolCall('grep_search', { pattern: 'needle' }, makeContext(workspace));
      assert.equal(result.isError, undefined, result.content);
      assert.equal(result.content, 'a.txt:1:needle here');
    });
  }

  it('list_files does not list a FIFO', async () => {
    const tools = createToolRegistry({ trusted: false });
    const result = await tools.executeToolCall('list_files', {}, makeContext(workspace));
    assert.match(result.content, /a\.txt/);
    assert.doesNotMatch(result.content, /pipe/);
  });

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGQUIT', 131],
    ['SIGUSR2', 140],
  ] as const) {
    it(`${signal} to the CLI kills the shell's whole process tree, background jobs included`, async () => {
      const fake = await startFakeAnthropic();
      const storage = temp.make('evergreen-sec-sig-');
      const pids: number[] = [];
      // The command runs in the sandbox's PID namespace: its processes are found by a marker, not by $$.
      const marker = `evergreen-sig-${signal}-${process.pid}`;
      try {
        fake.setModel(MODEL, { max_input_tokens: 200_000, max_tokens: 64_000 });
        fake.enqueue(reply.toolUse('run_shell', { command: `${markedSleep(marker)} & exec -a ${marker} sleep 300` }), reply.text('never reached'));
        const cli = spawn(
          process.execPath,
          ['--require', 'tsx/cjs', 'src/cli/main.ts', '--workspace', workspace, '--storage-dir', storage, '--model', MODEL, '--yes', '-p', 'run it'],
          { env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, HOME: os.tmpdir() }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => cli.once('exit', (exitCode) => resolve(exitCode)));
        pids.push(...(await waitForMarked(marker, 2)));
        assert.equal(pids.length, 2, `the background job and the shell's own sleep should run before the signal: ${stderr}`);

        cli.kill(signal);
        assert.equal(await exited, code, stderr);
        assert.deepEqual(await waitForMarked(marker, 0, 5000), [], 'a process of the command outlived the CLI');
      } finally {
        // Whatever failed above, no test leaves sleeping trees behind.
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await fake.close();
      }
    });
  }
});

// Issue 18 in the CLI: --yes approves commands in the sandbox, never a run outside it; without a
// terminal such a run is declined with its own message. --no-sandbox is warned about, and the
// allowed domains are checked before anything starts.
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../../src/cli/run';
import { execFileSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { type CapturedRun } from '../../support/cliCapture';
import { reply, type FakeAnthropic } from '../../fake-anthropic/server';
import { useCliFixture } from '../../support/cliFixture';

describe('security: the CLI and the command sandbox', function () {
  this.timeout(60_000);

  describe('against the fake API', () => {
    const fixture = useCliFixture('anthropic');
    let fake: FakeAnthropic;
    let workspace: string;
    let storage: string;

    beforeEach(async () => {
      ({ fake, workspace, storage } = fixture());
    });

    function cli(args: string[]): Promise<CapturedRun> {
      return fixture().run(['--model', 'claude-sonnet-4-6', ...args]);
    }

    /** The tool result the model got back for the one run_shell call. */
    function shellResult(): string {
      const last = (fake.messageRequests().at(-1)?.body as Anthropic.MessageCreateParams | undefined)?.messages.at(-1);
      const block = Array.isArray(last?.content) ? last.content.find((item) => item.type === 'tool_result') : undefined;
      assert.ok(block && block.type === 'tool_result', 'no tool result was sent back');
      return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
    }

    it('--yes without a terminal declines a command that asks to leave the sandbox, and it does not run', async function () {
      if (process.platform !== 'linux') this.skip(); // 'outside' needs a working sandbox: real bubblewrap on Linux.
      const marker = path.join(workspace, 'ran-outside');
      fake.enqueue(
        reply.message([{ type: 'tool_use', id: 'toolu_out', name: 'run_shell', input: { command: `touch '${marker}'`, outside_sandbox_reason: 'needs the docker socket' } }]),
        reply.text('It was declined.'),
      );
      const run = await cli(['--yes', '-p', 'touch the marker outside the sandbox']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.equal(fs.existsSync(marker), false, 'the command ran');
      assert.match(run.stderr, /outside the sandbox: no terminal to ask on \(--yes never approves leaving the sandbox\)/);
      assert.doesNotMatch(run.stderr, /warning: The command sandbox/, 'the sandbox did not start here');
      assert.match(shellResult(), /declined to run the command outside the sandbox; it was not executed\. Reason: .*--yes does not cover it/);
    });

    it('--yes runs the same command in the sandbox when it does not ask to leave it', async function () {
      if (process.platform !== 'linux') this.skip();
      const marker = path.join(workspace, 'ran-inside');
      fake.enqueue(reply.message([{ type: 'tool_use', id: 'toolu_in', name: 'run_shell', input: { command: `touch '${marker}'` } }]), reply.text('Done.'));
      const run = await cli(['--yes', '-p', 'touch the marker']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.equal(fs.existsSync(marker), true, shellResult());
      assert.doesNotMatch(run.stderr, /declined/);
    });

    it('--yes without a terminal keeps what a sandboxed command wrote that would arm a program outside (here .vscode) out of the workspace, and says where it is', async function () {
      if (process.platform !== 'linux') this.skip(); // the workspace overlay is Linux's
      fake.enqueue(reply.toolUse('run_shell', { command: 'mkdir -p .vscode && echo {} > .vscode/tasks.json && echo ok > done.txt' }), reply.text('Noted.'));
      const run = await cli(['--yes', '-p', 'set up tasks']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.match(run.stderr, /declined applying 1 held change a sandboxed command wrote: no terminal to ask on \(--yes never approves what would run outside the sandbox\)/);
      assert.equal(fs.existsSync(path.join(workspace, '.vscode')), false);
      assert.equal(fs.readFileSync(path.join(workspace, 'done.txt'), 'utf8'), 'ok\n');
      const result = shellResult();
      assert.match(result, /\[sandbox\] Not applied, since the user did not approve them: \.vscode \(a new \.vscode: /);
      const keptIn = /They are kept in (\S+)\./.exec(result)?.[1] ?? '';
      assert.ok(keptIn.startsWith(storage), result);
      assert.equal(fs.readFileSync(path.join(keptIn, '.vscode', 'tasks.json'), 'utf8'), '{}\n');
    });

    it('asks on a terminal with the held paths and the risky configuration lines shown escaped, and applies them on yes', async function () {
      if (process.platform !== 'linux') this.skip();
      // Two folders down: an existing repository one folder down has its config read-only in the sandbox already.
      const lib = path.join(workspace, 'vendor', 'lib');
      fs.mkdirSync(lib, { recursive: true });
      execFileSync('git', ['init', '-q', lib]);
      fake.enqueue(reply.toolUse('run_shell', { command: "git -C vendor/lib config core.pager 'less\u001b[2J'" }), reply.text('Noted.'));
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      const stderr = new PassThrough();
      let err = '';
      stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        if (/Allow applying 1 held change[^\n]*\[y\/N\] $/.test(err)) setImmediate(() => stdin.write('y\n'));
      });
      const stdout = new PassThrough();
      stdout.resume();
      const code = await runCli(['--workspace', workspace, '--storage-dir', storage, '--model', 'claude-sonnet-4-6', '--yes', '-p', 'go'], { stdin, stdout, stderr, env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH }, cwd: workspace });
      assert.equal(code, EXIT.ok, err);
      assert.match(err, /vendor\/lib\/\.git\/config: Git configuration in vendor\/lib\/\.git that runs commands or points Git elsewhere\n {6}core\.pager = less\\x1b\[2J/);
      assert.equal(err.includes('\u001b[2J'), false, 'the escape reached the terminal raw');
      assert.match(execFileSync('git', ['-C', lib, 'config', 'core.pager'], { encoding: 'utf8' }), /less/);
    });

    it('--no-sandbox prints the warning once', async () => {
      fake.enqueue(reply.text('Hello.'));
      const run = await cli(['--no-sandbox', '-p', 'hi']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning: The command sandbox is off'));
      assert.equal(warnings.length, 1, run.stderr);
      assert.match(warnings[0] ?? '', /full permissions/);
    });

    it('--allow-command approves an allow-listed command headless, in the sandbox', async function () {
      if (process.platform !== 'linux') this.skip(); // the sandbox runs for real (bubblewrap) on Linux.
      const marker = path.join(workspace, 'made-in-sandbox');
      fake.enqueue(reply.message([{ type: 'tool_use', id: 'toolu_allow', name: 'run_shell', input: { command: `mkdir '${marker}'` } }]), reply.text('Done.'));
      const run = await cli(['--allow-command', 'mkdir', '-p', 'make the folder']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      assert.equal(fs.existsSync(marker), true, shellResult());
      assert.doesNotMatch(run.stderr, /declined/);
    });

    it('--allow-command with --no-sandbox approves a read-only command and declines a writer without a terminal', async () => {
      fs.writeFileSync(path.join(workspace, 'in.txt'), 'b\na\na\n');
      fake.enqueue(reply.message([{ type: 'tool_use', id: 'toolu_read', name: 'run_shell', input: { command: 'uniq in.txt' } }]), reply.text('Read.'));
      const reader = await cli(['--no-sandbox', '--allow-command', 'uniq', '-p', 'read it']);
      assert.equal(reader.code, EXIT.ok, reader.stderr);
      assert.match(shellResult(), /Exit code: 0\nb\na$/);
      assert.doesNotMatch(reader.stderr, /declined/);

      fake.enqueue(reply.message([{ type: 'tool_use', id: 'toolu_write', name: 'run_shell', input: { command: 'uniq in.txt out.txt' } }]), reply.text('Declined.'));
      const writer = await cli(['--no-sandbox', '--allow-command', 'uniq', '--allow-command', 'git status', '-p', 'write it']);
      assert.equal(writer.code, EXIT.ok, writer.stderr);
      assert.equal(fs.existsSync(path.join(workspace, 'out.txt')), false, 'the writer ran');
      assert.match(writer.stderr, /declined running `uniq in.txt out.txt`/);
    });

    it('refuses a domain that opens the whole network, or is no domain, before starting', async () => {
      for (const domain of ['*', 'not a domain']) {
        const run = await cli(['--allow-domain', domain, '-p', 'hi']);
        assert.equal(run.code, EXIT.usage, `${domain}: ${run.stderr}`);
        assert.match(run.stderr, /--allow-domain: /);
        assert.equal(fake.requests.length, 0, 'a request was sent');
      }
    });
  });
});

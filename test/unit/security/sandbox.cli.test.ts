// Issue 18 in the CLI: --yes approves commands in the sandbox, never a run outside it; without a
// terminal such a run is declined with its own message. --no-sandbox is warned about, and the
// allowed domains are checked before anything starts.
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCliArgs, UsageError } from '../../../src/cli/args';
import { EXIT } from '../../../src/cli/run';
import { PACKAGE_REGISTRY_DOMAINS } from '../../../src/core/sandbox/policy';
import { runCliCaptured, type CapturedRun } from '../../support/cliCapture';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';

describe('security: the CLI and the command sandbox', function () {
  this.timeout(60_000);

  describe('against the fake API', () => {
    let fake: FakeAnthropic;
    let workspace: string;
    let storage: string;

    beforeEach(async () => {
      fake = await startFakeAnthropic();
      workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-sbx-cli-ws-')));
      storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-sbx-cli-store-'));
    });
    afterEach(async () => {
      await fake.close();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(storage, { recursive: true, force: true });
    });

    function cli(args: string[]): Promise<CapturedRun> {
      return runCliCaptured(
        ['--workspace', workspace, '--storage-dir', storage, '--model', 'claude-sonnet-4-6', ...args],
        { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH },
        workspace,
      );
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

    it('--no-sandbox prints the warning once', async () => {
      fake.enqueue(reply.text('Hello.'));
      const run = await cli(['--no-sandbox', '-p', 'hi']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning: The command sandbox is off'));
      assert.equal(warnings.length, 1, run.stderr);
      assert.match(warnings[0] ?? '', /full permissions/);
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

  describe('parseCliArgs', () => {
    const parse = (...args: string[]) => parseCliArgs(args, '/tmp');

    it('keeps the sandbox on with no domains by default; --no-sandbox turns it off', () => {
      const defaults = parse();
      assert.equal(defaults.sandbox, true);
      assert.deepEqual(defaults.allowedDomains, []);
      assert.equal(parse('--no-sandbox').sandbox, false);
    });

    it('takes --allow-domain entries, lower-cased and de-duplicated', () => {
      assert.deepEqual(parse('--allow-domain', 'GitHub.com', '--allow-domain', '*.example.com', '--allow-domain', 'github.com').allowedDomains, ['github.com', '*.example.com']);
    });

    it('--allow-package-registries adds the registries (npm among them) to the given domains', () => {
      const options = parse('--allow-package-registries', '--allow-domain', 'github.com');
      assert.ok(options.allowedDomains.includes('registry.npmjs.org'));
      assert.ok(options.allowedDomains.includes('github.com'));
      assert.deepEqual(options.allowedDomains, [...PACKAGE_REGISTRY_DOMAINS, 'github.com']);
    });

    it("'*', '*.*' and a non-domain are usage errors that say what is wrong", () => {
      assert.throws(() => parse('--allow-domain', '*'), (error: unknown) => error instanceof UsageError && /would open the whole network/.test(error.message));
      assert.throws(() => parse('--allow-domain', '*.*'), (error: unknown) => error instanceof UsageError && /would open the whole network/.test(error.message));
      assert.throws(() => parse('--allow-domain', 'not a domain'), (error: unknown) => error instanceof UsageError && /"not a domain" is not a domain name/.test(error.message));
      assert.throws(() => parse('--allow-domain', 'https://example.com/'), UsageError);
      assert.throws(() => parse('--allow-domain', ''), UsageError);
    });
  });
});

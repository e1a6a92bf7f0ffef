/**
 * The provider on the command line (issue 9): --provider picks the back end and its variables;
 * an unknown one is a usage error that names the choices; every assistant message in the
 * transcript records the provider and model that wrote it, and transcripts from before still load.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../src/cli/run';
import { runCliCaptured } from '../support/cliCapture';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { reply as openaiReply, startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';
import { useCliFixture } from '../support/cliFixture';
import { useTempDirs } from '../support/tempDirs';

describe('CLI --provider', function () {
  this.timeout(30_000);

  describe('against the fake Anthropic API', () => {
    const fixture = useCliFixture('anthropic');
    let fake: FakeAnthropic;
    let storage: string;
    beforeEach(async () => {
      ({ fake, storage } = fixture());
    });

    const cli = (args: string[], env: Record<string, string | undefined> = {}) => fixture().run(args, { env });

    it('exits with a usage error for an unknown provider, before any request', async () => {
      const run = await cli(['--provider', 'gemini', '-p', 'hi']);
      assert.equal(run.code, EXIT.usage);
      assert.match(run.stderr, /--provider must be "anthropic" or "openai", got "gemini"/);
      assert.equal(fake.messageRequests().length, 0);
    });

    it('records the provider and model of every assistant message, and not of user messages', async () => {
      fake.enqueue(reply.text('Hello there.'));
      const run = await cli(['--provider', 'anthropic', '--model', 'claude-sonnet-4-6', '-p', 'hi']);
      assert.equal(run.code, EXIT.ok, run.stderr);
      const [id] = fs.readdirSync(path.join(storage, 'sessions'));
      const lines = fs.readFileSync(path.join(storage, 'sessions', id!, 'transcript.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      const messages = lines.filter((entry) => entry.type === 'message') as Array<{ message: { role: string }; provider?: string; model?: string }>;
      assert.deepEqual(
        messages.map((entry) => [entry.message.role, entry.provider, entry.model]),
        [
          ['user', undefined, undefined],
          ['assistant', 'anthropic', 'claude-sonnet-4-6'],
        ],
      );
    });
  });

  describe('with --provider openai', () => {
    let anthropic: FakeAnthropic;
    let openai: FakeOpenAI;
    let workspace: string;
    let storage: string;
    const temp = useTempDirs();
    beforeEach(async () => {
      anthropic = await startFakeAnthropic();
      openai = await startFakeOpenAI();
      workspace = temp.make('evergreen-provider-ws-');
      storage = temp.make('evergreen-provider-store-');
    });
    afterEach(async () => {
      await Promise.all([anthropic.close(), openai.close()]);
    });

    /** Both providers' variables are set: only the chosen one's may be used. */
    const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
      runCliCaptured(
        ['--workspace', workspace, '--storage-dir', storage, ...args],
        { ANTHROPIC_API_KEY: anthropic.apiKey, ANTHROPIC_BASE_URL: anthropic.url, OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.url, PATH: process.env.PATH, ...env },
        workspace,
      );

    it('talks to OPENAI_BASE_URL with OPENAI_API_KEY, and a resumed session goes on with the other provider', async () => {
      openai.enqueue(openaiReply.text('GPT says hi.'));
      const first = await cli(['--provider', 'openai', '--model', 'gpt-4.1-mini', '-p', 'hi']);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(openai.completionRequests().length, 1);
      assert.equal(anthropic.messageRequests().length, 0);
      const [id] = fs.readdirSync(path.join(storage, 'sessions'));

      anthropic.enqueue(reply.text('Claude goes on.'));
      const second = await cli(['--resume', id!, '--model', 'claude-sonnet-4-6', '-p', 'and now?']);
      assert.equal(second.code, 0, second.stderr);
      const sent = anthropic.messageRequests()[0]?.body as { messages: Array<{ role: string; content: unknown }> };
      assert.deepEqual(
        sent.messages.map((message) => message.role),
        ['user', 'assistant', 'user'],
      );
      const entries = fs.readFileSync(path.join(storage, 'sessions', id!, 'transcript.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; message?: { role: string }; provider?: string; model?: string });
      const replies = entries.filter((entry) => entry.type === 'message' && entry.message?.role === 'assistant').map((entry) => `${entry.provider}/${entry.model}`);
      assert.deepEqual(replies, ['openai/gpt-4.1-mini', 'anthropic/claude-sonnet-4-6']);
    });

    it('without OPENAI_API_KEY against OpenAI itself, fails before any request and names the variable', async () => {
      const run = await cli(['--provider', 'openai', '-p', 'hi'], { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined });
      assert.equal(run.code, EXIT.failed);
      assert.match(run.stderr, /OPENAI_API_KEY/);
      assert.doesNotMatch(run.stderr, /ANTHROPIC/);
      assert.equal(openai.requests.length, 0);
      assert.equal(anthropic.messageRequests().length, 0);
    });
  });
});

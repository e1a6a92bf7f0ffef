/**
 * The provider on the command line (issue 9): --provider picks the back end and its variables;
 * an unknown one is a usage error that names the choices; every assistant message in the
 * transcript records the provider and model that wrote it, and transcripts from before still load.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCliArgs, UsageError, USAGE } from '../../src/cli/args';
import { EXIT } from '../../src/cli/run';
import { transcriptEntryProblem } from '../../src/core/storage/transcript';
import { runCliCaptured } from '../support/cliCapture';
import { reply, startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';

describe('CLI --provider', function () {
  this.timeout(30_000);

  it('defaults to anthropic, accepts openai, and refuses anything else with the choices', () => {
    assert.equal(parseCliArgs(['-p', 'hi'], '/w').provider, 'anthropic');
    assert.equal(parseCliArgs(['--provider', 'openai', '-p', 'hi'], '/w').provider, 'openai');
    assert.equal(parseCliArgs(['--provider', 'Anthropic', '-p', 'hi'], '/w').provider, 'anthropic');
    assert.throws(() => parseCliArgs(['--provider', 'azure', '-p', 'hi'], '/w'), (error: unknown) => error instanceof UsageError && error.message === '--provider must be "anthropic" or "openai", got "azure"');
    assert.throws(() => parseCliArgs(['--provider', '', '-p', 'hi'], '/w'), UsageError);
    assert.match(USAGE, /--provider NAME/);
    assert.match(USAGE, /OPENAI_API_KEY/);
    assert.match(USAGE, /OPENAI_BASE_URL/);
  });

  describe('against the fake Anthropic API', () => {
    let fake: FakeAnthropic;
    let workspace: string;
    let storage: string;
    beforeEach(async () => {
      fake = await startFakeAnthropic();
      workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-provider-ws-'));
      storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-provider-store-'));
    });
    afterEach(async () => {
      await fake.close();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(storage, { recursive: true, force: true });
    });

    const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
      runCliCaptured(['--workspace', workspace, '--storage-dir', storage, ...args], { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH, ...env }, workspace);

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

  it('reads message entries without provider and model (older transcripts), and refuses ones of the wrong type', () => {
    const message = { role: 'assistant', content: [{ type: 'text', text: 'hi' }] };
    assert.equal(transcriptEntryProblem({ type: 'message', ts: 't', message }), undefined);
    assert.equal(transcriptEntryProblem({ type: 'message', ts: 't', message, provider: 'openai', model: 'gpt-4.1' }), undefined);
    assert.match(transcriptEntryProblem({ type: 'message', ts: 't', message, provider: 7 }) ?? '', /"provider" is not a string/);
    assert.match(transcriptEntryProblem({ type: 'message', ts: 't', message, model: null }) ?? '', /"model" is not a string/);
  });
});

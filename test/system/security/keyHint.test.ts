// Issue 18 item 3, "the wrong key hint": with --provider openai a rejected key (401) sent the user
// to ANTHROPIC_API_KEY, because the hint reached the terminal as text and the text of the first
// provider with the same extension wording won.
import assert from 'node:assert/strict';
import { EXIT } from '../../../src/cli/run';
import { runCliCaptured } from '../../support/cliCapture';
import { startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';
import { startFakeOpenAI, type FakeOpenAI } from '../../fake-openai/server';
import { useTempDirs } from '../../support/tempDirs';

describe('security: a rejected key names the variable of the provider in use', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  let workspace: string;
  let storage: string;
  beforeEach(async () => {
    [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
    workspace = temp.make('evergreen-keyhint-ws-');
    storage = temp.make('evergreen-keyhint-store-');
  });
  afterEach(async () => {
    await Promise.all([anthropic.close(), openai.close()]);
  });

  const cli = (provider: string, env: Record<string, string>) =>
    runCliCaptured(
      ['--workspace', workspace, '--storage-dir', storage, '--provider', provider, '-p', 'hi'],
      { ANTHROPIC_API_KEY: anthropic.apiKey, ANTHROPIC_BASE_URL: anthropic.url, OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.url, PATH: process.env.PATH ?? '', ...env },
      workspace,
    );

  it('--provider openai: a 401 says to set OPENAI_API_KEY, never ANTHROPIC_API_KEY', async () => {
    const run = await cli('openai', { OPENAI_API_KEY: 'sk-wrong' });
    assert.equal(run.code, EXIT.failed, run.stderr);
    assert.match(run.stderr, /rejected \(401\)/);
    assert.match(run.stderr, /Set a valid key in OPENAI_API_KEY/);
    assert.doesNotMatch(run.stderr, /ANTHROPIC/);
    assert.equal(anthropic.requests.length, 0);
  });

  it('--provider anthropic: a 401 still names ANTHROPIC_API_KEY', async () => {
    const run = await cli('anthropic', { ANTHROPIC_API_KEY: 'sk-wrong' });
    assert.equal(run.code, EXIT.failed, run.stderr);
    assert.match(run.stderr, /Set a valid key in ANTHROPIC_API_KEY/);
    assert.doesNotMatch(run.stderr, /OPENAI/);
  });
});

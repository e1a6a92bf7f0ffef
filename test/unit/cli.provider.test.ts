/**
 * The provider on the command line (issue 9): --provider picks the back end and its variables;
 * an unknown one is a usage error that names the choices; every assistant message in the
 * transcript records the provider and model that wrote it, and transcripts from before still load.
 */
import assert from 'node:assert/strict';
import { parseCliArgs, UsageError, USAGE } from '../../src/cli/args';
import { transcriptEntryProblem } from '../../src/core/storage/transcript';

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
    // The window an OpenAI-compatible session falls back to, not only Anthropic's.
    assert.match(USAGE, /--context-window N[^]*200000 on anthropic[^]*128000/);
  });

  it('reads message entries without provider and model (older transcripts), and refuses ones of the wrong type', () => {
    const message = { role: 'assistant', content: [{ type: 'text', text: 'hi' }] };
    assert.equal(transcriptEntryProblem({ type: 'message', ts: 't', message }), undefined);
    assert.equal(transcriptEntryProblem({ type: 'message', ts: 't', message, provider: 'openai', model: 'gpt-4.1' }), undefined);
    assert.match(transcriptEntryProblem({ type: 'message', ts: 't', message, provider: 7 }) ?? '', /malformed message entry: provider: .*expected string, received number/);
    assert.match(transcriptEntryProblem({ type: 'message', ts: 't', message, model: null }) ?? '', /malformed message entry: model: .*expected string, received null/);
  });
});

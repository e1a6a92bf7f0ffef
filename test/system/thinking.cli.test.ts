/**
 * --thinking on the command line (issue 21): a bad value is a usage error before any request;
 * `auto` and a budget reach the request each back end sends; a model that cannot think says so on
 * stderr and the run goes on; stream-json carries the notice and the usage's thinking tokens.
 */
import assert from 'node:assert/strict';
import { USAGE } from '../../src/cli/args';
import { EXIT } from '../../src/cli/run';
import { THINKING_DEFAULTS } from '../../src/core/model/thinking';
import { runCliCaptured } from '../support/cliCapture';
import { reply, startFakeAnthropic, type FakeAnthropic, type MessagesRequestBody } from '../fake-anthropic/server';
import { reply as openaiReply, startFakeOpenAI, type ChatRequestBody, type FakeOpenAI } from '../fake-openai/server';
import { useTempDirs } from '../support/tempDirs';

describe('CLI --thinking', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  let workspace: string;
  let storage: string;
  beforeEach(async () => {
    anthropic = await startFakeAnthropic();
    openai = await startFakeOpenAI();
    workspace = temp.make('evergreen-thinking-cli-ws-');
    storage = temp.make('evergreen-thinking-cli-store-');
  });
  afterEach(async () => {
    await Promise.all([anthropic.close(), openai.close()]);
  });

  const env = () => ({ ANTHROPIC_API_KEY: anthropic.apiKey, ANTHROPIC_BASE_URL: anthropic.url, OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.url, PATH: process.env.PATH });
  const cli = (args: string[]) => runCliCaptured(['--workspace', workspace, '--storage-dir', storage, ...args], env(), workspace);

  it('lists --thinking in --help', () => {
    assert.match(USAGE, /^\s+--thinking off\|auto\|N\s/m);
  });

  it('refuses a bad value with a usage error naming what is accepted, before any request', async () => {
    for (const bad of ['yes', '512']) {
      const run = await cli(['--thinking', bad, '-p', 'hi']);
      assert.equal(run.code, EXIT.usage, run.stderr);
      assert.match(run.stderr, /--thinking .*"off", "auto" or a budget in tokens/);
    }
    assert.equal(anthropic.messageRequests().length, 0);
  });

  it('sends the budget to Anthropic and reasoning_effort to an OpenAI reasoning model', async () => {
    anthropic.enqueue(reply.message([{ type: 'thinking', thinking: 'Short plan.' }, { type: 'text', text: 'Hi.' }]));
    const run = await cli(['--model', 'claude-opus-4-1', '--thinking', 'auto', '-p', 'hi']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.deepEqual((anthropic.messageRequests()[0]!.body as MessagesRequestBody).thinking, { type: 'enabled', budget_tokens: THINKING_DEFAULTS.autoBudgetTokens });

    openai.enqueue(openaiReply.text('Hi.'));
    const gpt = await cli(['--provider', 'openai', '--model', 'o4-mini', '--thinking', '30000', '-p', 'hi']);
    assert.equal(gpt.code, EXIT.ok, gpt.stderr);
    const bodies = openai.completionRequests().filter((request) => request.reply?.status === 200).map((request) => request.body as ChatRequestBody);
    assert.equal(bodies.at(-1)!.reasoning_effort, 'high');
  });

  it('runs without thinking on a model that cannot think, saying so on stderr', async () => {
    openai.enqueue(openaiReply.text('Hi.'));
    const run = await cli(['--provider', 'openai', '--model', 'gpt-4.1', '--thinking', '8000', '-p', 'hi']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stderr, /warning: .*gpt-4\.1 cannot be asked to think/);
    assert.equal((openai.completionRequests().at(-1)!.body as ChatRequestBody).reasoning_effort, undefined);
  });

  it('stream-json carries the thinking deltas and the usage thinking tokens', async () => {
    anthropic.enqueue(reply.message([{ type: 'thinking', thinking: 'Let me think about the greeting.' }, { type: 'text', text: 'Hi.' }]));
    const run = await cli(['--model', 'claude-opus-4-1', '--thinking', '2048', '--output-format', 'stream-json', '-p', 'hi']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; text?: string; thinkingTokens?: number });
    assert.equal(events.filter((event) => event.type === 'thinking_delta').map((event) => event.text).join(''), 'Let me think about the greeting.');
    const usage = events.find((event) => event.type === 'usage');
    assert.ok(usage && typeof usage.thinkingTokens === 'number' && usage.thinkingTokens > 0, JSON.stringify(usage));
  });
});

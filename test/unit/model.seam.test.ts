/**
 * The provider seam (issue 9): the shared reply accumulator and retry runner every back end uses,
 * provider selection, provider-aware hints, and the per-provider price and window tables.
 */
import assert from 'node:assert/strict';
import { AnthropicBackend } from '../../src/core/model/anthropic';
import { parseProvider, type ModelChunk } from '../../src/core/model/backend';
import { createBackend } from '../../src/core/model/createBackend';
import { errorHint, ModelError, retryAfterMsFrom, type HintKind } from '../../src/core/model/errors';
import { OpenAIBackend } from '../../src/core/model/openai';
import { defaultModelFor, openAIContextWindowFor, priceFor } from '../../src/core/model/models';
import { cliHint } from '../../src/cli/errorHints';
import { extensionHint } from '../../src/extension/errorHints';
import { ReplyAccumulator, streamWithRetries, type AttemptSource, type RetryRules } from '../../src/core/model/stream';
import { settleWithClock, useFakeClock } from '../support/clock';
import { said } from '../support/said';

const NO_COST = () => 0;

function accumulate(chunks: ModelChunk[]): { text: string[]; thinking: string[]; reply: ReturnType<ReplyAccumulator['finish']> } {
  const text: string[] = [];
  const thinking: string[] = [];
  const accumulator = new ReplyAccumulator({ onText: (delta) => text.push(delta), onThinking: (delta) => thinking.push(delta) });
  for (const chunk of chunks) accumulator.add(chunk);
  return { text, thinking, reply: accumulator.finish(NO_COST) };
}

/** An attempt source that plays one scripted outcome per attempt. */
function scripted(attempts: Array<ModelChunk[] | ModelError | 'hang'>): AttemptSource & { calls: number } {
  const source = {
    calls: 0,
    async *attempt(signal: AbortSignal): AsyncIterable<ModelChunk> {
      const outcome = attempts[source.calls++];
      if (outcome === undefined) throw new Error('no more scripted attempts');
      if (outcome instanceof ModelError) throw outcome;
      if (outcome === 'hang') {
        yield { type: 'text', text: 'partial' };
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        return;
      }
      yield* outcome;
    },
    classify: (error: unknown) => (error instanceof ModelError ? error : new ModelError('connection', `The connection dropped: ${String(error)}`, undefined)),
    costOf: NO_COST,
  };
  return source;
}

const RULES: RetryRules = { maxRetries: 2, retryBaseDelayMs: 1, maxRetryDelayMs: 5, streamIdleTimeoutMs: 5_000, firstOutputTimeoutMs: 5_000 };
const DONE: ModelChunk[] = [{ type: 'text', text: 'ok' }, { type: 'stop', reason: 'end_turn' }, { type: 'done' }];

describe('model seam: the shared reply accumulator', () => {
  it('builds text, thinking (with its signature), redacted thinking and tool calls in stream order', () => {
    const { text, thinking, reply } = accumulate([
      { type: 'usage', usage: { inputTokens: 10, cacheReadTokens: 5, cacheWriteTokens: 2, outputTokens: 1 } },
      { type: 'thinking', text: 'Let me ' },
      { type: 'thinking', text: 'look.' },
      { type: 'thinking_signature', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'Reading ' },
      { type: 'text', text: 'it.' },
      { type: 'tool_call_start', index: 0, id: 'call_a', name: 'read_file' },
      { type: 'tool_call_start', index: 1, id: 'call_b', name: 'grep_search' },
      // Arguments of parallel calls interleave (OpenAI sends them by index).
      { type: 'tool_call_delta', index: 0, json: '{"path":' },
      { type: 'tool_call_delta', index: 1, json: '{"pattern":"x"}' },
      { type: 'tool_call_delta', index: 0, json: '"a.ts"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'stop', reason: 'tool_use' },
      { type: 'usage', usage: { outputTokens: 42 } },
      { type: 'done' },
    ]);
    assert.deepEqual(reply.content, [
      { type: 'thinking', thinking: 'Let me look.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
      // Never ended explicitly: parsed when the reply finishes.
      { type: 'tool_use', id: 'call_b', name: 'grep_search', input: { pattern: 'x' } },
    ]);
    assert.equal(reply.stopReason, 'tool_use');
    assert.deepEqual(reply.usage, { inputTokens: 10, cacheReadTokens: 5, cacheWriteTokens: 2, outputTokens: 42 });
    assert.deepEqual(text, ['Reading ', 'it.']);
    assert.deepEqual(thinking, ['Let me ', 'look.']);
    assert.equal(reply.invalidToolInputs, undefined);
  });

  it('keeps a tool call with arguments that are not a JSON object, as {} reported by its content index', () => {
    const { reply } = accumulate([
      { type: 'text', text: 'Calling.' },
      { type: 'tool_call_start', index: 3, id: 'call_bad', name: 'read_file' },
      { type: 'tool_call_delta', index: 3, json: '{"path": "a.ts"' },
      { type: 'tool_call_start', index: 4, id: 'call_array', name: 'read_file' },
      { type: 'tool_call_delta', index: 4, json: '[1]' },
      { type: 'done' },
    ]);
    assert.deepEqual(reply.content[1], { type: 'tool_use', id: 'call_bad', name: 'read_file', input: {} });
    assert.deepEqual([...(reply.invalidToolInputs?.keys() ?? [])], [1, 2]);
    assert.equal(reply.invalidToolInputs?.get(1)?.text, '{"path": "a.ts"');
    assert.match(reply.invalidToolInputs?.get(1)?.problem ?? '', /JSON/);
    assert.equal(reply.invalidToolInputs?.get(2)?.problem, 'it is not a JSON object');
  });

  it('treats a stream that ends before "done" as a dropped connection', () => {
    const accumulator = new ReplyAccumulator();
    accumulator.add({ type: 'text', text: 'half' });
    assert.throws(
      () => accumulator.finish(NO_COST),
      (error: unknown) => error instanceof ModelError && error.kind === 'connection' && /ended before the reply was complete/.test(error.message),
    );
  });

  it('refuses arguments for a tool call that never started', () => {
    const accumulator = new ReplyAccumulator();
    assert.throws(() => accumulator.add({ type: 'tool_call_delta', index: 7, json: '{}' }), /tool call 7 before it started/);
  });
});

describe('model seam: the shared retry runner', () => {
  const clock = useFakeClock();

  it('retries a retryable failure, telling onRetry, and returns the next complete reply', async () => {
    const source = scripted([new ModelError('overloaded', 'busy', undefined, 529), DONE]);
    const retries: string[] = [];
    const reply = await settleWithClock(clock(), streamWithRetries(source, RULES, { onRetry: ({ attempt, reason }) => retries.push(`${attempt}:${said(reason.text)}`) }));
    assert.equal(reply.content[0]?.type, 'text');
    assert.deepEqual(retries, ['1:busy']);
    assert.equal(source.calls, 2);
  });

  it("waits the server's retry-after, and obeys x-should-retry: false", async () => {
    const delays: number[] = [];
    const waited = scripted([new ModelError('rate_limited', 'slow down', undefined, 429, { retryAfterMs: 20 }), DONE]);
    const retried = streamWithRetries(waited, RULES, { onRetry: ({ delayMs }) => delays.push(delayMs) });
    await clock().tickAsync(19);
    assert.equal(waited.calls, 1, 'no second attempt before the retry-after is over');
    await clock().tickAsync(1);
    await retried;
    assert.deepEqual(delays, [20]);
    assert.equal(waited.calls, 2);

    const refused = scripted([new ModelError('server', 'down', undefined, 500, { shouldRetry: false }), DONE]);
    await assert.rejects(streamWithRetries(refused, RULES), (error: unknown) => error instanceof ModelError && error.kind === 'server');
    assert.equal(refused.calls, 1);
  });

  it('does not retry what a retry cannot fix, and gives up after maxRetries', async () => {
    const bad = scripted([new ModelError('invalid_request', 'no', undefined, 400), DONE]);
    await assert.rejects(streamWithRetries(bad, RULES), (error: unknown) => error instanceof ModelError && error.kind === 'invalid_request');
    assert.equal(bad.calls, 1);
    const failing = new ModelError('server', 'boom', undefined, 500);
    const down = scripted([failing, failing, failing, DONE]);
    await assert.rejects(settleWithClock(clock(), streamWithRetries(down, RULES)), (error: unknown) => error === failing);
    assert.equal(down.calls, 3);
  });

  it('aborts a stalled stream and retries it as a dropped connection', async () => {
    const source = scripted(['hang', DONE]);
    const reasons: string[] = [];
    const retried = streamWithRetries(source, { ...RULES, streamIdleTimeoutMs: 50 }, { onRetry: ({ reason }) => reasons.push(said(reason.text)) });
    await clock().tickAsync(49);
    assert.deepEqual(reasons, [], 'still waiting for data');
    await clock().runAllAsync();
    await retried;
    assert.equal(reasons.length, 1);
    assert.match(reasons[0]!, /stalled: no data for 50 ms\./);
  });

  it('waits longer for the reply to begin than between chunks: a silent prompt read is not a stall', async () => {
    const slowStart: AttemptSource & { calls: number } = {
      calls: 0,
      async *attempt(): AsyncIterable<ModelChunk> {
        slowStart.calls++;
        yield { type: 'usage', usage: { inputTokens: 10 } }; // Headers and usage arrive; the first token takes a while.
        await new Promise((resolve) => setTimeout(resolve, 150));
        yield* DONE;
      },
      classify: (error: unknown) => (error instanceof ModelError ? error : new ModelError('connection', String(error), undefined)),
      costOf: NO_COST,
    };
    const reasons: string[] = [];
    const slowReply = streamWithRetries(slowStart, { ...RULES, streamIdleTimeoutMs: 50, firstOutputTimeoutMs: 1_000 }, { onRetry: ({ reason }) => reasons.push(said(reason.text)) });
    await clock().tickAsync(150);
    const reply = await slowReply;
    assert.deepEqual(reasons, []);
    assert.equal(slowStart.calls, 1);
    assert.deepEqual(reply.content, [{ type: 'text', text: 'ok' }]);

    // A reply that never begins is still bounded, by the longer wait, and said so.
    const silent: AttemptSource & { calls: number } = {
      calls: 0,
      async *attempt(signal: AbortSignal): AsyncIterable<ModelChunk> {
        if (silent.calls++ > 0) return yield* DONE;
        yield { type: 'usage', usage: { inputTokens: 10 } };
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      },
      classify: slowStart.classify,
      costOf: NO_COST,
    };
    const silentReasons: string[] = [];
    const silentReply = streamWithRetries(silent, { ...RULES, streamIdleTimeoutMs: 20, firstOutputTimeoutMs: 100 }, { onRetry: ({ reason }) => silentReasons.push(said(reason.text)) });
    await clock().tickAsync(99);
    assert.deepEqual(silentReasons, [], 'the longer wait is not over');
    await clock().runAllAsync();
    await silentReply;
    assert.deepEqual(silentReasons, ['The server sent no reply within 100 ms.']);
    assert.equal(silent.calls, 2);
  });

  it('ends with "cancelled" when the caller aborts, mid-stream or while waiting to retry', async () => {
    const controller = new AbortController();
    const hanging = scripted(['hang']);
    const pending = streamWithRetries(hanging, RULES, {}, controller.signal);
    const cancelled = assert.rejects(pending, (error: unknown) => error instanceof ModelError && error.kind === 'cancelled');
    setTimeout(() => controller.abort(), 20);
    await clock().tickAsync(20);
    await cancelled;

    const waiting = new AbortController();
    const slow = scripted([new ModelError('rate_limited', 'wait', undefined, 429, { retryAfterMs: 60_000 }), DONE]);
    const retrying = streamWithRetries(slow, RULES, { onRetry: () => setTimeout(() => waiting.abort(), 10) }, waiting.signal);
    const cancelledWhileWaiting = assert.rejects(retrying, (error: unknown) => error instanceof ModelError && error.kind === 'cancelled');
    await clock().tickAsync(10);
    await cancelledWhileWaiting;
    assert.equal(slow.calls, 1);
  });

  it('reads retry-after-ms, then retry-after in seconds, capped at a minute', () => {
    const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
    assert.equal(retryAfterMsFrom(headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
    assert.equal(retryAfterMsFrom(headers({ 'retry-after': '2' })), 2000);
    assert.equal(retryAfterMsFrom(headers({ 'retry-after': '0' })), 0);
    assert.equal(retryAfterMsFrom(headers({ 'retry-after': '3600' })), 60_000);
    assert.equal(retryAfterMsFrom(headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' })), undefined);
    assert.equal(retryAfterMsFrom(undefined), undefined);
  });
});

describe('model seam: providers', () => {
  it('parses provider names from settings and flags, and nothing else', () => {
    assert.equal(parseProvider('anthropic'), 'anthropic');
    assert.equal(parseProvider(' OpenAI '), 'openai');
    assert.equal(parseProvider('azure'), undefined);
    assert.equal(parseProvider(''), undefined);
    assert.equal(parseProvider(42), undefined);
  });

  it('builds the Anthropic back end for "anthropic", with its capabilities and default model', () => {
    const backend = createBackend({ provider: 'anthropic', apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
    assert.ok(backend instanceof AnthropicBackend);
    assert.equal(backend.provider, 'anthropic');
    assert.equal(backend.model, defaultModelFor('anthropic'));
    assert.deepEqual(backend.capabilities, { caching: 'explicit-breakpoints', tokenCounting: true, modelInfo: true, serverWebSearch: true });
    assert.equal(typeof backend.countTokens, 'function');
  });

  it('builds the OpenAI back end for "openai", with automatic prefix caching and its own default model', () => {
    const backend = createBackend({ provider: 'openai', apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' });
    assert.ok(backend instanceof OpenAIBackend);
    assert.equal(backend.provider, 'openai');
    assert.equal(backend.model, defaultModelFor('openai'));
    assert.equal(backend.capabilities.caching, 'automatic-prefix');
    assert.equal(backend.baseURL, 'http://127.0.0.1:9/v1');
    assert.equal(createBackend({ provider: 'openai', model: 'gpt-4o-mini' }).model, 'gpt-4o-mini');
  });

  it("gives next steps as kinds about a provider, which each front end words with that provider's key, variables, settings and flags", () => {
    const anthropic = (kind: HintKind) => errorHint('anthropic', kind);
    const openai = (kind: HintKind) => errorHint('openai', kind);
    assert.deepEqual(new ModelError('no_api_key', 'No OpenAI API key is set.', openai('noApiKey')).hint, { kind: 'noApiKey', provider: 'openai' });
    assert.match(extensionHint(anthropic('noApiKey'))!, /ANTHROPIC_API_KEY/);
    assert.match(extensionHint(openai('noApiKey'))!, /OPENAI_API_KEY/);
    assert.match(extensionHint(openai('connection'))!, /"evergreen\.openai\.baseUrl".*OPENAI_BASE_URL/);
    assert.match(extensionHint(openai('unknownModel'))!, /"evergreen\.openai\.model"/);
    assert.match(cliHint(anthropic('notFound'))!, /--model.*--base-url.*ANTHROPIC_BASE_URL/);
    assert.equal(cliHint(openai('noApiKey')), 'Set OPENAI_API_KEY in the environment.');
    // The same kind reads differently per front end and per provider: no front end maps another's words back.
    assert.notEqual(cliHint(openai('connection')), extensionHint(openai('connection')));
    assert.match(cliHint(openai('badKey'))!, /OPENAI_API_KEY/);
    assert.match(cliHint(anthropic('badKey'))!, /ANTHROPIC_API_KEY/);
    assert.doesNotMatch(cliHint(openai('connection'))!, /evergreen\./);
    // Words the core wrote for every front end alike pass through unchanged.
    assert.equal(cliHint('Try again in a minute.'), 'Try again in a minute.');
    assert.equal(extensionHint(undefined), undefined);
  });

  it('prices OpenAI models from their own table (cache writes at the input price) and knows their windows', () => {
    assert.deepEqual(priceFor('gpt-4o-2024-08-06', {}, 'openai'), { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 });
    assert.equal(priceFor('gpt-4o-mini', {}, 'openai')?.input, 0.15);
    assert.equal(priceFor('gpt-4.1-mini-2025-04-14', {}, 'openai')?.output, 1.6);
    for (const model of ['gpt-4.1', 'gpt-4o', 'o3', 'o4-mini']) {
      const price = priceFor(model, {}, 'openai');
      assert.ok(price, model);
      assert.equal(price.cacheWrite, price.input, model);
    }
    // Each provider's table is its own; overrides apply to either; unknown local models cost 0.
    assert.equal(priceFor('gpt-4o', {}, 'anthropic'), undefined);
    assert.equal(priceFor('claude-sonnet-4-5', {}, 'openai'), undefined);
    assert.equal(priceFor('llama3.1:8b', { 'llama3.1': { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }, 'openai')?.output, 0);
    assert.equal(priceFor('llama3.1:8b', {}, 'openai'), undefined);
    assert.equal(openAIContextWindowFor('gpt-4.1-mini'), 1_047_576);
    assert.equal(openAIContextWindowFor('gpt-4o-mini'), 128_000);
    assert.equal(openAIContextWindowFor('o3'), 200_000);
    assert.equal(openAIContextWindowFor('qwen2.5-coder:7b'), 128_000);
    assert.equal(defaultModelFor('openai'), 'gpt-4.1');
  });
});

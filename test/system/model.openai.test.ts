import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import type OpenAI from 'openai';
import type { AgentEvent } from '../../src/core/agent/events';
import { AgentSession } from '../../src/core/agent/session';
import type { ModelBackend, ModelRequest, StreamHandlers } from '../../src/core/model/backend';
import { ModelError, type ModelSaid, type TooLongCount } from '../../src/core/model/errors';
import type { MessageParam, ToolParam } from '../../src/core/model/messages';
import { OpenAIBackend, type OpenAIBackendOptions } from '../../src/core/model/openai';
import { TOOL_ERROR_MARK } from '../../src/core/model/openaiConvert';
import { createToolRegistry } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { extensionHint } from '../../src/extension/errorHints';
import { CACHE_BLOCK_TOKENS, MIN_CACHED_TOKENS, reply, startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';
import { useTempDirs } from '../support/tempDirs';
import { said } from '../support/said';

type ChatBody = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

const TOOLS: ToolParam[] = [
  { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];
const LONG_SYSTEM = Array.from({ length: 150 }, (_, i) => `Rule ${i}: keep the code base tidy, typed and tested; never guess file contents.`).join('\n');

function request(messages: MessageParam[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are a coding agent.', tools: TOOLS, messages, maxTokens: 1000, ...extra };
}

async function rejectsWith(p: Promise<unknown>, kind: ModelError['kind']): Promise<ModelError> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    assert.equal(error.kind, kind, `kind of "${error.message}"`);
    return error;
  }
  assert.fail(`expected a ModelError of kind ${kind}`);
}

describe('OpenAI back end against the fake Chat Completions API (real SDK)', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let fake: FakeOpenAI;
  const logs: string[] = [];

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    logs.length = 0;
  });
  afterEach(async () => {
    await fake.close();
  });

  function backend(options: OpenAIBackendOptions = {}): OpenAIBackend {
    return new OpenAIBackend({
      apiKey: fake.apiKey,
      baseURL: fake.url,
      model: 'gpt-4o',
      retryBaseDelayMs: 1,
      maxRetryDelayMs: 5,
      logger: { debug: () => undefined, info: (m) => logs.push(`info ${m}`), warn: (m) => logs.push(`warn ${m}`), error: (m) => logs.push(`error ${m}`) },
      ...options,
    });
  }

  function sent(index = -1): ChatBody {
    return fake.completionRequests().at(index)?.body as ChatBody;
  }

  it('streams text and sends the request the way the API wants it', async () => {
    fake.enqueue(reply.text('Hello from the fake model.', { stream: { textChunkChars: 4 } }));
    const deltas: string[] = [];
    const response = await backend().stream(request([{ role: 'user', content: 'hi' }]), { onText: (d) => deltas.push(d) });
    assert.deepEqual(response.content, [{ type: 'text', text: 'Hello from the fake model.' }]);
    assert.equal(deltas.join(''), 'Hello from the fake model.');
    assert.ok(deltas.length > 3);
    assert.equal(response.stopReason, 'end_turn');
    const body = sent();
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.deepEqual(body.messages[0], { role: 'system', content: 'You are a coding agent.' });
    assert.equal(body.max_tokens, 1000, 'a compatible server gets max_tokens');
    assert.equal(body.tools?.[0]?.type, 'function');
    assert.equal(fake.rejectedRequests().length, 0);
  });

  it('assembles tool calls split across chunks, in order, with their ids', async () => {
    fake.enqueue(
      reply.toolCalls(
        [
          { name: 'read_file', arguments: { path: 'src/a.ts' }, id: 'call_a' },
          { name: 'read_file', arguments: { path: 'src/b.ts', offset: 10 } },
        ],
        { preamble: 'Reading both.', stream: { argsChunkChars: 3 } },
      ),
    );
    const response = await backend().stream(request([{ role: 'user', content: 'read' }]));
    assert.equal(response.stopReason, 'tool_use');
    assert.equal(response.content.length, 3);
    assert.deepEqual(response.content[0], { type: 'text', text: 'Reading both.' });
    const [, first, second] = response.content;
    assert.equal(first?.type, 'tool_use');
    assert.deepEqual(first, { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'src/a.ts' } });
    assert.equal(second?.type, 'tool_use');
    assert.match(second?.type === 'tool_use' ? second.id : '', /^call_/);
    assert.deepEqual(second?.type === 'tool_use' ? second.input : undefined, { path: 'src/b.ts', offset: 10 });
    assert.equal(response.invalidToolInputs, undefined);
  });

  it('reports usage as input = prompt - cached, cacheRead = cached, and costs it with the OpenAI price', async () => {
    fake.enqueue(reply.text('first'), reply.text('second'));
    const b = backend();
    const history: MessageParam[] = [{ role: 'user', content: 'question one' }];
    const first = await b.stream(request(history, { system: LONG_SYSTEM }));
    const firstUsage = fake.completionRequests()[0]?.reply?.usage;
    assert.equal(first.usage.inputTokens, firstUsage?.prompt_tokens);
    assert.equal(first.usage.cacheReadTokens, 0);
    assert.equal(first.usage.cacheWriteTokens, 0);
    assert.equal(first.usage.outputTokens, firstUsage?.completion_tokens);
    const second = await b.stream(request([...history, { role: 'assistant', content: [{ type: 'text', text: 'first' }] }, { role: 'user', content: 'question two' }], { system: LONG_SYSTEM }));
    const usage = fake.completionRequests()[1]?.reply?.usage;
    const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
    assert.ok(cached >= MIN_CACHED_TOKENS && cached % CACHE_BLOCK_TOKENS === 0, `cached ${cached}`);
    assert.equal(second.usage.cacheReadTokens, cached);
    assert.equal(second.usage.inputTokens, (usage?.prompt_tokens ?? 0) - cached);
    // gpt-4o: $2.50 input, $1.25 cached input, $10 output per million.
    const expected = (second.usage.inputTokens * 2.5 + cached * 1.25 + second.usage.outputTokens * 10) / 1_000_000;
    assert.ok(Math.abs(second.costUsd - expected) < 1e-12, `${second.costUsd} vs ${expected}`);
  });

  it('sends a history with tool results as tool messages the strict server accepts', async () => {
    fake.enqueue(reply.text('Both read.'));
    const history: MessageParam[] = [
      { role: 'user', content: 'read a and b' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should read both.', signature: 'sig' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'read_file', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'alpha' },
          { type: 'tool_result', tool_use_id: 'toolu_01B', content: [{ type: 'text', text: 'no such file' }], is_error: true },
          { type: 'text', text: 'and summarize' },
        ],
      },
    ];
    await backend().stream(request(history));
    assert.equal(fake.rejectedRequests().length, 0);
    const messages = sent().messages;
    assert.deepEqual(
      messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'tool', 'tool', 'user'],
    );
    const assistant = messages[2] as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam;
    assert.equal(assistant.content, 'Reading.');
    assert.ok(!JSON.stringify(messages).includes('I should read both'), 'thinking is never sent');
    assert.deepEqual(messages[4], { role: 'tool', tool_call_id: 'toolu_01B', content: `${TOOL_ERROR_MARK}no such file` });
  });

  describe('errors', () => {
    it('context_length_exceeded -> prompt_too_long in the words the engine recovers from', async () => {
      fake.setModel('small', { context_window: 3000, max_output_tokens: 1000 });
      const error = await rejectsWith(backend({ model: 'small' }).stream(request([{ role: 'user', content: 'word '.repeat(3000) }], { maxTokens: 500 })), 'prompt_too_long');
      assert.match(error.message, /^prompt is too long: \d+ tokens > 2500 maximum \(small: This model's maximum context length is 3000 tokens/);
      assert.equal(error.status, 400);
      assert.equal(fake.completionRequests().length, 1, 'not retried');
    });

    it('reads the prompt count of every server wording the engine re-anchors on', async () => {
      // `window` is the server's whole window (the engine learns it); `replyCounted` whether the requested reply counted against it.
      const wordings: Array<[Parameters<typeof reply.error>[1], RegExp, TooLongCount | undefined]> = [
        [{ message: "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300123 tokens. Please reduce the length of the messages.", code: 'context_length_exceeded' }, /^prompt is too long: 300123 tokens > 272000 maximum/, { promptTokens: 300_123, maxTokens: 272_000, window: 272_000, replyCounted: false }],
        [{ message: "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is 4096 tokens and your request has 3000 input tokens (2000 > 4096 - 3000).", code: null }, /^prompt is too long: 3000 tokens > 2096 maximum/, { promptTokens: 3000, maxTokens: 2096, window: 4096, replyCounted: true }],
        [{ message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (5000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.", code: 'context_length_exceeded' }, /^prompt is too long: 5000 tokens > 4192 maximum/, { promptTokens: 5000, maxTokens: 4192, window: 8192, replyCounted: true }],
        [{ message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.", code: 'context_length_exceeded' }, /^prompt is too long: 9000 tokens > 8192 maximum/, { promptTokens: 9000, maxTokens: 8192, window: 8192, replyCounted: false }],
        [{ message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'invalid_request_error', code: null }, /^prompt is too long \(gpt-4o: the request exceeds/, undefined],
      ];
      for (const [opts] of wordings) fake.enqueue(reply.error(400, opts));
      for (const [, expected, counted] of wordings) {
        const error = await rejectsWith(backend().stream(request([{ role: 'user', content: 'x' }])), 'prompt_too_long');
        assert.match(error.message, expected);
        // The engine re-anchors on these numbers, carried as data.
        assert.deepEqual(error.tooLong, counted);
      }
    });

    it("reads llama.cpp's n_prompt_tokens / n_ctx as the prompt and the server's whole window", async () => {
      const body = { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 9_100, n_ctx: 8_192 } };
      fake.enqueue(reply.raw(400, JSON.stringify(body), 'application/json'));
      const error = await rejectsWith(backend({ maxRetries: 0 }).stream(request([{ role: 'user', content: 'x' }])), 'prompt_too_long');
      assert.match(error.message, /^prompt is too long: 9100 tokens > 8192 maximum/);
      assert.deepEqual(error.tooLong, { promptTokens: 9_100, maxTokens: 8_192, window: 8_192, replyCounted: false });
    });

    it('401 -> authentication, 403 -> permission, 404 model -> model_not_found, not retried', async () => {
      await rejectsWith(backend({ apiKey: 'sk-wrong-key' }).stream(request([{ role: 'user', content: 'x' }])), 'authentication');
      fake.enqueue(reply.error(403));
      await rejectsWith(backend().stream(request([{ role: 'user', content: 'x' }])), 'permission');
      const notFound = await rejectsWith(backend({ model: 'gpt-9' }).stream(request([{ role: 'user', content: 'x' }])), 'model_not_found');
      assert.match(notFound.message, /does not know the model "gpt-9"/);
      assert.match(extensionHint(notFound.hint) ?? '', /evergreen\.openai\.model/);
      assert.equal(fake.completionRequests().length, 3);
    });

    it('429 is retried after the server\'s retry-after, 5xx and dropped connections too', async () => {
      fake.enqueue(reply.error(429, { retryAfter: 0.05 }), reply.error(500), reply.error(503), reply.disconnect(), reply.text('finally'));
      const retries: Array<{ attempt: number; delayMs: number; reason: ModelSaid }> = [];
      const handlers: StreamHandlers = { onRetry: (info) => retries.push(info) };
      const response = await backend({ maxRetries: 4 }).stream(request([{ role: 'user', content: 'x' }]), handlers);
      assert.deepEqual(response.content, [{ type: 'text', text: 'finally' }]);
      assert.equal(retries.length, 4);
      assert.equal(retries[0]?.delayMs, 50);
      assert.match(said(retries[0]?.reason.text) ?? '', /Rate limited \(429\)/);
      assert.match(said(retries[1]?.reason.text) ?? '', /failed \(500\)/);
      assert.match(said(retries[2]?.reason.text) ?? '', /overloaded \(503\)/);
      assert.match(said(retries[3]?.reason.text) ?? '', /Could not reach|connection/i);
    });

    it('gives up after maxRetries with the last error', async () => {
      fake.enqueue(reply.error(500), reply.error(500));
      await rejectsWith(backend({ maxRetries: 1 }).stream(request([{ role: 'user', content: 'x' }])), 'server');
      assert.equal(fake.completionRequests().length, 2);
    });

    it('429 insufficient_quota is not retried', async () => {
      fake.enqueue(reply.error(429, { code: 'insufficient_quota', type: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' }));
      const error = await rejectsWith(backend().stream(request([{ role: 'user', content: 'x' }])), 'permission');
      assert.match(error.message, /no quota left/);
      assert.equal(fake.completionRequests().length, 1);
    });

    it('cancel -> cancelled', async () => {
      fake.enqueue(reply.text('a slow reply that never finishes in time', { stream: { chunkDelayMs: 200 } }));
      const controller = new AbortController();
      const pending = backend().stream(request([{ role: 'user', content: 'x' }]), { onText: () => controller.abort() }, controller.signal);
      await rejectsWith(pending, 'cancelled');
    });

    it('no key for OpenAI itself -> no_api_key, before any request', async () => {
      const saved = process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_API_KEY;
      try {
        const b = new OpenAIBackend({ baseURL: 'https://api.openai.com/v1', model: 'gpt-4o' });
        const error = await rejectsWith(b.stream(request([{ role: 'user', content: 'x' }])), 'no_api_key');
        assert.match(extensionHint(error.hint) ?? '', /OPENAI_API_KEY/);
        // The start-up model-info ask fails the same way, before any request.
        await rejectsWith(b.getModelInfo(), 'no_api_key');
        // A local server takes any key: none is needed.
        fake.enqueue(reply.text('local'));
        const local = new OpenAIBackend({ baseURL: fake.url, model: 'gpt-4o', retryBaseDelayMs: 1 });
        await rejectsWith(local.stream(request([{ role: 'user', content: 'x' }])), 'authentication');
        assert.equal(fake.completionRequests().at(-1)?.headers['authorization'], 'Bearer no-key');
      } finally {
        if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
      }
    });

    it('learns a model\'s output limit from the server and asks for it', async () => {
      fake.setModel('short-writer', { context_window: 128_000, max_output_tokens: 4096 });
      fake.enqueue(reply.text('ok'), reply.text('ok again'));
      const b = backend({ model: 'short-writer' });
      const response = await b.stream(request([{ role: 'user', content: 'x' }], { maxTokens: 16_000 }));
      assert.deepEqual(response.content, [{ type: 'text', text: 'ok' }]);
      assert.equal(sent().max_tokens, 4096);
      await b.stream(request([{ role: 'user', content: 'x' }], { maxTokens: 16_000 }));
      assert.equal(fake.completionRequests().length, 3, 'one refused request, then the cap is remembered');
      assert.ok(logs.some((l) => /writes at most 4096 tokens/.test(l)));
    });
  });

  describe('bad input from the server', () => {
    it('malformed tool-call JSON -> invalidToolInputs, the reply kept', async () => {
      fake.enqueue(reply.toolCall('read_file', { path: 'x' }, { preamble: 'Trying.', stream: { rawToolArguments: ['{"path": "x"'] } }));
      const response = await backend().stream(request([{ role: 'user', content: 'x' }]));
      assert.equal(response.stopReason, 'tool_use');
      const call = response.content[1];
      assert.equal(call?.type, 'tool_use');
      assert.deepEqual(call?.type === 'tool_use' ? call.input : undefined, {});
      const invalid = response.invalidToolInputs?.get(1);
      assert.equal(invalid?.text, '{"path": "x"');
      assert.match(invalid?.problem ?? '', /JSON/);
    });

    it('a tool call without an id gets a stable generated id', async () => {
      fake.enqueue(reply.toolCall('read_file', { path: 'x' }, { stream: { omitToolCallIds: true } }));
      const response = await backend().stream(request([{ role: 'user', content: 'x' }]));
      const call = response.content[0];
      assert.equal(call?.type, 'tool_use');
      const id = call?.type === 'tool_use' ? call.id : '';
      assert.match(id, /^call_[0-9a-f]{24}$/);
      // The history it makes is valid for the strict server: the result answers that id.
      fake.enqueue(reply.text('done'));
      await backend().stream(
        request([
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: 'x' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'file' }] },
        ]),
      );
      assert.equal(fake.rejectedRequests().length, 0);
    });

    it('a stream that ends without [DONE] is a dropped connection, retried; nothing half-done is kept', async () => {
      fake.enqueue(reply.text('partial', { stream: { omitDone: true } }), reply.text('complete'));
      const retries: string[] = [];
      const response = await backend().stream(request([{ role: 'user', content: 'x' }]), { onRetry: (info) => retries.push(said(info.reason.text)) });
      assert.deepEqual(response.content, [{ type: 'text', text: 'complete' }]);
      assert.match(retries[0] ?? '', /ended without \[DONE\]/);
    });

    it('a stream without a finish_reason is retried too, and fails clearly when it keeps happening', async () => {
      fake.enqueue(reply.text('a', { stream: { finishReason: null } }), reply.text('b', { stream: { finishReason: null } }));
      const error = await rejectsWith(backend({ maxRetries: 1 }).stream(request([{ role: 'user', content: 'x' }])), 'connection');
      assert.match(error.message, /without a finish_reason/);
    });

    it('an unknown finish reason is named in a log line and treated as the end of the turn', async () => {
      fake.enqueue(reply.text('done', { stream: { finishReason: 'eos_token_reached' } }));
      const response = await backend().stream(request([{ role: 'user', content: 'x' }]));
      assert.equal(response.stopReason, 'end_turn');
      assert.ok(logs.some((l) => l.startsWith('warn') && l.includes('"eos_token_reached"')), logs.join('\n'));
    });

    it('finish_reason length -> max_tokens', async () => {
      fake.enqueue(reply.text('one two three four five six seven eight nine ten'));
      const response = await backend().stream(request([{ role: 'user', content: 'x' }], { maxTokens: 3 }));
      assert.equal(response.stopReason, 'max_tokens');
    });

    it('a model without tool support -> a clear invalid_request naming the model', async () => {
      const error = await rejectsWith(backend({ model: 'gemma2:2b' }).stream(request([{ role: 'user', content: 'x' }])), 'invalid_request');
      assert.match(error.message, /The model "gemma2:2b" at http:\/\/127\.0\.0\.1:\d+\/v1 does not support tool calls \(the server said: .*does not support tools\)/);
      assert.match(extensionHint(error.hint) ?? '', /tool \(function\) calling/);
      assert.equal(fake.completionRequests().length, 1, 'not retried');
    });

    it('a base URL that is not an OpenAI-compatible server -> a clear message naming the URL', async () => {
      const html = http.createServer((req, res) => {
        const page = '<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>';
        res.writeHead(req.url?.endsWith('/chat/completions') && req.url.startsWith('/ok200') ? 200 : 404, { 'content-type': 'text/html' });
        res.end(page);
      });
      await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', () => resolve()));
      const port = (html.address() as AddressInfo).port;
      try {
        const notFound = await rejectsWith(backend({ baseURL: `http://127.0.0.1:${port}/` }).stream(request([{ role: 'user', content: 'x' }])), 'invalid_request');
        assert.match(notFound.message, new RegExp(`The server at http://127\\.0\\.0\\.1:${port}/? is not an OpenAI-compatible API: POST .*chat/completions answered 404`));
        assert.match(extensionHint(notFound.hint) ?? '', /\/v1/);
        const ok200 = await rejectsWith(backend({ baseURL: `http://127.0.0.1:${port}/ok200` }).stream(request([{ role: 'user', content: 'x' }])), 'invalid_request');
        assert.match(ok200.message, /is not an OpenAI-compatible API: .*answered 200 with text\/html: <!DOCTYPE html>/);
        for (const error of [notFound, ok200]) assert.equal(said(error.text), error.message, 'the user reads the sentence the log has');
      } finally {
        await new Promise<void>((resolve) => html.close(() => resolve()));
      }
    });

    it('a server that refuses stream_options is asked again without it; the reply then has no usage, and the log says so', async () => {
      fake.setModel('old-server-model', { context_window: 32_000, max_output_tokens: 4096, rejects_stream_options: true });
      fake.enqueue(reply.text('hello'), reply.text('again'));
      const b = backend({ model: 'old-server-model' });
      const response = await b.stream(request([{ role: 'user', content: 'x' }]));
      assert.deepEqual(response.content, [{ type: 'text', text: 'hello' }]);
      assert.deepEqual(response.usage, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
      assert.ok(logs.some((l) => /refuses stream_options/.test(l)));
      assert.ok(logs.some((l) => /reported no usage/.test(l)));
      await b.stream(request([{ role: 'user', content: 'x' }]));
      assert.equal(fake.completionRequests().length, 3, 'one refusal, then remembered');
      assert.equal(sent().stream_options, undefined);
    });

    it('a reasoning model behind a compatible URL refuses max_tokens: max_completion_tokens is sent from then on', async () => {
      fake.enqueue(reply.text('thought it through'), reply.text('again'));
      const b = backend({ model: 'o4-mini' });
      const response = await b.stream(request([{ role: 'user', content: 'x' }]));
      assert.deepEqual(response.content, [{ type: 'text', text: 'thought it through' }]);
      assert.equal(sent().max_completion_tokens, 1000);
      assert.equal(sent().max_tokens, undefined);
      await b.stream(request([{ role: 'user', content: 'x' }]));
      assert.equal(fake.completionRequests().length, 3, 'one refusal, then remembered');
      assert.ok(logs.some((l) => /sending max_completion_tokens from now on/.test(l)));
    });

    it('a stream that goes silent is aborted by the idle watchdog and retried', async () => {
      fake.enqueue(reply.text('slow reply', { stream: { chunkDelayMs: 400 } }), reply.text('fast'));
      const reasons: string[] = [];
      const response = await backend({ streamIdleTimeoutMs: 100 }).stream(request([{ role: 'user', content: 'x' }]), { onRetry: (info) => reasons.push(said(info.reason.text)) });
      assert.deepEqual(response.content, [{ type: 'text', text: 'fast' }]);
      assert.match(reasons[0] ?? '', /stalled/);
    });

    it('a server slow to start its reply (a local server reading a long prompt) is waited for, not aborted as stalled', async () => {
      fake.enqueue(reply.text('worth the wait', { delayMs: 400 }));
      const reasons: string[] = [];
      const response = await backend({ streamIdleTimeoutMs: 100 }).stream(request([{ role: 'user', content: 'x' }]), { onRetry: (info) => reasons.push(said(info.reason.text)) });
      assert.deepEqual(response.content, [{ type: 'text', text: 'worth the wait' }]);
      assert.deepEqual(reasons, []);
      assert.equal(fake.completionRequests().length, 1, 'the slow request was sent again');
    });

    it('reads SSE as other servers write it: CRLF lines, comments, data without a space, usage on the finish chunk', async () => {
      const chunk = (delta: object, finish: string | null = null, usage: object | null = null) =>
        JSON.stringify({ id: 'gen-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) });
      const body = [
        ': OPENROUTER PROCESSING',
        '',
        `data:${chunk({ role: 'assistant', content: 'Hel' })}`,
        '',
        `data: ${chunk({ content: 'lo' })}`,
        '',
        `data: ${chunk({}, 'stop', { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22, prompt_tokens_details: { cached_tokens: 0 } })}`,
        '',
        'data: [DONE]',
        '',
        '',
      ].join('\r\n');
      fake.enqueue(reply.raw(200, body, 'text/event-stream'));
      const response = await backend().stream(request([{ role: 'user', content: 'x' }]));
      assert.deepEqual(response.content, [{ type: 'text', text: 'Hello' }]);
      assert.deepEqual(response.usage, { inputTokens: 20, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    });

    it('a server that ignores stream and answers with a whole completion is understood', async () => {
      fake.enqueue(reply.raw(200, JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'read_file', arguments: '{"path":"w"}' } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 } }), 'application/json'));
      const response = await backend().stream(request([{ role: 'user', content: 'x' }]));
      assert.deepEqual(response.content, [{ type: 'tool_use', id: 'call_w', name: 'read_file', input: { path: 'w' } }]);
      assert.equal(response.stopReason, 'tool_use');
      assert.deepEqual(response.usage, { inputTokens: 50, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 });
    });

    it('an error body sent with status 200 is classified, not taken for a reply', async () => {
      fake.enqueue(
        reply.raw(200, JSON.stringify({ error: { message: 'upstream model crashed', type: 'server_error', param: null, code: null } }), 'application/json'),
        reply.raw(200, JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }), 'application/json'),
      );
      const error = await rejectsWith(backend({ maxRetries: 0 }).stream(request([{ role: 'user', content: 'x' }])), 'server');
      assert.match(error.message, /upstream model crashed/);
      const tooLong = await rejectsWith(backend().stream(request([{ role: 'user', content: 'x' }])), 'prompt_too_long');
      assert.match(tooLong.message, /^prompt is too long: 9000 tokens > 8192 maximum/);
    });

    it('a mid-stream error chunk is a server error, retried', async () => {
      fake.enqueue(reply.text('half', { stream: { errorAfterChunks: { after: 2 } } }), reply.text('whole'));
      const reasons: string[] = [];
      const response = await backend().stream(request([{ role: 'user', content: 'x' }]), { onRetry: (info) => reasons.push(said(info.reason.text)) });
      assert.deepEqual(response.content, [{ type: 'text', text: 'whole' }]);
      assert.match(reasons[0] ?? '', /failed mid-reply/);
    });
  });

  describe('window and model info', () => {
    it('setting > server-reported max_model_len > known table > 128,000; a missing models endpoint is not fatal', async () => {
      assert.equal(await backend().contextWindow(50_000), 50_000);
      assert.equal(await backend().contextWindow(undefined), 128_000); // gpt-4o from the table
      assert.equal(await backend({ model: 'gpt-4.1-mini' }).contextWindow(undefined), 1_047_576);
      fake.setModel('org/served', { context_window: 32_768, max_output_tokens: 4096, expose_max_model_len: true });
      assert.equal(await backend({ model: 'org/served' }).contextWindow(undefined), 32_768);
      // Unknown to the models endpoint (404) and to the table: the fallback, no error.
      assert.equal(await backend({ model: 'some-local-model' }).contextWindow(undefined), 128_000);
      assert.equal(await backend({ apiKey: 'wrong' }).contextWindow(undefined), 128_000);
    });

    it('capabilities: automatic prefix caching, no token counting', () => {
      const b: ModelBackend = backend();
      assert.deepEqual(b.capabilities, { caching: 'automatic-prefix', tokenCounting: false, modelInfo: true });
      assert.equal(b.provider, 'openai');
      assert.equal(b.countTokens, undefined);
    });
  });

  describe('a whole AgentSession on the OpenAI back end', () => {
    const dirs: string[] = [];
    afterEach(() => {
      for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    });

    function session(b: OpenAIBackend, events: AgentEvent[]): { session: AgentSession; root: string } {
      const root = temp.make('evergreen-openai-');
      dirs.push(root);
      fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\n');
      const s = new AgentSession({
        client: b,
        tools: createToolRegistry({ trusted: true, ripgrepPath: undefined, compact: true }),
        workspace: new NodeWorkspace(root),
        approver: { requestApproval: async () => ({ approved: true }) },
        approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] },
        systemPrompt: LONG_SYSTEM,
        maxOutputTokens: 4096,
        onEvent: (event) => events.push(event),
        context: { window: 128_000 },
      });
      return { session: s, root };
    }

    it('runs a turn with split, id-less and malformed tool calls; every request is valid and every call answered', async () => {
      fake.enqueue(
        reply.toolCalls(
          [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'list_files', arguments: {} },
          ],
          { preamble: 'Looking around.', stream: { argsChunkChars: 2, omitToolCallIds: true } },
        ),
        reply.toolCall('read_file', { path: 'a.txt' }, { stream: { rawToolArguments: ['{"path": "a.txt"'] } }),
        reply.text('a.txt holds alpha and beta.'),
      );
      const events: AgentEvent[] = [];
      const { session: s } = session(backend(), events);
      const stop = await s.send('What is in a.txt?');
      assert.equal(stop, 'end_turn');
      assert.equal(fake.completionRequests().length, 3);
      assert.equal(fake.rejectedRequests().length, 0, 'the strict server accepted every request');

      const second = sent(1).messages;
      assert.deepEqual(second.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'tool']);
      const calls = (second[2] as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam).tool_calls ?? [];
      assert.deepEqual(
        second.slice(3).map((m) => (m as OpenAI.Chat.Completions.ChatCompletionToolMessageParam).tool_call_id),
        calls.map((c) => c.id),
      );
      assert.match(String((second[3] as OpenAI.Chat.Completions.ChatCompletionToolMessageParam).content), /alpha/);

      // The malformed call was answered with an error result instead of being run.
      const third = sent(2).messages;
      const answer = third.at(-1) as OpenAI.Chat.Completions.ChatCompletionToolMessageParam;
      assert.equal(answer.role, 'tool');
      assert.ok(String(answer.content).startsWith(TOOL_ERROR_MARK), String(answer.content));
      assert.match(String(answer.content), /JSON/);

      const usage = events.filter((e) => e.type === 'usage');
      assert.ok(usage.length >= 3, 'usage is reported for every request');
      const finished = events.find((e) => e.type === 'turn_finished');
      assert.equal(finished?.type === 'turn_finished' ? finished.stopReason : undefined, 'end_turn');
    });

    it('the summary request of a compaction repeats the conversation, so the prefix cache serves it', async () => {
      fake.enqueue(reply.toolCall('read_file', { path: 'a.txt' }), reply.text('Read it.'));
      const events: AgentEvent[] = [];
      const { session: s } = session(backend(), events);
      assert.equal(await s.send('Read a.txt'), 'end_turn');
      fake.enqueue(reply.text('<analysis>thinking</analysis><summary>1. Primary Request and Intent: read a.txt</summary>'));
      const outcome = await s.compact();
      assert.ok(outcome.ok, said(outcome.message));
      const before = fake.completionRequests().at(-2);
      const summary = fake.completionRequests().at(-1);
      const beforeMessages = (before?.body as ChatBody).messages;
      const summaryMessages = (summary?.body as ChatBody).messages;
      // Byte for byte the same messages up to the end of the previous request's conversation.
      const shared = beforeMessages.length;
      assert.deepEqual(summaryMessages.slice(0, shared), beforeMessages);
      const cached = summary?.reply?.usage?.prompt_tokens_details?.cached_tokens ?? 0;
      const previousPrompt = before?.reply?.usage?.prompt_tokens ?? 0;
      assert.ok(cached >= MIN_CACHED_TOKENS, `cached ${cached}`);
      assert.ok(cached > previousPrompt - CACHE_BLOCK_TOKENS - 3, `cached ${cached} of the previous ${previousPrompt}`);
      assert.equal(fake.rejectedRequests().length, 0);
    });
  });
});

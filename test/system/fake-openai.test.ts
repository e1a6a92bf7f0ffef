import assert from 'node:assert/strict';
import OpenAI, { APIError } from 'openai';
import { CACHE_BLOCK_TOKENS, countTextTokens, MIN_CACHED_TOKENS, reply, startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';
import { pngBase64 } from '../support/images';

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

const MODEL = 'gpt-4o';
const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
];
/** Well over 1024 tokens of stable system prompt. */
const LONG_SYSTEM = Array.from({ length: 150 }, (_, i) => `Rule ${i}: keep the code base tidy, typed and tested; never guess file contents.`).join('\n');

async function rejects(p: Promise<unknown>): Promise<APIError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof APIError, `expected an APIError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    return e;
  }
  assert.fail('expected the request to fail');
}

function errorOf(e: APIError): { message: string; type: string; param: string | null; code: string | null } {
  const body = e.error as { message: string; type: string; param: string | null; code: string | null };
  assert.equal(typeof body.message, 'string');
  assert.ok('param' in body && 'code' in body, 'the real error body has param and code');
  return body;
}

describe('fake OpenAI Chat Completions API', function () {
  let fake: FakeOpenAI;
  let client: OpenAI;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  async function collect(params: Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming, 'model' | 'stream'>): Promise<Chunk[]> {
    const stream = await client.chat.completions.create({ model: MODEL, stream: true, stream_options: { include_usage: true }, ...params });
    const out: Chunk[] = [];
    for await (const c of stream) out.push(c);
    return out;
  }

  describe('streaming', () => {
    it('sends role, content deltas, finish_reason, a usage chunk with empty choices, then [DONE]', async () => {
      const text = 'Hello there, this is the fake model speaking.';
      fake.enqueue(reply.text(text, { stream: { textChunkChars: 10 } }));
      const chunks = await collect({ messages: [{ role: 'user', content: 'hi' }] });
      assert.deepEqual(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '', refusal: null });
      const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
      assert.equal(deltas, text);
      assert.equal(chunks.filter((c) => c.choices[0]?.delta.content).length, 5);
      const finish = chunks.at(-2);
      assert.equal(finish?.choices[0]?.finish_reason, 'stop');
      const usage = chunks.at(-1);
      assert.deepEqual(usage?.choices, []);
      assert.equal(usage?.usage?.completion_tokens, countTextTokens(text));
      assert.equal(usage?.usage?.total_tokens, (usage?.usage?.prompt_tokens ?? 0) + (usage?.usage?.completion_tokens ?? 0));
      assert.equal(usage?.usage?.prompt_tokens_details?.cached_tokens, 0);
      // Every chunk before the last carries usage: null, as the real API does with include_usage.
      assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
      assert.equal(fake.completionRequests()[0]?.reply?.chunks?.at(-1), '[DONE]');
    });

    it('splits tool calls: the first delta has index, id, type, name and empty arguments; later ones only index and fragments', async () => {
      fake.enqueue(
        reply.toolCalls(
          [
            { name: 'read_file', arguments: { path: 'src/a.ts' } },
            { name: 'read_file', arguments: { path: 'src/b.ts' }, id: 'call_given' },
          ],
          { stream: { argsChunkChars: 5 } },
        ),
      );
      const chunks = await collect({ messages: [{ role: 'user', content: 'read both' }], tools: TOOLS });
      const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      const heads = calls.filter((c) => c.id !== undefined);
      assert.equal(heads.length, 2);
      assert.equal(heads[0]?.index, 0);
      assert.match(String(heads[0]?.id), /^call_[A-Za-z0-9]{24}$/);
      assert.deepEqual(heads[1], { index: 1, id: 'call_given', type: 'function', function: { name: 'read_file', arguments: '' } });
      // Without text, the role rides on the first tool-call delta with content null.
      assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
      assert.equal(chunks[0]?.choices[0]?.delta.content, null);
      const fragments = calls.filter((c) => c.id === undefined);
      assert.ok(fragments.every((f) => f.type === undefined && f.function?.name === undefined && typeof f.function?.arguments === 'string'));
      assert.equal(fragments.filter((f) => f.index === 0).map((f) => f.function?.arguments).join(''), JSON.stringify({ path: 'src/a.ts' }));
      assert.ok(fragments.filter((f) => f.index === 0).length > 1, 'arguments are split across chunks');
      assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'tool_calls');
    });

    it('without include_usage sends no usage chunk and no usage field', async () => {
      fake.enqueue(reply.text('ok'));
      const stream = await client.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] });
      const chunks: Chunk[] = [];
      for await (const c of stream) chunks.push(c);
      assert.ok(chunks.every((c) => c.choices.length === 1 && !('usage' in c)));
    });

    it('scripted misbehaviour: missing ids, raw arguments, unknown finish reason, no [DONE], no usage', async () => {
      fake.enqueue(
        reply.toolCall('read_file', { path: 'x' }, { stream: { omitToolCallIds: true, rawToolArguments: ['{"path": "x"'], finishReason: 'eos', omitDone: true, omitUsage: true } }),
      );
      const chunks = await collect({ messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
      const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      assert.equal(calls[0]?.id, undefined);
      assert.equal(calls[0]?.function?.name, 'read_file');
      assert.equal(calls.map((c) => c.function?.arguments ?? '').join(''), '{"path": "x"');
      assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'eos');
      const written = fake.completionRequests()[0]?.reply?.chunks ?? [];
      assert.notEqual(written.at(-1), '[DONE]');
    });

    it('finishReason null sends no finish chunk', async () => {
      fake.enqueue(reply.text('cut', { stream: { finishReason: null } }));
      const chunks = await collect({ messages: [{ role: 'user', content: 'go' }] });
      assert.ok(chunks.every((c) => (c.choices[0]?.finish_reason ?? null) === null));
    });

    it('a cut stream and a mid-stream error chunk fail the SDK iteration', async () => {
      fake.enqueue(reply.text('a long reply that gets cut', { stream: { cutAfterChunks: 2 } }));
      await assert.rejects(collect({ messages: [{ role: 'user', content: 'go' }] }));
      assert.equal(fake.completionRequests()[0]?.reply?.kind, 'stream-cut');

      fake.enqueue(reply.text('a reply that fails', { stream: { errorAfterChunks: { after: 2 } } }));
      const e = await rejects(collect({ messages: [{ role: 'user', content: 'go' }] }));
      assert.match(e.message, /server had an error/);
      assert.equal(fake.completionRequests()[1]?.reply?.kind, 'stream-error');
    });

    it('cuts a reply at max_completion_tokens with finish_reason length', async () => {
      fake.enqueue(reply.text('one two three four five six seven eight nine ten eleven twelve'));
      const chunks = await collect({ messages: [{ role: 'user', content: 'count' }], max_completion_tokens: 4 });
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      assert.equal(countTextTokens(text), 4);
      assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'length');
      assert.equal(chunks.at(-1)?.usage?.completion_tokens, 4);
    });
  });

  it('answers non-stream requests with a chat.completion object', async () => {
    fake.enqueue(reply.toolCall('read_file', { path: 'a' }, { preamble: 'Looking.' }));
    const done = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], tools: TOOLS });
    assert.equal(done.object, 'chat.completion');
    assert.equal(done.choices[0]?.message.content, 'Looking.');
    const call = done.choices[0]?.message.tool_calls?.[0];
    assert.equal(call?.type, 'function');
    assert.equal(call?.type === 'function' ? call.function.arguments : '', '{"path":"a"}');
    assert.equal(done.choices[0]?.finish_reason, 'tool_calls');
  });

  describe('automatic prefix caching', () => {
    it('reuses the longest common prefix in whole 128-token blocks, from 1024 tokens on', async () => {
      const base: Msg[] = [
        { role: 'system', content: LONG_SYSTEM },
        { role: 'user', content: 'first question' },
      ];
      fake.enqueue(reply.text('first answer'), reply.text('second answer'), reply.text('third'));
      const first = await client.chat.completions.create({ model: MODEL, messages: base });
      assert.equal(first.usage?.prompt_tokens_details?.cached_tokens, 0);
      const second = await client.chat.completions.create({
        model: MODEL,
        messages: [...base, { role: 'assistant', content: 'first answer' }, { role: 'user', content: 'second question' }],
      });
      const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? 0;
      assert.ok(cached >= MIN_CACHED_TOKENS, `cached ${cached}`);
      assert.equal(cached % CACHE_BLOCK_TOKENS, 0);
      assert.ok(cached <= (first.usage?.prompt_tokens ?? 0));
      assert.ok((first.usage?.prompt_tokens ?? 0) - cached < CACHE_BLOCK_TOKENS + 10, 'all whole blocks of the shared prefix are read');
      // A changed first message shares no prefix.
      fake.advanceClock(1000);
      const third = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: `X ${LONG_SYSTEM}` }, { role: 'user', content: 'q' }] });
      assert.equal(third.usage?.prompt_tokens_details?.cached_tokens, 0);
    });

    it('short prompts are never cached, and entries expire', async () => {
      fake.enqueue(reply.text('a'), reply.text('b'), reply.text('c'));
      const short: Msg[] = [{ role: 'user', content: 'short' }];
      await client.chat.completions.create({ model: MODEL, messages: short });
      const again = await client.chat.completions.create({ model: MODEL, messages: short });
      assert.equal(again.usage?.prompt_tokens_details?.cached_tokens, 0);
      const long: Msg[] = [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: 'q' }];
      await client.chat.completions.create({ model: MODEL, messages: long });
      fake.advanceClock(11 * 60_000);
      fake.enqueue(reply.text('d'));
      const cold = await client.chat.completions.create({ model: MODEL, messages: long });
      assert.equal(cold.usage?.prompt_tokens_details?.cached_tokens, 0);
    });
  });

  describe('validation like the real API', () => {
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a"}' } };
    const cases: Array<{ name: string; body: Record<string, unknown>; status?: number; message: RegExp; param?: string | null; code?: string | null }> = [
      {
        name: 'an unanswered tool call before the next user message',
        body: { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'user', content: 'y' }], tools: TOOLS },
        message: /An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'\. The following tool_call_ids did not have response messages: call_1/,
        param: 'messages.[1].role',
      },
      {
        name: 'an unanswered tool call at the end',
        body: { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }], tools: TOOLS },
        message: /did not have response messages: call_1/,
      },
      {
        name: 'an orphan tool message',
        body: { messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_9', content: 'r' }] },
        message: /messages with role 'tool' must be a response to a preceeding message with 'tool_calls'/,
        param: 'messages.[1].role',
      },
      {
        name: 'a tool message answering an unknown id',
        body: { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_2', content: 'r' }], tools: TOOLS },
        message: /'tool_call_id' of 'call_2' not found in 'tool_calls' of previous message/,
      },
      {
        name: 'a tool call without an id',
        body: { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: call.function }] }], tools: TOOLS },
        message: /Missing required parameter: 'messages\[1\]\.tool_calls\[0\]\.id'/,
        code: 'missing_required_parameter',
      },
      {
        name: 'a tool call id over 40 characters',
        body: { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ ...call, id: `toolu_${'x'.repeat(40)}` }] }, { role: 'tool', tool_call_id: `toolu_${'x'.repeat(40)}`, content: 'r' }], tools: TOOLS },
        message: /string too long\. Expected a string with maximum length 40, but got a string with length 46 instead/,
        code: 'string_above_max_length',
      },
      { name: 'no messages', body: { messages: [] }, message: /\[\] is too short - 'messages'/ },
      { name: 'an unknown role', body: { messages: [{ role: 'robot', content: 'x' }] }, message: /Invalid value: 'robot'/, code: 'invalid_value', param: 'messages[0].role' },
      {
        name: 'a bad tool name',
        body: { messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'read file', parameters: { type: 'object', properties: {} } } }] },
        message: /string does not match pattern/,
        code: 'invalid_value',
      },
      {
        name: 'tool parameters that are not an object schema',
        body: { messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] },
        message: /schema must be a JSON Schema of 'type: "object"'/,
        code: 'invalid_function_parameters',
      },
      { name: 'an empty tools array', body: { messages: [{ role: 'user', content: 'x' }], tools: [] }, message: /Invalid 'tools': empty array/, code: 'empty_array' },
      { name: 'max_tokens above the model limit', body: { messages: [{ role: 'user', content: 'x' }], max_tokens: 20_000 }, message: /max_tokens is too large: 20000\. This model supports at most 16384 completion tokens/ },
      { name: 'max_tokens on a reasoning model', body: { model: 'o4-mini', messages: [{ role: 'user', content: 'x' }], max_tokens: 100 }, message: /^Unsupported parameter: 'max_tokens' is not supported with this model\. Use 'max_completion_tokens' instead\.$/, code: 'unsupported_parameter', param: 'max_tokens' },
      { name: 'an unknown argument', body: { messages: [{ role: 'user', content: 'x' }], cache_control: { type: 'ephemeral' } }, message: /Unrecognized request argument supplied: cache_control/ },
      { name: 'stream_options without stream', body: { messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: true } }, message: /only allowed when 'stream' is enabled/ },
      { name: 'an unknown model', body: { model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] }, status: 404, message: /The model `gpt-9` does not exist/, code: 'model_not_found' },
    ];
    for (const c of cases) {
      it(`rejects ${c.name}`, async () => {
        const e = await rejects(client.chat.completions.create({ model: MODEL, ...c.body } as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming));
        assert.equal(e.status, c.status ?? 400);
        const body = errorOf(e);
        assert.match(body.message, c.message);
        assert.equal(body.type, 'invalid_request_error');
        if (c.param !== undefined) assert.equal(body.param, c.param);
        if (c.code !== undefined) assert.equal(body.code, c.code);
        assert.equal(fake.rejectedRequests().length, 1);
        assert.equal(fake.pendingReplies(), 0);
      });
    }

    it('accepts a valid tool round trip (tool messages before the next user message)', async () => {
      fake.enqueue(reply.text('ok'));
      await client.chat.completions.create({
        model: MODEL,
        tools: TOOLS,
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'Reading.', tool_calls: [call, { ...call, id: 'call_2' }] },
          { role: 'tool', tool_call_id: 'call_2', content: 'b' },
          { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'a' }] },
          { role: 'user', content: [{ type: 'text', text: 'thanks' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${pngBase64(1, 1)}` } }] },
        ],
      });
      assert.equal(fake.rejectedRequests().length, 0);
    });

    it('enforces the context length with the tokenizer count, in the real message shape', async () => {
      fake.setModel('tiny', { context_window: 2000, max_output_tokens: 1000 });
      const big = 'word '.repeat(2500);
      const e = await rejects(client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: big }] }));
      const body = errorOf(e);
      assert.equal(body.code, 'context_length_exceeded');
      assert.equal(body.param, 'messages');
      assert.match(body.message, /^This model's maximum context length is 2000 tokens\. However, your messages resulted in (\d+) tokens\. Please reduce the length of the messages\.$/);
      const n = Number(/resulted in (\d+)/.exec(body.message)?.[1]);
      assert.ok(n > countTextTokens(big) && n < countTextTokens(big) + 20, `counted ${n}`);

      const e2 = await rejects(client.chat.completions.create({ model: 'tiny', max_tokens: 1000, messages: [{ role: 'user', content: 'word '.repeat(1200) }] }));
      assert.match(errorOf(e2).message, /However, you requested \d+ tokens \(\d+ in the messages, 1000 in the completion\)/);
      assert.equal(fake.rejectedRequests().length, 2);
    });

    it('a model without tool support refuses tools, naming the model', async () => {
      const e = await rejects(client.chat.completions.create({ model: 'gemma2:2b', messages: [{ role: 'user', content: 'x' }], tools: TOOLS }));
      assert.equal(e.status, 400);
      assert.match(errorOf(e).message, /gemma2:2b does not support tools/);
      fake.enqueue(reply.text('fine without tools'));
      const ok = await client.chat.completions.create({ model: 'gemma2:2b', messages: [{ role: 'user', content: 'x' }] });
      assert.equal(ok.choices[0]?.message.content, 'fine without tools');
    });
  });

  describe('errors and auth', () => {
    it('401 for a wrong or missing key', async () => {
      const bad = new OpenAI({ apiKey: 'sk-wrong-key-12345', baseURL: fake.url, maxRetries: 0 });
      const e = await rejects(bad.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }));
      assert.equal(e.status, 401);
      assert.equal(errorOf(e).code, 'invalid_api_key');
      assert.match(errorOf(e).message, /^Incorrect API key provided: sk-\*+2345\./);
      const res = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: '{}' });
      assert.equal(res.status, 401);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /You didn't provide an API key/);
    });

    it('scripted errors carry the real bodies and headers', async () => {
      fake.enqueue(reply.error(429, { retryAfter: 2 }), reply.error(500), reply.error(503), reply.error(404));
      const rate = await rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }));
      assert.equal(rate.status, 429);
      assert.equal(rate.headers?.get('retry-after'), '2');
      assert.equal(errorOf(rate).code, 'rate_limit_exceeded');
      const server = await rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }));
      assert.equal(server.status, 500);
      assert.equal(errorOf(server).type, 'server_error');
      const overloaded = await rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }));
      assert.equal(overloaded.status, 503);
      const notFound = await rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }));
      assert.match(errorOf(notFound).message, /The model `gpt-4o` does not exist/);
      assert.equal(fake.rejectedRequests().length, 0, 'scripted errors are not the fake refusing a request');
    });

    it('a request with nothing scripted gets a loud 500', async () => {
      const e = await rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }));
      assert.equal(e.status, 500);
      assert.match(errorOf(e).message, /no scripted reply/);
    });

    it('raw replies are sent verbatim', async () => {
      fake.enqueue(reply.raw(200, '<html><body>Welcome to nginx!</body></html>'));
      const res = await fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
      });
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await res.text(), /nginx/);
    });
  });

  it('lists models and answers /v1/models/{id}', async () => {
    const page = await client.models.list();
    const ids = page.data.map((m) => m.id);
    assert.ok(ids.includes('gpt-4o') && ids.includes('gemma2:2b'));
    const one = await client.models.retrieve('gpt-4o');
    assert.deepEqual(one, { id: 'gpt-4o', object: 'model', created: 1_715_367_049, owned_by: 'system' });
    fake.setModel('org/local-model', { context_window: 32_768, max_output_tokens: 4096, expose_max_model_len: true });
    const local = (await client.models.retrieve('org/local-model')) as OpenAI.Models.Model & { max_model_len?: number };
    assert.equal(local.max_model_len, 32_768);
    const e = await rejects(client.models.retrieve('nope'));
    assert.equal(e.status, 404);
    assert.equal(errorOf(e).code, 'model_not_found');
  });
});

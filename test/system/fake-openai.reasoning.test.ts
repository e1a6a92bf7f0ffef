/**
 * The fake OpenAI API's reasoning rules (issue 21), through the real SDK: `reasoning_effort` only on
 * reasoning models and only with a value they take, reasoning tokens in the usage and the budget,
 * a compatible server that refuses the parameter, and visible `reasoning_content` as DeepSeek/vLLM send it.
 */
import assert from 'node:assert/strict';
import OpenAI, { APIError } from 'openai';
import { countTextTokens, REASONING_TOKENS, reply, startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

async function refused(p: Promise<unknown>): Promise<{ message: string; type: string; param: string | null; code: string | null }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof APIError, `expected an APIError, got ${String(e)}`);
    assert.equal(e.status, 400);
    return e.error as { message: string; type: string; param: string | null; code: string | null };
  }
  assert.fail('expected the request to be refused');
}

describe('fake OpenAI API: reasoning', function () {
  let fake: FakeOpenAI;
  let client: OpenAI;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  const ask = (params: Partial<Params>, on: OpenAI = client): Promise<OpenAI.Chat.Completions.ChatCompletion> =>
    on.chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], ...params, stream: false });

  it('takes reasoning_effort on reasoning models and reports its tokens inside completion_tokens', async () => {
    const answer = 'Hello.';
    for (const effort of ['minimal', 'low', 'medium', 'high'] as const) {
      fake.enqueue(reply.text(answer));
      const r = await ask({ reasoning_effort: effort });
      assert.equal(r.choices[0]?.message.content, answer);
      assert.equal(r.usage?.completion_tokens_details?.reasoning_tokens, REASONING_TOKENS[effort]);
      assert.equal(r.usage?.completion_tokens, REASONING_TOKENS[effort]! + countTextTokens(answer));
    }
    fake.enqueue(reply.text(answer), reply.text(answer, { reasoning_tokens: 77 }));
    const o3 = await ask({ model: 'o3', reasoning_effort: 'high' });
    assert.equal(o3.usage?.completion_tokens_details?.reasoning_tokens, REASONING_TOKENS['high']);
    // Without the parameter the fake reports no reasoning unless the script says how much.
    const scripted = await ask({});
    assert.equal(scripted.usage?.completion_tokens_details?.reasoning_tokens, 77);
    assert.equal(scripted.usage?.completion_tokens, 77 + countTextTokens(answer));
  });

  it('refuses reasoning_effort on a model that does not reason, as an unrecognized argument', async () => {
    for (const model of ['gpt-4o', 'gpt-4.1']) {
      const e = await refused(ask({ model, reasoning_effort: 'low' }));
      assert.deepEqual(e, { message: 'Unrecognized request argument supplied: reasoning_effort', type: 'invalid_request_error', param: null, code: null });
    }
    fake.enqueue(reply.text('fine'));
    await ask({ model: 'gpt-4o' });
  });

  it('refuses a value the model does not take, and one the API does not know', async () => {
    const minimal = await refused(ask({ model: 'o4-mini', reasoning_effort: 'minimal' }));
    assert.deepEqual(minimal, {
      message: "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. Supported values are: 'low', 'medium', and 'high'.",
      type: 'invalid_request_error',
      param: 'reasoning_effort',
      code: 'unsupported_value',
    });
    const none = await refused(ask({ reasoning_effort: 'none' }));
    assert.equal(none.message, "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'.");
    const unknown = await refused(ask({ reasoning_effort: 'extreme' as OpenAI.ReasoningEffort }));
    assert.deepEqual(unknown, {
      message: "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.",
      type: 'invalid_request_error',
      param: 'reasoning_effort',
      code: 'invalid_value',
    });
  });

  it('plays a compatible server that refuses the parameter outright, so a client can drop it once', async () => {
    const compatible = await startFakeOpenAI({ rejectReasoningEffort: true });
    try {
      const c = new OpenAI({ apiKey: compatible.apiKey, baseURL: compatible.url, maxRetries: 0 });
      const e = await refused(ask({ model: 'o4-mini', reasoning_effort: 'medium' }, c));
      assert.equal(e.message, 'Unrecognized request argument supplied: reasoning_effort');
      compatible.enqueue(reply.text('Without it.'));
      const r = await ask({ model: 'o4-mini' }, c);
      assert.equal(r.choices[0]?.message.content, 'Without it.');
      assert.equal(compatible.rejectedRequests().length, 1);
    } finally {
      await compatible.close();
    }
  });

  it('spends the completion budget on reasoning first: a budget it uses up leaves an empty reply with length', async () => {
    fake.enqueue(reply.text('An answer that never comes.'));
    const r = await ask({ reasoning_effort: 'high', max_completion_tokens: 300 });
    assert.equal(r.choices[0]?.finish_reason, 'length');
    assert.equal(r.choices[0]?.message.content, '');
    assert.equal(r.usage?.completion_tokens, 300);
    assert.equal(r.usage?.completion_tokens_details?.reasoning_tokens, 300);

    const text = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    fake.enqueue(reply.text(text));
    const cut = await ask({ reasoning_effort: 'medium', max_completion_tokens: REASONING_TOKENS['medium']! + 10 });
    assert.equal(cut.choices[0]?.finish_reason, 'length');
    assert.equal(countTextTokens(cut.choices[0]?.message.content ?? ''), 10);
    assert.ok(text.startsWith(cut.choices[0]?.message.content ?? '!'));
  });

  it('reports reasoning tokens in the streamed usage chunk', async () => {
    fake.enqueue(reply.text('Streamed.'));
    const stream = await client.chat.completions.create({
      model: 'gpt-5-mini',
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chunks: Chunk[] = [];
    for await (const c of stream) chunks.push(c);
    const usage = chunks.at(-1)?.usage;
    assert.equal(usage?.completion_tokens_details?.reasoning_tokens, REASONING_TOKENS['low']);
    assert.equal(usage?.completion_tokens, REASONING_TOKENS['low']! + countTextTokens('Streamed.'));
  });

  it('streams scripted reasoning_content before the content, as DeepSeek and vLLM do, and counts it as reasoning', async () => {
    const thought = 'The user says hi; answer in kind.';
    fake.setModel('deepseek-reasoner', { context_window: 64_000, max_output_tokens: 8_000 });
    fake.enqueue(reply.text('Hi!', { reasoning_content: thought, stream: { textChunkChars: 10 } }), reply.text('Hi!', { reasoning_content: thought }));
    const stream = await client.chat.completions.create({
      model: 'deepseek-reasoner',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    const order: string[] = [];
    let reasoning = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const c of stream) {
      const delta = c.choices[0]?.delta as (Chunk['choices'][number]['delta'] & { reasoning_content?: string }) | undefined;
      if (delta?.reasoning_content) {
        reasoning += delta.reasoning_content;
        order.push('reasoning');
      } else if (delta?.content) order.push('content');
      if (c.usage) usage = c.usage;
    }
    assert.equal(reasoning, thought);
    assert.deepEqual(order, [...Array<string>(Math.ceil(thought.length / 10)).fill('reasoning'), 'content']);
    assert.equal(usage?.completion_tokens_details?.reasoning_tokens, countTextTokens(thought));
    assert.equal(usage?.completion_tokens, countTextTokens(thought) + countTextTokens('Hi!'));

    const plain = await ask({ model: 'deepseek-reasoner' });
    const message = plain.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string };
    assert.equal(message.reasoning_content, thought);
    // Sent back, the field is refused like any unknown one: a client must drop it from history.
    const back = await refused(
      ask({ model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hi!', reasoning_content: thought } as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam, { role: 'user', content: 'again' }] }),
    );
    assert.equal(back.message, "Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.1'");
  });
});

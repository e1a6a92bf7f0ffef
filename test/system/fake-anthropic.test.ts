import assert from 'node:assert/strict';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import {
  countOutputTokens,
  reply,
  startFakeAnthropic,
  thinkingSignature,
  type FakeAnthropic,
} from '../fake-anthropic/server';

// claude-opus-4-1 (alias of the dated id): the SDK prints a deprecation warning for sonnet-4-5.
const MODEL = 'claude-opus-4-1';
const DATED = 'claude-opus-4-1-20250805';

const TOOLS: Anthropic.Tool[] = [
  {
    name: 'read_file',
    description: 'Read a file from the workspace.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

/** ~1500+ tokens of stable system prompt. */
const LONG_SYSTEM = Array.from(
  { length: 120 },
  (_, i) => `Rule ${i}: keep the code base tidy, typed and tested; never guess file contents.`,
).join('\n');

function apiError(e: unknown): APIError {
  assert.ok(e instanceof APIError, `expected an APIError, got ${String(e)}`);
  return e;
}

async function rejectsWith<T extends APIError>(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => T,
): Promise<T> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    return e;
  }
  assert.fail(`expected ${cls.name} to be thrown`);
}

function bodyMessage(e: APIError): string {
  const b = e.error as { type?: string; error?: { type?: string; message?: string }; request_id?: string };
  assert.equal(b.type, 'error');
  assert.match(String(b.request_id), /^req_011C/);
  return String(b.error?.message);
}

describe('fake Anthropic API', function () {
  let fake: FakeAnthropic;
  let client: Anthropic;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  describe('streaming', () => {
    it('emits the real SSE event sequence, with ping and real headers', async () => {
      const text = 'Hello there, this is the fake model speaking.'; // 45 chars -> 4 deltas of <=12
      fake.enqueue(reply.text(text, { stream: { textChunkChars: 12 } }));
      const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      const seen: string[] = [];
      stream.on('streamEvent', (e) => seen.push(e.type));
      const final = await stream.finalMessage();

      assert.deepEqual(seen, [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      // The SDK drops `ping`; the wire had it right after the first content_block_start.
      const wire = fake.messageRequests()[0]?.reply?.events?.map((e) => e.event);
      assert.deepEqual(wire?.slice(0, 3), ['message_start', 'content_block_start', 'ping']);
      assert.equal(final.content[0]?.type, 'text');
      assert.equal(final.content[0]?.type === 'text' ? final.content[0].text : '', text);
      assert.equal(final.stop_reason, 'end_turn');
      assert.equal(final.model, DATED);
      assert.equal(final.usage.output_tokens, countOutputTokens([{ type: 'text', text }]));

      const start = fake.messageRequests()[0]?.reply?.events?.[0]?.data as Anthropic.RawMessageStartEvent;
      assert.deepEqual(start.message.content, []);
      assert.equal(start.message.stop_reason, null);
      assert.equal(start.message.usage.output_tokens, 1);
      assert.equal(start.message.usage.cache_read_input_tokens, 0);

      fake.enqueue(reply.text('x'));
      const { response } = await client.messages
        .create({ model: MODEL, max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.match(String(response.headers.get('request-id')), /^req_011C/);
      await response.text();
    });

    it('streams tool_use input in several input_json_delta chunks that the SDK assembles', async () => {
      const input = { path: 'src/core/agent/loop.ts', options: { recursive: true, depth: 3 }, list: [1, 2, 3] };
      fake.enqueue(reply.toolUse('read_file', input, { preamble: 'Let me look.' }));
      const stream = client.messages.stream({
        model: MODEL,
        max_tokens: 200,
        tools: TOOLS,
        messages: [{ role: 'user', content: 'open the loop' }],
      });
      const jsonDeltas: string[] = [];
      stream.on('streamEvent', (e) => {
        if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') jsonDeltas.push(e.delta.partial_json);
      });
      const final = await stream.finalMessage();
      assert.equal(final.stop_reason, 'tool_use');
      const block = final.content[1];
      assert.ok(block && block.type === 'tool_use');
      assert.equal(block.name, 'read_file');
      assert.match(block.id, /^toolu_01[1-9A-HJ-NP-Za-km-z]{22}$/);
      assert.deepEqual(block.input, input);
      assert.ok(jsonDeltas.length >= 5, `expected several chunks, got ${jsonDeltas.length}`);
      assert.equal(jsonDeltas[0], '');
      assert.deepEqual(JSON.parse(jsonDeltas.join('')), input);
    });

    it('streams thinking with a signature the API accepts back, and rejects a forged one', async () => {
      fake.enqueue({
        kind: 'message',
        content: [
          { type: 'thinking', thinking: 'The user wants the file; read it first.' },
          { type: 'tool_use', name: 'read_file', input: { path: 'a.ts' }, id: 'toolu_01A' },
        ],
      });
      const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
      const first = await client.messages
        .stream({ model: MODEL, max_tokens: 2048, thinking, tools: TOOLS, messages: [{ role: 'user', content: 'read a.ts' }] })
        .finalMessage();
      const tb = first.content[0];
      assert.ok(tb && tb.type === 'thinking');
      assert.equal(tb.signature, thinkingSignature('The user wants the file; read it first.'));

      const history: Anthropic.MessageParam[] = [
        { role: 'user', content: 'read a.ts' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'export {}' }] },
      ];
      fake.enqueue(reply.text('It is empty.'));
      const second = await client.messages.create({ model: MODEL, max_tokens: 2048, thinking, tools: TOOLS, messages: history });
      assert.equal(second.stop_reason, 'end_turn');

      const forged: Anthropic.MessageParam[] = [
        history[0]!,
        { role: 'assistant', content: [{ ...tb, thinking: 'edited thoughts' }, ...first.content.slice(1)] },
        history[2]!,
      ];
      const e = await rejectsWith(
        client.messages.create({ model: MODEL, max_tokens: 2048, thinking, tools: TOOLS, messages: forged }),
        Anthropic.BadRequestError,
      );
      // Its signature is one the fake issued, for other text: an edit of the latest assistant message.
      assert.equal(
        bodyMessage(e),
        'messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.',
      );
      const e3 = await rejectsWith(
        client.messages.create({
          model: MODEL,
          max_tokens: 2048,
          thinking,
          tools: TOOLS,
          messages: [history[0]!, { role: 'assistant', content: [{ ...tb, signature: 'c2lnbmVkIGVsc2V3aGVyZQ==' }, ...first.content.slice(1)] }, history[2]!],
        }),
        Anthropic.BadRequestError,
      );
      assert.equal(bodyMessage(e3), 'messages.1.content.0: Invalid `signature` in `thinking` block');

      const withoutThinking: Anthropic.MessageParam[] = [history[0]!, { role: 'assistant', content: first.content.slice(1) }, history[2]!];
      const e2 = await rejectsWith(
        client.messages.create({ model: MODEL, max_tokens: 2048, thinking, tools: TOOLS, messages: withoutThinking }),
        Anthropic.BadRequestError,
      );
      assert.match(bodyMessage(e2), /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
    });

    it('surfaces a stream cut mid-way as an SDK error', async () => {
      fake.enqueue(reply.text('This reply will never finish streaming to the client.', { stream: { cutAfterEvents: 4 } }));
      const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      const types: string[] = [];
      stream.on('streamEvent', (e) => types.push(e.type));
      await assert.rejects(stream.finalMessage());
      assert.deepEqual(types, ['message_start', 'content_block_start', 'content_block_delta']);
      assert.equal(fake.messageRequests()[0]?.reply?.kind, 'stream-cut');
    });

    it('surfaces a mid-stream error event as an APIError of that type', async () => {
      fake.enqueue(reply.text('partial answer that gets interrupted', { stream: { errorAfterEvents: { after: 3 } } }));
      const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      const e = apiError(await stream.finalMessage().then(() => undefined, (err: unknown) => err));
      assert.equal(e.type, 'overloaded_error');
      assert.equal(e.status, undefined);
    });

    it('lets the client abort mid-stream (per-event delay)', async () => {
      fake.enqueue(reply.text('one two three four five six seven eight nine ten', { stream: { eventDelayMs: 40, textChunkChars: 4 } }));
      const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      let deltas = 0;
      stream.on('text', () => {
        deltas++;
        if (deltas === 2) stream.abort();
      });
      await assert.rejects(stream.finalMessage(), Anthropic.APIUserAbortError);
      await new Promise((r) => setTimeout(r, 120));
      const rec = fake.messageRequests()[0]?.reply;
      assert.equal(rec?.kind, 'aborted');
      assert.ok((rec?.events?.length ?? 0) < 10, 'the fake stopped writing after the abort');
    });
  });

  describe('non-streaming', () => {
    it('returns the full Message object with usage from the tokenizer', async () => {
      fake.enqueue(reply.text('Four.'));
      const params = { model: MODEL, system: 'Be terse.', messages: [{ role: 'user' as const, content: 'What is 2+2?' }] };
      const msg = await client.messages.create({ ...params, max_tokens: 50 });
      assert.match(msg.id, /^msg_01[1-9A-HJ-NP-Za-km-z]{22}$/);
      assert.equal(msg.type, 'message');
      assert.equal(msg.role, 'assistant');
      assert.equal(msg.model, DATED);
      assert.deepEqual(msg.content, [{ type: 'text', text: 'Four.', citations: null }]);
      assert.equal(msg.stop_reason, 'end_turn');
      assert.equal(msg.stop_sequence, null);
      const count = await client.messages.countTokens(params);
      assert.equal(msg.usage.input_tokens, count.input_tokens);
      assert.equal(msg.usage.cache_creation_input_tokens, 0);
      assert.equal(msg.usage.cache_read_input_tokens, 0);
      assert.equal(msg.usage.output_tokens, countOutputTokens([{ type: 'text', text: 'Four.' }]));
      const rec = fake.messageRequests()[0];
      // SDK 1.12 sends the key as a bearer token.
      assert.equal(rec?.headers['authorization'], `Bearer ${fake.apiKey}`);
      assert.deepEqual((rec?.body as { messages: unknown }).messages, params.messages);
    });

    it('truncates at max_tokens with stop_reason max_tokens', async () => {
      const long = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
      fake.enqueue(reply.text(long));
      const msg = await client.messages.create({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'go' }] });
      assert.equal(msg.stop_reason, 'max_tokens');
      assert.equal(msg.usage.output_tokens, 5);
      const text = msg.content[0]?.type === 'text' ? msg.content[0].text : '';
      assert.ok(long.startsWith(text) && text.length > 0 && text.length < 40, text);
    });

    it('stops at a requested stop sequence', async () => {
      fake.enqueue(reply.text('alpha beta END gamma'));
      const m = await client.messages.create({
        model: MODEL,
        max_tokens: 50,
        stop_sequences: ['END', 'beta2'],
        messages: [{ role: 'user', content: 'go' }],
      });
      assert.deepEqual(m.content, [{ type: 'text', text: 'alpha beta ', citations: null }]);
      assert.equal(m.stop_reason, 'stop_sequence');
      assert.equal(m.stop_sequence, 'END');
    });

    it('never answers a hang reply, so the SDK times out', async () => {
      fake.enqueue(reply.hang());
      const impatient = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0, timeout: 150 });
      await assert.rejects(
        impatient.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        Anthropic.APIConnectionTimeoutError,
      );
      assert.equal(fake.messageRequests()[0]?.reply?.kind, 'hang');
    });

    it('uses a responder when the queue is empty, with a running index', async () => {
      fake.enqueue(reply.text('from queue'));
      fake.setResponder((req, index) => reply.text(`responder #${index} saw ${req.messages.length} message(s)`));
      const texts: string[] = [];
      for (let i = 0; i < 3; i++) {
        const m = await client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] });
        texts.push(m.content[0]?.type === 'text' ? m.content[0].text : '');
      }
      assert.deepEqual(texts, ['from queue', 'responder #1 saw 1 message(s)', 'responder #2 saw 1 message(s)']);
    });

    it('answers a loud 500 test-setup error when nothing is scripted (and the SDK does not retry it)', async () => {
      const retrying = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 2 });
      const e = await rejectsWith(
        retrying.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        Anthropic.InternalServerError,
      );
      assert.equal(e.status, 500);
      assert.match(bodyMessage(e), /no scripted reply for POST \/v1\/messages #0.*fake\.enqueue/);
      assert.equal(fake.messageRequests().length, 1);
    });
  });

  describe('validation', () => {
    it('rejects a tool_use without a tool_result in the next message', async () => {
      const e = await rejectsWith(
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          tools: TOOLS,
          messages: [
            { role: 'user', content: 'read it' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01X', name: 'read_file', input: { path: 'a' } }] },
            { role: 'user', content: 'never mind' },
          ],
        }),
        Anthropic.BadRequestError,
      );
      assert.equal(e.status, 400);
      assert.equal(
        bodyMessage(e),
        'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01X. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      );
      assert.equal(e.headers?.get('x-should-retry'), 'false');
    });

    it('rejects tool_result blocks that do not come first in their message', async () => {
      const e = await rejectsWith(
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          tools: TOOLS,
          messages: [
            { role: 'user', content: 'read it' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01Y', name: 'read_file', input: { path: 'a' } }] },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'here:' },
                { type: 'tool_result', tool_use_id: 'toolu_01Y', content: 'ok' },
              ],
            },
          ],
        }),
        Anthropic.BadRequestError,
      );
      assert.match(bodyMessage(e), /^messages\.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Y\./);
    });

    it('rejects an orphan tool_result', async () => {
      const e = await rejectsWith(
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          tools: TOOLS,
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: 'hello' },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Gone', content: 'stale' }] },
          ],
        }),
        Anthropic.BadRequestError,
      );
      assert.equal(
        bodyMessage(e),
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Gone. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      );
    });

    it('rejects the other malformed requests with the real messages', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ messages: [{ role: 'user', content: 'x' }], max_tokens: 10 }, 'model: Field required'],
        [{ model: MODEL, messages: [{ role: 'user', content: 'x' }] }, 'max_tokens: Field required'],
        [
          { model: MODEL, max_tokens: 32_001, messages: [{ role: 'user', content: 'x' }] },
          `max_tokens: 32001 > 32000, which is the maximum allowed number of output tokens for ${DATED}`,
        ],
        [{ model: MODEL, max_tokens: 10, messages: [] }, 'messages: at least one message is required'],
        [{ model: MODEL, max_tokens: 10, messages: [{ role: 'system', content: 'x' }] }, "messages.0.role: Input should be 'user' or 'assistant'"],
        [{ model: MODEL, max_tokens: 10, messages: [{ role: 'assistant', content: 'x' }] }, 'messages: first message must use the "user" role'],
        [
          { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
          'messages: text content blocks must be non-empty',
        ],
        [
          {
            model: MODEL,
            max_tokens: 10,
            messages: [
              { role: 'user', content: 'a' },
              { role: 'assistant', content: '' },
              { role: 'user', content: 'b' },
            ],
          },
          'messages.1: all messages must have non-empty content except for the optional final assistant message',
        ],
        [
          {
            model: MODEL,
            max_tokens: 10,
            tools: TOOLS,
            messages: [
              { role: 'user', content: 'a' },
              {
                role: 'assistant',
                content: [
                  { type: 'tool_use', id: 'toolu_01D', name: 'read_file', input: {} },
                  { type: 'tool_use', id: 'toolu_01D', name: 'read_file', input: {} },
                ],
              },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01D' }] },
            ],
          },
          'messages.1.content.1: `tool_use` ids must be unique',
        ],
        [
          { model: MODEL, max_tokens: 10, tools: [{ name: 'x', description: 'no schema' }], messages: [{ role: 'user', content: 'a' }] },
          'tools.0.custom.input_schema: Field required',
        ],
        [
          { model: MODEL, max_tokens: 10, tool_choice: { type: 'sometimes' }, tools: TOOLS, messages: [{ role: 'user', content: 'a' }] },
          "tool_choice: Input tag 'sometimes' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
        ],
        [
          {
            model: MODEL,
            max_tokens: 10,
            system: [1, 2, 3, 4, 5].map((i) => ({ type: 'text', text: `part ${i}`, cache_control: { type: 'ephemeral' } })),
            messages: [{ role: 'user', content: 'a' }],
          },
          'A maximum of 4 blocks with cache_control may be provided. Found 5.',
        ],
        [
          { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'a' }], temprature: 0.5 },
          'temprature: Extra inputs are not permitted',
        ],
        [
          { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'Sure, ' }] },
          'messages: final assistant content cannot end with trailing whitespace',
        ],
      ];
      for (const [body, message] of cases) {
        const e = await rejectsWith(
          // An explicit timeout skips the SDK's own "streaming is required" check for large max_tokens.
          client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, { timeout: 10_000 }),
          Anthropic.BadRequestError,
        );
        assert.equal(bodyMessage(e), message);
      }
      // A final assistant message is a prefill and is allowed.
      fake.enqueue(reply.text('B)'));
      const ok = await client.messages.create({
        model: MODEL,
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'Pick (A) or (B)' },
          { role: 'assistant', content: 'The answer is (' },
        ],
      });
      assert.equal(ok.content[0]?.type === 'text' ? ok.content[0].text : '', 'B)');
    });

    it('answers 404 not_found_error for an unknown model', async () => {
      const e = await rejectsWith(
        client.messages.create({ model: 'claude-nope-9', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        Anthropic.NotFoundError,
      );
      assert.equal(e.status, 404);
      assert.equal(bodyMessage(e), 'model: claude-nope-9');
      assert.equal(e.type, 'not_found_error');
    });

    it('rejects a prompt one token over the window and accepts it exactly at the window', async () => {
      const params = {
        model: 'tiny-window',
        system: 'You are a careful assistant.',
        messages: [{ role: 'user' as const, content: 'Summarise the design document in three bullet points.' }],
      };
      fake.setModel('tiny-window', { max_input_tokens: 100_000, max_tokens: 1000 });
      const { input_tokens: n } = await client.messages.countTokens(params);
      assert.ok(n > 10 && n < 100, `unexpected count ${n}`);

      fake.setModel('tiny-window', { max_input_tokens: n, max_tokens: 1000 });
      fake.enqueue(reply.text('ok'));
      const ok = await client.messages.create({ ...params, max_tokens: 20 });
      assert.equal(ok.usage.input_tokens, n);

      fake.setModel('tiny-window', { max_input_tokens: n - 1, max_tokens: 1000 });
      const e = await rejectsWith(client.messages.create({ ...params, max_tokens: 20 }), Anthropic.BadRequestError);
      assert.equal(bodyMessage(e), `prompt is too long: ${n} tokens > ${n - 1} maximum`);
    });

    it('answers 413 request_too_large over the body limit', async () => {
      const small = await startFakeAnthropic({ maxBodyBytes: 2000 });
      try {
        const c = new Anthropic({ apiKey: small.apiKey, baseURL: small.url, maxRetries: 0 });
        const e = await rejectsWith(
          c.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }),
          Anthropic.ContentTooLargeError,
        );
        assert.equal(e.status, 413);
        assert.deepEqual(e.error, { error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } });
      } finally {
        await small.close();
      }
    });
  });

  describe('auth and errors', () => {
    it('answers 401 authentication_error for a wrong key, and checks anthropic-version', async () => {
      const bad = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: fake.url, maxRetries: 0 });
      const e = await rejectsWith(
        bad.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        Anthropic.AuthenticationError,
      );
      assert.equal(e.status, 401);
      assert.equal(bodyMessage(e), 'invalid x-api-key');

      fake.enqueue(reply.text('bearer ok'));
      const bearer = new Anthropic({ apiKey: null, authToken: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
      const m = await bearer.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(m.content[0]?.type === 'text' ? m.content[0].text : '', 'bearer ok');

      const raw = await fetch(`${fake.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': fake.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      });
      assert.equal(raw.status, 400);
      const body = (await raw.json()) as { error: { type: string; message: string } };
      assert.deepEqual(body.error, { type: 'invalid_request_error', message: 'anthropic-version: header is required' });

      const noKey = await fetch(`${fake.url}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } });
      assert.equal(noKey.status, 401);
      const withKey = await fetch(`${fake.url}/v1/models/claude-opus-4-1`, {
        headers: { 'anthropic-version': '2023-06-01', 'x-api-key': fake.apiKey },
      });
      assert.equal(withKey.status, 200);
      assert.equal(((await withKey.json()) as { id: string }).id, DATED);
    });

    it('answers 429 with retry-after, and the SDK retries it to success', async () => {
      fake.enqueue(reply.error(429, { retryAfter: 0.05 }), reply.text('after the wait'));
      const retrying = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 2 });
      const m = await retrying.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(m.content[0]?.type === 'text' ? m.content[0].text : '', 'after the wait');
      const [first, second] = fake.messageRequests();
      assert.equal(first?.reply?.status, 429);
      assert.equal((first?.reply?.body as { error: { type: string } }).error.type, 'rate_limit_error');
      assert.equal(second?.reply?.status, 200);
      assert.ok((second?.at ?? 0) - (first?.at ?? 0) >= 40, 'the SDK waited for retry-after');
      assert.equal(second?.headers['x-stainless-retry-count'], '1');
    });

    it('answers 429 as a RateLimitError carrying the retry-after header', async () => {
      fake.enqueue(reply.error(429, { retryAfter: 30 }));
      const e = await rejectsWith(
        client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        Anthropic.RateLimitError,
      );
      assert.equal(e.headers?.get('retry-after'), '30');
      assert.equal(e.headers?.get('x-should-retry'), 'true');
    });

    it('answers 529 overloaded_error', async () => {
      fake.enqueue(reply.error(529));
      const e = await rejectsWith(
        client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        Anthropic.OverloadedError,
      );
      assert.equal(e.status, 529);
      assert.equal(e.type, 'overloaded_error');
      assert.equal(bodyMessage(e), 'Overloaded');
    });

    it('drops the connection for a disconnect reply (APIConnectionError)', async () => {
      fake.enqueue(reply.disconnect());
      await assert.rejects(
        client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        Anthropic.APIConnectionError,
      );
    });
  });

  describe('prompt caching', () => {
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }];

    it('writes, reads, refreshes and expires a cached prefix', async () => {
      fake.setResponder(() => reply.text('ok'));
      const ask = (q: string): Promise<Anthropic.Message> =>
        client.messages.create({ model: MODEL, max_tokens: 10, system, messages: [{ role: 'user', content: q }] });

      const first = await ask('first question');
      const created = first.usage.cache_creation_input_tokens ?? 0;
      assert.ok(created > 1024, `prefix should be cacheable, got ${created}`);
      assert.equal(first.usage.cache_read_input_tokens, 0);
      const count = await client.messages.countTokens({ model: MODEL, system, messages: [{ role: 'user', content: 'first question' }] });
      assert.equal(first.usage.input_tokens + created, count.input_tokens);

      const second = await ask('a different second question');
      assert.equal(second.usage.cache_read_input_tokens, created);
      assert.equal(second.usage.cache_creation_input_tokens, 0);

      fake.advanceClock(4 * 60_000);
      const third = await ask('third');
      assert.equal(third.usage.cache_read_input_tokens, created, 'still within 5 minutes');
      fake.advanceClock(4 * 60_000);
      const fourth = await ask('fourth');
      assert.equal(fourth.usage.cache_read_input_tokens, created, 'the hit refreshed the TTL');

      fake.advanceClock(6 * 60_000);
      const fifth = await ask('fifth');
      assert.equal(fifth.usage.cache_read_input_tokens, 0);
      assert.equal(fifth.usage.cache_creation_input_tokens, created);
    });

    it('reads the previous turn and writes only the new tail in a growing conversation', async () => {
      fake.setResponder(() => reply.text('noted'));
      const messages: Anthropic.MessageParam[] = [];
      const turn = async (text: string): Promise<Anthropic.Usage> => {
        // One breakpoint, always on the last block (what an agent loop does).
        for (const m of messages) {
          if (Array.isArray(m.content)) for (const b of m.content) if (b.type === 'text') delete b.cache_control;
        }
        messages.push({ role: 'user', content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] });
        const r = await client.messages.create({ model: MODEL, max_tokens: 10, system: LONG_SYSTEM, messages });
        messages.push({ role: 'assistant', content: r.content.map((b) => (b.type === 'text' ? { type: 'text' as const, text: b.text } : b)) });
        return r.usage;
      };
      const u1 = await turn('first turn with some words');
      const u2 = await turn('second turn with more words');
      const total1 = u1.input_tokens + (u1.cache_creation_input_tokens ?? 0);
      assert.equal(u1.cache_read_input_tokens, 0);
      assert.equal(u2.cache_read_input_tokens, total1, 'the whole first prompt is read back');
      assert.ok((u2.cache_creation_input_tokens ?? 0) > 0);
      assert.equal(u2.input_tokens, 0, 'everything up to the last block is cache read or written');
    });

    it('supports top-level (automatic) cache_control on the last block', async () => {
      fake.setResponder(() => reply.text('ok'));
      const params = {
        model: MODEL,
        max_tokens: 10,
        cache_control: { type: 'ephemeral' as const },
        system: LONG_SYSTEM,
        messages: [{ role: 'user' as const, content: 'same question' }],
      };
      const a = await client.messages.create(params);
      const b = await client.messages.create(params);
      assert.equal(a.usage.input_tokens, 0);
      assert.ok((a.usage.cache_creation_input_tokens ?? 0) > 1024);
      assert.equal(b.usage.cache_read_input_tokens, a.usage.cache_creation_input_tokens);
      assert.equal(b.usage.input_tokens, 0);
    });

    it('does not cache prefixes below the model minimum', async () => {
      fake.setResponder(() => reply.text('ok'));
      const short: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'Short system prompt.', cache_control: { type: 'ephemeral' } }];
      for (let i = 0; i < 2; i++) {
        const m = await client.messages.create({ model: MODEL, max_tokens: 10, system: short, messages: [{ role: 'user', content: 'q' }] });
        assert.equal(m.usage.cache_creation_input_tokens, 0);
        assert.equal(m.usage.cache_read_input_tokens, 0);
      }
    });
  });

  describe('count_tokens and models', () => {
    it('count_tokens agrees with the usage of a matching messages call', async () => {
      const params = {
        model: MODEL,
        system: 'You are a coding agent.',
        tools: TOOLS,
        messages: [
          { role: 'user' as const, content: 'Read a.ts please.' },
          {
            role: 'assistant' as const,
            content: [{ type: 'tool_use' as const, id: 'toolu_01C', name: 'read_file', input: { path: 'a.ts' } }],
          },
          { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_01C', content: 'export const a = 1;' }] },
        ],
      };
      const count = await client.messages.countTokens(params);
      fake.enqueue(reply.text('a is 1'));
      const m = await client.messages.create({ ...params, max_tokens: 100 });
      assert.equal(m.usage.input_tokens, count.input_tokens);
      assert.ok(count.input_tokens > 346, 'includes the tool-use system prompt');
      const e = await rejectsWith(
        client.messages.countTokens({ ...params, model: 'claude-nope' }),
        Anthropic.NotFoundError,
      );
      assert.equal(bodyMessage(e), 'model: claude-nope');
    });

    it('serves model info and the model list', async () => {
      const info = await client.models.retrieve('claude-sonnet-4-5');
      assert.equal(info.id, 'claude-sonnet-4-5-20250929');
      assert.equal(info.type, 'model');
      assert.equal(info.display_name, 'Claude Sonnet 4.5');
      assert.equal(info.max_input_tokens, 200_000);
      assert.equal(info.max_tokens, 64_000);
      assert.match(info.created_at, /^\d{4}-\d\d-\d\dT/);

      fake.setModel('claude-small-test', { max_input_tokens: 5000, max_tokens: 500 });
      const small = await client.models.retrieve('claude-small-test');
      assert.equal(small.max_input_tokens, 5000);

      const ids: string[] = [];
      for await (const m of client.models.list()) ids.push(m.id);
      assert.deepEqual(
        [...ids].sort(),
        [
          'claude-3-5-haiku-20241022',
          'claude-3-7-sonnet-20250219',
          'claude-haiku-4-5-20251001',
          'claude-opus-4-1-20250805',
          'claude-opus-4-6',
          'claude-small-test',
          'claude-sonnet-4-5-20250929',
          'claude-sonnet-4-6',
          'claude-sonnet-5-5',
        ],
      );

      const e = await rejectsWith(client.models.retrieve('claude-unknown'), Anthropic.NotFoundError);
      assert.equal(bodyMessage(e), 'model: claude-unknown');
    });
  });
});

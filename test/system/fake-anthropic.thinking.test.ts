/**
 * The fake Anthropic API's extended-thinking rules (issue 21), through the real SDK: each rule
 * refuses its violation with the real API's text and accepts the valid request next to it.
 */
import assert from 'node:assert/strict';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import {
  countTextTokens,
  reply,
  startFakeAnthropic,
  thinkingSignature,
  type FakeAnthropic,
  type ScriptedBlock,
} from '../fake-anthropic/server';

const MODEL = 'claude-opus-4-1';
const TOOLS: Anthropic.Tool[] = [
  { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
];
const THINKING = { type: 'enabled' as const, budget_tokens: 1024 };
const CONSIDERATIONS =
  'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking';
const MODIFIED =
  '`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.';

function expectedThinkingFirst(at: number, found: string): string {
  return (
    `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, ` +
    'a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
    'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
    'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking'
  );
}

/** Sampling parameters the API still takes, which SDK 1.12's types no longer list. */
function sampling(params: { temperature?: number; top_k?: number; top_p?: number }): Partial<Anthropic.MessageCreateParamsNonStreaming> {
  return params as Partial<Anthropic.MessageCreateParamsNonStreaming>;
}

async function refusal(p: Promise<unknown>): Promise<{ status: number | undefined; type: string; message: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof APIError, `expected an APIError, got ${String(e)}`);
    const body = e.error as { error?: { type?: string; message?: string } };
    return { status: e.status, type: String(body.error?.type), message: String(body.error?.message) };
  }
  assert.fail('expected the request to be refused');
}

async function invalidRequest(p: Promise<unknown>): Promise<string> {
  const r = await refusal(p);
  assert.equal(r.status, 400);
  assert.equal(r.type, 'invalid_request_error');
  return r.message;
}

describe('fake Anthropic API: extended thinking', function () {
  let fake: FakeAnthropic;
  let client: Anthropic;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  const ask = (params: Partial<Anthropic.MessageCreateParamsNonStreaming>, options?: Anthropic.RequestOptions): Promise<Anthropic.Message> =>
    client.messages.create({ model: MODEL, max_tokens: 2048, messages: [{ role: 'user', content: 'hi' }], ...params, stream: false }, options);

  /** One scripted tool-use reply with thinking, and the history that answers it. */
  async function toolTurn(thinking = 'Read the file first.'): Promise<{ first: Anthropic.Message; history: Anthropic.MessageParam[] }> {
    fake.enqueue(reply.thinking(thinking, reply.toolUse('read_file', { path: 'a.ts' }, { id: 'toolu_01A' })));
    const first = await ask({ thinking: THINKING, tools: TOOLS, messages: [{ role: 'user', content: 'read a.ts' }] });
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'read a.ts' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'export {}' }] },
    ];
    return { first, history };
  }

  describe('the thinking parameter', () => {
    it('accepts enabled (budget ≥ 1024, below max_tokens) and disabled, and refuses a budget below 1024', async () => {
      fake.enqueue(reply.message([{ type: 'thinking', thinking: 'Short.' }, { type: 'text', text: 'Hi.' }]), reply.text('Hi.'));
      const on = await ask({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 1025 });
      assert.equal(on.content[0]?.type, 'thinking');
      const off = await ask({ thinking: { type: 'disabled' } });
      assert.deepEqual(off.content.map((b) => b.type), ['text']);

      const message = await invalidRequest(ask({ thinking: { type: 'enabled', budget_tokens: 1023 } }));
      assert.equal(message, 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    });

    it('refuses a budget not below max_tokens, unless interleaved thinking spans a tool-use turn', async () => {
      const tooBig =
        '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
      assert.equal(await invalidRequest(ask({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 2048 })), tooBig);
      const interleaved = { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } };
      // The beta without tools, or on a model without interleaved thinking (3.7 Sonnet), changes nothing.
      assert.equal(await invalidRequest(ask({ thinking: { type: 'enabled', budget_tokens: 4096 } }, interleaved)), tooBig);
      assert.equal(
        await invalidRequest(ask({ model: 'claude-3-7-sonnet-20250219', tools: TOOLS, thinking: { type: 'enabled', budget_tokens: 4096 } }, interleaved)),
        tooBig,
      );

      fake.enqueue(reply.text('Fine.'));
      const ok = await ask({ tools: TOOLS, thinking: { type: 'enabled', budget_tokens: 4096 } }, { headers: { 'anthropic-beta': 'other-beta, interleaved-thinking-2025-05-14' } });
      assert.equal(ok.stop_reason, 'end_turn');
    });

    it('refuses thinking on a model without it (3.5 Haiku) and accepts it on 3.7 Sonnet and Claude 4', async () => {
      assert.equal(await invalidRequest(ask({ model: 'claude-3-5-haiku-latest', thinking: THINKING })), "'claude-3-5-haiku-20241022' does not support thinking.");
      fake.enqueue(reply.text('No thinking asked.'), reply.text('3.7 thinks.'), reply.text('4.5 thinks.'));
      await ask({ model: 'claude-3-5-haiku-20241022', thinking: { type: 'disabled' } });
      await ask({ model: 'claude-3-7-sonnet-20250219', thinking: THINKING });
      await ask({ model: 'claude-haiku-4-5', thinking: THINKING });
      fake.setModel('claude-no-thinking', { max_input_tokens: 10_000, max_tokens: 4096, supports_thinking: false });
      assert.equal(await invalidRequest(ask({ model: 'claude-no-thinking', thinking: THINKING })), "'claude-no-thinking' does not support thinking.");
      assert.equal(fake.messageRequests().filter((r) => r.reply?.status === 200).length, 3);
    });

    it("takes each model's thinking types, and its default when thinking is omitted (on for Sonnet 5.5)", async () => {
      const enabledGone =
        '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
      assert.equal(await invalidRequest(ask({ model: 'claude-sonnet-5-5', thinking: THINKING })), enabledGone);
      assert.equal(
        await invalidRequest(ask({ model: 'claude-sonnet-5-5', thinking: { type: 'disabled' } })),
        '"thinking.type.disabled" is not supported for this model. Use "thinking.type.between_tools" to turn off up-front thinking.',
      );
      assert.equal(await invalidRequest(ask({ model: 'claude-haiku-4-5', thinking: { type: 'adaptive' } })), 'adaptive thinking is not supported on this model');
      // The adaptive config's own shape: `display` is summarized or omitted, and nothing else rides along.
      fake.enqueue(reply.text('Summarized.'));
      await ask({ model: 'claude-sonnet-5-5', thinking: { type: 'adaptive', display: 'summarized' } });
      assert.equal(await invalidRequest(ask({ model: 'claude-sonnet-5-5', thinking: { type: 'adaptive', display: 'full' } as never })), "thinking.adaptive.display: Input should be 'summarized' or 'omitted'");
      assert.equal(await invalidRequest(ask({ model: 'claude-sonnet-5-5', thinking: { type: 'adaptive', budget_tokens: 2048 } as never })), 'thinking.adaptive.budget_tokens: Extra inputs are not permitted');
      assert.equal(
        await invalidRequest(ask({ model: 'claude-sonnet-4-6', thinking: { type: 'between_tools' } })),
        '"thinking.type.between_tools" is not supported for this model.',
      );
      // Sonnet 5.5 thinks unasked, and refuses forced tool use even then; Sonnet 4.6 with adaptive thinking takes it.
      const thought = reply.thinking('Thinking by default.', reply.text('Hi.'));
      fake.enqueue(thought, reply.text('Between tools.'), reply.text('Adaptive.'), reply.toolUse('read_file', { path: 'a' }), reply.text('Manual.'));
      assert.equal((await ask({ model: 'claude-sonnet-5-5' })).content[0]?.type, 'thinking');
      await ask({ model: 'claude-sonnet-5-5', thinking: { type: 'between_tools' } });
      await ask({ model: 'claude-sonnet-5-5', thinking: { type: 'adaptive' } });
      assert.equal(await invalidRequest(ask({ model: 'claude-sonnet-5-5', tools: TOOLS, tool_choice: { type: 'any' } })), 'Thinking may not be enabled when tool_choice forces tool use.');
      await ask({ model: 'claude-sonnet-4-6', thinking: { type: 'adaptive' }, tools: TOOLS, tool_choice: { type: 'any' } });
      await ask({ model: 'claude-sonnet-4-6', thinking: THINKING });
      assert.equal(fake.pendingReplies(), 0);
      // Adaptive thinking's depth is output_config.effort; 'minimal' is OpenAI's word, not the API's.
      fake.enqueue(reply.text('High effort.'));
      await ask({ model: 'claude-sonnet-5-5', output_config: { effort: 'high' } });
      const minimal = { effort: 'minimal' } as unknown as Anthropic.OutputConfig;
      assert.equal(await invalidRequest(ask({ model: 'claude-sonnet-5-5', output_config: minimal })), "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
    });

    it('does not require a thinking block first in an adaptive tool loop, where the model may skip thinking', async () => {
      const loop: Anthropic.MessageParam[] = [
        { role: 'user', content: 'read a.ts' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01C', name: 'read_file', input: { path: 'a.ts' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01C', content: 'x' }] },
      ];
      fake.enqueue(reply.text('Adaptive.'));
      await ask({ model: 'claude-sonnet-4-6', thinking: { type: 'adaptive' }, tools: TOOLS, messages: loop });
      assert.equal(await invalidRequest(ask({ model: 'claude-sonnet-4-6', thinking: THINKING, tools: TOOLS, messages: loop })), expectedThinkingFirst(1, 'tool_use'));
    });

    it('refuses temperature other than 1, top_k, and top_p below 0.95 with thinking', async () => {
      assert.equal(
        await invalidRequest(ask({ thinking: THINKING, ...sampling({ temperature: 0.5 }) })),
        `\`temperature\` may only be set to 1 when thinking is enabled. ${CONSIDERATIONS}`,
      );
      assert.equal(await invalidRequest(ask({ thinking: THINKING, ...sampling({ top_k: 40 }) })), `\`top_k\` must be unset when thinking is enabled. ${CONSIDERATIONS}`);
      assert.equal(
        await invalidRequest(ask({ thinking: THINKING, ...sampling({ top_p: 0.9 }) })),
        `\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. ${CONSIDERATIONS}`,
      );
      fake.enqueue(reply.text('a'), reply.text('b'));
      await ask({ thinking: THINKING, ...sampling({ temperature: 1, top_p: 0.95 }) });
      await ask(sampling({ temperature: 0.2, top_k: 40, top_p: 0.5 })); // without thinking all are fine
    });

    it('refuses forced tool use (any, tool) with thinking and accepts auto', async () => {
      const forced = 'Thinking may not be enabled when tool_choice forces tool use.';
      assert.equal(await invalidRequest(ask({ thinking: THINKING, tools: TOOLS, tool_choice: { type: 'any' } })), forced);
      assert.equal(await invalidRequest(ask({ thinking: THINKING, tools: TOOLS, tool_choice: { type: 'tool', name: 'read_file' } })), forced);
      fake.enqueue(reply.text('auto is fine'), reply.toolUse('read_file', { path: 'a' }));
      await ask({ thinking: THINKING, tools: TOOLS, tool_choice: { type: 'auto' } });
      await ask({ tools: TOOLS, tool_choice: { type: 'any' } });
    });

    it('refuses a prefill (a final assistant message to continue) with thinking, as a summary request would send it', async () => {
      const prefill: Anthropic.MessageParam[] = [
        { role: 'user', content: 'Summarise the conversation.' },
        { role: 'assistant', content: '<summary>' },
      ];
      assert.equal(await invalidRequest(ask({ thinking: THINKING, messages: prefill })), expectedThinkingFirst(1, 'text'));
      const count = await invalidRequest(client.messages.countTokens({ model: MODEL, thinking: THINKING, messages: prefill }));
      assert.equal(count, expectedThinkingFirst(1, 'text'));
      fake.enqueue(reply.text('The user asked for a summary.'));
      await ask({ messages: prefill });
      // From Opus / Sonnet 4.6 on, no model takes a prefill at all, thinking or not.
      for (const model of ['claude-sonnet-4-6', 'claude-opus-4-6', 'claude-sonnet-5-5']) {
        assert.equal(
          await invalidRequest(ask({ model, messages: prefill })),
          'This model does not support assistant message prefill. The conversation must end with a user message.',
        );
      }
    });
  });

  describe('thinking blocks sent back', () => {
    it('accepts a non-interleaved tool loop whose later assistant messages have no thinking, and refuses a turn that does not start with it', async () => {
      const { first, history } = await toolTurn();
      const loop: Anthropic.MessageParam[] = [
        ...history,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01B', name: 'read_file', input: { path: 'b.ts' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01B', content: 'export {}' }] },
      ];
      fake.enqueue(reply.text('Both are empty.'));
      assert.equal((await ask({ thinking: THINKING, tools: TOOLS, messages: loop })).stop_reason, 'end_turn');

      // The turn's first assistant message lost its thinking (or was made with thinking off).
      const stripped = loop.map((m, i) => (i === 1 ? { role: 'assistant' as const, content: first.content.slice(1) } : m));
      assert.equal(await invalidRequest(ask({ thinking: THINKING, tools: TOOLS, messages: stripped })), expectedThinkingFirst(1, 'tool_use'));
      // Without thinking the same history is fine.
      fake.enqueue(reply.text('Both are empty.'));
      await ask({ tools: TOOLS, messages: stripped });
    });

    it('refuses an edited thinking text, an edited redacted_thinking and a foreign signature in the latest assistant message', async () => {
      fake.enqueue(
        reply.message([
          { type: 'redacted_thinking', data: 'RW5jcnlwdGVkIHRob3VnaHRz' },
          { type: 'thinking', thinking: 'Now read it.' },
          { type: 'tool_use', name: 'read_file', input: { path: 'a.ts' }, id: 'toolu_01R' },
        ]),
      );
      const first = await ask({ thinking: THINKING, tools: TOOLS, messages: [{ role: 'user', content: 'read a.ts' }] });
      const withAssistant = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => [
        { role: 'user', content: 'read a.ts' },
        { role: 'assistant', content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01R', content: 'x' }] },
      ];
      const [redacted, thought, call] = first.content;
      assert.ok(redacted?.type === 'redacted_thinking' && thought?.type === 'thinking' && call?.type === 'tool_use');
      fake.enqueue(reply.text('ok'));
      await ask({ thinking: THINKING, tools: TOOLS, messages: withAssistant([redacted, thought, call]) });

      const editedRedacted = await invalidRequest(ask({ thinking: THINKING, tools: TOOLS, messages: withAssistant([{ ...redacted, data: 'b3RoZXI=' }, thought, call]) }));
      assert.equal(editedRedacted, `messages.1.content.0: ${MODIFIED}`);
      const editedText = await invalidRequest(ask({ thinking: THINKING, tools: TOOLS, messages: withAssistant([redacted, { ...thought, thinking: 'Now read it!' }, call]) }));
      assert.equal(editedText, `messages.1.content.1: ${MODIFIED}`);
      const swapped = await invalidRequest(
        ask({ thinking: THINKING, tools: TOOLS, messages: withAssistant([redacted, { ...thought, signature: thinkingSignature('another thought') }, call]) }),
      );
      assert.equal(swapped, `messages.1.content.1: ${MODIFIED}`);
      const foreign = await invalidRequest(ask({ thinking: THINKING, tools: TOOLS, messages: withAssistant([redacted, { ...thought, signature: 'RXFvdGhlcg==' }, call]) }));
      assert.equal(foreign, 'messages.1.content.1: Invalid `signature` in `thinking` block');
    });

    it('lets earlier turns drop their thinking, and still refuses a forged or edited one there', async () => {
      const { history } = await toolTurn();
      fake.enqueue(reply.text('It is empty.'));
      const done = await ask({ thinking: THINKING, tools: TOOLS, messages: history });
      const conversation: Anthropic.MessageParam[] = [...history, { role: 'assistant', content: done.content }, { role: 'user', content: 'Thanks. And b.ts?' }];

      const [assistant] = [conversation[1]];
      assert.ok(assistant && Array.isArray(assistant.content));
      const blocks = assistant.content as Anthropic.ContentBlockParam[];
      const thought = blocks[0];
      assert.ok(thought?.type === 'thinking');
      const withFirst = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => conversation.map((m, i) => (i === 1 ? { role: 'assistant', content } : m));

      fake.enqueue(reply.text('kept'), reply.text('dropped'), reply.text('off'));
      await ask({ thinking: THINKING, tools: TOOLS, messages: conversation });
      await ask({ thinking: THINKING, tools: TOOLS, messages: withFirst(blocks.slice(1)) });
      await ask({ tools: TOOLS, messages: conversation }); // thinking off: earlier thinking is ignored, not refused

      const edited = await invalidRequest(ask({ thinking: THINKING, tools: TOOLS, messages: withFirst([{ ...thought, thinking: 'Edited.' }, ...blocks.slice(1)]) }));
      assert.equal(edited, 'messages.1.content.0: Invalid `signature` in `thinking` block');
    });

    it('on Sonnet 5.5, refuses thinking another model wrote (a resume under another model) and takes its own back', async () => {
      fake.enqueue(reply.thinking('Written by 4.6.', reply.toolUse('read_file', { path: 'a.ts' }, { id: 'toolu_01M' })));
      const older = await ask({ model: 'claude-sonnet-4-6', thinking: { type: 'adaptive' }, tools: TOOLS, messages: [{ role: 'user', content: 'read a.ts' }] });
      const history = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => [
        { role: 'user', content: 'read a.ts' },
        { role: 'assistant', content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01M', content: 'x' }] },
      ];
      const moved = await invalidRequest(ask({ model: 'claude-sonnet-5-5', tools: TOOLS, messages: history(older.content) }));
      assert.equal(moved, 'messages.1.content.0: Invalid `signature` in `thinking` block');

      // Dropping the other model's thinking is the way on; Sonnet 5.5's own thinking comes back fine, and 4.6 takes it too.
      fake.enqueue(reply.thinking('Written by 5.5.', reply.toolUse('read_file', { path: 'a.ts' }, { id: 'toolu_01M' })), reply.text('ok'), reply.text('ok'), reply.text('ok'));
      const own = await ask({ model: 'claude-sonnet-5-5', tools: TOOLS, messages: [{ role: 'user', content: 'read a.ts' }] });
      const block = own.content[0];
      assert.ok(block?.type === 'thinking');
      assert.notEqual(block.signature, thinkingSignature('Written by 5.5.'));
      assert.equal(block.signature, thinkingSignature('Written by 5.5.', 'claude-sonnet-5-5'));
      await ask({ model: 'claude-sonnet-5-5', tools: TOOLS, messages: history(older.content.slice(1)) });
      await ask({ model: 'claude-sonnet-5-5', tools: TOOLS, messages: history(own.content) });
      await ask({ model: 'claude-sonnet-4-6', tools: TOOLS, messages: history(own.content) });
    });

    it('counts thinking of the current turn as input and ignores earlier turns', async () => {
      const thought = 'Read the file first, then report what it exports and whether anything is missing from it.';
      const { history } = await toolTurn(thought);
      const count = async (messages: Anthropic.MessageParam[]): Promise<number> =>
        (await client.messages.countTokens({ model: MODEL, thinking: THINKING, tools: TOOLS, messages })).input_tokens;
      const assistant = history[1]!.content as Anthropic.ContentBlockParam[];
      const withoutThinking = history.map((m, i) => (i === 1 ? { role: 'assistant' as const, content: assistant.slice(1) } : m));

      // In the current turn the thinking counts (the real API refuses the stripped turn, so compare with thinking off).
      const current = await count(history);
      const currentStripped = (await client.messages.countTokens({ model: MODEL, tools: TOOLS, messages: withoutThinking })).input_tokens;
      assert.ok(current - currentStripped >= countTextTokens(thought), `${current} - ${currentStripped}`);

      // Once a new turn starts, the same blocks cost nothing: equal counts with and without them.
      const next: Anthropic.MessageParam[] = [{ role: 'assistant', content: 'It is empty.' }, { role: 'user', content: 'And b.ts?' }];
      assert.equal(await count([...history, ...next]), await count([...withoutThinking, ...next]));

      // The message's usage agrees with count_tokens.
      fake.enqueue(reply.text('Looking.'));
      const answered = await ask({ thinking: THINKING, tools: TOOLS, messages: [...history, ...next] });
      assert.equal(answered.usage.input_tokens, await count([...history, ...next]));
    });
  });

  describe('thinking in replies', () => {
    it('streams thinking_delta then signature_delta, and counts thinking in output_tokens', async () => {
      const thought = 'The user greets me; greet back briefly and warmly.';
      fake.enqueue(reply.message([{ type: 'thinking', thinking: thought }, { type: 'text', text: 'Hello!' }], { stream: { textChunkChars: 10 } }));
      const stream = client.messages.stream({ model: MODEL, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user', content: 'hi' }] });
      const deltas: string[] = [];
      stream.on('streamEvent', (e) => {
        if (e.type === 'content_block_delta') deltas.push(e.delta.type);
      });
      const final = await stream.finalMessage();
      const block = final.content[0];
      assert.ok(block?.type === 'thinking');
      assert.equal(block.thinking, thought);
      assert.equal(block.signature, thinkingSignature(thought));
      const thinkingDeltas = Math.ceil(Array.from(thought).length / 10);
      assert.deepEqual(deltas, [...Array<string>(thinkingDeltas).fill('thinking_delta'), 'signature_delta', 'text_delta']);
      const thinkingTokens = countTextTokens(thought);
      assert.equal(final.usage.output_tokens, thinkingTokens + countTextTokens('Hello!'));
      assert.equal(final.usage.output_tokens_details?.thinking_tokens, thinkingTokens);
    });

    it('streams a scripted redacted_thinking block whole, and takes it back unchanged', async () => {
      fake.enqueue(reply.message([{ type: 'redacted_thinking', data: 'b3BhcXVl' }, { type: 'text', text: 'Done.' }]));
      const stream = client.messages.stream({ model: MODEL, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user', content: 'hi' }] });
      const starts: unknown[] = [];
      stream.on('streamEvent', (e) => {
        if (e.type === 'content_block_start') starts.push(e.content_block);
      });
      const final = await stream.finalMessage();
      assert.deepEqual(starts[0], { type: 'redacted_thinking', data: 'b3BhcXVl' });
      assert.deepEqual(final.content[0], { type: 'redacted_thinking', data: 'b3BhcXVl' });
    });

    it('can send thinking without a signature (a gateway that drops it), which the API then refuses back', async () => {
      const unsigned: ScriptedBlock[] = [{ type: 'thinking', thinking: 'Unsigned.', signature: null }, { type: 'text', text: 'Hi.' }];
      fake.enqueue(reply.message(unsigned), reply.thinking('Unsigned.', reply.text('Hi.'), null));
      const streamed = await client.messages.stream({ model: MODEL, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      const events = fake.messageRequests()[0]?.reply?.events ?? [];
      assert.ok(!events.some((e) => (e.data as { delta?: { type?: string } }).delta?.type === 'signature_delta'));
      const block = streamed.content[0];
      assert.ok(block?.type === 'thinking');
      assert.equal(block.signature, undefined);
      const plain = await ask({ thinking: THINKING });
      assert.deepEqual(plain.content[0], { type: 'thinking', thinking: 'Unsigned.' });

      const back = await invalidRequest(
        ask({ thinking: THINKING, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: plain.content as Anthropic.ContentBlockParam[] }, { role: 'user', content: 'again' }] }),
      );
      assert.equal(back, 'messages.1.content.0.thinking.signature: Field required');
    });

    it('cuts a stream inside a thinking block, before its signature: a dropped socket or an error event', async () => {
      const thought = 'A long chain of thought that never gets its signature.';
      fake.enqueue(
        reply.message([{ type: 'thinking', thinking: thought }, { type: 'text', text: 'Never sent.' }], { stream: { textChunkChars: 8, cutInBlock: { index: 0, afterDeltas: 2 } } }),
        reply.message([{ type: 'thinking', thinking: thought }], { stream: { textChunkChars: 8, cutInBlock: { index: 0, afterDeltas: 99, error: 'overloaded_error' } } }),
      );
      const params = { model: MODEL, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user' as const, content: 'hi' }] };
      const received: string[] = [];
      const cut = client.messages.stream(params);
      cut.on('streamEvent', (e) => {
        if (e.type === 'content_block_delta' && e.delta.type === 'thinking_delta') received.push(e.delta.thinking);
      });
      await assert.rejects(cut.finalMessage());
      assert.deepEqual(received, ['A long c', 'hain of ']);
      const first = fake.messageRequests()[0]?.reply;
      assert.equal(first?.kind, 'stream-cut');
      assert.deepEqual(first?.events?.map((e) => e.event), ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta']);

      const errored = await refusal(client.messages.stream(params).finalMessage());
      assert.equal(errored.type, 'overloaded_error');
      const second = fake.messageRequests()[1]?.reply;
      assert.equal(second?.kind, 'stream-error');
      const deltaTypes = (second?.events ?? []).flatMap((e) => {
        const d = (e.data as { delta?: { type?: string } }).delta;
        return d?.type ? [d.type] : [];
      });
      assert.ok(deltaTypes.length > 2 && deltaTypes.every((t) => t === 'thinking_delta'), deltaTypes.join(','));
      assert.equal(second?.events?.at(-1)?.event, 'error');
    });

    it('refuses to script thinking for a request that did not enable it, unless told to allow it', async () => {
      fake.enqueue(reply.message([{ type: 'thinking', thinking: 'Unasked.' }, { type: 'text', text: 'Hi.' }]));
      const r = await refusal(ask({}));
      assert.equal(r.status, 500);
      assert.match(r.message, /^fake-anthropic test setup: the scripted reply for this request has a thinking block \(content\.0\) but the request did not enable thinking/);
      assert.equal(fake.messageRequests()[0]?.reply?.kind, 'error');

      const lax = await startFakeAnthropic({ allowUnrequestedThinking: true });
      try {
        const laxClient = new Anthropic({ apiKey: lax.apiKey, baseURL: lax.url, maxRetries: 0 });
        lax.enqueue(reply.message([{ type: 'thinking', thinking: 'Unasked.' }, { type: 'text', text: 'Hi.' }]));
        const m = await laxClient.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
        assert.equal(m.content[0]?.type, 'thinking');
      } finally {
        await lax.close();
      }
    });

    it('spends max_tokens on thinking first: a long thought is cut, signed as cut, and no text follows', async () => {
      const thought = Array.from({ length: 800 }, (_, i) => `step ${i} considers the file.`).join(' ');
      assert.ok(countTextTokens(thought) > 2000);
      fake.enqueue(reply.message([{ type: 'thinking', thinking: thought }, { type: 'text', text: 'The answer.' }]));
      const m = await ask({ thinking: THINKING, max_tokens: 1500 });
      assert.equal(m.stop_reason, 'max_tokens');
      assert.deepEqual(m.content.map((b) => b.type), ['thinking']);
      const block = m.content[0];
      assert.ok(block?.type === 'thinking');
      assert.ok(thought.startsWith(block.thinking) && block.thinking.length < thought.length);
      assert.equal(block.signature, thinkingSignature(block.thinking));
      assert.equal(m.usage.output_tokens, 1500);

      // The cut block is accepted back as it was sent; a prefill may not end in it.
      const cutReply: Anthropic.MessageParam = { role: 'assistant', content: [block] };
      fake.enqueue(reply.text('The answer.'));
      const next = await ask({ thinking: THINKING, messages: [{ role: 'user', content: 'hi' }, cutReply, { role: 'user', content: 'Go on.' }] });
      assert.equal(next.stop_reason, 'end_turn');
      const prefill = await invalidRequest(ask({ thinking: THINKING, messages: [{ role: 'user', content: 'hi' }, cutReply] }));
      assert.equal(prefill, 'messages.1: The final block in an assistant message cannot be `thinking`.');
    });
  });
});

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { withInstruction } from '../../src/core/context/compactionHelpers';
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from '../../src/core/model/messages';
import { chatCallId, fromChatMessages, MISSING_RESULT_TEXT, toChatMessages, toChatTools, TOOL_ERROR_MARK } from '../../src/core/model/openaiConvert';
import { defaultModels } from '../fake-openai/models';
import { validateRequest } from '../fake-openai/validate';
import { pngBase64 } from '../support/images';

const models = defaultModels();
/** The strict fake's validator: what the real API would refuse, it refuses. */
function assertValidForServer(system: string, history: readonly MessageParam[]): void {
  const tools = toChatTools([{ name: 'read_file', description: 'Read.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }]);
  validateRequest({ model: 'gpt-4o', messages: toChatMessages(system, history), tools }, (id) => models.get(id));
}

// ---------------------------------------------------------------------------------------------
// Arbitrary valid neutral histories: user and assistant turns alternate; every tool_use of an
// assistant turn is answered (in any order) at the start of the next user turn.

const textArb = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0);
const inputArb = fc.dictionary(fc.constantFrom('path', 'offset', 'pattern', 'nested'), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 })), { maxKeys: 3, noNullPrototype: true });
const imageArb: fc.Arbitrary<ContentBlockParam> = fc.tuple(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 64 })).map(([width, height]) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(width, height) } }));
const userExtraArb = fc.array(fc.oneof({ weight: 4, arbitrary: textArb.map((text): ContentBlockParam => ({ type: 'text', text })) }, { weight: 1, arbitrary: imageArb }), { maxLength: 3 });

interface TurnSpec {
  text: string | undefined;
  thinking: string | undefined;
  calls: Array<{ input: Record<string, unknown>; result: string; isError: boolean; asParts: boolean }>;
  order: number[];
  userAfter: ContentBlockParam[];
}

const turnArb: fc.Arbitrary<TurnSpec> = fc
  .record({
    text: fc.option(textArb, { nil: undefined }),
    thinking: fc.option(textArb, { nil: undefined }),
    calls: fc.array(fc.record({ input: inputArb, result: fc.string({ maxLength: 30 }), isError: fc.boolean(), asParts: fc.boolean() }), { maxLength: 3 }),
    userAfter: userExtraArb,
    seed: fc.integer(),
  })
  .map(({ seed, ...rest }) => {
    const order = rest.calls.map((_, i) => i);
    // A deterministic shuffle: results may come back in any order.
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.abs(seed + i * 7919) % (i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    return { ...rest, order };
  });

const historyArb: fc.Arbitrary<MessageParam[]> = fc.record({ first: fc.oneof(textArb, userExtraArb.filter((b) => b.length > 0)), turns: fc.array(turnArb, { maxLength: 6 }) }).map(({ first, turns }) => {
  const history: MessageParam[] = [{ role: 'user', content: first }];
  let n = 0;
  for (const turn of turns) {
    const blocks: ContentBlockParam[] = [];
    if (turn.thinking) blocks.push({ type: 'thinking', thinking: turn.thinking, signature: 'sig' });
    if (turn.text) blocks.push({ type: 'text', text: turn.text });
    const ids = turn.calls.map(() => `toolu_${String(++n).padStart(4, '0')}`);
    turn.calls.forEach((call, i) => blocks.push({ type: 'tool_use', id: ids[i]!, name: 'read_file', input: call.input }));
    if (blocks.length === 0) blocks.push({ type: 'text', text: 'ok' });
    history.push({ role: 'assistant', content: blocks });
    const results: ContentBlockParam[] = turn.order.map((i) => {
      const call = turn.calls[i]!;
      const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: ids[i]!, content: call.asParts ? [{ type: 'text', text: call.result }] : call.result };
      return call.isError ? { ...result, is_error: true } : result;
    });
    const user = [...results, ...turn.userAfter];
    history.push({ role: 'user', content: user.length > 0 ? user : [{ type: 'text', text: 'go on' }] });
  }
  return history;
});

/** What the chat format keeps of a history (thinking dropped, texts of an assistant turn joined, tool results as text). */
function normalized(history: readonly MessageParam[]): MessageParam[] {
  return history.map((message): MessageParam => {
    const blocks: ContentBlockParam[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (message.role === 'assistant') {
      const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n\n');
      const calls = blocks.filter((b) => b.type === 'tool_use');
      return { role: 'assistant', content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls] };
    }
    return {
      role: 'user',
      content: blocks.map((b) => (b.type === 'tool_result' ? { type: 'tool_result', tool_use_id: b.tool_use_id, content: typeof b.content === 'string' ? b.content : (b.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n'), ...(b.is_error ? { is_error: true } : {}) } : b)),
    };
  });
}

describe('OpenAI history conversion (properties)', () => {
  it('every converted history is accepted by the strict server', () => {
    fc.assert(
      fc.property(historyArb, textArb, (history, system) => {
        assertValidForServer(system, history);
      }),
      { numRuns: 300 },
    );
  });

  it('round trip: chat -> neutral gives back what the chat format holds, and converting again is byte-identical', () => {
    fc.assert(
      fc.property(historyArb, textArb, (history, system) => {
        const chat = toChatMessages(system, history);
        const back = fromChatMessages(chat);
        assert.equal(back.system, system);
        assert.deepEqual(back.messages, normalized(history));
        assert.equal(JSON.stringify(toChatMessages(back.system, back.messages)), JSON.stringify(chat));
      }),
      { numRuns: 300 },
    );
  });

  it('a history that grows keeps its converted prefix byte for byte (prefix caching hits)', () => {
    fc.assert(
      fc.property(historyArb, textArb, (history, system) => {
        const full = toChatMessages(system, history).map((m) => JSON.stringify(m));
        for (let k = 1; k <= history.length; k++) {
          if (history[k - 1]!.role !== 'user') continue; // a request always ends with a user turn
          const prefix = toChatMessages(system, history.slice(0, k)).map((m) => JSON.stringify(m));
          assert.deepEqual(full.slice(0, prefix.length), prefix);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the summary request repeats the conversation it summarizes, then adds the instruction', () => {
    fc.assert(
      fc.property(historyArb, textArb, (history, system) => {
        const live = toChatMessages(system, history).map((m) => JSON.stringify(m));
        const summary = toChatMessages(system, withInstruction(history, 'Summarize the conversation.').messages).map((m) => JSON.stringify(m));
        const last = history.at(-1)!;
        const endsWithResults = typeof last.content !== 'string' && last.content.every((b) => b.type === 'tool_result');
        // After tool results the instruction is a new user message; after user text it extends that message.
        const shared = endsWithResults ? live.length : live.length - 1;
        assert.deepEqual(summary.slice(0, shared), live.slice(0, shared));
      }),
      { numRuns: 200 },
    );
  });
});

describe('OpenAI history conversion (cases)', () => {
  it('puts tool results before the user text of the same turn, marks errors, drops thinking', () => {
    const chat = toChatMessages('sys', [
      { role: 'user', content: 'start' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'secret reasoning', signature: 's' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'also this' }, { type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true }] },
    ]);
    assert.deepEqual(chat, [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'start' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: `${TOOL_ERROR_MARK}boom` },
      { role: 'user', content: 'also this' },
    ]);
  });

  it('keeps the request valid around damaged histories: an unanswered call, an orphan result, odd ids', () => {
    const longId = `toolu_${'x'.repeat(60)}`;
    const history: MessageParam[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_lost', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_elsewhere', content: 'orphan text' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: longId, name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: longId, content: 'ok' }] },
    ];
    assertValidForServer('', history);
    const chat = toChatMessages('', history);
    assert.deepEqual(chat[2], { role: 'tool', tool_call_id: 'toolu_lost', content: MISSING_RESULT_TEXT });
    assert.deepEqual(chat[3], { role: 'user', content: '[result of tool call toolu_elsewhere]\norphan text' });
    const mapped = chatCallId(longId);
    assert.match(mapped, /^call_[0-9a-f]{24}$/);
    assert.equal(chatCallId(longId), mapped, 'stable');
    assert.deepEqual(chat[5], { role: 'tool', tool_call_id: mapped, content: 'ok' });
  });

  it("images go as image_url parts in user messages; a tool result's images follow its tool message in a user message labelled with the call id", () => {
    const look = pngBase64(3, 2);
    const shot = pngBase64(40, 30);
    const history: MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: look } }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_s', name: 'screenshot', input: {} }, { type: 'tool_use', id: 'toolu_t', name: 'read_file', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_s', content: [{ type: 'text', text: 'the screen' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } }] },
          { type: 'tool_result', tool_use_id: 'toolu_t', content: 'plain' },
          { type: 'text', text: 'what do you see?' },
        ],
      },
    ];
    const chat = toChatMessages('', history);
    assert.deepEqual(chat[0], { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${look}` } }] });
    assert.deepEqual(chat[2], { role: 'tool', tool_call_id: 'toolu_s', content: 'the screen\n[image: image/png, 40x30] (sent in the next message)' });
    assert.deepEqual(chat[3], { role: 'tool', tool_call_id: 'toolu_t', content: 'plain' });
    assert.deepEqual(chat[4], {
      role: 'user',
      content: [
        { type: 'text', text: '[images returned by tool call toolu_s]' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${shot}` } },
        { type: 'text', text: 'what do you see?' },
      ],
    });
    assert.equal(chat.length, 5);
    assertValidForServer('', history);
    // The way back puts the images into their result, and converting again gives the same bytes.
    const back = fromChatMessages(chat);
    assert.deepEqual(back.messages[2], history[2]);
    assert.equal(JSON.stringify(toChatMessages('', back.messages)), JSON.stringify(chat));
  });

  it('an image the request cannot hold is described instead: over the provider\'s image count, the oldest go first', () => {
    const history: MessageParam[] = [{ role: 'user', content: Array.from({ length: 502 }, (_, n) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: pngBase64(n + 1, 1) } })) }];
    const parts = toChatMessages('', history)[0]!.content as Array<{ type: string; text?: string }>;
    assert.equal(parts.filter((part) => part.type === 'image_url').length, 500);
    assert.deepEqual(parts.slice(0, 2).map((part) => part.text), ['[image: image/png, 1x1] (not sent: the request holds more than 500 images)', '[image: image/png, 2x1] (not sent: the request holds more than 500 images)']);
    assert.equal(parts[2]!.type, 'image_url');
  });

  it('arguments that are not JSON survive the way back whole', () => {
    const back = fromChatMessages([
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a": 1' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'r' },
    ]);
    assert.deepEqual(back.messages[1], { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: { _raw_arguments: '{"a": 1' } }] });
  });
});

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { INTERRUPTED_RESULT, repairHistory } from '../../src/core/agent/history';
import { eventsFromHistory } from '../../src/core/agent/replay';
import type { MessageParam } from '../../src/core/model/messages';

const toolUse = (id: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text: 'running' }, { type: 'tool_use', id, name: 'read_file', input: { path: 'a' } }] });
const toolResult = (id: string): MessageParam => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });
const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });

/** The API's pairing rule, restated independently of the implementation. */
function assertValidPairing(messages: MessageParam[]): void {
  messages.forEach((message, index) => {
    const blocks = typeof message.content === 'string' ? [] : message.content;
    if (message.role === 'assistant') {
      const ids = blocks.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
      if (ids.length === 0) return;
      const next = messages[index + 1];
      assert.ok(next && next.role === 'user', `tool_use at ${index} must be followed by a user message`);
      const answered = (typeof next.content === 'string' ? [] : next.content).flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
      for (const id of ids) assert.ok(answered.includes(id), `tool_use ${id} unanswered`);
    } else {
      const previous = messages[index - 1];
      const allowed = previous && typeof previous.content !== 'string' ? previous.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) : [];
      for (const block of blocks) if (block.type === 'tool_result') assert.ok(allowed.includes(block.tool_use_id), `orphan tool_result ${block.tool_use_id}`);
    }
  });
}

describe('history repair', () => {
  it('leaves a valid history untouched', () => {
    const history = [user('hi'), toolUse('a'), toolResult('a'), { role: 'assistant', content: 'done' } as MessageParam];
    const { messages, repairs } = repairHistory(history);
    assert.equal(repairs, 0);
    assert.deepEqual(messages, history);
  });

  it('answers a tool_use left unanswered by a crash', () => {
    const { messages, repairs } = repairHistory([user('hi'), toolUse('a')]);
    assert.equal(repairs, 1);
    const last = messages.at(-1);
    assert.deepEqual(last, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: INTERRUPTED_RESULT, is_error: true }] });
  });

  it('drops orphan tool_results and places missing results before text', () => {
    const { messages } = repairHistory([user('hi'), toolResult('ghost'), toolUse('b'), user('next')]);
    assertValidPairing(messages);
    const last = messages.at(-1);
    assert.ok(last && typeof last.content !== 'string');
    assert.equal(last.content[0]?.type, 'tool_result');
    assert.equal(last.content[1]?.type, 'text');
  });

  it('drops whitespace-only text blocks and the messages they leave empty', () => {
    const { messages, repairs } = repairHistory([user('hi'), { role: 'assistant', content: [{ type: 'text', text: '  \n' }] }, { role: 'assistant', content: [{ type: 'text', text: '\n' }, { type: 'text', text: 'ok' }] }]);
    assert.equal(repairs, 2);
    assert.deepEqual(messages, [user('hi'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }]);
  });

  it('always yields an API-valid pairing (property)', () => {
    const step = fc.oneof(
      fc.constant<'user' | 'use' | 'result' | 'text'>('user'),
      fc.constant<'user' | 'use' | 'result' | 'text'>('use'),
      fc.constant<'user' | 'use' | 'result' | 'text'>('result'),
      fc.constant<'user' | 'use' | 'result' | 'text'>('text'),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(step, fc.integer({ min: 0, max: 3 })), { maxLength: 30 }), (steps) => {
        const history: MessageParam[] = steps.map(([kind, id]) =>
          kind === 'user' ? user('u') : kind === 'use' ? toolUse(`t${id}`) : kind === 'result' ? toolResult(`t${id}`) : ({ role: 'assistant', content: 'x' } as MessageParam),
        );
        const repaired = repairHistory(history).messages;
        assertValidPairing(repaired);
        assert.deepEqual(repairHistory(repaired).repairs, 0); // Idempotent.
      }),
    );
  });
});

describe('replay of a stored history', () => {
  it('rebuilds turns, text and tool calls as display events', () => {
    const events = eventsFromHistory([user('read a'), toolUse('a'), toolResult('a'), { role: 'assistant', content: [{ type: 'text', text: 'a is fine' }] }, user('thanks')]);
    assert.deepEqual(
      events.map((event) => event.type),
      ['turn_started', 'text_delta', 'tool_call_started', 'tool_call_finished', 'text_delta', 'turn_finished', 'turn_started', 'turn_finished'],
    );
    const finished = events.find((event) => event.type === 'tool_call_finished');
    assert.equal(finished?.type === 'tool_call_finished' && finished.name, 'read_file');
  });
});

// The chat model's lookups (src/webview/chatModel.ts keeps tool cards by id and the replies still
// streaming beside the model, so a restored chat of thousands of items folds in linear time): the
// items must come out as a search through the whole list made them.
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/protocol';
import { applyEvent, emptyChat, type ChatItem, type ChatModel } from '../../src/webview/chatModel';

function fold(events: readonly AgentEvent[], model: ChatModel = emptyChat()): ChatModel {
  for (const event of events) applyEvent(model, event);
  return model;
}

const started = (toolUseId: string): AgentEvent => ({ type: 'tool_call_started', turnId: 't', toolUseId, name: 'run_shell', input: { command: 'ls' }, headline: 'ls' });
const finished = (toolUseId: string, content: string): AgentEvent => ({ type: 'tool_call_finished', turnId: 't', toolUseId, name: 'run_shell', isError: false, content, durationMs: 10 });
const tools = (model: ChatModel) => model.items.filter((item): item is Extract<ChatItem, { kind: 'tool' }> => item.kind === 'tool');

describe('chat model lookups', () => {
  it('a result goes to the card of its id, however far back; a repeated id to its first card', () => {
    const model = fold([started('a'), ...Array.from({ length: 300 }, (_, i) => started(`x${i}`)), started('a'), finished('a', 'first'), finished('x0', 'x0 done')]);
    const [first, ...rest] = tools(model).filter((item) => item.key === 'tool:a');
    assert.equal(first?.output, 'first');
    assert.equal(rest[0]?.output, '', 'the second card of the same id is left as it was');
    assert.equal(tools(model).find((item) => item.key === 'tool:x0')?.status, 'done');
    assert.equal(tools(fold([finished('nowhere', 'lost')])).length, 0, 'a result without its call adds nothing');
  });

  it('every reply still streaming is closed by the next tool call, also one a notice left open', () => {
    const model = fold([
      { type: 'text_delta', turnId: 't', text: 'first' },
      { type: 'context_window_learned', window: 100_000, assumed: 200_000, message: 'The window is 100,000 tokens.' },
      { type: 'text_delta', turnId: 't', text: 'second' },
      started('a'),
    ]);
    const replies = model.items.filter((item) => item.kind === 'assistant');
    assert.deepEqual(
      replies.map((item) => [item.text, item.kind === 'assistant' && item.streaming, item.rev]),
      [['first', false, 2], ['second', false, 2]],
    );
  });

  it('a retry drops the streaming reply, and nothing touches it after', () => {
    const model = emptyChat();
    fold([{ type: 'text_delta', turnId: 't', text: 'partial' }], model);
    const dropped = model.items[0]!;
    fold([{ type: 'retrying', turnId: 't', attempt: 1, delayMs: 1000, reason: 'overloaded' }, started('a')], model);
    assert.deepEqual(model.items.map((item) => item.kind), ['notice', 'tool']);
    assert.deepEqual([dropped.kind === 'assistant' && dropped.streaming, dropped.rev], [true, 1]);
  });

  it('works on a model made without emptyChat', () => {
    const model: ChatModel = { items: [], busy: false, nextKey: 0, todos: undefined, mode: undefined };
    fold([started('a'), { type: 'text_delta', turnId: 't', text: 'x' }, finished('a', 'out')], model);
    assert.equal(tools(model)[0]?.output, 'out');
  });
});

/**
 * Thinking in the chat's model (issue 21): streamed into the reply it belongs to with a
 * "Thinking…" state, its size once done, interleaved thinking kept in order with the tool cards,
 * redacted thinking as "(redacted)", and a resumed session (the DisplayBuilder) showing the same.
 */
import { worded } from '../support/said';
import assert from 'node:assert/strict';
import { eventsFromHistory } from '../../src/core/agent/replay';
import type { MessageParam } from '../../src/core/model/messages';
import type { AgentEvent } from '../../src/protocol';
import { applyEvent, emptyChat, thinkingSummary, type ChatItem, type ChatModel } from '../../src/webview/chatModel';

function fold(events: readonly AgentEvent[], model: ChatModel = emptyChat()): ChatModel {
  for (const event of events) applyEvent(model, event);
  return model;
}

type Assistant = Extract<ChatItem, { kind: 'assistant' }>;
const assistants = (model: ChatModel): Assistant[] => model.items.filter((item): item is Assistant => item.kind === 'assistant');

/** The chat as a list of what each item shows, in order. */
function shape(model: ChatModel): string[] {
  return model.items.map((item) => {
    if (item.kind === 'assistant') return `assistant[${item.thinking ? `thinking:${item.thinking}` : ''}${item.redactedThinking ? ' (redacted)' : ''}|${item.text}]`;
    if (item.kind === 'tool') return `tool:${item.name}`;
    return item.kind;
  });
}

const t = 't1';

describe('thinking in the chat model', () => {
  it('streams thinking into the reply with a "Thinking…" state, then shows its size once the text begins', () => {
    const model = fold([
      { type: 'turn_started', turnId: t, userText: 'Why is the test flaky?' },
      { type: 'thinking_delta', turnId: t, text: 'The clock ' },
      { type: 'thinking_delta', turnId: t, text: 'is real.' },
    ]);
    const [reply] = assistants(model);
    assert.ok(reply);
    assert.equal(reply.thinking, 'The clock is real.');
    assert.equal(reply.streaming, true);
    assert.equal(thinkingSummary(reply), 'Thinking…');
    const rev = reply.rev;
    applyEvent(model, { type: 'text_delta', turnId: t, text: 'It uses the real clock.' });
    assert.ok(reply.rev > rev, 'the item is drawn again');
    assert.equal(assistants(model).length, 1, 'the text joins the reply its thinking opened');
    assert.equal(thinkingSummary(reply), 'Thinking · ~5 tokens');
    applyEvent(model, { type: 'turn_finished', turnId: t, stopReason: 'end_turn' });
    assert.equal(thinkingSummary(reply), 'Thinking · ~5 tokens');
  });

  it('a reply that only thought (then called a tool, or was cancelled) is no longer "Thinking…"', () => {
    const model = fold([
      { type: 'turn_started', turnId: t, userText: 'go' },
      { type: 'thinking_delta', turnId: t, text: 'x'.repeat(40_000) },
      { type: 'tool_call_started', turnId: t, toolUseId: 'tu1', name: 'read_file', input: { path: 'a.ts' } },
    ]);
    assert.equal(thinkingSummary(assistants(model)[0]!), 'Thinking · ~10k tokens');
  });

  it('keeps interleaved thinking in order with the text and the tool cards of one turn', () => {
    const model = fold([
      { type: 'turn_started', turnId: t, userText: 'Fix it' },
      { type: 'thinking_delta', turnId: t, text: 'first read' },
      { type: 'text_delta', turnId: t, text: 'Reading.' },
      { type: 'tool_call_started', turnId: t, toolUseId: 'tu1', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_call_finished', turnId: t, toolUseId: 'tu1', name: 'read_file', isError: false, content: 'x', durationMs: 1 },
      { type: 'thinking_delta', turnId: t, text: 'now edit' },
      { type: 'tool_call_started', turnId: t, toolUseId: 'tu2', name: 'edit_file', input: { path: 'a.ts' } },
      { type: 'tool_call_finished', turnId: t, toolUseId: 'tu2', name: 'edit_file', isError: false, content: 'ok', durationMs: 1 },
      { type: 'text_delta', turnId: t, text: 'Done, ' },
      // Thinking after text within one reply: a new item after the text, never above it.
      { type: 'thinking_delta', turnId: t, text: 'check once more' },
      { type: 'text_delta', turnId: t, text: 'checked.' },
      { type: 'turn_finished', turnId: t, stopReason: 'end_turn' },
    ]);
    assert.deepEqual(shape(model), ['user', 'assistant[thinking:first read|Reading.]', 'tool:read_file', 'assistant[thinking:now edit|]', 'tool:edit_file', 'assistant[|Done, ]', 'assistant[thinking:check once more|checked.]']);
    assert.ok(assistants(model).every((item) => !item.streaming));
  });

  it('shows redacted thinking as "(redacted)" in the reply it belongs to', () => {
    const model = fold([
      { type: 'turn_started', turnId: t, userText: 'go' },
      { type: 'thinking_redacted', turnId: t },
      { type: 'text_delta', turnId: t, text: 'Answer.' },
    ]);
    assert.deepEqual(shape(model), ['user', 'assistant[ (redacted)|Answer.]']);
    assert.equal(thinkingSummary(assistants(model)[0]!), 'Thinking · (redacted)');
    // Said after the text streamed (the live session learns of it with the whole reply): the same reply.
    const late = fold([{ type: 'turn_started', turnId: t, userText: 'go' }, { type: 'thinking_delta', turnId: t, text: 'hm' }, { type: 'text_delta', turnId: t, text: 'A.' }, { type: 'thinking_redacted', turnId: t }]);
    assert.deepEqual(shape(late), ['user', 'assistant[thinking:hm (redacted)|A.]']);
    assert.equal(thinkingSummary(assistants(late)[0]!), 'Thinking · ~1 token · (redacted)');
  });

  it('shows a thinking notice (a budget lowered, thinking off for a model) as a notice of its level', () => {
    const model = emptyChat();
    applyEvent(model, { type: 'thinking_notice', level: 'warning', message: 'claude-3-5-haiku cannot be asked to think; this session runs without thinking' });
    applyEvent(model, { type: 'thinking_notice', level: 'info', message: 'thinking budget lowered to 12,000 tokens' });
    const notices = model.items.filter((item): item is Extract<ChatItem, { kind: 'notice' }> => item.kind === 'notice');
    assert.deepEqual(notices.map((item) => [item.level, item.text]), [
      ['error', 'claude-3-5-haiku cannot be asked to think; this session runs without thinking'],
      ['info', 'thinking budget lowered to 12,000 tokens'],
    ]);
  });

  it("a retry drops the failed attempt's thinking with its text", () => {
    const model = fold([
      { type: 'turn_started', turnId: t, userText: 'go' },
      { type: 'thinking_delta', turnId: t, text: 'half a thought' },
      { type: 'retrying', turnId: t, attempt: 1, delayMs: 1000, reason: 'overloaded' },
      { type: 'thinking_delta', turnId: t, text: 'whole' },
    ]);
    assert.deepEqual(shape(model), ['user', 'notice', 'assistant[thinking:whole|]']);
  });
});

describe('thinking in a resumed chat (DisplayBuilder)', () => {
  const history: MessageParam[] = [
    { role: 'user', content: [{ type: 'text', text: 'Fix it' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'first read', signature: 's1' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'tu1', name: 'read_file', input: { path: 'a.ts' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'x' }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'now answer', signature: 's2' }, { type: 'text', text: 'Done.' }] },
  ];

  it('replays thinking and redacted thinking in their place among the blocks', () => {
    const events = eventsFromHistory(history);
    assert.deepEqual(
      events.map((event) => (event.type === 'thinking_delta' || event.type === 'text_delta' ? `${event.type}:${event.text}` : event.type)),
      ['turn_started', 'thinking_delta:first read', 'thinking_redacted', 'text_delta:Reading.', 'tool_call_started', 'tool_call_finished', 'thinking_delta:now answer', 'text_delta:Done.', 'turn_finished'],
    );
  });

  it('shows the same chat as the live turn did', () => {
    const resumed = fold(worded(eventsFromHistory(history)));
    assert.deepEqual(shape(resumed), ['user', 'assistant[thinking:first read (redacted)|Reading.]', 'tool:read_file', 'assistant[thinking:now answer|Done.]']);
    assert.deepEqual(assistants(resumed).map(thinkingSummary), ['Thinking · ~3 tokens · (redacted)', 'Thinking · ~3 tokens']);
  });
});

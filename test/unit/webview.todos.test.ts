import { worded } from '../support/said';
import assert from 'node:assert/strict';
import { foldTranscript } from '../../src/core/agent/fold';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import type { AgentEvent } from '../../src/protocol';
import { applyEvent, emptyChat, todoStatusText, todoSummary } from '../../src/webview/chatModel';

function fold(events: readonly AgentEvent[]) {
  const model = emptyChat();
  for (const event of events) applyEvent(model, event);
  return model;
}

const ts = '2026-01-01T00:00:00.000Z';

describe('webview chat model: the task list', () => {
  it('has no list until one is written; each todos event replaces it whole, in order, with a new revision', () => {
    assert.equal(emptyChat().todos, undefined);
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'plan it' },
      {
        type: 'todos',
        turnId: 't1',
        items: [
          { id: '1', text: 'Read', status: 'in_progress' },
          { id: '2', text: 'Fix', status: 'pending' },
        ],
      },
    ]);
    assert.ok(model.todos);
    assert.equal(model.todos.rev, 1);
    assert.deepEqual(model.todos.items.map((item) => item.id), ['1', '2']);
    assert.deepEqual(model.items.map((item) => item.kind), ['user'], 'the list is no chat item: it sits above the composer');
    applyEvent(model, { type: 'todos', turnId: 't1', items: [{ id: '2', text: 'Fix', status: 'in_progress' }] });
    assert.equal(model.todos.rev, 2);
    assert.deepEqual(model.todos.items, [{ id: '2', text: 'Fix', status: 'in_progress' }]);
    applyEvent(model, { type: 'todos', turnId: 't1', items: [] });
    assert.deepEqual(model.todos.items, [], 'cleared');
  });

  it('does not alias the event: a later change to it leaves the shown list alone', () => {
    const items = [{ id: '1', text: 'Read', status: 'pending' as const }];
    const model = fold([{ type: 'todos', items }]);
    items[0]!.text = 'changed';
    assert.equal(model.todos?.items[0]?.text, 'Read');
  });

  it('says each status and the current step in words', () => {
    assert.deepEqual(['pending', 'in_progress', 'done'].map((status) => todoStatusText(status as 'pending')), ['pending', 'in progress', 'done']);
    assert.equal(
      todoSummary([
        { id: '1', text: 'Read', status: 'done' },
        { id: '2', text: 'Fix', status: 'in_progress' },
        { id: '3', text: 'Test', status: 'pending' },
      ]),
      'Tasks 1/3 done · now: Fix',
    );
    assert.equal(todoSummary([{ id: '1', text: 'Read', status: 'pending' }]), 'Tasks 0/1 done');
  });

  it('a resumed chat shows the list as it was (the replay carries the newest accepted list)', () => {
    const accepted = [{ id: 'a', text: 'Write the parser', status: 'in_progress' }];
    const entries: TranscriptEntry[] = [
      { type: 'message', ts, message: { role: 'user', content: [{ type: 'text', text: 'Write a parser.' }] } },
      { type: 'message', ts, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'todo_write', input: { todos: accepted } }] } },
      { type: 'message', ts, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Task list updated' }] } },
      // A rejected call afterwards (duplicate ids): the list shown stays the accepted one.
      { type: 'message', ts, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'todo_write', input: { todos: [...accepted, ...accepted] } }] } },
      { type: 'message', ts, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'The task list was not changed', is_error: true }] } },
    ];
    const model = fold(worded(foldTranscript(entries).display));
    assert.deepEqual(model.todos?.items, accepted);
    assert.deepEqual(model.items.map((item) => item.kind), ['user', 'tool', 'tool']);
  });
});

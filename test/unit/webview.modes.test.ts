/**
 * The chat panel's model of modes and plans (issue 28): a mode's line, the plan card and its
 * decision, and a pending plan closed when a turn begins without one (the session would refuse a
 * decision then), live and on a model made without emptyChat (a restored one).
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/protocol';
import { applyEvent, emptyChat, type ChatItem, type ChatModel } from '../../src/webview/chatModel';

const PLAN = '# Plan\n\n## Steps\n1. Add the limiter\n2. Test it\n';
const proposed = (toolUseId: string): AgentEvent => ({ type: 'plan_proposed', turnId: 't1', toolUseId, plan: PLAN, steps: [{ id: '1', text: 'Add the limiter', status: 'pending' }, { id: '2', text: 'Test it', status: 'pending' }] });
const started = (turnId: string, userText: string): AgentEvent => ({ type: 'turn_started', turnId, userText });

function fold(events: readonly AgentEvent[], model: ChatModel = emptyChat()): ChatModel {
  for (const event of events) applyEvent(model, event);
  return model;
}

function planCard(model: ChatModel, toolUseId: string): Extract<ChatItem, { kind: 'plan' }> {
  const item = model.items.find((candidate) => candidate.kind === 'plan' && candidate.toolUseId === toolUseId);
  assert.ok(item?.kind === 'plan', `no plan card for ${toolUseId}`);
  return item;
}

describe('webview chat model: modes and plans', () => {
  it('shows a switch as a line and keeps the mode on; a build says so', () => {
    const model = fold([{ type: 'mode_changed', mode: 'plan', reason: 'switch', description: 'Plans first.' }]);
    assert.equal(model.mode, 'plan');
    assert.deepEqual(model.items.map((item) => item.kind === 'note' && item.text), ['Mode: plan — Plans first.']);
    fold([{ type: 'mode_changed', mode: 'agent', reason: 'build' }], model);
    assert.equal(model.mode, 'agent');
    const last = model.items.at(-1);
    assert.equal(last?.kind === 'note' ? last.text : last?.kind, 'Mode: agent (building the plan)');
  });

  it('shows a proposed plan as a pending card with its steps, then the decision on it', () => {
    const model = fold([started('t1', 'Plan it'), { type: 'text_delta', turnId: 't1', text: 'Looking.' }, proposed('toolu_a')]);
    const card = planCard(model, 'toolu_a');
    assert.deepEqual([card.state, card.plan, card.steps.map((step) => step.text)], ['pending', PLAN, ['Add the limiter', 'Test it']]);
    const reply = model.items.find((item) => item.kind === 'assistant');
    assert.ok(reply?.kind === 'assistant' && !reply.streaming, 'the reply before the card is closed');
    const rev = card.rev;
    fold([{ type: 'plan_decided', toolUseId: 'toolu_a', decision: 'build' }], model);
    assert.deepEqual([card.state, card.rev], ['build', rev + 1]);
    fold([{ type: 'plan_decided', toolUseId: 'toolu_gone', decision: 'keep_planning' }], model);
    assert.equal(card.state, 'build', 'a decision on another plan changes this one not');
  });

  it('closes a pending plan when a turn begins without a decision, and only a pending one', () => {
    const model = fold([started('t1', 'Plan it'), proposed('toolu_a'), { type: 'plan_decided', toolUseId: 'toolu_a', decision: 'keep_planning' }, started('t2', 'More'), proposed('toolu_b'), started('t3', 'Something else')]);
    assert.deepEqual([planCard(model, 'toolu_a').state, planCard(model, 'toolu_b').state], ['keep_planning', 'closed']);
  });

  it('finds the cards of a model made without emptyChat', () => {
    const model = fold([started('t1', 'Plan it'), proposed('toolu_a')]);
    const copy: ChatModel = { items: model.items.map((item) => ({ ...item })), busy: false, nextKey: model.nextKey, todos: undefined, mode: 'plan' };
    fold([{ type: 'plan_decided', toolUseId: 'toolu_a', decision: 'build' }], copy);
    assert.equal(planCard(copy, 'toolu_a').state, 'build');
  });
});

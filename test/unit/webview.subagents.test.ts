import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/protocol';
import { parseWebviewMessage } from '../../src/extension/webviewRequests';
import { applyEvent, emptyChat, type ChatItem, type ChatModel } from '../../src/webview/chatModel';
import { formatElapsed, MAX_ANSWERED_APPROVALS, pendingApprovals, subagentFigures, subagentStatusText, type SubagentCard } from '../../src/webview/subagents';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;
const usage = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 };

function fold(events: AgentEvent[], model: ChatModel = emptyChat()): ChatModel {
  for (const event of events) applyEvent(model, event);
  return model;
}

function toolCard(model: ChatModel, toolUseId: string): ToolItem {
  const item = model.items.find((candidate) => candidate.key === `tool:${toolUseId}`);
  assert.equal(item?.kind, 'tool', `a tool card for ${toolUseId}`);
  return item as ToolItem;
}

function subagentOf(model: ChatModel, toolUseId: string): SubagentCard {
  const card = toolCard(model, toolUseId).subagent;
  assert.ok(card, `the task call ${toolUseId} holds a subagent card`);
  return card;
}

function taskCall(toolUseId: string, description: string): AgentEvent {
  return { type: 'tool_call_started', turnId: 't1', toolUseId, name: 'task', input: { description, prompt: 'p', agent_type: 'explore' }, headline: `explore: ${description}` };
}

function started(toolUseId: string, childId: string, description: string, agentType: 'explore' | 'general' = 'explore'): AgentEvent {
  return { type: 'subagent_started', turnId: 't1', toolUseId, childId, description, agentType, transcriptPath: `/s/p/subagents/${childId}/transcript.jsonl` };
}

function progress(toolUseId: string, childId: string, toolCalls: number, tokens: number, elapsedMs: number, lastTool?: string): AgentEvent {
  return { type: 'subagent_progress', turnId: 't1', toolUseId, childId, toolCalls, tokens, elapsedMs, ...(lastTool ? { lastTool } : {}) };
}

function finished(toolUseId: string, childId: string, status: 'done' | 'error' | 'cancelled' | 'limit', report: string, toolCalls = 2): AgentEvent {
  return { type: 'subagent_finished', turnId: 't1', toolUseId, childId, status, report, usage, costUsd: 0.0123, toolCalls, elapsedMs: 4200 };
}

function childApproval(toolUseId: string, parentToolUseId: string, childId: string, path: string): AgentEvent {
  return { type: 'approval_needed', turnId: 't1', toolUseId, childId, parentToolUseId, request: { kind: 'write', path, diff: '+x', isNew: true } };
}

function childResolved(toolUseId: string, parentToolUseId: string, childId: string, approved: boolean): AgentEvent {
  return { type: 'approval_resolved', turnId: 't1', toolUseId, childId, parentToolUseId, approved };
}

describe('webview chat model: subagent cards', () => {
  it('turns the task call into one card: description, type, live figures, then the report and the outcome in words', () => {
    const model = fold([{ type: 'turn_started', turnId: 't1', userText: 'explore' }, taskCall('tu1', 'Find the config loader'), started('tu1', 'c1', 'Find the config loader')]);
    let card = subagentOf(model, 'tu1');
    assert.equal(card.childId, 'c1');
    assert.equal(card.description, 'Find the config loader');
    assert.equal(card.agentType, 'explore');
    assert.equal(subagentStatusText(card), 'running');
    assert.equal(subagentFigures(card), '0 tool calls');

    const revBefore = toolCard(model, 'tu1').rev;
    fold([progress('tu1', 'c1', 1, 2_345, 800, 'list_files'), progress('tu1', 'c1', 3, 12_345, 4_200, 'read_file')], model);
    assert.ok(toolCard(model, 'tu1').rev > revBefore, 'progress re-renders the card');
    card = subagentOf(model, 'tu1');
    assert.equal(subagentFigures(card), '3 tool calls · 12,345 tokens in context · 4.2 s · last: read_file');

    fold([finished('tu1', 'c1', 'done', 'The loader is **src/config.ts**.', 4), { type: 'tool_call_finished', turnId: 't1', toolUseId: 'tu1', name: 'task', isError: false, content: 'Subagent transcript (everything it did): /x\n\nThe loader is **src/config.ts**.', durationMs: 4300 }], model);
    card = subagentOf(model, 'tu1');
    assert.equal(card.outcome, 'done');
    assert.equal(subagentStatusText(card), 'done');
    assert.equal(card.report, 'The loader is **src/config.ts**.');
    // The final figures: the calls, the time and the cost, no longer the live context or last tool.
    assert.equal(subagentFigures(card), '4 tool calls · 4.2 s · $0.0123');
    // Still one item for the task call: the card is the tool card.
    assert.deepEqual(model.items.map((item) => item.kind), ['user', 'tool']);
    assert.equal(toolCard(model, 'tu1').status, 'done');
  });

  it('says each outcome in words', () => {
    const model = fold([taskCall('a', 'A'), started('a', 'ca', 'A'), finished('a', 'ca', 'limit', 'partial'), taskCall('b', 'B'), started('b', 'cb', 'B'), finished('b', 'cb', 'error', 'The subagent failed: boom.'), taskCall('c', 'C'), started('c', 'cc', 'C'), finished('c', 'cc', 'cancelled', 'Cancelled by the user.')]);
    assert.equal(subagentStatusText(subagentOf(model, 'a')), 'hit a limit');
    assert.equal(subagentStatusText(subagentOf(model, 'b')), 'failed');
    assert.equal(subagentStatusText(subagentOf(model, 'c')), 'cancelled');
  });

  it('keeps three concurrent children apart: interleaved progress and finishes land on their own cards', () => {
    const model = fold([
      { type: 'turn_started', turnId: 't1', userText: 'three at once' },
      taskCall('tu1', 'one'),
      taskCall('tu2', 'two'),
      taskCall('tu3', 'three'),
      started('tu1', 'c1', 'one'),
      started('tu2', 'c2', 'two', 'general'),
      started('tu3', 'c3', 'three'),
      progress('tu2', 'c2', 1, 100, 100, 'grep_search'),
      progress('tu1', 'c1', 5, 5_000, 200, 'read_file'),
      progress('tu3', 'c3', 2, 900, 300, 'list_files'),
      finished('tu2', 'c2', 'error', 'The subagent failed: overloaded.', 1),
      progress('tu1', 'c1', 6, 6_000, 400, 'read_file'),
    ]);
    assert.deepEqual(model.items.map((item) => item.key), ['user:t1', 'tool:tu1', 'tool:tu2', 'tool:tu3']);
    const [one, two, three] = ['tu1', 'tu2', 'tu3'].map((id) => subagentOf(model, id));
    assert.deepEqual([one!.childId, two!.childId, three!.childId], ['c1', 'c2', 'c3']);
    assert.equal(subagentFigures(one!), '6 tool calls · 6,000 tokens in context · 0.4 s · last: read_file');
    assert.equal(subagentStatusText(one!), 'running');
    assert.equal(two!.agentType, 'general');
    assert.equal(subagentStatusText(two!), 'failed');
    assert.equal(two!.report, 'The subagent failed: overloaded.');
    assert.equal(subagentFigures(three!), '2 tool calls · 900 tokens in context · 0.3 s · last: list_files');
    assert.equal(three!.report, undefined);
  });

  it('ignores progress that trails the finish, and events for a call it has no card for', () => {
    const model = fold([taskCall('tu1', 'one'), started('tu1', 'c1', 'one'), finished('tu1', 'c1', 'done', 'report', 7)]);
    const rev = toolCard(model, 'tu1').rev;
    fold([progress('tu1', 'c1', 9, 9_999, 9_999, 'read_file'), progress('nope', 'c9', 1, 1, 1), started('nope', 'c9', 'ghost')], model);
    assert.equal(toolCard(model, 'tu1').rev, rev);
    assert.equal(subagentFigures(subagentOf(model, 'tu1')), '7 tool calls · 4.2 s · $0.0123');
    assert.equal(model.items.length, 1, 'no card appears for an unknown call');
  });

  it('replays a finished child from the recorded start and finish alone (progress is live only)', () => {
    const model = fold([{ type: 'turn_started', turnId: 't1', userText: 'x' }, taskCall('tu1', 'one'), started('tu1', 'c1', 'one'), finished('tu1', 'c1', 'done', 'all good', 3), { type: 'turn_finished', turnId: 't1', stopReason: 'end_turn' }]);
    const card = subagentOf(model, 'tu1');
    assert.equal(card.tokens, undefined);
    assert.equal(subagentFigures(card), '3 tool calls · 4.2 s · $0.0123');
    assert.equal(card.report, 'all good');
  });

  it('ends a card whose child never reported (a session resumed after stopping mid-child) with what the parent got', () => {
    const interrupted = 'Interrupted: the session ended while the subagent was working, so its report never came back. What it did so far is in its transcript: /s/p/subagents/c1/transcript.jsonl';
    const model = fold([
      taskCall('tu1', 'one'),
      started('tu1', 'c1', 'one', 'general'),
      childApproval('w1', 'tu1', 'c1', 'a.txt'),
      { type: 'tool_call_finished', turnId: 't1', toolUseId: 'tu1', name: 'task', isError: true, content: interrupted, durationMs: 0 },
    ]);
    const card = subagentOf(model, 'tu1');
    assert.equal(subagentStatusText(card), 'failed', 'not "running" for ever');
    assert.equal(card.report, interrupted);
    assert.deepEqual(pendingApprovals(card), []);
    // A child that did report keeps its own outcome and report when the parent's result follows.
    fold([taskCall('tu2', 'two'), started('tu2', 'c2', 'two'), finished('tu2', 'c2', 'cancelled', 'Cancelled by the user.'), { type: 'tool_call_finished', turnId: 't1', toolUseId: 'tu2', name: 'task', isError: true, content: 'Subagent transcript: /x\n\nCancelled by the user.', durationMs: 5 }], model);
    assert.equal(subagentStatusText(subagentOf(model, 'tu2')), 'cancelled');
    assert.equal(subagentOf(model, 'tu2').report, 'Cancelled by the user.');
  });

  it('shows a child\'s approvals in its parent\'s card, answered by the child\'s own tool-use id', () => {
    const model = fold([taskCall('tu1', 'one'), taskCall('tu2', 'two'), started('tu1', 'c1', 'one', 'general'), started('tu2', 'c2', 'two', 'general'), childApproval('child-w1', 'tu1', 'c1', 'a.txt'), childApproval('child-w2', 'tu2', 'c2', 'b.txt')]);
    assert.equal(model.items.length, 2, 'an approval adds no item of its own');
    assert.equal(model.items.some((item) => item.key === 'tool:child-w1'), false);
    const one = subagentOf(model, 'tu1');
    assert.deepEqual(pendingApprovals(one).map((approval) => approval.toolUseId), ['child-w1']);
    assert.equal(subagentStatusText(one), 'needs approval');
    assert.deepEqual(pendingApprovals(subagentOf(model, 'tu2')).map((approval) => approval.toolUseId), ['child-w2']);
    // The parent card's own approval slot is for the parent's own calls.
    assert.equal(toolCard(model, 'tu1').approval, undefined);

    fold([childResolved('child-w1', 'tu1', 'c1', true)], model);
    assert.deepEqual(one.approvals.map((approval) => [approval.toolUseId, approval.decided]), [['child-w1', true]]);
    assert.equal(subagentStatusText(one), 'running');
    assert.equal(subagentStatusText(subagentOf(model, 'tu2')), 'needs approval', 'the other child still waits');
  });

  it('keeps only the newest answered approvals, and drops an open one when the child ends', () => {
    const model = fold([taskCall('tu1', 'one'), started('tu1', 'c1', 'one', 'general')]);
    for (let index = 0; index < MAX_ANSWERED_APPROVALS + 2; index++) {
      fold([childApproval(`w${index}`, 'tu1', 'c1', `f${index}.txt`), childResolved(`w${index}`, 'tu1', 'c1', index % 2 === 0)], model);
    }
    fold([childApproval('open', 'tu1', 'c1', 'last.txt')], model);
    let card = subagentOf(model, 'tu1');
    assert.deepEqual(
      card.approvals.map((approval) => approval.toolUseId),
      ['w2', 'w3', 'w4', 'open'],
    );
    fold([finished('tu1', 'c1', 'cancelled', 'Cancelled by the user.')], model);
    card = subagentOf(model, 'tu1');
    assert.deepEqual(pendingApprovals(card), [], 'an approval still open at the end cannot be answered any more');
    assert.equal(subagentStatusText(card), 'cancelled');
    // A late prompt for a finished child is not shown.
    fold([childApproval('late', 'tu1', 'c1', 'late.txt')], model);
    assert.deepEqual(pendingApprovals(subagentOf(model, 'tu1')), []);
  });

  it('leaves the parent\'s own approvals as they were', () => {
    const model = fold([
      { type: 'tool_call_started', turnId: 't1', toolUseId: 'w', name: 'write_file', input: {} },
      { type: 'approval_needed', turnId: 't1', toolUseId: 'w', request: { kind: 'write', path: 'a', diff: '', isNew: true } },
    ]);
    assert.equal(toolCard(model, 'w').status, 'awaiting-approval');
    assert.equal(toolCard(model, 'w').subagent, undefined);
  });

  it('formats elapsed time in seconds, then minutes', () => {
    assert.equal(formatElapsed(0), '0.0 s');
    assert.equal(formatElapsed(59_400), '59.4 s');
    assert.equal(formatElapsed(125_000), '2 min 5 s');
  });
});

describe('protocol guard: openSubagentTranscript', () => {
  it('takes a child id and refuses paths and anything else', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'openSubagentTranscript', requestId: 9, childId: '20261123-1337-abc123' }), { type: 'openSubagentTranscript', requestId: 9, childId: '20261123-1337-abc123' });
    for (const childId of ['../other', 'a/b', '/etc/passwd', 'a\\b', '', '-leading', 'x'.repeat(200), 'c1?x=1', 42, undefined]) {
      assert.equal(parseWebviewMessage({ type: 'openSubagentTranscript', requestId: 9, childId }), undefined, `refuses ${String(childId)}`);
    }
    assert.equal(parseWebviewMessage({ type: 'openSubagentTranscript', requestId: 9, path: '/s/p/subagents/c1/transcript.jsonl' }), undefined);
  });
});

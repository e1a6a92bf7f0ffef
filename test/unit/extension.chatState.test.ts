/**
 * One chat's state apart from its controller (issue 27 item 4): what the panel replays, the session
 * it runs on, the start under way and the scope whose events it shows. It imports `vscode` for
 * nothing, so it runs in plain node; the controller over it is covered by test/integration and the
 * e2e suites.
 */
import assert from 'node:assert/strict';
import type { StartedSession } from '../../src/core/agent/factory';
import { contextGauge } from '../../src/core/context/gauge';
import { wordGauge } from '../../src/frontends/words/wordGauge';
import { ChatReplay, ChatState } from '../../src/extension/chatState';
import type { AgentEvent } from '../../src/protocol';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';

const gauge = (usedTokens: number) => wordGauge(contextGauge({ window: 1_000, outputReserve: 100, usedTokens, autoCompactThreshold: 800, cacheReadShare: 0, sessionCostUsd: 0 }));

/** A started session with only what ChatState touches: busy, cancel (which ends the running turn) and close. */
function fakeStarted(id: string): { started: StartedSession; closed: () => number; finishTurn: () => void; startTurn: () => Promise<void> } {
  let closes = 0;
  let busy = false;
  let finish: () => void = () => undefined;
  const session = {
    get busy() {
      return busy;
    },
    cancel: () => {
      if (!busy) return false;
      finish();
      return true;
    },
  };
  const started = { session, handle: { id }, close: async () => void closes++ } as unknown as StartedSession;
  return {
    started,
    closed: () => closes,
    finishTurn: () => finish(),
    startTurn: () => {
      busy = true;
      return new Promise<void>((resolve) => {
        finish = () => {
          busy = false;
          resolve();
        };
      });
    },
  };
}

describe('ChatReplay: what a reloaded panel replays', () => {
  it('merges consecutive deltas of one turn and kind, keeps the rest in order, and leaves out live-only progress and gauge events', () => {
    const replay = new ChatReplay();
    const events: AgentEvent[] = [
      { type: 'turn_started', turnId: 't1', userText: 'hi', checkpoint: 3 },
      { type: 'text_delta', turnId: 't1', text: 'Hel' },
      { type: 'text_delta', turnId: 't1', text: 'lo' },
      { type: 'thinking_delta', turnId: 't1', text: 'hmm' },
      { type: 'text_delta', turnId: 't1', text: '!' },
      { type: 'tool_call_progress', turnId: 't1', toolUseId: 'u1', chunk: 'output' },
      { type: 'subagent_progress', turnId: 't1', toolUseId: 'u2', childId: 'c', toolCalls: 1, tokens: 2, elapsedMs: 3 },
      { type: 'context', gauge: gauge(10) },
      { type: 'turn_started', turnId: 't2', userText: 'again', checkpoint: 4 },
      { type: 'text_delta', turnId: 't2', text: 'Second' },
      { type: 'text_delta', turnId: 't3', text: 'Another turn' },
    ];
    for (const event of events) replay.record(event);
    assert.deepEqual(replay.history, [
      { type: 'turn_started', turnId: 't1', userText: 'hi', checkpoint: 3 },
      { type: 'text_delta', turnId: 't1', text: 'Hello' },
      { type: 'thinking_delta', turnId: 't1', text: 'hmm' },
      { type: 'text_delta', turnId: 't1', text: '!' },
      { type: 'turn_started', turnId: 't2', userText: 'again', checkpoint: 4 },
      { type: 'text_delta', turnId: 't2', text: 'Second' },
      { type: 'text_delta', turnId: 't3', text: 'Another turn' },
    ]);
    assert.equal(replay.gauge, undefined, 'a context event is the controller’s to turn into the gauge (setGauge)');
    assert.equal(replay.userTextOf(4), 'again');
    assert.equal(replay.userTextOf(9), undefined);
  });

  it('keeps the newest gauge, restores a resumed history after what it holds, and resets both', () => {
    const replay = new ChatReplay();
    replay.setGauge(gauge(10));
    replay.setGauge(gauge(20));
    assert.equal(replay.gauge?.usedTokens, 20);
    replay.record({ type: 'turn_started', turnId: 't1', userText: 'one' });
    replay.restore([{ type: 'turn_started', turnId: 't0', userText: 'resumed' }]);
    assert.deepEqual(
      replay.history.map((event) => event.type === 'turn_started' && event.userText),
      ['one', 'resumed'],
    );
    replay.reset();
    assert.deepEqual(replay.history, []);
    assert.equal(replay.gauge, undefined);
  });
});

describe('ChatReplay: a chat rebuilt on its transcript (a Restore, its Undo)', () => {
  const request = { kind: 'write' as const, path: 'a.txt', diff: '+alpha', isNew: true };
  const live: AgentEvent[] = [
    { type: 'turn_started', turnId: 'turn-1', userText: 'Write a.txt', checkpoint: 1 },
    { type: 'tool_call_started', turnId: 'turn-1', toolUseId: 'toolu_a', name: 'write_file', input: { path: 'a.txt' } },
    { type: 'approval_needed', turnId: 'turn-1', toolUseId: 'toolu_a', request },
    { type: 'approval_resolved', turnId: 'turn-1', toolUseId: 'toolu_a', approved: true },
    { type: 'tool_call_finished', turnId: 'turn-1', toolUseId: 'toolu_a', name: 'write_file', isError: false, content: 'wrote a.txt', durationMs: 1_234 },
    { type: 'turn_finished', turnId: 'turn-1', stopReason: 'end_turn' },
  ];
  // What the fold rebuilds from the transcript: no duration, no approval.
  const folded: AgentEvent[] = [
    { type: 'turn_started', turnId: 'replay-1', userText: 'Write a.txt', checkpoint: 1 },
    { type: 'tool_call_started', turnId: 'replay-1', toolUseId: 'toolu_a', name: 'write_file', input: { path: 'a.txt' } },
    { type: 'tool_call_finished', turnId: 'replay-1', toolUseId: 'toolu_a', name: 'write_file', isError: false, content: 'wrote a.txt', durationMs: 0 },
    { type: 'turn_finished', turnId: 'replay-1', stopReason: 'end_turn' },
  ];
  const toolCard = (events: readonly AgentEvent[]) => {
    const model = emptyChat();
    for (const event of events) applyEvent(model, event);
    const card = model.items.find((item) => item.kind === 'tool');
    assert.equal(card?.kind, 'tool');
    return card?.kind === 'tool' ? card : undefined;
  };

  it('keeps what its tool cards showed live: how long each call ran and the approval asked and answered', () => {
    const before = new ChatReplay();
    for (const event of live) before.record(event);
    const rebuilt = new ChatReplay();
    rebuilt.restore(folded, before.toolRecords());
    const card = toolCard(rebuilt.history);
    assert.equal(card?.durationMs, 1_234);
    assert.deepEqual(card?.approval, { request, decided: true });
    // Without the records (another session), the fold's events go in as they are.
    const other = new ChatReplay();
    other.restore(folded);
    assert.deepEqual(other.history, folded);
  });
});

describe('ChatState: one chat, held apart from its controller', () => {
  it('starts the session once however many ask while it starts, and again after a failed start', async () => {
    const chat = new ChatState();
    const first = fakeStarted('s1');
    let starts = 0;
    let fail = true;
    const start = async () => {
      starts++;
      await Promise.resolve();
      if (fail) throw new Error('no key');
      chat.adopt(first.started);
      return first.started;
    };
    await assert.rejects(Promise.all([chat.ensureStarted(start), chat.ensureStarted(start)]), /no key/);
    assert.equal(starts, 1);
    await chat.startSettled(); // a failed start is settled, not thrown again
    fail = false;
    const [a, b] = await Promise.all([chat.ensureStarted(start), chat.ensureStarted(start)]);
    assert.equal(starts, 2);
    assert.equal(a, first.started);
    assert.equal(b, first.started);
    assert.equal(await chat.ensureStarted(start), first.started, 'a running session is reused');
    assert.equal(starts, 2);
  });

  it('adopting a session closes the one it replaces (never the same one twice); close ends the chat and drops the old scope’s events', async () => {
    const chat = new ChatState();
    const shown: string[] = [];
    const one = fakeStarted('s1');
    const two = fakeStarted('s2');
    const firstScope = chat.beginScope((event) => shown.push(`first:${event.type}`));
    chat.adopt(one.started);
    chat.adopt(one.started);
    assert.equal(one.closed(), 0, 'the session it already runs on is not closed');
    const secondScope = chat.beginScope((event) => shown.push(`second:${event.type}`));
    chat.adopt(two.started);
    assert.equal(one.closed(), 1);
    assert.equal(chat.active, two.started);
    firstScope.listener({ type: 'turn_started', turnId: 'late', userText: '' });
    secondScope.listener({ type: 'turn_started', turnId: 'now', userText: '' });
    chat.close();
    secondScope.listener({ type: 'turn_started', turnId: 'after', userText: '' });
    assert.deepEqual(shown, ['second:turn_started'], 'only the current scope’s events, and none after close');
    assert.equal(two.closed(), 1);
    assert.equal(chat.active, undefined);
  });

  it('a restart that fails (never adopted) leaves the chat on its session, its events still shown; the next start drops the failed one’s', () => {
    const chat = new ChatState();
    const shown: string[] = [];
    const one = fakeStarted('s1');
    const firstScope = chat.beginScope((event) => shown.push(`first:${event.type}`));
    chat.adopt(one.started);
    const failed = chat.beginScope((event) => shown.push(`failed:${event.type}`));
    failed.listener({ type: 'session_started', sessionId: 'x', model: 'm', resumed: true });
    // The start threw: nothing is adopted.
    firstScope.listener({ type: 'turn_started', turnId: 'still', userText: '' });
    const next = chat.beginScope((event) => shown.push(`next:${event.type}`));
    failed.listener({ type: 'turn_started', turnId: 'late', userText: '' });
    chat.adopt(fakeStarted('s2').started);
    next.listener({ type: 'turn_started', turnId: 'now', userText: '' });
    firstScope.listener({ type: 'turn_started', turnId: 'old', userText: '' });
    assert.deepEqual(shown, ['failed:session_started', 'first:turn_started', 'next:turn_started']);
    assert.equal(one.closed(), 1);
  });

  it('is busy while a send is between Enter and its turn, and while the turn runs; stopTurn cancels and waits for the tracked turn', async () => {
    const chat = new ChatState();
    const one = fakeStarted('s1');
    chat.beginScope(() => undefined);
    chat.adopt(one.started);
    assert.equal(chat.busy, false);
    chat.sending = true;
    assert.equal(chat.busy, true);
    chat.sending = false;
    let ended = false;
    void chat.track(one.startTurn()).then(() => (ended = true));
    assert.equal(chat.busy, true);
    await chat.stopTurn();
    assert.equal(ended, true, 'stopTurn resolves after the turn has ended');
    assert.equal(chat.busy, false);
  });

  it('tells its listener when it gets a session and when it loses one (the chatActive context key); a closing window changes nothing', async () => {
    const changes: boolean[] = [];
    const chat = new ChatState((open) => changes.push(open));
    chat.adopt(fakeStarted('s1').started);
    chat.adopt(fakeStarted('s2').started);
    chat.close();
    assert.deepEqual(changes, [true, true, false]);
    chat.adopt(fakeStarted('s3').started);
    chat.dispose();
    assert.deepEqual(changes, [true, true, false, true]);
  });

  it('dispose cancels the running turn and closes the session', async () => {
    const chat = new ChatState();
    const one = fakeStarted('s1');
    chat.adopt(one.started);
    const turn = one.startTurn();
    chat.dispose();
    await turn; // ended by the cancel
    assert.equal(one.closed(), 1);
    assert.equal(chat.active, undefined);
  });
});

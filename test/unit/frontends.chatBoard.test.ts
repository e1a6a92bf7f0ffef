import * as assert from 'node:assert/strict';
import type { WordedEvent as AgentEvent } from '../../src/frontends/words/wordEvent';
import { activityCounts, attentionFor, attentionText, chatListRow, IDLE_PROGRESS, isInterrupted, progressAfter, readRememberedChats, reopenedActivity, RunQueue, type ChatProgress } from '../../src/frontends/chatBoard';

const turn = (): AgentEvent => ({ type: 'turn_started', turnId: 't1', userText: 'go' });
const asked = (toolUseId: string): AgentEvent => ({ type: 'approval_needed', turnId: 't1', toolUseId, request: { kind: 'shell', command: 'ls' } });
const answered = (toolUseId: string): AgentEvent => ({ type: 'approval_resolved', turnId: 't1', toolUseId, approved: true });
const finished = (stopReason: Extract<AgentEvent, { type: 'turn_finished' }>['stopReason']): AgentEvent => ({ type: 'turn_finished', turnId: 't1', stopReason });

function run(events: AgentEvent[], from: ChatProgress = IDLE_PROGRESS): ChatProgress {
  return events.reduce(progressAfter, from);
}

/** Settles the queue's promises: how each acquire ended, by chat, in the order they ended. */
function track(queue: RunQueue, chatId: string, log: string[]): Promise<void> {
  return queue.acquire(chatId).then(
    () => void log.push(`${chatId} runs`),
    (error: Error) => void log.push(`${chatId} refused: ${error.message}`),
  );
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the chats board: states, queue and attention (issue 31)', () => {
  describe('a chat\'s activity', () => {
    it('works from its turn\'s start, waits while any approval is open, and ends as its turn ended', () => {
      assert.equal(run([turn()]).activity, 'working');
      const twoAsked = run([turn(), asked('a'), asked('b')]);
      assert.deepEqual(twoAsked, { activity: 'waiting', openApprovals: ['a', 'b'] });
      // One answered, one still open: still waiting.
      assert.equal(run([answered('a')], twoAsked).activity, 'waiting');
      assert.equal(run([answered('a'), answered('b')], twoAsked).activity, 'working');
      assert.equal(run([turn(), finished('end_turn')]).activity, 'done');
      assert.equal(run([turn(), finished('cancelled')]).activity, 'stopped');
      assert.equal(run([turn(), finished('error')]).activity, 'failed');
      assert.equal(run([turn(), finished('max_tokens')]).activity, 'failed');
    });

    it('keeps a turn\'s end when a late answer arrives, and drops the open approvals with the turn', () => {
      const ended = run([turn(), asked('a'), finished('cancelled')]);
      assert.deepEqual(ended, { activity: 'stopped', openApprovals: [] });
      assert.equal(run([answered('a')], ended).activity, 'stopped');
    });

    it('is unchanged (the same object) by events that change no state, so streaming tells the list nothing', () => {
      const working = run([turn()]);
      assert.equal(progressAfter(working, { type: 'text_delta', turnId: 't1', text: 'hi' }), working);
    });
  });

  describe('attention', () => {
    it('calls the user for a chat out of sight that starts waiting or ends its turn, never for the chat shown', () => {
      assert.equal(attentionFor('working', 'waiting', false), 'approval');
      assert.equal(attentionFor('working', 'done', false), 'finished');
      assert.equal(attentionFor('waiting', 'stopped', false), 'finished');
      assert.equal(attentionFor('working', 'failed', false), 'finished');
      assert.equal(attentionFor('working', 'waiting', true), undefined);
      assert.equal(attentionFor('working', 'done', true), undefined);
    });

    it('does not call again for a second approval of a chat already waiting, nor for a turn starting', () => {
      assert.equal(attentionFor('waiting', 'waiting', false), undefined);
      assert.equal(attentionFor('idle', 'working', false), undefined);
      assert.equal(attentionFor('done', 'working', false), undefined);
    });

    it('words the notification with the chat\'s title made safe', () => {
      assert.equal(attentionText('approval', 'Fix\x1b[31m it', 'waiting'), 'Evergreen: the chat "Fix\\x1b[31m it" is waiting for your approval.');
      assert.match(attentionText('finished', 'T', 'failed'), /stopped with an error/);
      assert.match(attentionText('finished', 'T', 'done'), /finished\.$/);
    });
  });

  describe('the list and the status bar', () => {
    it('counts working (queued too) and waiting chats; nothing when none', () => {
      assert.equal(activityCounts(['working', 'queued', 'waiting', 'done', 'idle']), '2 working, 1 waiting');
      assert.equal(activityCounts(['done', 'idle', 'failed']), '');
    });

    it('shows a chat\'s state, context and cost, its title escaped', () => {
      const row = chatListRow({ title: 'Add tests\u202e', activity: 'waiting', contextPercent: 42, costUsd: 0.5, shown: false });
      assert.equal(row.description, 'waiting for approval · 42% · $0.50');
      assert.ok(!row.label.includes('\u202e'), row.label);
      assert.match(row.tooltip, /Click to show it/);
      assert.equal(chatListRow({ title: 'New chat', activity: 'idle', shown: true }).description, 'new · shown');
    });
  });

  describe('the run queue', () => {
    it('runs at most max turns at once; the next waits and starts, in order, when one ends', async () => {
      const log: string[] = [];
      const queue = new RunQueue(2);
      void track(queue, 'a', log);
      void track(queue, 'b', log);
      void track(queue, 'c', log);
      void track(queue, 'd', log);
      await tick();
      assert.deepEqual(log, ['a runs', 'b runs']);
      assert.equal(queue.isQueued('c'), true);
      queue.release('b');
      await tick();
      assert.deepEqual(log, ['a runs', 'b runs', 'c runs']);
      assert.equal(queue.isQueued('d'), true);
      queue.release('a');
      await tick();
      assert.deepEqual(log.at(-1), 'd runs');
    });

    it('lets a queued chat leave (its acquire rejects with the reason) and never gives it a slot afterwards', async () => {
      const log: string[] = [];
      const queue = new RunQueue(1);
      void track(queue, 'a', log);
      void track(queue, 'b', log);
      void track(queue, 'c', log);
      await tick();
      assert.equal(queue.leave('b', 'cancelled'), true);
      assert.equal(queue.leave('b', 'cancelled'), false, 'it left already');
      queue.release('a');
      await tick();
      assert.deepEqual(log, ['a runs', 'b refused: cancelled', 'c runs']);
    });

    it('lets waiting chats in at once when max grows, and refuses a max below 1', async () => {
      const log: string[] = [];
      const queue = new RunQueue(1);
      for (const id of ['a', 'b', 'c']) void track(queue, id, log);
      await tick();
      queue.setMax(3);
      await tick();
      assert.deepEqual(log, ['a runs', 'b runs', 'c runs']);
      assert.throws(() => queue.setMax(0), /at least 1/);
      assert.throws(() => new RunQueue(1.5), /whole number/);
    });

    it('does not take a slot twice for one chat, and a release of a chat without one frees nothing', async () => {
      const log: string[] = [];
      const queue = new RunQueue(1);
      void track(queue, 'a', log);
      await tick();
      await assert.rejects(queue.acquire('a'), /already holds/);
      void track(queue, 'b', log);
      queue.release('b');
      await tick();
      assert.deepEqual(log, ['a runs'], 'b was released while queued and took a slot');
      assert.equal(queue.isRunning('a'), true);
    });

    it('tells its listener when chats enter and leave the queue', async () => {
      let changes = 0;
      const queue = new RunQueue(1, () => changes++);
      void queue.acquire('a');
      void queue.acquire('b').catch(() => undefined);
      queue.leave('b', 'x');
      queue.release('a');
      assert.equal(changes, 4);
    });
  });

  describe('the chats a window leaves open for the next start', () => {
    it('counts a chat as interrupted only when its turn was running, queued or waiting for the user, and lists it reopened as stopped', () => {
      const all = ['idle', 'queued', 'working', 'waiting', 'done', 'failed', 'stopped'] as const;
      assert.deepEqual(all.filter(isInterrupted), ['queued', 'working', 'waiting']);
      assert.deepEqual(all.map(reopenedActivity), ['done', 'stopped', 'stopped', 'stopped', 'done', 'failed', 'stopped']);
    });

    it('reads back what it wrote, in order, with the chat shown', () => {
      const written = { chats: [{ sessionId: '20261127-063012-abc123', activity: 'working' }, { sessionId: '20261127-070000-def456', activity: 'failed' }], shown: '20261127-070000-def456' };
      assert.deepEqual(readRememberedChats(JSON.parse(JSON.stringify(written))), { ...written, dropped: 0 });
      assert.deepEqual(readRememberedChats(undefined), { chats: [], dropped: 0 }, 'a first start remembers nothing');
    });

    it('drops what does not read as a chat, and never opens a name the session store would refuse', () => {
      const read = readRememberedChats({
        chats: [{ sessionId: '../../etc' }, { sessionId: '-rf' }, { sessionId: 'ok-1', activity: 'dancing' }, { sessionId: 'ok-1' }, 'junk', null, { sessionId: 7 }],
        shown: '../../etc',
      });
      assert.deepEqual(read, { chats: [{ sessionId: 'ok-1', activity: 'done' }], dropped: 6 });
      assert.deepEqual(readRememberedChats('a string'), { chats: [], dropped: 1 });
      assert.deepEqual(readRememberedChats({ chats: {} }), { chats: [], dropped: 1 });
    });
  });
});

/**
 * The context keys the manifest's when-clauses read (src/extension/contextKeys.ts): set at
 * activation, true to the open chat and the running turn, set again only when they change, and a
 * failed set is logged, never thrown into the controller.
 */
import assert from 'node:assert/strict';
import type { Logger } from '../../src/core/logger';
import { ChatContextKeys, CONTEXT_KEYS, type ContextKey } from '../../src/extension/contextKeys';

function recorder(fail = false): { keys: ChatContextKeys; set: Array<[ContextKey, boolean]>; errors: string[] } {
  const set: Array<[ContextKey, boolean]> = [];
  const errors: string[] = [];
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (message) => void errors.push(message) };
  const keys = new ChatContextKeys((key, value) => {
    set.push([key, value]);
    return fail ? Promise.reject(new Error('no window')) : Promise.resolve();
  }, logger);
  return { keys, set, errors };
}

describe('context keys', () => {
  it('sets every key to false at activation, so no when-clause reads one unset', () => {
    const { set } = recorder();
    assert.deepEqual(set, [
      [CONTEXT_KEYS.chatActive, false],
      [CONTEXT_KEYS.running, false],
    ]);
  });

  it('follows a chat opening and a turn running to its end, setting each change once', () => {
    const { keys, set } = recorder();
    set.length = 0;
    keys.chatChanged(true);
    keys.chatChanged(true); // a restart on the same transcript
    keys.onEvent({ type: 'turn_started', turnId: 't1', userText: 'hi' });
    keys.onEvent({ type: 'text_delta', turnId: 't1', text: 'hello' });
    keys.onEvent({ type: 'turn_finished', turnId: 't1', stopReason: 'cancelled' });
    assert.deepEqual(set, [
      [CONTEXT_KEYS.chatActive, true],
      [CONTEXT_KEYS.running, true],
      [CONTEXT_KEYS.running, false],
    ]);
  });

  it('clears both when the chat closes mid-turn (New Chat, Resume): its last events never arrive', () => {
    const { keys, set } = recorder();
    keys.chatChanged(true);
    keys.onEvent({ type: 'turn_started', turnId: 't1', userText: 'hi' });
    set.length = 0;
    keys.chatChanged(false);
    assert.deepEqual(set, [
      [CONTEXT_KEYS.chatActive, false],
      [CONTEXT_KEYS.running, false],
    ]);
  });

  it('takes the keys of the chat switched to (issue 31): a chat whose turn runs, then one without a conversation', () => {
    const { keys, set } = recorder();
    set.length = 0;
    keys.showChat(true, true);
    keys.showChat(false, false);
    keys.showChat(false, false);
    assert.deepEqual(set, [
      [CONTEXT_KEYS.chatActive, true],
      [CONTEXT_KEYS.running, true],
      [CONTEXT_KEYS.chatActive, false],
      [CONTEXT_KEYS.running, false],
    ]);
  });

  it('logs a failed set and goes on', async () => {
    const { keys, errors } = recorder(true);
    keys.chatChanged(true);
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(errors.some((message) => message.includes(CONTEXT_KEYS.chatActive)), errors.join('\n'));
  });
});

/**
 * Issue 27 item 4: a session's start gives back everything it acquired when a later step fails
 * (the MCP servers it started, the sandbox's private folder, the transcript's lock, a new
 * session's folder), newest first, and a started session's close() gives back the same but keeps
 * the transcript. The steps are START_STEPS: every one gets a failure injected, and a step added
 * there without a row in ACQUIRES fails the first test.
 */
import assert from 'node:assert/strict';
import { StartScope } from '../../src/core/agent/startScope';
import { lineLogger } from '../../src/core/logger';

describe('StartScope', () => {
  it('releases newest first; a rollback also undoes what only a failed start undoes; a failed release is logged and the rest go on', async () => {
    const run = async (how: 'release' | 'rollback') => {
      const order: string[] = [];
      const logs: string[] = [];
      const scope = new StartScope(lineLogger((line) => logs.push(line)));
      scope.onRollback('the folder', () => order.push('folder'));
      scope.onRelease('the lock', () => order.push('lock'));
      scope.onRelease('the broken thing', () => Promise.reject(new Error('would not go')));
      scope.onRelease('the servers', async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push('servers');
      });
      await Promise.all([scope[how](), scope[how]()]);
      await scope.release(); // after an unwind, nothing is left to give back
      return { order, logs };
    };
    const released = await run('release');
    assert.deepEqual(released.order, ['servers', 'lock']);
    assert.deepEqual(released.logs, ['[error] could not release the broken thing: would not go']);
    assert.deepEqual((await run('rollback')).order, ['servers', 'lock', 'folder']);
  });
});

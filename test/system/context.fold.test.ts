/**
 * The transcript on disk and its fold (docs/architecture.md, "Storage layout", "Life of a request" step 8): foldTranscript over compactions, tier
 * edits, drops and failures; readTranscript reporting bad lines with their numbers; a torn tail;
 * appends that fail (disk full, read-only) without throwing; and the one-writer session lock.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileSessionStore, SessionLockedError } from '../../src/core/storage/sessionStore';
import { useTempDirs } from '../support/tempDirs';

describe('session lock', () => {
  const temp = useTempDirs();
  let root: string;
  beforeEach(() => {
    root = temp.make('evergreen-lock-');
  });

  async function sessionWithLock(pid: number): Promise<{ store: FileSessionStore; id: string; lock: string }> {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    handle.close();
    const lock = path.join(store.sessionDir(handle.id), 'owner.lock');
    assert.equal(fs.existsSync(lock), false, 'close releases the lock');
    fs.writeFileSync(lock, JSON.stringify({ pid, host: os.hostname(), since: new Date().toISOString() }));
    return { store, id: handle.id, lock };
  }

  it('refuses a second live owner', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      assert.ok(child.pid);
      const { store, id, lock } = await sessionWithLock(child.pid);
      await assert.rejects(store.open(id), (error: unknown) => {
        assert.ok(error instanceof SessionLockedError);
        assert.equal(error.ownerPid, child.pid);
        assert.match(error.message, /open in another Evergreen window or process/);
        return true;
      });
      assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).pid, child.pid, 'the live owner keeps its lock');
    } finally {
      child.kill();
    }
  });

  it('takes over a stale lock left by a dead process', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    assert.ok(dead);
    const { store, id, lock } = await sessionWithLock(dead);
    const { handle } = await store.open(id);
    assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).pid, process.pid);
    handle.close();
    assert.equal(fs.existsSync(lock), false);
  });
});

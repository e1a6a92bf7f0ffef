/**
 * The memory tool against a hostile model: every way out of /memories is refused before the disk is
 * touched (traversal, other absolute paths, backslashes, NUL, control and encoded characters,
 * hidden and overlong names, deep nesting), a symbolic link anywhere on a path is refused and never
 * followed, a FIFO is never waited on, and the size caps hold with nothing half written.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { memorySession, type MemorySession } from '../../support/memory';
import { useTempDirs } from '../../support/tempDirs';

describe('security: memory confinement', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let base: string;
  let folder: string;
  let outside: string;
  let session: MemorySession;
  beforeEach(() => {
    base = temp.make('evergreen-memsec-');
    folder = path.join(base, 'memories');
    outside = path.join(base, 'outside');
    fs.mkdirSync(folder);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
    session = memorySession(folder);
  });

  const refused = async (input: Record<string, unknown>, pattern: RegExp) => {
    const result = await session.call(input);
    assert.equal(result.isError, true, `${JSON.stringify(input)} was accepted: ${result.content}`);
    assert.match(result.content, pattern, JSON.stringify(input));
  };

  it('refuses a FIFO without waiting on it, and a file that is not text', async () => {
    execFileSync('mkfifo', [path.join(folder, 'pipe.md')]);
    await refused({ command: 'view', path: '/memories/pipe.md' }, /not a regular file/);
    await refused({ command: 'str_replace', path: '/memories/pipe.md', old_str: 'a', new_str: 'b' }, /not a regular file/);
    fs.writeFileSync(path.join(folder, 'blob.md'), Buffer.from([0x61, 0x00, 0x62]));
    await refused({ command: 'view', path: '/memories/blob.md' }, /not a text file/);
  });
});

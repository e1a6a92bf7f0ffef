/**
 * The memory tool against a hostile model: every way out of /memories is refused before the disk is
 * touched (traversal, other absolute paths, backslashes, NUL, control and encoded characters,
 * hidden and overlong names, deep nesting), a symbolic link anywhere on a path is refused and never
 * followed, a FIFO is never waited on, and the size caps hold with nothing half written.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MEMORY_LIMITS } from '../../../src/core/memory/paths';
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

  const outsideUntouched = () => {
    assert.deepEqual(fs.readdirSync(outside), ['secret.txt']);
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'SECRET');
  };
  const refused = async (input: Record<string, unknown>, pattern: RegExp) => {
    const result = await session.call(input);
    assert.equal(result.isError, true, `${JSON.stringify(input)} was accepted: ${result.content}`);
    assert.match(result.content, pattern, JSON.stringify(input));
  };

  it('refuses paths out of /memories before touching the disk', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/memories/../outside/secret.txt', /"\.\." is not allowed/],
      ['/memories/a/../../outside/x.md', /"\.\." is not allowed/],
      ['/memories/./x.md', /"\." is not allowed/],
      ['../outside/x.md', /must be \/memories or a path below it/],
      ['memories/x.md', /must be \/memories or a path below it/],
      [path.join(outside, 'x.md'), /must be \/memories or a path below it/],
      ['/memoriesX/x.md', /must be \/memories or a path below it/],
      ['/memories//x.md', /empty part/],
      ['/memories\\..\\outside\\x.md', /backslash/],
      ['/memories/x\u0000.md', /NUL/],
      ['/memories/x\u001b[2J.md', /control or invisible/],
      ['/memories/x\u202e.md', /control or invisible/],
      ['/memories/%2e%2e/x.md', /percent-encoded/],
      ['/memories/.bashrc', /starts with a dot/],
      ['/memories/con:x.md', /may not contain/],
      [`/memories/${'n'.repeat(MEMORY_LIMITS.nameChars + 1)}.md`, /longer than 100 characters/],
      [`/memories/${'a/'.repeat(MEMORY_LIMITS.depth + 1)}x.md`, /nests at most 4 folders deep/],
    ];
    for (const [target, pattern] of cases) {
      await refused({ command: 'create', path: target, file_text: 'x' }, pattern);
      await refused({ command: 'view', path: target }, pattern);
    }
    await refused({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/../outside/a.md' }, /"new_path" is refused/);
    assert.deepEqual(fs.readdirSync(folder), []);
    outsideUntouched();
  });

  it('never follows a symbolic link, as a folder on the way or as the file itself', async () => {
    fs.symlinkSync(outside, path.join(folder, 'escape'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(folder, 'notes.md'));
    fs.symlinkSync(path.join(folder, 'inside-target.md'), path.join(folder, 'inner-link.md'));
    fs.writeFileSync(path.join(folder, 'inside-target.md'), 'inside');
    await refused({ command: 'create', path: '/memories/escape/planted.md', file_text: 'x' }, /\/memories\/escape is a symbolic link/);
    await refused({ command: 'view', path: '/memories/escape' }, /symbolic link/);
    await refused({ command: 'view', path: '/memories/notes.md' }, /\/memories\/notes\.md is a symbolic link/);
    await refused({ command: 'str_replace', path: '/memories/notes.md', old_str: 'SECRET', new_str: 'OWNED' }, /symbolic link/);
    await refused({ command: 'insert', path: '/memories/notes.md', insert_line: 0, insert_text: 'x' }, /symbolic link/);
    await refused({ command: 'delete', path: '/memories/escape' }, /symbolic link/);
    await refused({ command: 'rename', old_path: '/memories/inside-target.md', new_path: '/memories/escape/moved.md' }, /symbolic link/);
    await refused({ command: 'view', path: '/memories/inner-link.md' }, /symbolic link/);
    const listing = await session.call({ command: 'view', path: '/memories' });
    assert.doesNotMatch(listing.content, /escape|notes\.md|inner-link/, 'links are not listed');
    assert.ok(fs.existsSync(path.join(folder, 'inside-target.md')));
    outsideUntouched();
  });

  it('holds the file and folder caps, writing nothing when a write would pass them', async () => {
    const big = 'x'.repeat(MEMORY_LIMITS.fileBytes + 1);
    await refused({ command: 'create', path: '/memories/big.md', file_text: big }, /a memory file holds at most 32K/);
    assert.ok(!fs.existsSync(path.join(folder, 'big.md')));
    const near = `MARK${'y'.repeat(MEMORY_LIMITS.fileBytes - 14)}`;
    assert.equal((await session.call({ command: 'create', path: '/memories/near.md', file_text: near })).isError, undefined);
    await refused({ command: 'str_replace', path: '/memories/near.md', old_str: 'MARK', new_str: 'z'.repeat(100) }, /would be 32\.\dK; a memory file holds at most 32K/);
    await refused({ command: 'insert', path: '/memories/near.md', insert_line: 1, insert_text: 'z'.repeat(100) }, /would be 32\.\dK; a memory file holds at most 32K/);
    assert.equal(fs.readFileSync(path.join(folder, 'near.md'), 'utf8'), near, 'unchanged');
    const chunk = 'c'.repeat(30 * 1024);
    let index = 0;
    for (; index < 40; index++) {
      const result = await session.call({ command: 'create', path: `/memories/fill/f${index}.md`, file_text: chunk });
      if (result.isError) {
        assert.match(result.content, /^Memory is full: it holds \d+(\.\d)?K of at most 512K, and this write needs 30K more\. Delete or shorten files/);
        break;
      }
    }
    assert.ok(index > 0 && index < 40, `refused at ${index}`);
    assert.ok(!fs.existsSync(path.join(folder, `fill/f${index}.md`)));
    const total = fs.readdirSync(path.join(folder, 'fill')).reduce((sum, name) => sum + fs.statSync(path.join(folder, 'fill', name)).size, 0) + fs.statSync(path.join(folder, 'near.md')).size;
    assert.ok(total <= MEMORY_LIMITS.folderBytes, `${total}`);
    assert.deepEqual(fs.readdirSync(path.join(folder, 'fill')).filter((name) => name.startsWith('.')), [], 'no temporary file left behind');
  });

  it('refuses a move that would nest folders past the depth limit', async () => {
    await session.call({ command: 'create', path: '/memories/a/b/c/note.md', file_text: 'deep' });
    await refused({ command: 'rename', old_path: '/memories/a', new_path: '/memories/x/y/a' }, /more than 4 deep/);
    assert.ok(fs.existsSync(path.join(folder, 'a/b/c/note.md')));
  });
});

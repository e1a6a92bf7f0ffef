import assert from 'node:assert/strict';
import { promises as fsp, readdirSync, statSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { createToolRegistry, type ToolRegistry } from '../../src/core/tools/registry';
import { makeContext, makeTempDirs, writeFiles, type TempDirs } from '../support/toolFixtures';

const numbered = (n: number, text: string): string => `${String(n).padStart(6)}\t${text}`;

describe('tools read_file / write_file / edit_file', () => {
  let dirs: TempDirs;
  let registry: ToolRegistry;
  beforeEach(() => {
    dirs = makeTempDirs();
    registry = createToolRegistry({ trusted: true });
  });
  afterEach(() => dirs.cleanup());

  const call = (name: string, input: unknown, ctx = makeContext(dirs.workspace)) => registry.executeToolCall(name, input, ctx);

  describe('read_file', () => {
    it('returns cat -n style lines', async () => {
      await writeFiles(dirs.root, { 'a.txt': 'alpha\nbeta\r\ngamma' });
      const result = await call('read_file', { path: 'a.txt' });
      assert.equal(result.isError, undefined);
      assert.equal(result.content, [numbered(1, 'alpha'), numbered(2, 'beta'), numbered(3, 'gamma')].join('\n'));
    });

    it('pages with offset/limit and says how to read more', async () => {
      await writeFiles(dirs.root, { 'b.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' });
      const page = await call('read_file', { path: 'b.txt', offset: 3, limit: 2 });
      assert.equal(page.isError, undefined);
      assert.ok(page.content.startsWith([numbered(3, 'line 3'), numbered(4, 'line 4')].join('\n')), page.content);
      assert.match(page.content, /offset=5/);
      const end = await call('read_file', { path: 'b.txt', offset: 9, limit: 5 });
      assert.ok(end.content.includes(numbered(10, 'line 10')));
      assert.doesNotMatch(end.content, /offset=/);
      assert.match(end.content, /end of the file/);
      const past = await call('read_file', { path: 'b.txt', offset: 50 });
      assert.equal(past.isError, true);
      assert.match(past.content, /only 10 lines/);
    });

    it('caps long lines and the total output', async () => {
      await writeFiles(dirs.root, { 'long.txt': 'x'.repeat(5000) + '\nshort\n' });
      const result = await call('read_file', { path: 'long.txt' });
      const first = result.content.split('\n')[0] ?? '';
      assert.ok(first.length < 2100, `line not cut: ${first.length}`);
      assert.match(result.content, /cut/);
      assert.ok(result.content.includes(numbered(2, 'short')));

      const small = createToolRegistry({ trusted: true, readFile: { maxOutputChars: 200 } });
      await writeFiles(dirs.root, { 'many.txt': Array.from({ length: 100 }, (_, i) => `row ${i + 1}`).join('\n') });
      const capped = await small.executeToolCall('read_file', { path: 'many.txt' }, makeContext(dirs.workspace));
      const shown = capped.content.split('\n').filter((l) => /^\s+\d+\t/.test(l));
      assert.ok(shown.length > 0 && shown.length < 100, String(shown.length));
      assert.match(capped.content, new RegExp(`offset=${shown.length + 1}`));
      assert.match(capped.content, /size limit/);
    });

    it('refuses binary files, directories and missing files with clear messages', async () => {
      await writeFiles(dirs.root, { 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]), 'dir/x.txt': 'x' });
      const binary = await call('read_file', { path: 'img.png' });
      assert.equal(binary.isError, true);
      assert.match(binary.content, /binary file/);
      const dir = await call('read_file', { path: 'dir' });
      assert.equal(dir.isError, true);
      assert.match(dir.content, /is a directory/);
      const missing = await call('read_file', { path: 'nope.txt' });
      assert.equal(missing.isError, true);
      assert.match(missing.content, /File not found: nope\.txt/);
      const empty = await (async () => {
        await writeFiles(dirs.root, { 'empty.txt': '' });
        return call('read_file', { path: 'empty.txt' });
      })();
      assert.match(empty.content, /empty/);
    });

    it('refuses paths outside the workspace: absolute, ../ and symlinks (file and directory)', async () => {
      await writeFiles(dirs.outside, { 'secret.txt': 'TOP SECRET' });
      symlinkSync(path.join(dirs.outside, 'secret.txt'), path.join(dirs.root, 'link.txt'));
      symlinkSync(dirs.outside, path.join(dirs.root, 'linkdir'));
      for (const p of [path.join(dirs.outside, 'secret.txt'), '../outside/secret.txt', 'link.txt', 'linkdir/secret.txt', '/etc/hostname']) {
        const result = await call('read_file', { path: p });
        assert.equal(result.isError, true, p);
        assert.match(result.content, /outside the workspace root/, p);
        assert.ok(result.content.includes(dirs.root), p);
        assert.doesNotMatch(result.content, /TOP SECRET/);
      }
    });

    it('reads persisted outputs in the read-only root by absolute path', async () => {
      await writeFiles(dirs.readOnly, { 'toolu_1.txt': 'persisted output\nsecond' });
      const result = await call('read_file', { path: path.join(dirs.readOnly, 'toolu_1.txt'), offset: 2 });
      assert.equal(result.isError, undefined);
      assert.equal(result.content.split('\n')[0], numbered(2, 'second'));
    });

    it('reads a small offset of a 1 GB sparse file without loading it', async () => {
      const file = path.join(dirs.root, 'huge.log');
      // 300 text lines (> 8 KB, so the binary sniff sees text), then ~1 GB of holes.
      await fsp.writeFile(file, Array.from({ length: 300 }, (_, i) => `log line ${i + 1} ${'.'.repeat(30)}`).join('\n') + '\n');
      await fsp.truncate(file, 1024 ** 3);
      assert.equal(statSync(file).size, 1024 ** 3);
      const before = process.memoryUsage().rss;
      const result = await call('read_file', { path: 'huge.log', offset: 100, limit: 3 });
      const grown = process.memoryUsage().rss - before;
      assert.equal(result.isError, undefined, result.content);
      assert.ok(result.content.startsWith(numbered(100, `log line 100 ${'.'.repeat(30)}`)), result.content);
      assert.match(result.content, /offset=103/);
      assert.ok(grown < 64 * 1024 * 1024, `rss grew by ${grown} bytes`);
    });

    it('keeps memory bounded on a single huge line', async () => {
      const file = path.join(dirs.root, 'oneline.txt');
      await fsp.writeFile(file, 'y'.repeat(20 * 1024 * 1024));
      const result = await call('read_file', { path: 'oneline.txt' });
      assert.equal(result.isError, undefined);
      assert.ok(result.content.length < 3000, String(result.content.length));
      assert.match(result.content, /cut/);
    });
  });

  describe('write_file', () => {
    it('creates parent directories after approval with a new-file diff, atomically', async () => {
      const ctx = makeContext(dirs.workspace);
      const result = await call('write_file', { path: 'new/dir/hello.txt', content: 'hello\nworld\n' }, ctx);
      assert.equal(result.isError, undefined, result.content);
      assert.match(result.content, /Created new\/dir\/hello\.txt/);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'new/dir/hello.txt'), 'utf8'), 'hello\nworld\n');
      assert.equal(ctx.approvals.length, 1);
      const request = ctx.approvals[0];
      assert.ok(request?.kind === 'write');
      assert.equal(request.path, 'new/dir/hello.txt');
      assert.equal(request.isNew, true);
      assert.match(request.diff, /\+\+\+ b\/new\/dir\/hello\.txt/);
      assert.match(request.diff, /^\+hello$/m);
      assert.deepEqual(readdirSync(path.join(dirs.root, 'new/dir')), ['hello.txt'], 'no temp files left behind');
    });

    it('overwrites with a diff against the old content and keeps the file mode', async () => {
      await writeFiles(dirs.root, { 'run.sh': '#!/bin/sh\necho old\n' });
      await fsp.chmod(path.join(dirs.root, 'run.sh'), 0o755);
      const ctx = makeContext(dirs.workspace);
      const result = await call('write_file', { path: 'run.sh', content: '#!/bin/sh\necho new\n' }, ctx);
      assert.equal(result.isError, undefined, result.content);
      const request = ctx.approvals[0];
      assert.ok(request?.kind === 'write');
      assert.equal(request.isNew, false);
      assert.match(request.diff, /^-echo old$/m);
      assert.match(request.diff, /^\+echo new$/m);
      assert.equal(statSync(path.join(dirs.root, 'run.sh')).mode & 0o777, 0o755);
    });

    it('declined: not written, not an error, says the user declined', async () => {
      await writeFiles(dirs.root, { 'keep.txt': 'original' });
      const ctx = makeContext(dirs.workspace, { decide: () => ({ approved: false, reason: 'not now' }) });
      const result = await call('write_file', { path: 'keep.txt', content: 'changed' }, ctx);
      assert.equal(result.isError, undefined);
      assert.match(result.content, /The user declined/);
      assert.match(result.content, /not now/);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'keep.txt'), 'utf8'), 'original');
      const fresh = await call('write_file', { path: 'fresh.txt', content: 'x' }, ctx);
      assert.match(fresh.content, /declined/);
      await assert.rejects(fsp.stat(path.join(dirs.root, 'fresh.txt')));
    });

    it('refuses to write outside the workspace or into read-only roots, without asking', async () => {
      symlinkSync(dirs.outside, path.join(dirs.root, 'linkdir'));
      const ctx = makeContext(dirs.workspace);
      for (const p of ['../outside/x.txt', path.join(dirs.outside, 'x.txt'), 'linkdir/x.txt', path.join(dirs.readOnly, 'x.txt')]) {
        const result = await call('write_file', { path: p, content: 'x' }, ctx);
        assert.equal(result.isError, true, p);
        assert.match(result.content, /outside the workspace root|read-only/, p);
      }
      assert.equal(ctx.approvals.length, 0);
      assert.deepEqual(readdirSync(dirs.outside), []);
    });

    it('writing identical content is a no-op without asking', async () => {
      await writeFiles(dirs.root, { 'same.txt': 'x' });
      const ctx = makeContext(dirs.workspace);
      const result = await call('write_file', { path: 'same.txt', content: 'x' }, ctx);
      assert.match(result.content, /already has exactly this content/);
      assert.equal(ctx.approvals.length, 0);
    });

    it('does not clobber a file that changed while the approval was pending', async () => {
      await writeFiles(dirs.root, { 'race.txt': 'v1' });
      const ctx = makeContext(dirs.workspace, {
        decide: async () => {
          await fsp.writeFile(path.join(dirs.root, 'race.txt'), 'user edit');
          return { approved: true };
        },
      });
      const result = await call('write_file', { path: 'race.txt', content: 'agent edit' }, ctx);
      assert.equal(result.isError, true);
      assert.match(result.content, /changed on disk/);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'race.txt'), 'utf8'), 'user edit');
    });
  });

  describe('edit_file', () => {
    const source = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n';

    it('replaces a unique string after approval and shows the edited region', async () => {
      await writeFiles(dirs.root, { 'src/x.ts': source });
      const ctx = makeContext(dirs.workspace);
      const result = await call('edit_file', { path: 'src/x.ts', old_string: 'function b() {\n  return 1;', new_string: 'function b() {\n  return 2;' }, ctx);
      assert.equal(result.isError, undefined, result.content);
      assert.match(result.content, /replaced 1 occurrence/);
      assert.ok(result.content.includes(numbered(6, '  return 2;')), result.content);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'src/x.ts'), 'utf8'), 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n');
      const request = ctx.approvals[0];
      assert.ok(request?.kind === 'write');
      assert.match(request.diff, /^- {2}return 1;$/m);
      assert.match(request.diff, /^\+ {2}return 2;$/m);
    });

    it('no match: error with a hint to check whitespace and re-read', async () => {
      await writeFiles(dirs.root, { 'src/x.ts': source });
      const result = await call('edit_file', { path: 'src/x.ts', old_string: 'function c()', new_string: 'x' });
      assert.equal(result.isError, true);
      assert.match(result.content, /not found/);
      assert.match(result.content, /whitespace/);
      assert.match(result.content, /read_file/);
      const ws = await call('edit_file', { path: 'src/x.ts', old_string: 'function a() {\n    return 1;', new_string: 'x' });
      assert.equal(ws.isError, true);
      assert.match(ws.content, /differs only in whitespace/);
    });

    it('several matches: error says how many and suggests context or replace_all', async () => {
      await writeFiles(dirs.root, { 'src/x.ts': source + 'const z = () => { return 1; };\n' });
      const ctx = makeContext(dirs.workspace);
      const result = await call('edit_file', { path: 'src/x.ts', old_string: 'return 1;', new_string: 'return 3;' }, ctx);
      assert.equal(result.isError, true);
      assert.match(result.content, /occurs 3 times/);
      assert.match(result.content, /replace_all/);
      assert.match(result.content, /context/);
      assert.equal(ctx.approvals.length, 0);
      const all = await call('edit_file', { path: 'src/x.ts', old_string: 'return 1;', new_string: 'return 3;', replace_all: true });
      assert.equal(all.isError, undefined, all.content);
      assert.match(all.content, /replaced 3 occurrences/);
      const text = await fsp.readFile(path.join(dirs.root, 'src/x.ts'), 'utf8');
      assert.equal(text.split('return 3;').length - 1, 3);
      assert.ok(!text.includes('return 1;'));
    });

    it('identical old and new strings are an input error', async () => {
      await writeFiles(dirs.root, { 'a.txt': 'same' });
      const result = await call('edit_file', { path: 'a.txt', old_string: 'same', new_string: 'same' });
      assert.equal(result.isError, true);
      assert.match(result.content, /identical/);
    });

    it('inserts new_string literally ($& and $1 are not replacement patterns)', async () => {
      await writeFiles(dirs.root, { 'a.txt': 'price: X\n' });
      const result = await call('edit_file', { path: 'a.txt', old_string: 'X', new_string: "$& $1 $$ $'" });
      assert.equal(result.isError, undefined, result.content);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'a.txt'), 'utf8'), "price: $& $1 $$ $'\n");
    });

    it('matches LF old_string in a CRLF file and keeps CRLF', async () => {
      await writeFiles(dirs.root, { 'win.txt': 'one\r\ntwo\r\nthree\r\n' });
      const result = await call('edit_file', { path: 'win.txt', old_string: 'one\ntwo', new_string: 'one\n2' });
      assert.equal(result.isError, undefined, result.content);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'win.txt'), 'utf8'), 'one\r\n2\r\nthree\r\n');
    });

    it('declined: file unchanged, not an error', async () => {
      await writeFiles(dirs.root, { 'a.txt': 'hello' });
      const ctx = makeContext(dirs.workspace, { decide: () => ({ approved: false }) });
      const result = await call('edit_file', { path: 'a.txt', old_string: 'hello', new_string: 'bye' }, ctx);
      assert.equal(result.isError, undefined);
      assert.match(result.content, /The user declined/);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'a.txt'), 'utf8'), 'hello');
    });

    it('missing file, binary file and outside paths are errors', async () => {
      await writeFiles(dirs.root, { 'bin.dat': Buffer.from([1, 0, 2]) });
      await writeFiles(dirs.outside, { 'o.txt': 'hello' });
      symlinkSync(path.join(dirs.outside, 'o.txt'), path.join(dirs.root, 'o-link.txt'));
      const missing = await call('edit_file', { path: 'nope.txt', old_string: 'a', new_string: 'b' });
      assert.match(missing.content, /File not found.*write_file/);
      const binary = await call('edit_file', { path: 'bin.dat', old_string: 'a', new_string: 'b' });
      assert.match(binary.content, /binary/);
      const outside = await call('edit_file', { path: 'o-link.txt', old_string: 'hello', new_string: 'pwned' });
      assert.equal(outside.isError, true);
      assert.match(outside.content, /outside the workspace root/);
      assert.equal(await fsp.readFile(path.join(dirs.outside, 'o.txt'), 'utf8'), 'hello');
    });
  });
});

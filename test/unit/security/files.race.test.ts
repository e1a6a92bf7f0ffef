// Issue 7 item 4: a folder swapped for a symbolic link to outside the workspace between the
// path check (Workspace.resolve) and the open / write. The races are made deterministic: the
// swap happens right after resolve returns, while the approval is pending, or at the very
// moment the temp file is created or renamed (by wrapping fs.promises, no production seam).
// Every case runs twice: with /proc/self/fd (Linux) and with the portable open-then-verify path.
import assert from 'node:assert/strict';
import { constants as fsc, promises as fsp, readdirSync, renameSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { createToolRegistry, type ToolRegistry } from '../../../src/core/tools/registry';
import { confinementInternals, type ResolveOptions } from '../../../src/core/workspace/workspace';
import { makeContext, makeTempDirs, writeFiles, type TempDirs } from '../../support/toolFixtures';

type AsyncFn = (...args: never[]) => Promise<unknown>;

/** Replaces fs.promises[name] for one test; tools look it up at call time. */
function wrapFsp<K extends 'open' | 'rename'>(name: K, wrapper: (original: (typeof fsp)[K]) => (typeof fsp)[K]): () => void {
  const original = fsp[name];
  (fsp as Record<K, AsyncFn>)[name] = wrapper(original) as AsyncFn;
  return () => {
    (fsp as Record<K, AsyncFn>)[name] = original as AsyncFn;
  };
}

const modes = process.platform === 'linux' ? [true, false] : [false];

for (const useProcFd of modes) {
  describe(`security: symlink-swap races on file tools (${useProcFd ? '/proc/self/fd' : 'portable open-then-verify'})`, () => {
    let dirs: TempDirs;
    let registry: ToolRegistry;
    const saved = confinementInternals.useProcFd;
    let restore: (() => void) | undefined;

    beforeEach(async () => {
      confinementInternals.useProcFd = useProcFd;
      dirs = makeTempDirs();
      registry = createToolRegistry({ trusted: true });
      await writeFiles(dirs.root, { 'sub/file.txt': 'inside\n', 'sub/other.txt': 'x\n' });
      await writeFiles(dirs.outside, { 'file.txt': 'TOP SECRET\n', 'only-outside-name.txt': 'o\n' });
    });
    afterEach(() => {
      restore?.();
      restore = undefined;
      confinementInternals.useProcFd = saved;
      dirs.cleanup();
    });

    const call = (name: string, input: unknown, ctx = makeContext(dirs.workspace)) => registry.executeToolCall(name, input, ctx);
    /** ws/sub becomes a symlink to the outside folder (the real folder is kept aside, inside). */
    const swap = (): void => {
      renameSync(path.join(dirs.root, 'sub'), path.join(dirs.root, 'sub-moved'));
      symlinkSync(dirs.outside, path.join(dirs.root, 'sub'));
    };
    const swapAfterResolve = (): void => {
      const resolve = dirs.workspace.resolve.bind(dirs.workspace);
      let swapped = false;
      dirs.workspace.resolve = async (input: string, options?: ResolveOptions) => {
        const real = await resolve(input, options);
        if (!swapped) {
          swapped = true;
          swap();
        }
        return real;
      };
    };
    const outsideUntouched = async (): Promise<void> => {
      assert.deepEqual(readdirSync(dirs.outside).sort(), ['file.txt', 'only-outside-name.txt'], 'no file or temp file left outside');
      assert.equal(await fsp.readFile(path.join(dirs.outside, 'file.txt'), 'utf8'), 'TOP SECRET\n');
    };
    const noTempFiles = (dir: string): void => {
      assert.deepEqual(
        readdirSync(dir).filter((n) => n.endsWith('.tmp')),
        [],
        `no temp file left in ${dir}`,
      );
    };
    const SWAPPED = /changed while|moved or replaced/;

    it('read_file: a folder swapped right after resolve is not followed', async () => {
      swapAfterResolve();
      const result = await call('read_file', { path: 'sub/file.txt' });
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, SWAPPED);
      assert.doesNotMatch(result.content, /TOP SECRET/);
    });

    it('list_files: a folder swapped right after resolve is not listed', async () => {
      swapAfterResolve();
      const result = await call('list_files', { path: 'sub' });
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, SWAPPED);
      assert.doesNotMatch(result.content, /only-outside-name/);
    });

    it('write_file: a new file in a folder swapped right after resolve is not created outside', async () => {
      swapAfterResolve();
      const ctx = makeContext(dirs.workspace);
      const result = await call('write_file', { path: 'sub/new.txt', content: 'pwned\n' }, ctx);
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, SWAPPED);
      await outsideUntouched();
    });

    it('write_file: a new file in a missing folder under a swapped folder is not created outside', async () => {
      swapAfterResolve();
      const result = await call('write_file', { path: 'sub/deep/er/new.txt', content: 'pwned\n' });
      assert.equal(result.isError, true, result.content);
      await outsideUntouched();
    });

    it('edit_file: a folder swapped while the approval is pending is not written through', async () => {
      // Same content outside, so a check of the text alone would not notice.
      await fsp.writeFile(path.join(dirs.outside, 'file.txt'), 'inside\n');
      const ctx = makeContext(dirs.workspace, {
        decide: () => {
          swap();
          return { approved: true };
        },
      });
      const result = await call('edit_file', { path: 'sub/file.txt', old_string: 'inside', new_string: 'pwned' }, ctx);
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, SWAPPED);
      assert.equal(await fsp.readFile(path.join(dirs.outside, 'file.txt'), 'utf8'), 'inside\n');
      assert.deepEqual(readdirSync(dirs.outside).sort(), ['file.txt', 'only-outside-name.txt']);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'sub-moved/file.txt'), 'utf8'), 'inside\n');
    });

    it('write_file: a folder swapped while the approval is pending is not written through', async () => {
      const ctx = makeContext(dirs.workspace, {
        decide: () => {
          swap();
          return { approved: true };
        },
      });
      const result = await call('write_file', { path: 'sub/brand-new.txt', content: 'pwned\n' }, ctx);
      assert.equal(result.isError, true, result.content);
      await outsideUntouched();
    });

    it('the atomic write: a swap at the moment the temp file is created leaves nothing outside and no temp file', async () => {
      restore = wrapFsp('open', (open) => (async (...args: Parameters<typeof fsp.open>) => {
        const flags = args[1];
        if (typeof flags === 'number' && (flags & fsc.O_EXCL) !== 0) swap();
        return open(...args);
      }) as typeof fsp.open);
      const result = await call('edit_file', { path: 'sub/file.txt', old_string: 'inside', new_string: 'pwned' });
      restore();
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, SWAPPED);
      await outsideUntouched();
      noTempFiles(path.join(dirs.root, 'sub-moved'));
      assert.equal(await fsp.readFile(path.join(dirs.root, 'sub-moved/file.txt'), 'utf8'), 'inside\n');
    });

    it('the atomic write: a swap right after the rename is reported and nothing is left outside', async () => {
      restore = wrapFsp('rename', (rename) => (async (...args: Parameters<typeof fsp.rename>) => {
        await rename(...args);
        swap();
      }) as typeof fsp.rename);
      const result = await call('write_file', { path: 'sub/file.txt', content: 'new\n' });
      restore();
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, /was written, but a folder on its path was moved or replaced/);
      if (useProcFd) {
        // The descriptor-anchored rename happened in the folder that was approved, wherever it is now.
        assert.ok(result.content.includes(path.join(dirs.root, 'sub-moved', 'file.txt')), result.content);
        assert.equal(await fsp.readFile(path.join(dirs.root, 'sub-moved/file.txt'), 'utf8'), 'new\n');
      }
      await outsideUntouched();
      noTempFiles(path.join(dirs.root, 'sub-moved'));
    });

    it('without a race (no over-refusal; passes on the old code too), writes through in-workspace folders still work and leave no temp file', async () => {
      symlinkSync(path.join(dirs.root, 'sub'), path.join(dirs.root, 'alias'));
      const result = await call('edit_file', { path: 'alias/file.txt', old_string: 'inside', new_string: 'edited' });
      assert.equal(result.isError, undefined, result.content);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'sub/file.txt'), 'utf8'), 'edited\n');
      const created = await call('write_file', { path: 'sub/a/b/c.txt', content: 'deep\n' });
      assert.equal(created.isError, undefined, created.content);
      assert.equal(await fsp.readFile(path.join(dirs.root, 'sub/a/b/c.txt'), 'utf8'), 'deep\n');
      noTempFiles(path.join(dirs.root, 'sub'));
      const read = await call('read_file', { path: 'alias/file.txt' });
      assert.match(read.content, /edited/);
      // Errors name real paths, never the descriptor paths the confined walk uses.
      const notDir = await call('write_file', { path: 'sub/file.txt/x.txt', content: 'x' });
      assert.equal(notDir.isError, true);
      assert.ok(notDir.content.includes(path.join(dirs.root, 'sub', 'file.txt')), notDir.content);
      assert.doesNotMatch(notDir.content, /\/proc\//);
      await outsideUntouched();
    });
  });
}

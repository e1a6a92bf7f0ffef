import assert from 'node:assert/strict';
import { promises as fsp, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { NodeWorkspace, WorkspaceAccessError } from '../../src/core/workspace/workspace';
import { makeTempDirs, writeFiles, type TempDirs } from '../support/toolFixtures';

describe('tools NodeWorkspace.resolve', () => {
  let dirs: TempDirs;
  beforeEach(async () => {
    dirs = makeTempDirs();
    await writeFiles(dirs.root, { 'src/a.ts': 'a', 'README.md': 'r' });
    await writeFiles(dirs.outside, { 'secret.txt': 'secret' });
    await writeFiles(dirs.readOnly, { 'out-1.txt': 'persisted' });
    symlinkSync(path.join(dirs.outside, 'secret.txt'), path.join(dirs.root, 'link-file'));
    symlinkSync(dirs.outside, path.join(dirs.root, 'link-dir'));
    symlinkSync(path.join(dirs.outside, 'not-yet.txt'), path.join(dirs.root, 'dangling'));
    symlinkSync(path.join(dirs.root, 'src'), path.join(dirs.root, 'inner-link'));
  });
  afterEach(() => dirs.cleanup());

  const rejects = async (p: Promise<unknown>, pattern: RegExp): Promise<void> => {
    await assert.rejects(p, (error: unknown) => {
      assert.ok(error instanceof WorkspaceAccessError, String(error));
      assert.match(error.message, pattern);
      return true;
    });
  };

  it('resolves relative paths from the root and absolute paths inside it', async () => {
    const ws = dirs.workspace;
    assert.equal(await ws.resolve('src/a.ts'), path.join(dirs.root, 'src/a.ts'));
    assert.equal(await ws.resolve('./src/../README.md'), path.join(dirs.root, 'README.md'));
    assert.equal(await ws.resolve(path.join(dirs.root, 'src/a.ts')), path.join(dirs.root, 'src/a.ts'));
    assert.equal(await ws.resolve('.'), dirs.root);
    assert.equal(await ws.resolve('new/dir/file.txt', { write: true }), path.join(dirs.root, 'new/dir/file.txt'));
  });

  it('follows symlinks that stay inside the workspace', async () => {
    assert.equal(await dirs.workspace.resolve('inner-link/a.ts', { write: true }), path.join(dirs.root, 'src/a.ts'));
  });

  it('refuses absolute paths outside the root, naming the path and the root', async () => {
    await rejects(dirs.workspace.resolve('/etc/passwd'), /"\/etc\/passwd" is outside the workspace root/);
    await rejects(dirs.workspace.resolve(path.join(dirs.outside, 'secret.txt')), new RegExp(dirs.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });

  it('refuses ../ escapes', async () => {
    await rejects(dirs.workspace.resolve('../outside/secret.txt'), /outside the workspace root/);
    await rejects(dirs.workspace.resolve('src/../../outside/x', { write: true }), /outside the workspace root/);
    await rejects(dirs.workspace.resolve('..'), /outside the workspace root/);
  });

  it('refuses a file symlink pointing outside (read and write)', async () => {
    await rejects(dirs.workspace.resolve('link-file'), /symbolic link.*secret\.txt.*outside the workspace root/);
    await rejects(dirs.workspace.resolve('link-file', { write: true }), /outside the workspace root/);
  });

  it('refuses paths through a directory symlink pointing outside, also for files that do not exist yet', async () => {
    await rejects(dirs.workspace.resolve('link-dir/secret.txt'), /outside the workspace root/);
    await rejects(dirs.workspace.resolve('link-dir/new/file.txt', { write: true }), /outside the workspace root/);
    await rejects(dirs.workspace.resolve('link-dir'), /outside the workspace root/);
  });

  it('refuses a dangling symlink whose target would be created outside', async () => {
    await rejects(dirs.workspace.resolve('dangling', { write: true }), /not-yet\.txt.*outside the workspace root/);
  });

  it('allows reads but not writes in read-only roots', async () => {
    const file = path.join(dirs.readOnly, 'out-1.txt');
    assert.equal(await dirs.workspace.resolve(file), file);
    await rejects(dirs.workspace.resolve(file, { write: true }), /read-only location/);
    // relative paths never resolve into a read-only root
    await rejects(dirs.workspace.resolve('../storage/tool-results/out-1.txt'), /outside the workspace root/);
  });

  it('refuses empty paths and NUL bytes', async () => {
    await rejects(dirs.workspace.resolve(''), /empty/);
    await rejects(dirs.workspace.resolve('a\0b'), /NUL/);
  });

  it('works when the root is given through a symlink', async () => {
    const alias = path.join(path.dirname(dirs.root), 'ws-alias');
    await fsp.symlink(dirs.root, alias);
    const ws = new NodeWorkspace(alias);
    assert.equal(ws.root, dirs.root);
    assert.equal(await ws.resolve(path.join(alias, 'src/a.ts')), path.join(dirs.root, 'src/a.ts'));
    assert.equal(ws.displayPath(path.join(dirs.root, 'src/a.ts')), 'src/a.ts');
  });

  it('displays root-relative paths with forward slashes, others absolute', () => {
    assert.equal(dirs.workspace.displayPath(path.join(dirs.root, 'src', 'a.ts')), 'src/a.ts');
    assert.equal(dirs.workspace.displayPath(dirs.root), '.');
    assert.equal(dirs.workspace.displayPath(path.join(dirs.readOnly, 'x')), path.join(dirs.readOnly, 'x'));
  });
});

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CheckpointStore, type RestorePlan } from '../../src/core/checkpoints/store';
import { MAX_SNAPSHOT_FILE_BYTES, ShadowGit } from '../../src/core/checkpoints/shadowGit';
import { tempDirs } from '../support/tempDirs';

const temp = tempDirs();

/** A workspace and a session folder of their own (removed after the test), and a store over them. */
function setup(options: { git?: boolean } = {}) {
  const base = temp.make('evergreen-checkpoints-');
  const root = path.join(base, 'ws');
  const session = path.join(base, 'session');
  fs.mkdirSync(root);
  fs.mkdirSync(session);
  const real = fs.realpathSync(root);
  const store = new CheckpointStore(session, real, options.git ?? true);
  const file = (relative: string) => path.join(real, relative);
  const write = (relative: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(file(relative)), { recursive: true });
    fs.writeFileSync(file(relative), content);
  };
  const read = (relative: string) => (fs.existsSync(file(relative)) ? fs.readFileSync(file(relative)) : undefined);
  /** What a write tool does: record, then write. */
  const toolWrite = async (relative: string, content: string | Buffer) => {
    await store.beforeWrite(file(relative), read(relative));
    write(relative, content);
  };
  return { base, root: real, session, store, file, write, read, toolWrite };
}

const byPath = (plan: RestorePlan) => Object.fromEntries(plan.files.map((file) => [file.path, file]));

describe('checkpoints (issue 17)', function () {
  this.timeout(30_000);
  afterEach(() => temp.clean());

  before(async () => assert.ok(await ShadowGit.available(), 'these tests need git on the PATH, as the README says'));

  it("restores the exact bytes of files the tools changed and deletes the files they created", async () => {
    const { store, write, read, toolWrite } = setup();
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Windows-1252, not UTF-8
    write('a.txt', latin1);
    write('b.txt', 'one\r\ntwo\r\n');
    const checkpoint = await store.begin('Please rename the helper and fix the tests in both files', 0);
    await toolWrite('a.txt', 'cafe\n');
    await toolWrite('a.txt', 'cafe 2\n'); // a second write keeps the first prior bytes
    await toolWrite('b.txt', 'one\ntwo\n');
    await toolWrite('new/c.txt', 'created');
    await store.end();
    const plan = await store.planRestore(checkpoint.number);
    const files = byPath(plan);
    assert.deepEqual(Object.keys(files).sort(), ['a.txt', 'b.txt', 'new/c.txt']);
    assert.equal(files['new/c.txt']!.action, 'delete');
    assert.equal(files['a.txt']!.action, 'write');
    const result = await store.restore(plan);
    assert.deepEqual(result.failed, []);
    assert.deepEqual(read('a.txt'), latin1);
    assert.equal(read('b.txt')?.toString(), 'one\r\ntwo\r\n');
    assert.equal(read('new/c.txt'), undefined);
  });

  it('restores what shell commands changed through the shadow snapshot: edits, deletions, creations and the executable bit', async () => {
    const { store, write, read, file } = setup();
    write('src/main.sh', '#!/bin/sh\necho hi\n');
    fs.chmodSync(file('src/main.sh'), 0o755);
    write('docs/old.md', 'old');
    const checkpoint = await store.begin('run the migration script', 0);
    // What a shell command would do: no tool records any of it.
    write('src/main.sh', '#!/bin/sh\necho changed\n');
    fs.chmodSync(file('src/main.sh'), 0o755);
    fs.rmSync(file('docs/old.md'));
    write('build/out.txt', 'generated');
    await store.end();
    const plan = await store.planRestore(checkpoint.number);
    const files = byPath(plan);
    assert.equal(files['src/main.sh']?.source, 'snapshot');
    assert.equal(files['docs/old.md']?.action, 'write');
    assert.equal(files['build/out.txt']?.action, 'delete');
    await store.restore(plan);
    assert.equal(read('src/main.sh')?.toString(), '#!/bin/sh\necho hi\n');
    assert.equal(fs.statSync(file('src/main.sh')).mode & 0o111, 0o111, 'the executable bit is back');
    assert.equal(read('docs/old.md')?.toString(), 'old');
    assert.equal(read('build/out.txt'), undefined);
  });

  it("keeps the user's own changes made since the checkpoint unless asked, and names them", async () => {
    const { store, write, read, toolWrite } = setup();
    write('a.txt', 'v1');
    write('b.txt', 'b1');
    const first = await store.begin('first', 0);
    await toolWrite('a.txt', 'v2');
    await toolWrite('b.txt', 'b2');
    await store.end();
    write('a.txt', 'v2 + my own edit'); // the user, between turns
    write('mine.txt', 'untouched by Evergreen');
    const plan = await store.planRestore(first.number);
    const files = byPath(plan);
    assert.equal(files['a.txt']?.changedOutside, true);
    assert.equal(files['b.txt']?.changedOutside, false);
    assert.equal(files['mine.txt'], undefined, 'a file only the user changed is not part of a restore');
    const kept = await store.restore(plan);
    assert.deepEqual(kept.keptOutsideChanges, ['a.txt']);
    assert.equal(read('a.txt')?.toString(), 'v2 + my own edit');
    assert.equal(read('b.txt')?.toString(), 'b1');
    const forced = await store.restore(await store.planRestore(first.number), { overwriteOutsideChanges: true });
    assert.deepEqual(forced.restored, ['a.txt']);
    assert.equal(read('a.txt')?.toString(), 'v1');
    assert.equal(read('mine.txt')?.toString(), 'untouched by Evergreen');
  });

  it('restores across several turns to the first one, and undoes a restore (one level)', async () => {
    const { store, write, read, toolWrite } = setup();
    write('a.txt', 'start');
    const first = await store.begin('turn one', 0);
    await toolWrite('a.txt', 'after one');
    await store.end();
    await store.begin('turn two', 4);
    await toolWrite('a.txt', 'after two');
    await toolWrite('z.txt', 'new in two');
    await store.end();
    const list = await store.list();
    assert.deepEqual(list.map((record) => [record.number, record.preview, record.transcriptEntries]), [[1, 'turn one', 0], [2, 'turn two', 4]]);
    await store.restore(await store.planRestore(first.number));
    assert.equal(read('a.txt')?.toString(), 'start');
    assert.equal(read('z.txt'), undefined);
    const undone = await store.undoRestore();
    assert.deepEqual(undone.failed, []);
    assert.equal(read('a.txt')?.toString(), 'after two');
    assert.equal(read('z.txt')?.toString(), 'new in two');
    await assert.rejects(store.undoRestore(), /no restore to undo/);
  });

  it('uses the tools’ own records for ignored files, and states what cannot be restored (ignored or over the size limit, changed by a command)', async () => {
    const { store, write, read, toolWrite } = setup();
    write('.gitignore', '*.env\nlogs/\n');
    write('secret.env', 'KEY=1');
    write('big.bin', Buffer.alloc(MAX_SNAPSHOT_FILE_BYTES + 1, 1));
    const checkpoint = await store.begin('x', 0);
    await toolWrite('secret.env', 'KEY=2');
    write('logs/run.log', 'a command wrote this'); // ignored, no tool record
    write('big.bin', Buffer.alloc(MAX_SNAPSHOT_FILE_BYTES + 2, 2)); // too large to snapshot
    await store.end();
    const plan = await store.planRestore(checkpoint.number);
    assert.equal(byPath(plan)['secret.env']?.source, 'tool-record');
    assert.equal(byPath(plan)['logs/run.log'], undefined, 'git never saw it: nothing claims it can be restored');
    const before = (await store.list())[0]!.before;
    assert.equal(before.kind, 'snapshot');
    assert.ok(before.kind === 'snapshot' && before.skipped.some((file) => file.path === 'big.bin' && file.bytes === MAX_SNAPSHOT_FILE_BYTES + 1));
    await store.restore(plan);
    assert.equal(read('secret.env')?.toString(), 'KEY=1');
  });

  for (const git of [true, false]) {
    it(`sees the user's own later edits of files only the tools' records cover (${git ? 'an ignored file' : 'no Git'}), and keeps them unless told`, async () => {
      const { store, write, read, toolWrite } = setup({ git });
      write('.gitignore', '*.env\n');
      write('a.env', 'A=1');
      write('b.env', 'B=1');
      write('c.env', 'C=1');
      const first = await store.begin('first', 0);
      await toolWrite('a.env', 'A=2');
      await toolWrite('b.env', 'B=2');
      await toolWrite('c.env', 'C=2');
      await store.end();
      write('b.env', 'B=user'); // between the turns
      await store.begin('second', 3);
      await toolWrite('b.env', 'B=3');
      await store.end();
      write('c.env', 'C=user'); // after the last turn

      const plan = await store.planRestore(first.number);
      const files = byPath(plan);
      assert.equal(files['a.env']?.source, 'tool-record');
      assert.equal(files['a.env']?.changedOutside, false, 'only Evergreen wrote it');
      assert.equal(files['b.env']?.changedOutside, true, 'the user edited it between the turns');
      assert.equal(files['c.env']?.changedOutside, true, 'the user edited it after the last turn');
      const result = await store.restore(plan);
      assert.deepEqual(result.keptOutsideChanges.sort(), ['b.env', 'c.env']);
      assert.equal(read('a.env')?.toString(), 'A=1');
      assert.equal(read('c.env')?.toString(), 'C=user', 'kept without an explicit choice');
      await store.restore(await store.planRestore(first.number), { overwriteOutsideChanges: true });
      assert.equal(read('c.env')?.toString(), 'C=1');

      // Undone: the user's bytes come back, and with them the mark that keeps the next restore off them.
      await store.undoRestore();
      assert.equal(read('c.env')?.toString(), 'C=user');
      const again = byPath(await store.planRestore(first.number));
      assert.equal(again['a.env'], undefined, 'a.env is already as it was');
      assert.equal(again['c.env']?.changedOutside, true, "still the user's edit");
      assert.deepEqual((await store.restore(await store.planRestore(first.number))).keptOutsideChanges.sort(), ['b.env', 'c.env']);
      assert.equal(read('c.env')?.toString(), 'C=user');
    });
  }

  it('without Git, restores what the tools changed and says why shell changes are not covered', async () => {
    const { store, write, read, toolWrite } = setup({ git: false });
    write('a.txt', 'a');
    const checkpoint = await store.begin('x', 0);
    await toolWrite('a.txt', 'b');
    write('shell.txt', 'made by a command');
    await store.end();
    const record = (await store.list())[0]!;
    assert.equal(record.before.kind, 'unavailable');
    assert.ok(record.before.kind === 'unavailable' && /Git is not installed/.test(record.before.reason));
    const plan = await store.planRestore(checkpoint.number);
    assert.deepEqual(plan.files.map((file) => file.path), ['a.txt']);
    await store.restore(plan);
    assert.equal(read('a.txt')?.toString(), 'a');
    assert.equal(read('shell.txt')?.toString(), 'made by a command');
  });

  it('refuses to restore while a turn runs, an unknown checkpoint, and a snapshot deleted from storage', async () => {
    const { store, write, session, root } = setup();
    write('a.txt', 'a');
    const checkpoint = await store.begin('x', 0);
    await assert.rejects(store.planRestore(checkpoint.number), /still working on a turn/);
    await store.end();
    await assert.rejects(store.planRestore(7), /no checkpoint 7; this session has 1/);
    fs.rmSync(path.join(session, 'checkpoints', 'shadow.git'), { recursive: true });
    const fresh = new CheckpointStore(session, root, true);
    await assert.rejects(fresh.planRestore(checkpoint.number), /snapshot is missing from the session's storage/);
  });

  it('a checkpoint index that is not one Evergreen wrote is refused with its path, and nothing is restored', async () => {
    const { store, write, session, root } = setup();
    write('a.txt', 'a');
    await store.begin('x', 0);
    await store.end();
    const index = path.join(session, 'checkpoints', 'index.json');
    for (const content of ['{"version": 2, "checkpoints": []}', '[]']) {
      fs.writeFileSync(index, content);
      await assert.rejects(new CheckpointStore(session, root, true).list(), (error: Error) => error.message.includes(index));
    }
    fs.writeFileSync(index, '{ torn');
    await assert.rejects(new CheckpointStore(session, root, true).planRestore(1), (error: Error) => error.message.includes(index) && /not valid JSON/.test(error.message));
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a');
  });

  it('a deleted saved copy, or a file that became a folder, fails that file with the reason and restores the rest', async () => {
    const { store, write, read, toolWrite, session, file } = setup({ git: false });
    write('a.txt', 'a1');
    write('b.txt', 'b1');
    write('c.txt', 'c1');
    const checkpoint = await store.begin('x', 0);
    await toolWrite('a.txt', 'a2');
    await toolWrite('b.txt', 'b2');
    await toolWrite('c.txt', 'c2');
    await store.end();
    const blobs = path.join(session, 'checkpoints', 'blobs');
    const sha = (await import('node:crypto')).createHash('sha256').update('a1').digest('hex');
    fs.rmSync(path.join(blobs, sha));
    fs.rmSync(file('b.txt'));
    fs.mkdirSync(file('b.txt'));
    fs.writeFileSync(path.join(file('b.txt'), 'inside'), 'x');
    const result = await store.restore(await store.planRestore(checkpoint.number));
    assert.deepEqual(result.restored, ['c.txt']);
    const failed = Object.fromEntries(result.failed.map((failure) => [failure.path, failure.reason]));
    assert.deepEqual(Object.keys(failed).sort(), ['a.txt', 'b.txt']);
    assert.match(failed['a.txt']!, /saved copy of a\.txt was deleted/);
    assert.match(failed['b.txt']!, /not a regular file now/);
    assert.equal(read('c.txt')?.toString(), 'c1');
  });

  it('never writes through a symlink out of the workspace', async () => {
    const { store, write, toolWrite, file, base } = setup();
    const outside = path.join(base, 'outside');
    fs.mkdirSync(outside);
    write('dir/a.txt', 'a1');
    const checkpoint = await store.begin('x', 0);
    await toolWrite('dir/a.txt', 'a2');
    await store.end();
    // The folder is swapped for a link to somewhere else before the restore.
    fs.rmSync(file('dir'), { recursive: true });
    fs.symlinkSync(outside, file('dir'));
    const plan = await store.planRestore(checkpoint.number);
    assert.equal(byPath(plan)['dir/a.txt']?.changedOutside, true, 'the swap happened outside Evergreen');
    const result = await store.restore(plan, { overwriteOutsideChanges: true });
    assert.deepEqual(result.failed.map((failure) => failure.path), ['dir/a.txt']);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing was written outside');
  });

  it("never touches the user's own repository, and an inherited GIT_DIR does not redirect it", async () => {
    const { store, root, write, toolWrite } = setup();
    execFileSync('git', ['init', '-q'], { cwd: root });
    write('a.txt', 'a');
    execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@e', 'add', 'a.txt'], { cwd: root });
    const statusBefore = execFileSync('git', ['status', '--porcelain'], { cwd: root }).toString();
    const indexBefore = fs.readFileSync(path.join(root, '.git', 'index'));
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = path.join(root, '.git');
    try {
      const checkpoint = await store.begin('x', 0);
      await toolWrite('a.txt', 'b');
      await store.end();
      await store.restore(await store.planRestore(checkpoint.number));
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
    assert.deepEqual(fs.readFileSync(path.join(root, '.git', 'index')), indexBefore);
    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: root }).toString(), statusBefore);
    assert.ok(!fs.existsSync(path.join(root, '.git', 'refs', 'evergreen')));
  });
});


// The chats' worktrees (issue 31) against real Git in temporary folders: made on a new branch
// outside the checkout, found again, reviewed against their branch point, brought home (applied or
// merged, with and without conflicts), discarded after a confirmation, and cleaned up when their
// folder was deleted by hand; the user's checkout is never touched unasked.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discardWorktree, planDiscard } from '../../src/core/worktrees/discard';
import { WorktreeError, WorktreeManager } from '../../src/core/worktrees/manager';
import { applyChoices, applyHunks, applyToCheckout, fileHunks, mergeBranch, worktreeChanges } from '../../src/core/worktrees/review';
import { reviewFiles } from '../../src/frontends/hunkReview';
import { said } from '../support/said';
import { tempDirs, writeTree } from '../support/tempDirs';

/** A WorktreeError whose words (as the CLI shows them) match `pattern`. */
const saying = (pattern: RegExp) => (error: unknown) => error instanceof WorktreeError && pattern.test(said(error.said));

const temp = tempDirs();
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, encoding: 'utf8' });

/** A checkout with two commits on main, an identity of its own, and a storage folder beside it. */
function setup() {
  const base = temp.make('evergreen-worktrees-');
  const checkout = path.join(base, 'app');
  writeTree(checkout, { 'a.txt': 'one\ntwo\nthree\n', 'src/b.txt': 'bee\n', 'gone.txt': 'remove me\n' });
  git(checkout, 'init', '-q', '-b', 'main');
  git(checkout, 'config', 'user.name', 'User');
  git(checkout, 'config', 'user.email', 'user@example.com');
  git(checkout, 'add', '.');
  git(checkout, 'commit', '-qm', 'start');
  const storage = path.join(base, 'storage');
  return { base, checkout, storage, manager: new WorktreeManager({ storageRoot: storage }) };
}

/** A chat that changed lines 2 and 28 of a 30-line long.txt (two hunks) and the bytes of image.bin. */
async function twoHunkChat(name: string) {
  const { checkout, manager } = setup();
  const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
  writeTree(checkout, { 'long.txt': `${lines.join('\n')}\n`, 'image.bin': Buffer.from([0, 1, 2, 3]) });
  git(checkout, 'add', '.');
  git(checkout, 'commit', '-qm', 'long');
  const record = await manager.create({ checkout, name });
  const edited = lines.map((line, index) => (index === 1 ? 'line 2 by the chat' : index === 27 ? 'line 28 by the chat' : line));
  writeTree(record.folder, { 'long.txt': `${edited.join('\n')}\n`, 'image.bin': Buffer.from([9, 9]) });
  return { checkout, record, lines, edited };
}

/** Every file of the checkout and the parts of its Git directory a worktree must not change, hashed. */
function fingerprint(checkout: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      const relative = path.relative(checkout, file);
      if (entry.isDirectory()) {
        if (relative === '.git') continue;
        walk(file);
      } else out[relative] = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    }
  };
  walk(checkout);
  for (const name of ['HEAD', 'index', 'config', 'refs/heads/main']) out[`.git/${name}`] = createHash('sha256').update(fs.readFileSync(path.join(checkout, '.git', name))).digest('hex');
  return out;
}

describe('worktrees: a chat on its own branch and folder (issue 31)', function () {
  this.timeout(60_000);
  afterEach(() => temp.clean());

  it('makes a worktree on evergreen/<name> under the storage, leaves the checkout as it was, and finds it again', async () => {
    const { checkout, storage, manager } = setup();
    writeTree(checkout, { 'a.txt': 'the user is editing\n' }); // uncommitted work of the user's
    const before = fingerprint(checkout);
    const record = await manager.create({ checkout: path.join(checkout, 'src'), task: 'Fix the parser’s error message, please' });
    assert.equal(record.name, 'fix-the-parser-s-error-message');
    assert.equal(record.branch, 'evergreen/fix-the-parser-s-error-message');
    assert.ok(record.folder.startsWith(path.join(storage, 'worktrees') + path.sep), record.folder);
    assert.equal(record.checkout, checkout);
    assert.equal(record.base, git(checkout, 'rev-parse', 'HEAD').trim());
    assert.equal(record.baseBranch, 'main');
    // The worktree has the committed files (not the user's uncommitted edit) and is on its branch.
    assert.equal(fs.readFileSync(path.join(record.folder, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.equal(git(record.folder, 'symbolic-ref', '--short', 'HEAD').trim(), record.branch);
    assert.deepEqual(fingerprint(checkout), before);
    assert.equal(git(checkout, 'symbolic-ref', '--short', 'HEAD').trim(), 'main');

    const again = await manager.create({ checkout, task: 'Fix the parser’s error message, please' });
    assert.equal(again.name, 'fix-the-parser-s-error-message-2', 'a name made from a task that is taken gets a number');
    const { worktrees, problems } = await manager.list(checkout);
    assert.deepEqual(worktrees.map((item) => item.name).sort(), [record.name, again.name]);
    assert.deepEqual(problems, []);
    assert.equal((await manager.health(record)).kind, 'ready');

    const attached = await manager.attachSession(record, 'session-1');
    assert.equal((await manager.findBySession('session-1'))?.folder, attached.folder);
    assert.equal(await manager.findBySession('session-2'), undefined);
  });

  it('refuses a given name that is taken or unsafe, and a folder that is not a repository or has no commit, saying why', async () => {
    const { base, checkout, manager } = setup();
    git(checkout, 'branch', 'evergreen/taken');
    const refusal = async (options: Parameters<WorktreeManager['create']>[0]) => {
      const error = await manager.create(options).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof WorktreeError, `expected a WorktreeError, got ${String(error)}`);
      return error;
    };
    const taken = await refusal({ checkout, name: 'taken' });
    assert.equal(taken.kind, 'name');
    assert.match(said(taken.said), /branch evergreen\/taken exists already/);
    assert.equal((await refusal({ checkout, name: '../escape' })).kind, 'name');
    assert.equal((await refusal({ checkout, name: '-x' })).kind, 'name');

    const plain = path.join(base, 'plain');
    fs.mkdirSync(plain);
    const notRepository = await refusal({ checkout: plain, task: 'x' });
    assert.equal(notRepository.kind, 'unavailable');
    assert.equal(notRepository.repository?.kind, 'not-a-repository');
    const empty = path.join(base, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    const noCommit = await refusal({ checkout: empty, task: 'x' });
    assert.equal(noCommit.repository?.kind, 'no-commit');
    assert.match(said(noCommit.said), /no commit yet.*git commit --allow-empty/);
    // Nothing was made for the refusals.
    assert.deepEqual((await manager.list()).worktrees, []);
    assert.equal(git(checkout, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, 1);
  });

  it('refuses a worktrees folder inside the checkout, and a relative one', async () => {
    const { checkout, storage } = setup();
    const inside = new WorktreeManager({ storageRoot: storage, folder: path.join(checkout, 'wt') });
    await assert.rejects(inside.create({ checkout, task: 'x' }), (error: unknown) => error instanceof WorktreeError && error.kind === 'folder' && /inside the checkout/.test(said(error.said)));
    assert.throws(() => new WorktreeManager({ storageRoot: storage, folder: 'relative/wt' }), (error: unknown) => error instanceof WorktreeError && error.kind === 'folder');
  });

  it("lists what the chat changed (commits, uncommitted and untracked files) without touching the worktree's index", async () => {
    const { checkout, manager } = setup();
    const record = await manager.create({ checkout, name: 'edits' });
    writeTree(record.folder, { 'a.txt': 'one\nTWO\nthree\n', '.gitignore': 'build/\n', 'build/out.bin': 'ignored' });
    git(record.folder, 'commit', '-qam', 'two in capitals');
    writeTree(record.folder, { 'src/b.txt': 'bee staged\n', 'new.txt': 'untracked\n' });
    git(record.folder, 'add', 'src/b.txt');
    fs.rmSync(path.join(record.folder, 'gone.txt'));
    const indexBefore = git(record.folder, 'diff', '--cached', '--name-status');
    const changes = await worktreeChanges(record);
    assert.equal(changes.commits, 1);
    assert.deepEqual(
      changes.files.map((file) => `${file.status} ${file.path}`),
      ['added .gitignore', 'modified a.txt', 'deleted gone.txt', 'added new.txt', 'modified src/b.txt'],
    );
    assert.equal(git(record.folder, 'diff', '--cached', '--name-status'), indexBefore, "the worktree's own staging is as the chat left it");
    assert.match(git(record.folder, 'status', '--porcelain'), /^\?\? new\.txt$/m, 'new.txt is still untracked');
  });

  it("starts from a fetched branch (a CI run's) when asked: its commits are the changes, counted from where it forked, the checkout untouched", async () => {
    const { checkout, manager } = setup();
    // The run's branch (fetched, so a remote-tracking ref) forked at "start"; main moved on since with a commit of the user's.
    git(checkout, 'switch', '-qc', 'run');
    writeTree(checkout, { 'a.txt': 'one\nTWO by the run\nthree\n' });
    git(checkout, 'commit', '-qam', 'the run');
    git(checkout, 'switch', '-q', 'main');
    git(checkout, 'update-ref', 'refs/remotes/origin/evergreen/run-7', 'run');
    git(checkout, 'branch', '-qD', 'run');
    writeTree(checkout, { 'src/b.txt': 'bee by the user\n' });
    git(checkout, 'commit', '-qam', 'the user');
    const forkPoint = git(checkout, 'rev-parse', 'main~1').trim();
    const before = fingerprint(checkout);
    const record = await manager.create({ checkout, name: 'run-7', task: 'the run', startPoint: 'refs/remotes/origin/evergreen/run-7' });
    assert.equal(record.base, forkPoint, 'the base is where the run forked, not the moved HEAD');
    assert.equal(fs.readFileSync(path.join(record.folder, 'a.txt'), 'utf8'), 'one\nTWO by the run\nthree\n');
    const changes = await worktreeChanges(record);
    assert.equal(changes.commits, 1);
    assert.deepEqual(changes.files.map((file) => `${file.status} ${file.path}`), ['modified a.txt'], "only the run's change, not the user's later commit undone");
    assert.deepEqual(fingerprint(checkout), before);

    await assert.rejects(manager.create({ checkout, name: 'nothing', startPoint: 'refs/remotes/origin/nope' }), (error: unknown) => error instanceof WorktreeError && error.kind === 'git' && /no commit at refs\/remotes\/origin\/nope.*fetch it first/.test(said(error.said)));
    await assert.rejects(manager.create({ checkout, name: 'option', startPoint: '--output=/tmp/x' }), (error: unknown) => error instanceof WorktreeError && error.kind === 'name');
    assert.equal(fs.existsSync(path.join(path.dirname(record.folder), 'nothing')), false, 'a refused start makes no folder');
  });

  it("reviews through the worktree's own folder in the repository, not a .git file the chat pointed elsewhere", async () => {
    const { base, checkout, manager } = setup();
    const record = await manager.create({ checkout, name: 'redirect' });
    // A Git directory of the chat's making, whose filter would run a command when Git reads the files.
    const evil = path.join(record.folder, 'evil');
    git(record.folder, 'init', '-q', '--bare', evil);
    const marker = path.join(base, 'filter-ran');
    git(evil, 'config', 'filter.x.clean', `touch ${marker}; cat`);
    writeTree(record.folder, { '.gitattributes': '* filter=x\n', 'new.txt': 'new\n' });
    fs.writeFileSync(path.join(record.folder, '.git'), `gitdir: ${evil}\n`);
    const changes = await worktreeChanges(record);
    assert.equal(fs.existsSync(marker), false, 'no filter of the redirected directory ran');
    assert.ok(changes.files.some((file) => file.path === 'new.txt'));
    const plan = await planDiscard(record);
    assert.ok(plan.uncommitted.includes('new.txt'));
    assert.equal(fs.existsSync(marker), false);
  });

  it("applies the changes to the checkout as uncommitted changes, all or some files, and leaves its index and HEAD alone", async () => {
    const { checkout, manager } = setup();
    const record = await manager.create({ checkout, name: 'apply' });
    writeTree(record.folder, { 'a.txt': 'one\nTWO\nthree\n', 'src/b.txt': 'bee 2\n', 'added.txt': 'new\n' });
    git(record.folder, 'commit', '-qam', 'edit a');
    const head = git(checkout, 'rev-parse', 'HEAD');
    const some = await applyToCheckout(await worktreeChanges(record), ['a.txt', 'added.txt']);
    assert.equal(some.kind, 'applied');
    assert.equal(fs.readFileSync(path.join(checkout, 'a.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.equal(fs.readFileSync(path.join(checkout, 'added.txt'), 'utf8'), 'new\n');
    assert.equal(fs.readFileSync(path.join(checkout, 'src/b.txt'), 'utf8'), 'bee\n', 'a file not chosen is not applied');
    assert.equal(git(checkout, 'diff', '--cached', '--name-only'), '', 'nothing is staged');
    assert.equal(git(checkout, 'rev-parse', 'HEAD'), head);
    await assert.rejects(applyToCheckout(await worktreeChanges(record), ['not-changed.txt']), saying(/did not change not-changed\.txt/));
  });

  it('applies nothing when a change conflicts with the user’s own edits, and names the file', async () => {
    const { checkout, manager } = setup();
    const record = await manager.create({ checkout, name: 'conflict' });
    writeTree(record.folder, { 'a.txt': 'one\nchat\nthree\n', 'src/b.txt': 'bee from the chat\n' });
    writeTree(checkout, { 'a.txt': 'one\nuser\nthree\n' });
    const before = fingerprint(checkout);
    const result = await applyToCheckout(await worktreeChanges(record));
    assert.equal(result.kind, 'conflict');
    if (result.kind !== 'conflict') return;
    assert.deepEqual(result.files, ['a.txt']);
    assert.match(said(result.reason), /nothing was changed/);
    assert.deepEqual(fingerprint(checkout), before, 'src/b.txt, which would apply, was not applied either');
  });

  it('applies only the chosen hunks of a file, and refuses a hunk that is not there or a binary file', async () => {
    const { checkout, record, edited } = await twoHunkChat('hunks');
    const changes = await worktreeChanges(record);
    const file = await fileHunks(changes, 'long.txt');
    assert.equal(file.hunks.length, 2);
    assert.ok(file.hunks[1]!.lines.includes('+line 28 by the chat'));
    await assert.rejects(applyHunks(changes, file, [2]), saying(/has 2 hunk\(s\); there is no hunk 2/));
    const result = await applyHunks(changes, file, [1]);
    assert.equal(result.kind, 'applied');
    const now = fs.readFileSync(path.join(checkout, 'long.txt'), 'utf8').split('\n');
    assert.equal(now[1], 'line 2', 'the hunk not chosen is left out');
    assert.equal(now[27], 'line 28 by the chat');
    // The first hunk still applies afterwards: each is found by its context.
    assert.equal((await applyHunks(changes, file, [0])).kind, 'applied');
    assert.equal(fs.readFileSync(path.join(checkout, 'long.txt'), 'utf8'), `${edited.join('\n')}\n`);
    await assert.rejects(fileHunks(changes, 'image.bin'), saying(/no text hunks/));
  });

  it('applies the accepted hunks of several files as one patch, or nothing, naming the very hunk in the way of the user’s own change', async () => {
    const { checkout, record, lines } = await twoHunkChat('accepted');
    writeTree(record.folder, { 'new.txt': 'new\n' });
    const changes = await worktreeChanges(record);
    const files = await reviewFiles(changes);
    assert.deepEqual(
      files.map((file) => [file.path, file.hunks?.length]),
      [['image.bin', undefined], ['long.txt', 2], ['new.txt', 1]],
      'a binary file has no hunks to choose: it comes whole',
    );

    // The user changed line 28 themselves: the chat's second hunk is in the way, its first is not.
    writeTree(checkout, { 'long.txt': `${lines.map((line, index) => (index === 27 ? 'line 28 by the user' : line)).join('\n')}\n` });
    const before = fingerprint(checkout);
    const conflict = await applyChoices(changes, [{ path: 'long.txt', hunks: [0, 1] }, { path: 'new.txt', hunks: 'all' }]);
    assert.equal(conflict.kind, 'conflict');
    if (conflict.kind !== 'conflict') return;
    assert.deepEqual(conflict.files, ['long.txt']);
    assert.deepEqual(
      conflict.hunks?.map((hunk) => [hunk.path, hunk.hunk?.index]),
      [['long.txt', 1]],
      'only the hunk that touches the user’s line is named',
    );
    assert.match(conflict.hunks?.[0]?.reason ?? '', /patch failed: long\.txt:25/);
    assert.deepEqual(fingerprint(checkout), before, 'nothing at all was applied: not the first hunk, not new.txt');

    // Accept the first hunk and the other files, reject the second: they apply, the user's line stays.
    const applied = await applyChoices(changes, [{ path: 'long.txt', hunks: [0] }, { path: 'image.bin', hunks: 'all' }, { path: 'new.txt', hunks: 'all' }, { path: 'src/b.txt', hunks: [] }]);
    assert.deepEqual(applied, { kind: 'applied', files: ['long.txt', 'image.bin', 'new.txt'] });
    const now = fs.readFileSync(path.join(checkout, 'long.txt'), 'utf8').split('\n');
    assert.equal(now[1], 'line 2 by the chat');
    assert.equal(now[27], 'line 28 by the user');
    assert.deepEqual([...fs.readFileSync(path.join(checkout, 'image.bin'))], [9, 9]);
    assert.equal(fs.readFileSync(path.join(checkout, 'new.txt'), 'utf8'), 'new\n');
    assert.equal(git(checkout, 'diff', '--cached', '--name-only'), '', 'nothing staged');
    await assert.rejects(applyChoices(changes, [{ path: 'long.txt', hunks: [5] }]), saying(/has 2 hunk\(s\); there is no hunk 5/));
    assert.deepEqual(await applyChoices(changes, []), { kind: 'nothing' });
  });

  it("merges the branch's commits into the checkout's branch, and undoes a merge that conflicts", async () => {
    const { checkout, manager } = setup();
    const clean = await manager.create({ checkout, name: 'clean' });
    writeTree(clean.folder, { 'src/b.txt': 'bee merged\n' });
    git(clean.folder, 'commit', '-qam', 'b');
    const merged = await mergeBranch(clean);
    assert.equal(merged.kind, 'merged');
    assert.equal(fs.readFileSync(path.join(checkout, 'src/b.txt'), 'utf8'), 'bee merged\n');
    assert.equal(git(checkout, 'log', '-1', '--format=%an <%ae> %P').split(' ').length, 4, 'a merge commit by the user, with two parents');
    assert.match(git(checkout, 'log', '-1', '--format=%an <%ae>'), /^User <user@example.com>/);
    assert.equal((await mergeBranch(clean)).kind, 'nothing');

    const clash = await manager.create({ checkout, name: 'clash' });
    writeTree(clash.folder, { 'a.txt': 'one\nchat\nthree\n' });
    git(clash.folder, 'commit', '-qam', 'chat');
    writeTree(checkout, { 'a.txt': 'one\nuser\nthree\n' });
    git(checkout, 'commit', '-qam', 'user');
    const head = git(checkout, 'rev-parse', 'HEAD');
    const result = await mergeBranch(clash);
    assert.equal(result.kind, 'conflict');
    if (result.kind !== 'conflict') return;
    assert.deepEqual(result.files, ['a.txt']);
    assert.equal(git(checkout, 'rev-parse', 'HEAD'), head);
    assert.equal(git(checkout, 'status', '--porcelain'), '', 'the merge was undone: no conflict markers left');
    assert.equal(fs.readFileSync(path.join(checkout, 'a.txt'), 'utf8'), 'one\nuser\nthree\n');
  });

  it('discards after a confirmation that lists what is lost, and refuses when more would be lost since', async () => {
    const { checkout, manager } = setup();
    const record = await manager.create({ checkout, name: 'drop' });
    writeTree(record.folder, { 'a.txt': 'changed\n' });
    git(record.folder, 'commit', '-qam', 'only here');
    writeTree(record.folder, { 'scratch.txt': 'untracked\n' });
    const plan = await planDiscard(record);
    assert.deepEqual(plan.uncommitted, ['scratch.txt']);
    assert.equal(plan.commitCount, 1);
    assert.deepEqual(plan.commits.map((commit) => commit.subject), ['only here']);

    writeTree(record.folder, { 'later.txt': 'written after the user confirmed\n' });
    await assert.rejects(discardWorktree(manager, plan), (error: unknown) => error instanceof WorktreeError && error.kind === 'changed' && /later\.txt/.test(said(error.said)));
    assert.ok(fs.existsSync(record.folder), 'nothing was removed');

    await discardWorktree(manager, await planDiscard(record));
    assert.ok(!fs.existsSync(record.folder));
    assert.equal(git(checkout, 'branch', '--list', 'evergreen/*'), '');
    assert.deepEqual((await manager.list()).worktrees, []);
    assert.equal(git(checkout, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, 1);
  });

  it('notices a worktree whose folder was deleted by hand, and cleans it up keeping a branch that holds commits', async () => {
    const { checkout, manager } = setup();
    const empty = await manager.create({ checkout, name: 'empty' });
    const worked = await manager.create({ checkout, name: 'worked' });
    writeTree(worked.folder, { 'a.txt': 'work\n' });
    git(worked.folder, 'commit', '-qam', 'work');
    for (const record of [empty, worked]) fs.rmSync(record.folder, { recursive: true, force: true });
    assert.equal((await manager.health(empty)).kind, 'folder-missing');
    assert.deepEqual(await manager.cleanUpMissing(empty), { name: 'empty', branch: 'evergreen/empty', branchKept: false, commits: 0 });
    assert.deepEqual(await manager.cleanUpMissing(worked), { name: 'worked', branch: 'evergreen/worked', branchKept: true, commits: 1 });
    assert.equal(git(checkout, 'branch', '--list', 'evergreen/*').trim(), 'evergreen/worked');
    assert.equal(git(checkout, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, 1, 'Git forgot both folders');
    assert.deepEqual((await manager.list()).worktrees, []);
  });

  it('lists the other records when one is damaged, naming the damaged file', async () => {
    const { checkout, manager } = setup();
    const record = await manager.create({ checkout, name: 'fine' });
    const damaged = path.join(path.dirname(record.folder), 'bad.json');
    fs.writeFileSync(damaged, '{"version": 1, "name": ');
    const { worktrees, problems } = await manager.list();
    assert.deepEqual(worktrees.map((item) => item.name), ['fine']);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.file, damaged);
    assert.equal(problems[0]!.problem.kind, 'worktree.recordNotJson');
    assert.match(said(problems[0]!.problem), /^it is not JSON \(/);
  });
});

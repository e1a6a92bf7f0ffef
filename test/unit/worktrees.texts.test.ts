/**
 * What the worktrees tell the user, as kinds with data (src/core/texts/worktrees.ts), read in the
 * CLI's words (English) and, with a bundle configured, in the extension's language. The kinds that
 * need Git are read in test/system/worktrees.test.ts; these need none.
 */
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { userText } from '../../src/core/texts/userText';
import { WorktreeError, WorktreeManager, type WorktreeRecord } from '../../src/core/worktrees/manager';
import { MAX_NAME_LENGTH, nameProblem } from '../../src/core/worktrees/names';
import { worktreeFailure } from '../../src/frontends/backgroundChats';
import { configureWords } from '../../src/frontends/words';
import { readAllRecords, readRecord } from '../../src/core/worktrees/records';
import { said } from '../support/said';
import { tempDirs } from '../support/tempDirs';
import * as fs from 'node:fs';

const gone = path.join(os.tmpdir(), 'evergreen-no-such-folder', 'nested');
const record: WorktreeRecord = {
  version: 1,
  name: 'fix-login',
  branch: 'evergreen/fix-login',
  folder: path.join(gone, 'fix-login'),
  checkout: path.join(gone, 'app'),
  commonDir: path.join(gone, 'app', '.git'),
  adminDir: path.join(gone, 'app', '.git', 'worktrees', 'fix-login'),
  base: 'a'.repeat(40),
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('worktrees: what the user is told', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('says why a name cannot name a worktree, in a whole sentence that names it', () => {
    assert.equal(nameProblem('fix-login'), undefined);
    assert.equal(said(nameProblem('')!), 'Cannot name a worktree "": the name is empty.');
    assert.equal(said(nameProblem('x'.repeat(MAX_NAME_LENGTH + 1))!), `Cannot name a worktree "${'x'.repeat(MAX_NAME_LENGTH + 1)}": the name is longer than ${MAX_NAME_LENGTH} characters.`);
    assert.equal(said(nameProblem('../up')!), 'Cannot name a worktree "../up": "../up" may hold only letters, digits, "-" and "_", and must start with a letter or digit.');
  });

  it('says a relative worktrees folder is refused, and the error logs its kind and data', () => {
    let caught: unknown;
    try {
      new WorktreeManager({ storageRoot: gone, folder: 'relative/place' });
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof WorktreeError && caught.kind === 'folder', String(caught));
    assert.equal(said(caught.said), 'The worktrees folder must be an absolute path, got "relative/place". Choose an absolute folder, or leave it empty.');
    assert.equal(worktreeFailure(caught), said(caught.said));
    assert.match(caught.message, /^worktree\.folderNotAbsolute .*relative\/place/);
  });

  it('says why a worktree cannot be used: its repository gone, its folder deleted', async () => {
    const health = await new WorktreeManager({ storageRoot: gone }).health(record);
    assert.equal(health.kind, 'repository-missing');
    assert.equal(said(health.reason), `The repository of the worktree fix-login (${record.commonDir}) is gone.`);

    // The repository is there (any folder that exists stands for it), the worktree's folder is not.
    const deleted = await new WorktreeManager({ storageRoot: gone }).health({ ...record, commonDir: os.tmpdir() });
    assert.equal(deleted.kind, 'folder-missing');
    assert.equal(said(deleted.reason), `The worktree's folder ${record.folder} was deleted; its branch evergreen/fix-login is still in the repository.`);
  });

  it('words a kind in the extension language when its bundle has it, its data in place', () => {
    const text = userText('worktree.folderDeleted', { folder: '/w/fix-login', branch: 'evergreen/fix-login' });
    assert.equal(said(text), "The worktree's folder /w/fix-login was deleted; its branch evergreen/fix-login is still in the repository.");
    configureWords({
      locale: 'fr',
      voice: 'extension',
      bundle: { "The worktree's folder {folder} was deleted; its branch {branch} is still in the repository.": 'Le dossier {folder} du worktree a été supprimé ; sa branche {branch} reste dans le dépôt.' },
    });
    assert.equal(said(text), 'Le dossier /w/fix-login du worktree a été supprimé ; sa branche evergreen/fix-login reste dans le dépôt.');
  });

  it("says why a record is skipped: it cannot be read, it is not JSON, or the schema's own words", async () => {
    const dirs = tempDirs();
    try {
      const root = dirs.make('evergreen-records-');
      const repository = path.join(root, 'repo-key');
      fs.mkdirSync(path.join(repository, 'folder.json'), { recursive: true });
      fs.writeFileSync(path.join(repository, 'torn.json'), '{"version": 1, "name": ');
      fs.writeFileSync(path.join(repository, 'old.json'), JSON.stringify({ ...record, version: 2 }));

      const unreadable = await readRecord(path.join(repository, 'folder.json'));
      assert.equal(unreadable?.kind, 'problem');
      assert.equal(unreadable.problem.kind, 'worktree.recordUnreadable');
      assert.match(said(unreadable.problem), /^it cannot be read: EISDIR\b/);

      // The reader lists files only; each other record says what is wrong with it.
      const reads = await readAllRecords(root);
      assert.deepEqual(reads.map((read) => [path.basename(read.file), read.kind === 'problem' ? read.problem.kind : read.kind]), [['old.json', 'verbatim'], ['torn.json', 'worktree.recordNotJson']]);
      const torn = reads[1]!;
      assert.ok(torn.kind === 'problem');
      assert.match(said(torn.problem), /^it is not JSON \(.+\)$/);
    } finally {
      dirs.clean();
    }
  });

  it('shows any other failure as its own message', () => {
    assert.equal(worktreeFailure(new Error('disk full')), 'disk full');
  });
});

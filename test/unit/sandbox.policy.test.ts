// The sandbox's read-only set is derived from protectedLocations() (one list of what is protected
// and why, shared with the write tools); policy.ts adds only how bubblewrap holds it. Checked on
// a disk held in memory: every protected entry that exists is read-only unless a reason in
// policy.ts excludes it, Git stays usable, nothing is searched below the stated depth.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'mocha';
import {
  buildSandboxPolicy,
  GIT_READ_ONLY,
  GIT_WATCHED,
  NOT_SEARCHED,
  PATTERN_FOLDER_DEPTH,
  WORKSPACE_CREATE_PROTECTED,
  type DirEntry,
  type SandboxPolicy,
  type SandboxPolicyInput,
} from '../../src/core/sandbox/policy';
import { protectedLocations, protectedWriteReasonAt, type ProtectedLocation } from '../../src/core/approvals/protectedPaths';
import { isInside } from '../../src/core/workspace/workspace';

type Kind = 'file' | 'dir' | 'link';

/** A disk as a map of absolute paths; adding a path adds the folders above it. */
class FakeDisk {
  private readonly kinds = new Map<string, Kind>([['/', 'dir']]);
  readonly listed: string[] = [];

  add(absolutePath: string, kind: Kind = 'file'): string {
    for (let dir = path.dirname(absolutePath); !this.kinds.has(dir); dir = path.dirname(dir)) this.kinds.set(dir, 'dir');
    if (this.kinds.get(absolutePath) !== 'dir') this.kinds.set(absolutePath, kind);
    return absolutePath;
  }

  readonly exists = (absolutePath: string): boolean => this.kinds.has(absolutePath);

  readonly listDir = (dir: string): DirEntry[] => {
    this.listed.push(dir);
    if (this.kinds.get(dir) !== 'dir') return [];
    return [...this.kinds].filter(([p]) => p !== dir && path.dirname(p) === dir).map(([p, kind]) => ({ name: path.basename(p), isDirectory: kind === 'dir' }));
  };
}

const WS = '/work/ws';
const HOME = '/home/me';
const STORAGE = '/home/me/.local/share/evergreen';
const SESSION = `${STORAGE}/sessions/this-one`;

function policyFor(disk: FakeDisk, overrides: Partial<SandboxPolicyInput> = {}): SandboxPolicy {
  return buildSandboxPolicy({
    workspaceRoot: WS,
    home: HOME,
    privateTmp: '/tmp/evergreen-sandbox-1',
    storageRoot: STORAGE,
    sessionDir: SESSION,
    allowedDomains: [],
    exists: disk.exists,
    listDir: disk.listDir,
    ...overrides,
  });
}

/** What a command in the sandbox may write: inside an allowed root and not at or below a denied path. */
function writable(policy: SandboxPolicy, target: string): boolean {
  return policy.allowWrite.some((root) => isInside(target, root)) && !policy.denyWrite.some((denied) => isInside(target, denied));
}

/** A path a protected pattern matches: wildcards filled in, the anchoring dropped. */
function sampleOf(pattern: string): string {
  return pattern
    .replace(/^\//, '')
    .replace(/^\*\*\//, '')
    .replace(/[*?]/g, 'x');
}

/** A Git directory as git init leaves it. */
function addGitDir(disk: FakeDisk, gitDir: string): void {
  for (const name of ['config', 'HEAD', 'index', 'hooks/pre-commit.sample', 'info/exclude', 'objects/ab/cdef', 'refs/heads/main', 'logs/HEAD']) disk.add(path.join(gitDir, name));
}

const asPattern = (location: ProtectedLocation) => (location.kind === 'pattern' ? location : undefined);

describe('sandbox policy: the read-only set is protectedLocations()', () => {
  for (const [label, workspaceRoot] of [
    ['a project folder', WS],
    ['a workspace opened on the home folder', HOME],
  ] as const) {
    it(`keeps every protected entry that exists read-only, at the root and one folder down (${label})`, () => {
      const disk = new FakeDisk();
      const scope = { workspaceRoot, home: HOME, sessionStorage: STORAGE };
      const locations = protectedLocations(scope);
      const samples: Array<{ target: string; why: string }> = [];
      for (const location of locations) {
        if (location.kind === 'path') {
          samples.push({ target: disk.add(location.path), why: location.why });
          continue;
        }
        const sample = sampleOf(location.pattern);
        // A Git directory is checked on its own below: most of it must stay writable.
        if (sample === '.git') continue;
        // Left to the write tools, with the reason in the list itself (npm install writes node_modules' bins).
        if (location.notInSandbox !== undefined) {
          assert.ok(location.notInSandbox.length > 20, `${location.pattern}: no reason the sandbox leaves it`);
          continue;
        }
        const anyDepth = !location.pattern.startsWith('/');
        const roots = anyDepth ? [location.root, path.join(location.root, 'pkg')] : [location.root];
        for (const root of roots) samples.push({ target: disk.add(path.join(root, sample)), why: location.why });
      }
      disk.add(path.join(SESSION, 'meta.json'));
      const policy = policyFor(disk, { workspaceRoot });
      assert.ok(policy.allowWrite.includes(workspaceRoot));
      // The home entries are only inside a writable root in the second case, where this is no formality.
      if (workspaceRoot === HOME) assert.ok(samples.some(({ target }) => target === path.join(HOME, '.bashrc')));
      for (const { target, why } of samples) assert.equal(writable(policy, target), false, `${target} (${why}) is writable in the sandbox`);
      assert.equal(writable(policy, path.join(SESSION, 'meta.json')), false);
      // Ordinary files next to them stay writable: the checks above can fail.
      for (const ordinary of ['src/main.ts', 'pkg/src/index.ts', 'docs/package.md']) assert.equal(writable(policy, disk.add(path.join(workspaceRoot, ordinary))), true, ordinary);
    });
  }

  it('matches names case-insensitively, as the write tools do', () => {
    const disk = new FakeDisk();
    const targets = ['MAKEFILE', 'Package.JSON', 'sub/.ENVRC', '.GitHub/Workflows/ci.yml'].map((name) => disk.add(path.join(WS, name)));
    const policy = policyFor(disk);
    for (const target of targets) assert.equal(writable(policy, target), false, target);
  });

  it('does not search deeper than one folder down, nor node_modules and .git, and says why in code', () => {
    assert.equal(PATTERN_FOLDER_DEPTH, 1);
    const disk = new FakeDisk();
    const deep = disk.add(path.join(WS, 'packages/app/package.json'));
    const installed = disk.add(path.join(WS, 'node_modules/left-pad/package.json'));
    const hoisted = disk.add(path.join(WS, 'node_modules/Makefile'));
    addGitDir(disk, path.join(WS, '.git'));
    const policy = policyFor(disk);
    // Documented gaps (PATTERN_FOLDER_DEPTH, NOT_SEARCHED): npm install must rewrite installed package.json files.
    assert.equal(writable(policy, deep), true);
    assert.equal(writable(policy, installed), true);
    assert.equal(writable(policy, hoisted), true);
    for (const name of ['node_modules', '.git']) {
      assert.ok((NOT_SEARCHED[name] ?? '').length > 20, `${name} has no reason`);
      assert.equal(disk.listed.includes(path.join(WS, name)), false, `${name} was listed`);
    }
  });

  it('keeps Git usable: config, hooks and info read-only; objects, refs, logs, index, HEAD and locks writable', () => {
    const disk = new FakeDisk();
    const gitDir = path.join(WS, '.git');
    addGitDir(disk, gitDir);
    addGitDir(disk, path.join(WS, 'vendored/.git'));
    const policy = policyFor(disk);
    for (const dir of [gitDir, path.join(WS, 'vendored/.git')]) {
      for (const name of GIT_READ_ONLY) assert.equal(writable(policy, path.join(dir, name)), false, `${dir}/${name}`);
      assert.equal(writable(policy, path.join(dir, 'hooks/pre-commit')), false);
      for (const name of ['objects/ab/cdef', 'objects/12/3456', 'refs/heads/main', 'refs/stash', 'logs/HEAD', 'index', 'index.lock', 'HEAD', 'HEAD.lock', 'ORIG_HEAD', 'COMMIT_EDITMSG']) {
        assert.equal(writable(policy, path.join(dir, name)), true, `${dir}/${name}`);
      }
    }
    // The redirect files are read-only only where they exist: a placeholder would break Git.
    for (const name of GIT_WATCHED) assert.equal(policy.denyWrite.includes(path.join(gitDir, name)), false);
    for (const name of GIT_WATCHED) disk.add(path.join(gitDir, name));
    const withRedirects = policyFor(disk);
    for (const name of GIT_WATCHED) assert.equal(writable(withRedirects, path.join(gitDir, name)), false);
  });

  it('protects a .git file as a whole, and keeps .git uncreatable when there is no repository', () => {
    const worktree = new FakeDisk();
    worktree.add(path.join(WS, '.git'));
    assert.equal(writable(policyFor(worktree), path.join(WS, '.git')), false);
    const none = policyFor(new FakeDisk());
    assert.ok(none.denyWrite.includes(path.join(WS, '.git')));
    assert.equal(writable(none, path.join(WS, '.git/config')), false);
  });

  it('protects a small set before it exists, each one from protectedLocations, and nothing else that is missing', () => {
    const workspacePatterns = protectedLocations({ workspaceRoot: WS, home: HOME })
      .map(asPattern)
      .filter((location) => location?.root === WS)
      .map((location) => location?.pattern);
    for (const name of WORKSPACE_CREATE_PROTECTED) assert.ok(workspacePatterns.includes(name), `${name} is protected by the sandbox alone`);
    const disk = new FakeDisk();
    addGitDir(disk, path.join(WS, '.git'));
    const policy = policyFor(disk);
    const missing = policy.denyWrite.filter((denied) => isInside(denied, WS) && !disk.exists(denied));
    // GIT_READ_ONLY folders Git does without (modules/, worktrees/) are held as empty placeholders, which Git ignores.
    const missingGitParts = GIT_READ_ONLY.map((name) => path.join(WS, '.git', name)).filter((p) => !disk.exists(p));
    const expected = [...WORKSPACE_CREATE_PROTECTED.map((name) => path.join(WS, name)), ...missingGitParts];
    assert.deepEqual(missing.sort(), expected.sort());
    // Missing home entries get no placeholder in the home folder.
    assert.equal(policy.denyWrite.some((denied) => isInside(denied, HOME) && !isInside(denied, STORAGE) && !disk.exists(denied)), false);
  });

  it('with the workspace overlay, holds nothing that is missing in the workspace (the overlay is checked after the command instead)', () => {
    const disk = new FakeDisk();
    addGitDir(disk, path.join(WS, '.git'));
    disk.add(path.join(WS, 'sub', '.git', 'HEAD'));
    const overlayParent = '/var/tmp/evergreen-overlays-1000';
    const policy = policyFor(disk, { holdsNewPaths: 'after', hiddenFolders: [overlayParent], runtimeHome: '/home/real' });
    assert.deepEqual(policy.denyWrite.filter((denied) => isInside(denied, WS) && !disk.exists(denied)), []);
    // What exists is read-only as before: the root repository's config and hooks.
    for (const name of GIT_READ_ONLY) if (disk.exists(path.join(WS, '.git', name))) assert.ok(policy.denyWrite.includes(path.join(WS, '.git', name)), name);
    // The overlays' folders are neither readable nor writable, and the runtime's default writable home folders are hidden.
    assert.ok(policy.denyWrite.includes(overlayParent) && policy.denyRead.includes(overlayParent));
    assert.ok(policy.denyRead.includes('/home/real/.npm/_logs') && policy.denyRead.includes('/home/real/.claude/debug'));
    // Without a repository, .git is not held either: a new one's config is checked like any other.
    const bare = new FakeDisk();
    bare.add(path.join(WS, 'a.txt'));
    assert.equal(policyFor(bare, { holdsNewPaths: 'after' }).denyWrite.includes(path.join(WS, '.git')), false);
    assert.equal(policyFor(bare).denyWrite.includes(path.join(WS, '.git')), true);
  });

  it('holds a protected link itself (srt follows it to what it points at), and does not search through a linked folder', () => {
    const disk = new FakeDisk();
    const link = disk.add(path.join(WS, 'package.json'), 'link');
    disk.add(path.join(WS, 'shared'), 'link');
    const policy = policyFor(disk);
    assert.ok(policy.denyWrite.includes(link));
    assert.equal(disk.listed.includes(path.join(WS, 'shared')), false);
  });

  it('hides the storage root from reads except this session, which is readable and not writable', () => {
    const disk = new FakeDisk();
    disk.add(path.join(SESSION, 'meta.json'));
    disk.add(path.join(STORAGE, 'sessions/other/transcript.jsonl'));
    const policy = policyFor(disk);
    assert.ok(policy.denyRead.includes(STORAGE));
    assert.deepEqual(policy.allowRead, [SESSION]);
    assert.ok(policy.denyRead.includes(path.join(HOME, '.ssh')));
    assert.equal(writable(policy, path.join(SESSION, 'meta.json')), false);
    // The session folder is bound back for reading, so it is denied for writing on its own.
    assert.ok(policy.denyWrite.includes(SESSION));
    // Storage inside the workspace stays read-only too.
    const inWorkspace = policyFor(disk, { storageRoot: path.join(WS, '.store'), sessionDir: path.join(WS, '.store/s1') });
    assert.equal(writable(inWorkspace, path.join(WS, '.store/sessions/other/transcript.jsonl')), false);
    assert.equal(writable(inWorkspace, path.join(WS, 'notes.txt')), true);
  });

  it('normalizes the allowed domains: trimmed, lower-case, no empties, no repeats', () => {
    const policy = policyFor(new FakeDisk(), { allowedDomains: [' Registry.NPMjs.org ', '', 'registry.npmjs.org', '*.Example.com', '   '] });
    assert.deepEqual(policy.allowedDomains, ['registry.npmjs.org', '*.example.com']);
  });
});

describe("sandbox policy: a chat's Git worktree in Evergreen's storage (issue 31)", () => {
  const COMMON = '/work/app/.git';
  const ADMIN = `${COMMON}/worktrees/task`;
  const WORKTREE = `${STORAGE}/worktrees/app-1234abcd/task`;
  const access = { commonDir: COMMON, adminDir: ADMIN, branch: 'evergreen/task' };

  function worktreeDisk(): FakeDisk {
    const disk = new FakeDisk();
    addGitDir(disk, COMMON);
    for (const name of ['refs/heads/evergreen/task', 'refs/heads/evergreen/other', 'logs/refs/heads/evergreen/task', 'logs/refs/heads/evergreen/other', 'objects/info/packs', 'worktrees/task/commondir', 'worktrees/task/gitdir', 'worktrees/task/config.worktree', 'worktrees/task/HEAD', 'worktrees/other/HEAD']) disk.add(path.join(COMMON, name));
    disk.add(`${WORKTREE}/.git`);
    disk.add(`${WORKTREE}/src/a.ts`);
    disk.add(`${STORAGE}/worktrees/app-1234abcd/task.json`);
    return disk;
  }

  it("lets Git write its objects, the chat's branch and the worktree's own folder, and nothing that configures it", () => {
    const policy = policyFor(worktreeDisk(), { workspaceRoot: WORKTREE, worktree: access });
    for (const target of [`${WORKTREE}/src/a.ts`, `${WORKTREE}/new.txt`, `${COMMON}/objects/ab/0123`, `${COMMON}/refs/heads/evergreen/task`, `${COMMON}/refs/heads/evergreen/task.lock`, `${COMMON}/logs/refs/heads/evergreen/task`, `${ADMIN}/HEAD`, `${ADMIN}/index`]) {
      assert.ok(writable(policy, target), `${target} must be writable`);
    }
    for (const target of [
      `${COMMON}/config`,
      `${COMMON}/hooks/pre-commit`,
      `${COMMON}/objects/info/alternates`,
      `${COMMON}/refs/heads/main`,
      `${COMMON}/refs/heads/evergreen/other`,
      `${COMMON}/logs/refs/heads/evergreen/other`,
      `${COMMON}/refs/tags/v1`,
      `${COMMON}/packed-refs`,
      `${COMMON}/worktrees/other/HEAD`,
      `${ADMIN}/commondir`,
      `${ADMIN}/gitdir`,
      `${ADMIN}/config.worktree`,
      `${STORAGE}/worktrees/app-1234abcd/task.json`,
      `${WORKTREE}/.git`,
      `${SESSION}/transcript.jsonl`,
      '/work/app/src/a.ts',
    ]) {
      assert.ok(!writable(policy, target), `${target} must be read-only`);
    }
    // The workspace's own rules still hold inside the worktree, and the storage stays hidden.
    assert.ok(policy.denyWrite.includes(`${WORKTREE}/.vscode`));
    assert.ok(policy.denyRead.includes(STORAGE));
  });

  it('keeps a folder in the storage read-only when it is not declared a worktree', () => {
    const policy = policyFor(worktreeDisk(), { workspaceRoot: WORKTREE });
    assert.ok(!writable(policy, `${WORKTREE}/src/a.ts`));
    assert.ok(!writable(policy, `${COMMON}/refs/heads/evergreen/task`));
  });
});

describe("protected writes in a chat's worktree (issue 31)", () => {
  const worktree = `${STORAGE}/worktrees/app-1234abcd/task`;
  const scope = { workspaceRoot: worktree, home: HOME, sessionStorage: STORAGE };

  it("asks for nothing in the chat's own worktree but what the workspace rules protect, and still protects the storage around it", async () => {
    assert.equal(await protectedWriteReasonAt(`${worktree}/src/a.ts`, scope), 'sessionStorage', 'without the worktree flag the storage protects it');
    const inWorktree = { ...scope, worktree };
    assert.equal(await protectedWriteReasonAt(`${worktree}/src/a.ts`, inWorktree), undefined);
    assert.ok(await protectedWriteReasonAt(`${worktree}/.vscode/settings.json`, inWorktree));
    assert.ok(await protectedWriteReasonAt(`${STORAGE}/worktrees/app-1234abcd/task.json`, inWorktree));
    assert.ok(await protectedWriteReasonAt(`${STORAGE}/sessions/other/meta.json`, inWorktree));
    assert.ok(await protectedWriteReasonAt(`${HOME}/.bashrc`, inWorktree));
  });
});

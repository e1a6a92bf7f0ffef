/**
 * Snapshots of the workspace in a shadow Git repository inside the session's storage (issue 17),
 * for changes no tool reports (shell commands). Never the user's own `.git`: the repository lives
 * at <session>/checkpoints/shadow.git and only reads the workspace as its work tree.
 *
 * Isolation: no system or global Git config is read (a user's hooks, filters, fsmonitor or
 * credential helpers must not run), every inherited GIT_* variable is dropped (a terminal's
 * GIT_DIR must not redirect us), and the repository is created without templates (no hooks).
 * `.gitignore` files in the workspace are honored as Git does; files over a size limit, nested
 * repositories and ignored files are not snapshotted, and each snapshot says which were skipped.
 * Snapshots are trees kept alive by refs (refs/evergreen/<name>); nothing is ever committed.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { GitError, nulList, runGit, type GitRun } from '../git';

/** Files larger than this are not snapshotted (one build artifact must not fill the user's disk). */
export const MAX_SNAPSHOT_FILE_BYTES = 10 * 1024 * 1024;
/** A workspace with more new files than this in one snapshot (an unignored node_modules) is not snapshotted. */
export const MAX_SNAPSHOT_NEW_FILES = 50_000;

export class ShadowGitError extends Error {}

const gitProbes = new Map<string, Promise<boolean>>();

export interface Snapshot {
  /** The tree's object id. */
  tree: string;
  /** Workspace-relative paths ('/'-separated) left out for their size, with their size. */
  skipped: { path: string; bytes: number }[];
}

export interface TreeEntry {
  /** Git's mode: 100644, 100755 or 120000 (symlink); 160000 is a nested repository. */
  mode: string;
  blob: string;
}

export type TreeChange = { path: string; status: 'added' | 'deleted' | 'modified' };

/** Settings of the shadow repository: byte-exact snapshots, no background work, no hooks. */
const REPO_CONFIG: [string, string][] = [
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.symlinks', 'true'],
  ['core.quotepath', 'false'],
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', process.platform === 'win32' ? 'NUL' : '/dev/null'],
  ['gc.auto', '0'],
  ['advice.addEmbeddedRepo', 'false'],
  ['user.name', 'Evergreen'],
  ['user.email', 'checkpoints@example.invalid'],
];

/** Path glob characters escaped, so a file name is matched only as itself in a pathspec. */
function literal(relative: string): string {
  return `:(literal)${relative}`;
}

export class ShadowGit {
  private ready: Promise<void> | undefined;

  /**
   * @param gitDir where the shadow repository lives (created on first use)
   * @param workTree the workspace root (a real path)
   */
  constructor(
    readonly gitDir: string,
    readonly workTree: string,
    private readonly gitPath = 'git',
  ) {}

  /** Whether `git` can be run at all (a missing Git leaves only the tools' own records); asked once per process, not at every session start. */
  static available(gitPath = 'git'): Promise<boolean> {
    let known = gitProbes.get(gitPath);
    if (!known) {
      known = runGit(['--version'], { gitPath, allowFailure: true }).then(
        (run) => run.code === 0,
        () => false,
      );
      gitProbes.set(gitPath, known);
    }
    return known;
  }

  /** Git isolated as every Git Evergreen runs (core/git.ts), on the shadow repository with the workspace as its work tree. */
  private async git(args: string[], input?: Buffer | string, allowFailure = false): Promise<GitRun> {
    try {
      return await runGit(args, { env: { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.workTree }, ...(input === undefined ? {} : { input }), cwd: this.workTree, allowFailure, gitPath: this.gitPath });
    } catch (error) {
      throw error instanceof GitError ? new ShadowGitError(error.message) : error;
    }
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await fsp.mkdir(this.gitDir, { recursive: true });
      const head = await fsp.stat(path.join(this.gitDir, 'HEAD')).catch(() => undefined);
      if (head) return;
      await this.git(['init', '--quiet', '--template=', '--initial-branch=evergreen']);
      // Written at once rather than by ten `git config` runs (a checkpoint is taken on every turn).
      const sections = new Map<string, string[]>();
      for (const [key, value] of REPO_CONFIG) {
        const [section, name] = key.split('.') as [string, string];
        sections.set(section, [...(sections.get(section) ?? []), `\t${name} = ${value}`]);
      }
      await fsp.appendFile(path.join(this.gitDir, 'config'), [...sections].map(([section, lines]) => `[${section}]\n${lines.join('\n')}\n`).join(''));
    })();
    return this.ready;
  }

  /** Snapshots the workspace as it is now under `name` (refs/evergreen/<name>). */
  async snapshot(name: string): Promise<Snapshot> {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new ShadowGitError(`invalid snapshot name "${name}"`);
    await this.init();
    // -t tags each path: "? " not snapshotted yet, "C " changed since the last snapshot.
    const tagged = nulList((await this.git(['ls-files', '-z', '-t', '--others', '--modified', '--exclude-standard'])).stdout);
    const changed = tagged.map((item) => item.slice(2));
    const untracked = tagged.filter((item) => item.startsWith('? ')).length;
    if (untracked > MAX_SNAPSHOT_NEW_FILES) {
      throw new ShadowGitError(
        `the workspace has ${untracked.toLocaleString('en-US')} files that are neither ignored nor snapshotted yet (limit ${MAX_SNAPSHOT_NEW_FILES.toLocaleString('en-US')}); add the generated folders to .gitignore`,
      );
    }
    const skipped: Snapshot['skipped'] = [];
    for (const relative of new Set(changed)) {
      const stat = await fsp.lstat(path.join(this.workTree, relative)).catch(() => undefined);
      if (stat?.isFile() && stat.size > MAX_SNAPSHOT_FILE_BYTES) skipped.push({ path: relative, bytes: stat.size });
    }
    const pathspecs = ['.', ...skipped.map((file) => `:(exclude,literal)${file.path}`)];
    await this.git(['add', '--all', '--pathspec-from-file=-', '--pathspec-file-nul'], pathspecs.join('\0'));
    // A file that grew past the limit since the last snapshot leaves the index, so no snapshot holds a stale copy of it.
    if (skipped.length > 0) await this.git(['rm', '--cached', '--quiet', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], skipped.map((file) => literal(file.path)).join('\0'));
    const tree = (await this.git(['write-tree'])).stdout.toString('utf8').trim();
    await this.git(['update-ref', `refs/evergreen/${name}`, tree]);
    return { tree, skipped };
  }

  /** The files that differ between two snapshots' trees (renames as a deletion and an addition). */
  async diff(fromTree: string, toTree: string): Promise<TreeChange[]> {
    await this.init();
    const fields = nulList((await this.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', fromTree, toTree])).stdout);
    const changes: TreeChange[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const status = fields[index]!;
      changes.push({ path: fields[index + 1]!, status: status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified' });
    }
    return changes;
  }

  /** What a snapshot holds at a path, or undefined if the path was absent. */
  async entry(tree: string, relative: string): Promise<TreeEntry | undefined> {
    await this.init();
    const out = (await this.git(['ls-tree', '-z', tree, '--', literal(relative)])).stdout.toString('utf8');
    const match = /^(\d{6}) \w+ ([0-9a-f]+)\t/.exec(out);
    return match ? { mode: match[1]!, blob: match[2]! } : undefined;
  }

  /** A blob's exact bytes. */
  async blob(id: string): Promise<Buffer> {
    await this.init();
    if (!/^[0-9a-f]{40,64}$/.test(id)) throw new ShadowGitError(`invalid object id "${id}"`);
    return (await this.git(['cat-file', 'blob', id])).stdout;
  }

  /** Whether the snapshot's tree is still in the repository (storage can be deleted under us). */
  async hasTree(tree: string): Promise<boolean> {
    await this.init();
    return (await this.git(['cat-file', '-e', `${tree}^{tree}`], undefined, true)).code === 0;
  }
}

/**
 * The chats' Git worktrees (issue 31): each background chat works in its own worktree, on a new
 * branch `evergreen/<name>` from the checkout's HEAD, in a folder outside the user's checkout
 * (under Evergreen's storage unless a front end names another folder). Making one writes
 * only what `git worktree add -b` writes in the main Git directory (the branch, the worktree's own
 * folder there); the user's files, index and HEAD are never touched.
 *
 * Git runs isolated (core/git.ts: no system or global config, no hooks, no fsmonitor, no
 * inherited GIT_*). It reads the repository's own config, which Git cannot be told to skip and
 * which says what the repository is. Two consequences: a filter configured only in the user's
 * global config (Git LFS's, usually) does not run when the worktree is checked out, so such files
 * appear there as their pointers; and hooks (post-checkout) do not run.
 */
import { existsSync, promises as fsp, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { GitError, gitText, runGit } from '../git';
import { errorMessage, silentLogger, type Logger } from '../logger';
import { userText, userTextForLog, type UserText } from '../texts/userText';
import type { WorktreeGitAccess } from '../sandbox/worktreeGit';
import { isInside } from '../workspace/workspace';
import { BRANCH_PREFIX, MAX_NAME_SUFFIX, nameFromTask, nameProblem, numberedName, repositoryKey } from './names';
import { inspectRepository, type RepositoryState } from './repository';
import { readAllRecords, readRecord, RECORD_SUFFIX, writeRecord, type WorktreeRecord } from './records';

export type { WorktreeRecord } from './records';

export type WorktreeErrorKind =
  /** No worktree can be made here (not a repository, no commit, no Git): offer a normal chat. */
  | 'unavailable'
  /** The name given is not usable, or taken. */
  | 'name'
  /** The configured folder cannot hold worktrees. */
  | 'folder'
  /** What a discard was confirmed for is no longer all it would lose. */
  | 'changed'
  /** Git refused; its words are in the message. */
  | 'git';

/**
 * A worktree that cannot be made or used, with what the user is told (`said`, worded by the front
 * end); the message is that text for the log (its kind and data: the core has no words).
 */
export class WorktreeError extends Error {
  override name = 'WorktreeError';
  constructor(
    readonly kind: WorktreeErrorKind,
    readonly said: UserText,
    /** For `unavailable`: what the folder is to Git. */
    readonly repository?: Exclude<RepositoryState, { kind: 'repository' }>,
  ) {
    super(userTextForLog(said));
  }
}

/** Whether a recorded worktree can be used: its folder and repository still there, and the folder still that worktree. */
export type WorktreeHealth =
  | { kind: 'ready' }
  /** Deleted by hand: cleanUpMissing prunes what Git kept of it. */
  | { kind: 'folder-missing'; reason: UserText }
  | { kind: 'repository-missing'; reason: UserText }
  /** The folder is there but is no longer this worktree (its `.git` file names another). */
  | { kind: 'broken'; reason: UserText };

export interface WorktreeManagerOptions {
  /** Evergreen's storage root: the records live in its `worktrees` folder, and so do the worktrees by default. */
  storageRoot: string;
  /** Where worktree folders go instead (absolute; empty or absent: the storage). */
  folder?: string | undefined;
  logger?: Logger;
}

export interface CreateWorktreeOptions {
  /** A folder in the user's checkout (the workspace). */
  checkout: string;
  /** The short name (`--worktree NAME`); absent: made from the task. A given name is never changed. */
  name?: string | undefined;
  task?: string | undefined;
  /**
   * A branch to start from instead of the checkout's HEAD (a CI run's fetched branch): the chat's
   * branch starts at its tip, and its base, what a review compares with, is where it forked from HEAD.
   */
  startPoint?: string | undefined;
}

/** What cleaning up a worktree whose folder was deleted did. */
export interface CleanUpResult {
  name: string;
  branch: string;
  /** The branch stays when it holds commits of its own (they are only there); deleted otherwise. */
  branchKept: boolean;
  /** Its commits since the branch point. */
  commits: number;
}

/**
 * How Evergreen runs Git in a chat's worktree: on the worktree's own folder in the main repository
 * named outright, never through the worktree's `.git` file, which the chat's commands could point
 * at a Git directory of their own (with a filter or other configuration that runs a command).
 */
export function worktreeGitOptions(record: WorktreeRecord, env: Readonly<Record<string, string>> = {}): { cwd: string; env: Record<string, string> } {
  return { cwd: record.folder, env: { GIT_DIR: record.adminDir, GIT_WORK_TREE: record.folder, ...env } };
}

/** The sandbox's view of a worktree: what its Git may write in the main repository. */
export function gitAccessOf(record: WorktreeRecord): WorktreeGitAccess {
  return { commonDir: record.commonDir, adminDir: record.adminDir, branch: record.branch };
}

export class WorktreeManager {
  /** `<storage>/worktrees`: one folder per repository, holding its records (and by default its worktrees). */
  readonly recordsRoot: string;
  private readonly folderRoot: string;
  private readonly logger: Logger;

  constructor(options: WorktreeManagerOptions) {
    this.recordsRoot = path.join(path.resolve(options.storageRoot), 'worktrees');
    const folder = options.folder?.trim() ?? '';
    if (folder !== '' && !path.isAbsolute(folder)) throw new WorktreeError('folder', userText('worktree.folderNotAbsolute', { folder }));
    this.folderRoot = folder === '' ? this.recordsRoot : path.resolve(folder);
    this.logger = options.logger ?? silentLogger;
  }

  private recordFile(checkoutTop: string, name: string): string {
    return path.join(this.recordsRoot, repositoryKey(checkoutTop), `${name}${RECORD_SUFFIX}`);
  }

  /**
   * Makes a worktree on a new branch from the checkout's HEAD. Throws WorktreeError: `unavailable`
   * (not a repository, no commit: the front end offers a normal chat), `name`, `folder` or `git`.
   */
  async create(options: CreateWorktreeOptions): Promise<WorktreeRecord> {
    const repository = await inspectRepository(options.checkout);
    if (repository.kind !== 'repository') throw new WorktreeError('unavailable', repository.reason, repository);
    const parent = path.join(this.folderRoot, repositoryKey(repository.top));
    if (isInside(parent, repository.top)) {
      throw new WorktreeError('folder', userText('worktree.folderInsideCheckout', { folder: this.folderRoot, checkout: repository.top }));
    }
    const given = options.name?.trim();
    if (given !== undefined && given !== '') {
      const problem = nameProblem(given);
      if (problem) throw new WorktreeError('name', problem);
      const taken = await this.taken(repository, given, parent);
      if (taken) throw new WorktreeError('name', taken);
      return this.add(repository, given, parent, options);
    }
    const stem = nameFromTask(options.task ?? '');
    for (let attempt = 1; attempt <= MAX_NAME_SUFFIX; attempt++) {
      const name = numberedName(stem, attempt);
      if (await this.taken(repository, name, parent)) continue;
      return this.add(repository, name, parent, options);
    }
    throw new WorktreeError('name', userText('worktree.namesExhausted', { first: stem, last: numberedName(stem, MAX_NAME_SUFFIX) }));
  }

  /** Why `name` cannot be used in this repository (its branch, folder or record exists: what the user is told), or undefined. */
  private async taken(repository: Extract<RepositoryState, { kind: 'repository' }>, name: string, parent: string): Promise<UserText | undefined> {
    const branch = `${BRANCH_PREFIX}${name}`;
    const ref = await runGit(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repository.top, allowFailure: true });
    if (ref.code === 0) return userText('worktree.branchExists', { name, branch });
    if (existsSync(path.join(parent, name))) return userText('worktree.folderExists', { name, folder: path.join(parent, name) });
    if (existsSync(this.recordFile(repository.top, name))) return userText('worktree.recordExists', { name });
    return undefined;
  }

  private async add(repository: Extract<RepositoryState, { kind: 'repository' }>, name: string, parent: string, { task, startPoint }: CreateWorktreeOptions): Promise<WorktreeRecord> {
    const branch = `${BRANCH_PREFIX}${name}`;
    const { start, base } = await this.startOf(repository, startPoint);
    await fsp.mkdir(parent, { recursive: true });
    const target = path.join(realpathSync(parent), name);
    try {
      await runGit(['worktree', 'add', '--quiet', '-b', branch, target, start], { cwd: repository.top });
    } catch (error) {
      throw new WorktreeError('git', userText('worktree.addFailed', { folder: target, branch, error: errorMessage(error) }));
    }
    let record: WorktreeRecord;
    try {
      const adminDir = realpathSync(await gitText(['rev-parse', '--absolute-git-dir'], { cwd: target }));
      record = {
        version: 1,
        name,
        branch,
        folder: realpathSync(target),
        checkout: repository.top,
        commonDir: repository.commonDir,
        adminDir,
        base,
        ...(repository.branch ? { baseBranch: repository.branch } : {}),
        createdAt: new Date().toISOString(),
        ...(task ? { task } : {}),
      };
      await writeRecord(this.recordFile(repository.top, name), record);
    } catch (error) {
      // Without its record nothing would find the worktree again: it goes, with its branch.
      await runGit(['worktree', 'remove', '--force', target], { cwd: repository.top, allowFailure: true });
      await runGit(['branch', '-D', branch], { cwd: repository.top, allowFailure: true });
      throw new WorktreeError('git', userText('worktree.notRecorded', { folder: target, error: errorMessage(error) }));
    }
    this.logger.info(`worktrees: made ${record.folder} on ${branch} from ${repository.head.slice(0, 12)}`);
    return record;
  }

  /** The commit a new worktree starts at, and the base its changes are counted from. */
  private async startOf(repository: Extract<RepositoryState, { kind: 'repository' }>, startPoint: string | undefined): Promise<{ start: string; base: string }> {
    if (startPoint === undefined) return { start: repository.head, base: repository.head };
    // A ref name only, resolved here to a commit: nothing Git would read as an option.
    if (startPoint.startsWith('-')) throw new WorktreeError('name', userText('worktree.badStartPoint', { startPoint }));
    const start = await gitText(['rev-parse', '--verify', '--quiet', '--end-of-options', `${startPoint}^{commit}`], { cwd: repository.top }).catch(() => '');
    if (start === '') throw new WorktreeError('git', userText('worktree.noCommitAt', { startPoint, checkout: repository.top }));
    const base = await gitText(['merge-base', repository.head, start], { cwd: repository.top }).catch(() => '');
    if (base === '') throw new WorktreeError('git', userText('worktree.noSharedHistory', { startPoint }));
    return { start, base };
  }

  /** Records the chat's session on its worktree, so a resume finds the worktree by the session's id. */
  async attachSession(record: WorktreeRecord, sessionId: string): Promise<WorktreeRecord> {
    const updated = { ...record, sessionId };
    await writeRecord(this.recordFile(record.checkout, record.name), updated);
    return updated;
  }

  /** The worktree a chat's session works in, if it has one. */
  async findBySession(sessionId: string): Promise<WorktreeRecord | undefined> {
    const { worktrees } = await this.list();
    return worktrees.find((record) => record.sessionId === sessionId);
  }

  /** One worktree of the checkout by name. */
  async find(checkout: string, name: string): Promise<WorktreeRecord | undefined> {
    const read = await readRecord(this.recordFile(realpathSync(checkout), name));
    return read?.kind === 'record' ? read.record : undefined;
  }

  /** Every recorded worktree (of one checkout's repository when `checkoutTop` is given), and the records that could not be read. */
  async list(checkoutTop?: string): Promise<{ worktrees: WorktreeRecord[]; problems: { file: string; problem: UserText }[] }> {
    const reads = await readAllRecords(this.recordsRoot);
    const problems = reads.flatMap((read) => (read.kind === 'problem' ? [{ file: read.file, problem: read.problem }] : []));
    for (const problem of problems) this.logger.warn(`worktrees: the record ${problem.file} is skipped: ${userTextForLog(problem.problem)}`);
    const worktrees = reads.flatMap((read) => (read.kind === 'record' ? [read.record] : []));
    return { worktrees: checkoutTop === undefined ? worktrees : worktrees.filter((record) => record.checkout === checkoutTop), problems };
  }

  /** Whether the worktree can be used now. */
  async health(record: WorktreeRecord): Promise<WorktreeHealth> {
    if (!existsSync(record.commonDir)) return { kind: 'repository-missing', reason: userText('worktree.repositoryGone', { name: record.name, folder: record.commonDir }) };
    if (!existsSync(record.folder)) return { kind: 'folder-missing', reason: userText('worktree.folderDeleted', { folder: record.folder, branch: record.branch }) };
    // Not looking above the folder: a repository around it (a dotfiles one in the home folder) is not this worktree.
    const gitDir = await gitText(['rev-parse', '--absolute-git-dir'], { cwd: record.folder, env: { GIT_CEILING_DIRECTORIES: path.dirname(record.folder) } }).catch((error: unknown) => (error instanceof GitError ? '' : Promise.reject(error)));
    if (gitDir === '' || !samePath(gitDir, record.adminDir)) return { kind: 'broken', reason: userText('worktree.notThisWorktree', { folder: record.folder, branch: record.branch }) };
    return { kind: 'ready' };
  }

  /**
   * A worktree whose folder was deleted by hand: Git's own data of it is pruned (`git worktree
   * prune`, which only touches worktrees whose folders are gone), its branch deleted only when it
   * holds no commit of its own, and the record removed. With the repository gone too, only the record goes.
   */
  async cleanUpMissing(record: WorktreeRecord): Promise<CleanUpResult> {
    const health = await this.health(record);
    if (health.kind === 'ready' || health.kind === 'broken') throw new WorktreeError('git', userText('worktree.stillThere', { name: record.name, folder: record.folder }));
    let commits = 0;
    let branchKept = false;
    if (health.kind === 'folder-missing') {
      const git = { env: { GIT_DIR: record.commonDir } };
      await runGit(['worktree', 'prune'], git);
      const tip = await gitText(['rev-parse', '--verify', '--quiet', `refs/heads/${record.branch}`], git).catch(() => '');
      if (tip !== '') {
        commits = Number(await gitText(['rev-list', '--count', `${record.base}..${tip}`], git).catch(() => '1'));
        branchKept = commits > 0;
        if (!branchKept) await runGit(['branch', '-D', record.branch], git);
      }
    }
    await this.forget(record);
    this.logger.info(`worktrees: cleaned up ${record.name} (its folder was gone)${branchKept ? `; ${record.branch} kept with ${commits} commit(s)` : ''}`);
    return { name: record.name, branch: record.branch, branchKept, commits };
  }

  /** Removes the record (the worktree itself is Git's and the caller's business). */
  async forget(record: WorktreeRecord): Promise<void> {
    await fsp.rm(this.recordFile(record.checkout, record.name), { force: true });
  }
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

/**
 * Discarding a chat's worktree and its branch, in two steps: the plan lists what would be lost
 * (the worktree's uncommitted and untracked files, the branch's commits that no other branch, tag
 * or remote holds), the user confirms it, and the discard checks again that nothing new would be
 * lost before it removes anything.
 */
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { gitText, nulList, runGit } from '../git';
import { errorMessage } from '../logger';
import { userText } from '../texts/userText';
import { worktreeGitOptions, WorktreeError, type WorktreeManager, type WorktreeRecord } from './manager';

/** At most this many commits are listed one by one (the count is always whole). */
export const MAX_LISTED_COMMITS = 50;

export interface DiscardPlan {
  record: WorktreeRecord;
  /** Worktree-relative paths with changes not committed (untracked files included); [] when its folder is gone. */
  uncommitted: string[];
  /** Commits only this branch holds, newest first (at most MAX_LISTED_COMMITS). */
  commits: { sha: string; subject: string }[];
  /** How many commits only this branch holds. */
  commitCount: number;
  /** Whether the folder is still there (a deleted one loses nothing more). */
  folderExists: boolean;
}

/** What discarding the worktree would lose, for the user to confirm. */
export async function planDiscard(record: WorktreeRecord): Promise<DiscardPlan> {
  const folderExists = existsSync(record.folder);
  const uncommitted = folderExists ? await uncommittedFiles(record) : [];
  const git = { env: { GIT_DIR: record.commonDir } };
  const tip = await gitText(['rev-parse', '--verify', '--quiet', `refs/heads/${record.branch}`], git).catch(() => '');
  if (tip === '') return { record, uncommitted, commits: [], commitCount: 0, folderExists };
  // Held elsewhere (--exclude before --branches takes a name without refs/heads/): any other branch, tag or remote-tracking branch, and the checkout's own HEAD.
  const only = ['--not', `--exclude=${record.branch}`, '--branches', '--tags', '--remotes', ...(await checkoutHead(record))];
  const count = Number(await gitText(['rev-list', '--count', tip, ...only], git));
  const listed = await runGit(['log', '-z', `--max-count=${MAX_LISTED_COMMITS}`, '--format=%H%x00%s', tip, ...only], git);
  const fields = listed.stdout.toString('utf8').split('\0');
  const commits: DiscardPlan['commits'] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) commits.push({ sha: fields[index]!.trim(), subject: fields[index + 1]! });
  return { record, uncommitted, commits, commitCount: count, folderExists };
}

/** The commit the user's checkout has out, when it can be read (a detached HEAD is on no branch). */
async function checkoutHead(record: WorktreeRecord): Promise<string[]> {
  const head = await gitText(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: record.checkout }).catch(() => '');
  return head === '' ? [] : [head];
}

/** `git status` of the worktree as paths: changed, staged, deleted, untracked (a rename's both names). */
export async function uncommittedFiles(record: WorktreeRecord): Promise<string[]> {
  const run = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none'], worktreeGitOptions(record));
  const fields = nulList(run.stdout);
  const files: string[] = [];
  for (let index = 0; index < fields.length; index++) {
    const entry = fields[index]!;
    files.push(entry.slice(3));
    // A rename or copy is followed by its source's name.
    if (/^[RC]|^.[RC]/.test(entry)) files.push(fields[++index] ?? '');
  }
  return [...new Set(files.filter((file) => file !== ''))].sort();
}

/**
 * Removes the worktree (its folder, whatever is in it) and its branch, and forgets it. `confirmed`
 * is the plan the user saw: when the worktree now has changes or commits the plan did not list,
 * nothing is removed and the error says what is new.
 */
export async function discardWorktree(manager: WorktreeManager, confirmed: DiscardPlan): Promise<void> {
  const { record } = confirmed;
  const now = await planDiscard(record);
  const newFiles = now.uncommitted.filter((file) => !confirmed.uncommitted.includes(file));
  const known = new Set(confirmed.commits.map((commit) => commit.sha));
  const newCommits = now.commitCount > confirmed.commitCount || now.commits.some((commit) => !known.has(commit.sha));
  if (newFiles.length > 0 || newCommits) {
    const files = `${newFiles.slice(0, 10).join(', ')}${newFiles.length > 10 ? ', …' : ''}`;
    const commits = { commits: now.commitCount, confirmedCommits: confirmed.commitCount };
    const said =
      newFiles.length === 0
        ? userText('worktree.commitsSinceConfirmed', { name: record.name, ...commits })
        : newCommits
          ? userText('worktree.changedSinceConfirmed', { name: record.name, files, ...commits })
          : userText('worktree.filesChangedSinceConfirmed', { name: record.name, files });
    throw new WorktreeError('changed', said);
  }
  const git = { env: { GIT_DIR: record.commonDir } };
  if (now.folderExists) {
    const removed = await runGit(['worktree', 'remove', '--force', record.folder], { ...git, allowFailure: true });
    // Git will not remove a worktree with submodules: the folder goes by hand, only when it is this worktree.
    if (removed.code !== 0) {
      if (!isThisWorktree(record)) throw new WorktreeError('git', userText('worktree.removeRefused', { folder: record.folder, git: removed.stderr.trim() }));
      await fsp.rm(record.folder, { recursive: true, force: true }).catch((error: unknown) => {
        throw new WorktreeError('git', userText('worktree.removeFailed', { folder: record.folder, error: errorMessage(error) }));
      });
    }
  }
  await runGit(['worktree', 'prune'], git);
  await runGit(['branch', '-D', record.branch], { ...git, allowFailure: true });
  await manager.forget(record);
}

/** Whether the folder's `.git` file still names the worktree's own folder in the main repository. */
function isThisWorktree(record: WorktreeRecord): boolean {
  try {
    const named = /^gitdir: (.+)$/m.exec(readFileSync(path.join(record.folder, '.git'), 'utf8'))?.[1]?.trim();
    return named !== undefined && path.resolve(record.folder, named) === record.adminDir;
  } catch {
    return false;
  }
}

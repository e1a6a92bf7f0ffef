// A chat's Git worktree (issue 31) in the sandbox: what of the main repository's Git directory a
// command in the worktree may write, so `git add`, `git commit` and `git status` work there, and
// nothing that configures Git. Held by the kernel: these are writable binds of exactly those
// folders, with read-only binds on what inside them must not change (policy.ts puts them in the
// command's policy), not a check after the command.
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../logger';

/** Where a worktree's Git keeps what it shares with the main repository, as `git rev-parse` gives it (real paths). */
export interface WorktreeGitAccess {
  /** The main repository's Git directory (`--git-common-dir`). */
  commonDir: string;
  /** The worktree's own folder in it, `<commonDir>/worktrees/<id>` (`--absolute-git-dir` in the worktree). */
  adminDir: string;
  /** The worktree's branch without refs/heads/, e.g. `evergreen/fix-parser`. */
  branch: string;
}

/**
 * In a worktree's own folder in the main Git directory, what stays read-only: commondir names the
 * Git directory whose config applies, gitdir names the worktree's folder (pruning follows it), and
 * config.worktree is configuration (with extensions.worktreeConfig). The sandbox makes a missing
 * config.worktree as an empty file first (srt.ts), so a command cannot create one.
 */
export const WORKTREE_ADMIN_READ_ONLY = ['commondir', 'gitdir', 'config.worktree'] as const;

/**
 * What a commit in a worktree writes in the main Git directory, and nothing that configures Git:
 * new objects (not objects/info, whose alternates would point Git at other objects), this chat's
 * branch and its reflog (the folders that hold them, since Git renames a lock file over the ref;
 * the other branches already there read-only), and the worktree's own folder (its HEAD, index and
 * logs) except WORKTREE_ADMIN_READ_ONLY. Other branches, tags, the stash, packed-refs, config,
 * hooks, info and the other worktrees' folders stay read-only. A repository whose refs are in a
 * reftable keeps every ref in one place: that folder is writable whole.
 */
export function worktreeGitParts(access: WorktreeGitAccess, exists: (absolutePath: string) => boolean, list: (dir: string) => readonly { name: string }[]): { allowWrite: string[]; denyWrite: string[] } {
  const common = path.resolve(access.commonDir);
  const admin = path.resolve(access.adminDir);
  const own = access.branch.split('/').at(-1) as string;
  const refFolders = branchFolders({ ...access, commonDir: common });
  const otherRefs = refFolders.flatMap((folder) => list(folder).filter((entry) => entry.name !== own && entry.name !== `${own}.lock`).map((entry) => path.join(folder, entry.name)));
  const optional = ['reftable', 'lfs'].map((name) => path.join(common, name)).filter(exists);
  return {
    allowWrite: [path.join(common, 'objects'), ...refFolders, admin, ...optional],
    denyWrite: [path.join(common, 'objects', 'info'), ...WORKTREE_ADMIN_READ_ONLY.map((name) => path.join(admin, name)).filter(exists), ...otherRefs],
  };
}

/**
 * Makes what the policy binds exist before a command runs: bubblewrap can bind only what exists,
 * and a config.worktree that is missing could otherwise be created by the command. The ref
 * folders exist once the branch was made, unless `git pack-refs` packed it; objects/info exists in
 * every repository Git made. Failures are logged: the command then runs with less of Git writable.
 */
export function prepareWorktreeGit(access: WorktreeGitAccess, logger: Logger): void {
  const folders = branchFolders(access);
  for (const folder of [...folders, path.join(access.commonDir, 'objects', 'info')]) {
    try {
      mkdirSync(folder, { recursive: true });
    } catch (error) {
      logger.warn(`sandbox: could not make ${folder} for the worktree's Git: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const config = path.join(access.adminDir, 'config.worktree');
  if (existsSync(config)) return;
  try {
    closeSync(openSync(config, 'a'));
  } catch (error) {
    logger.warn(`sandbox: could not make an empty ${config}, so it is not held read-only: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The folders that hold the branch's ref and its reflog (refs/heads/evergreen, logs/refs/heads/evergreen). */
function branchFolders(access: WorktreeGitAccess): string[] {
  const above = access.branch.split('/').slice(0, -1);
  return [path.join(access.commonDir, 'refs', 'heads', ...above), path.join(access.commonDir, 'logs', 'refs', 'heads', ...above)];
}

/** What a command that failed on a read-only file in a worktree is told: what Git may write there. */
export function worktreeWriteNote(access: WorktreeGitAccess): string {
  return `In this worktree, Git may write its objects, this chat's branch ${access.branch} and the worktree's own files in the main repository's Git directory; other branches, tags, the stash and Git's configuration are read-only.`;
}

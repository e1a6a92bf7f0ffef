/** What the core says about worktrees of background chats, as kinds with data (src/core/texts/userText.ts); src/frontends/words/worktrees.ts words them. */
import type { NoData } from './value';

export interface WorktreeTexts {
  // Why a folder cannot hold a chat's worktree (RepositoryState's reason).
  'worktree.noGit': { error: string };
  'worktree.notARepository': { folder: string };
  /** Git said why, in its words (not "not a git repository", which the sentence says already). */
  'worktree.notARepositoryGitSays': { folder: string; git: string };
  'worktree.bareRepository': { folder: string };
  'worktree.insideGitDir': { folder: string };
  'worktree.noCommit': { checkout: string };
  // A record that cannot be used (records.ts); `error` is the OS's or the JSON parser's message.
  'worktree.recordUnreadable': { error: string };
  'worktree.recordNotJson': { error: string };
  // The worktrees folder.
  'worktree.folderNotAbsolute': { folder: string };
  'worktree.folderInsideCheckout': { folder: string; checkout: string };
  // A name given that cannot be used (each a whole sentence, so a translation is never glued from parts).
  'worktree.nameEmpty': NoData;
  'worktree.nameTooLong': { name: string; max: number };
  'worktree.nameCharacters': { name: string };
  'worktree.branchExists': { name: string; branch: string };
  'worktree.folderExists': { name: string; folder: string };
  'worktree.recordExists': { name: string };
  'worktree.namesExhausted': { first: string; last: string };
  // Making one.
  'worktree.addFailed': { folder: string; branch: string; error: string };
  'worktree.notRecorded': { folder: string; error: string };
  'worktree.badStartPoint': { startPoint: string };
  'worktree.noCommitAt': { startPoint: string; checkout: string };
  'worktree.noSharedHistory': { startPoint: string };
  // Its health (WorktreeHealth's reason), and cleaning up one whose folder is gone.
  'worktree.repositoryGone': { name: string; folder: string };
  'worktree.folderDeleted': { folder: string; branch: string };
  'worktree.notThisWorktree': { folder: string; branch: string };
  'worktree.stillThere': { name: string; folder: string };
  // Discarding one.
  'worktree.changedSinceConfirmed': { name: string; files: string; commits: number; confirmedCommits: number };
  'worktree.filesChangedSinceConfirmed': { name: string; files: string };
  'worktree.commitsSinceConfirmed': { name: string; commits: number; confirmedCommits: number };
  'worktree.removeRefused': { folder: string; git: string };
  'worktree.removeFailed': { folder: string; error: string };
  // Its changes, and bringing them home (BringHomeResult's conflict reason).
  'worktree.changesUnreadable': { name: string; folder: string; error: string };
  'worktree.didNotChange': { name: string; files: string };
  'worktree.noTextHunks': { file: string };
  'worktree.noSuchHunk': { file: string; count: number; hunks: string };
  'worktree.changesDoNotApply': { git: string };
  'worktree.hunksDoNotApply': { file: string; git: string };
  'worktree.acceptedDoNotApply': { git: string };
  'worktree.mergeConflicts': { branch: string; files: string };
  'worktree.mergeRefused': { branch: string; git: string };
  'worktree.mergeNotUndone': { branch: string; error: string; checkout: string };
}

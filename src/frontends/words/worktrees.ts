/** Words for worktrees of background chats (the kinds are in src/core/texts/worktrees.ts). */
import type { WorktreeTexts } from '../../core/texts/worktrees';
import { wordsFor } from './template';

export const WORKTREE_WORDS = wordsFor<WorktreeTexts>()({
  'worktree.noGit': 'Git is not installed or cannot run ({error}), so a chat cannot get its own worktree here.',
  'worktree.notARepository': '{folder} is not in a Git repository, so a chat cannot get its own worktree and branch here.',
  'worktree.notARepositoryGitSays': '{folder} is not in a Git repository (Git says: {git}), so a chat cannot get its own worktree and branch here.',
  'worktree.bareRepository': '{folder} is a bare Git repository: it has no checkout to branch from or bring changes back to.',
  'worktree.insideGitDir': '{folder} is inside a Git directory, not a checkout, so a chat cannot get its own worktree here.',
  'worktree.noCommit': 'The repository at {checkout} has no commit yet: a worktree branches from a commit. Commit once (e.g. git commit --allow-empty -m "Start"), then try again.',
  'worktree.folderNotAbsolute': 'The worktrees folder must be an absolute path, got "{folder}". Choose an absolute folder, or leave it empty.',
  'worktree.folderInsideCheckout': 'The worktrees folder {folder} is inside the checkout {checkout}; a worktree must be outside it. Choose another folder for worktrees, or leave it empty.',
  'worktree.nameEmpty': 'Cannot name a worktree "": the name is empty.',
  'worktree.nameTooLong': 'Cannot name a worktree "{name}": the name is longer than {max} characters.',
  'worktree.nameCharacters': 'Cannot name a worktree "{name}": "{name}" may hold only letters, digits, "-" and "_", and must start with a letter or digit.',
  'worktree.branchExists': 'A worktree named "{name}" cannot be made: the branch {branch} exists already. Pick another name, or leave it out to have one made from the task.',
  'worktree.folderExists': 'A worktree named "{name}" cannot be made: the folder {folder} exists already. Pick another name, or leave it out to have one made from the task.',
  'worktree.recordExists':
    'A worktree named "{name}" cannot be made: Evergreen has a worktree of that name for this repository already. Pick another name, or leave it out to have one made from the task.',
  'worktree.namesExhausted': 'Every name from "{first}" to "{last}" is taken; give the worktree a name.',
  'worktree.addFailed': 'Git could not make the worktree {folder} on {branch}: {error}',
  'worktree.notRecorded': 'The worktree {folder} was made but could not be recorded ({error}), so it was removed again.',
  'worktree.badStartPoint': '"{startPoint}" is not a branch to start from.',
  'worktree.noCommitAt': 'There is no commit at {startPoint} in {checkout}; fetch it first.',
  'worktree.noSharedHistory': "{startPoint} shares no history with the checkout's HEAD, so its changes cannot be reviewed against it.",
  'worktree.repositoryGone': 'The repository of the worktree {name} ({folder}) is gone.',
  'worktree.folderDeleted': "The worktree's folder {folder} was deleted; its branch {branch} is still in the repository.",
  'worktree.notThisWorktree': 'The folder {folder} is no longer the worktree of {branch}.',
  'worktree.stillThere': 'The worktree {name} is still there ({folder}); discard it instead.',
  'worktree.changedSinceConfirmed':
    'Nothing was discarded: the worktree {name} changed after you confirmed (files changed since: {files}; {commits} commit(s) only this branch holds now ({confirmedCommits} when you confirmed)). Look at what it would lose again.',
  'worktree.filesChangedSinceConfirmed': 'Nothing was discarded: the worktree {name} changed after you confirmed (files changed since: {files}). Look at what it would lose again.',
  'worktree.commitsSinceConfirmed':
    'Nothing was discarded: the worktree {name} changed after you confirmed ({commits} commit(s) only this branch holds now ({confirmedCommits} when you confirmed)). Look at what it would lose again.',
  'worktree.removeRefused': 'Git could not remove {folder} ({git}), and it no longer names this worktree, so it was left alone.',
  'worktree.removeFailed': 'Could not remove {folder}: {error}',
  'worktree.changesUnreadable': 'The changes in the worktree {name} ({folder}) cannot be read: {error}',
  'worktree.didNotChange': 'The worktree {name} did not change {files}; nothing was applied.',
  'worktree.noTextHunks': '{file} has no text hunks to choose from (a binary file or a change of its mode); apply it whole.',
  'worktree.noSuchHunk': '{file} has {count} hunk(s); there is no hunk {hunks}. Nothing was applied.',
  'worktree.changesDoNotApply': 'The changes do not apply to your checkout as it is now, so nothing was changed. Git says: {git}',
  'worktree.hunksDoNotApply': 'The chosen hunks of {file} do not apply to your checkout as it is now, so nothing was changed. Git says: {git}',
  'worktree.acceptedDoNotApply': 'The accepted changes do not apply to your checkout as it is now, so nothing was changed. Git says: {git}',
  'worktree.mergeConflicts': 'Merging {branch} conflicts with your branch in {files}; the merge was undone and nothing changed. Merge it yourself to resolve them, or apply only the other files.',
  'worktree.mergeRefused': 'Git did not merge {branch}, and nothing changed: {git}',
  'worktree.mergeNotUndone': 'The merge of {branch} conflicted and could not be undone ({error}); run git merge --abort in {checkout}.',
});

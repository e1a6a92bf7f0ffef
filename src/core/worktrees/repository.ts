/**
 * What a folder is to Git, asked before a chat gets a worktree there: a repository with a commit
 * to branch from, or why not, in words a front end shows before it offers a normal chat instead.
 * Git runs isolated (core/git.ts); it reads the repository's own config, which says what the
 * repository is (its object format, whether it is bare).
 */
import { errorMessage } from '../logger';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { GitError, gitText, runGit } from '../git';
import { userText, type UserText } from '../texts/userText';

export type RepositoryState =
  | {
      kind: 'repository';
      /** The checkout's top folder (real path): the user's working tree, which a worktree never touches. */
      top: string;
      /** The main repository's Git directory (real path), shared by every worktree. */
      commonDir: string;
      /** The commit HEAD names: the branch point. */
      head: string;
      /** The branch checked out, if any (refs/heads/ left off); undefined on a detached HEAD. */
      branch: string | undefined;
    }
  /** Why a worktree cannot be made here; the front end offers a normal chat. */
  | { kind: 'no-git' | 'not-a-repository' | 'bare' | 'no-commit'; reason: UserText };

/** Asks Git about `folder`; never throws (a failure is a state with the reason). */
export async function inspectRepository(folder: string): Promise<RepositoryState> {
  const git = (args: string[]) => gitText(args, { cwd: folder });
  try {
    await runGit(['--version']);
  } catch (error) {
    return { kind: 'no-git', reason: userText('worktree.noGit', { error: errorMessage(error) }) };
  }
  let fields: string[];
  try {
    fields = (await git(['rev-parse', '--path-format=absolute', '--is-bare-repository', '--git-common-dir'])).split('\n');
  } catch (error) {
    const said = error instanceof GitError ? error.stderr.trim().split('\n')[0] : undefined;
    const reason = said && !/not a git repository/i.test(said) ? userText('worktree.notARepositoryGitSays', { folder, git: said }) : userText('worktree.notARepository', { folder });
    return { kind: 'not-a-repository', reason };
  }
  if (fields[0] === 'true') return { kind: 'bare', reason: userText('worktree.bareRepository', { folder }) };
  let top: string;
  try {
    top = await git(['rev-parse', '--show-toplevel']);
  } catch {
    return { kind: 'not-a-repository', reason: userText('worktree.insideGitDir', { folder }) };
  }
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => '');
  if (head === '') {
    return { kind: 'no-commit', reason: userText('worktree.noCommit', { checkout: top }) };
  }
  const branch = await git(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '');
  return { kind: 'repository', top: realpathSync(top), commonDir: realpathSync(path.resolve(folder, fields[1] ?? '.git')), head, branch: branch === '' ? undefined : branch };
}

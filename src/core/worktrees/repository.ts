/**
 * What a folder is to Git, asked before a chat gets a worktree there: a repository with a commit
 * to branch from, or why not, in words a front end shows before it offers a normal chat instead.
 * Git runs isolated (core/git.ts); it reads the repository's own config, which says what the
 * repository is (its object format, whether it is bare).
 */
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { GitError, gitText, runGit } from '../git';

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
  | { kind: 'no-git' | 'not-a-repository' | 'bare' | 'no-commit'; reason: string };

/** Asks Git about `folder`; never throws (a failure is a state with the reason). */
export async function inspectRepository(folder: string): Promise<RepositoryState> {
  const git = (args: string[]) => gitText(args, { cwd: folder });
  try {
    await runGit(['--version']);
  } catch (error) {
    return { kind: 'no-git', reason: `Git is not installed or cannot run (${error instanceof Error ? error.message : String(error)}), so a chat cannot get its own worktree here.` };
  }
  let fields: string[];
  try {
    fields = (await git(['rev-parse', '--path-format=absolute', '--is-bare-repository', '--git-common-dir'])).split('\n');
  } catch (error) {
    const said = error instanceof GitError ? error.stderr.trim().split('\n')[0] : undefined;
    const why = said && !/not a git repository/i.test(said) ? ` (Git says: ${said})` : '';
    return { kind: 'not-a-repository', reason: `${folder} is not in a Git repository${why}, so a chat cannot get its own worktree and branch here.` };
  }
  if (fields[0] === 'true') return { kind: 'bare', reason: `${folder} is a bare Git repository: it has no checkout to branch from or bring changes back to.` };
  let top: string;
  try {
    top = await git(['rev-parse', '--show-toplevel']);
  } catch {
    return { kind: 'not-a-repository', reason: `${folder} is inside a Git directory, not a checkout, so a chat cannot get its own worktree here.` };
  }
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => '');
  if (head === '') {
    return { kind: 'no-commit', reason: `The repository at ${top} has no commit yet: a worktree branches from a commit. Commit once (e.g. git commit --allow-empty -m "Start"), then try again.` };
  }
  const branch = await git(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '');
  return { kind: 'repository', top: realpathSync(top), commonDir: realpathSync(path.resolve(folder, fields[1] ?? '.git')), head, branch: branch === '' ? undefined : branch };
}

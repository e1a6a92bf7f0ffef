/**
 * The working tree's changes for an @git-changes attachment: `git diff HEAD` plus the untracked
 * files' names. Run on the user's own repository, so nothing that could execute is allowed: no
 * external diff or textconv drivers, no fsmonitor, no optional locks, no pager.
 */
import { execFile } from 'node:child_process';
import { childProcessEnv } from '../secrets';

const MAX_DIFF_BYTES = 64 * 1024 * 1024;

export class GitChangesError extends Error {}

function git(root: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { ...childProcessEnv(process.env), GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' };
    execFile('git', ['-c', 'core.fsmonitor=false', '-c', 'diff.external=', ...args], { cwd: root, env, maxBuffer: MAX_DIFF_BYTES, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new GitChangesError((stderr || error.message).trim()));
      else resolve(stdout);
    });
  });
}

/** The diff of the working tree (and index) against HEAD, then the untracked files; throws GitChangesError with Git's reason. */
export async function workingTreeChanges(root: string): Promise<string> {
  try {
    await git(root, ['rev-parse', '--is-inside-work-tree']);
  } catch {
    throw new GitChangesError('the workspace is not a Git repository (or Git is not installed), so it has no changes to attach');
  }
  const hasHead = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD']).then(() => true, () => false);
  const diff = await git(root, ['diff', '--no-ext-diff', '--no-textconv', '--no-color', hasHead ? 'HEAD' : '--cached']);
  const untracked = (await git(root, ['ls-files', '--others', '--exclude-standard'])).trim();
  const parts = [diff.trim(), untracked ? `Untracked files:\n${untracked}` : ''].filter((part) => part !== '');
  if (parts.length === 0) throw new GitChangesError('the working tree has no changes');
  return parts.join('\n\n');
}

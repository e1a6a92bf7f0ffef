/**
 * Git before and after the agent: a token actions/checkout left in .git/config would be readable
 * by the agent's commands, so a run refuses to start with one; afterwards the changes are committed
 * to a new branch and pushed with the token given to this step alone (through Git's environment
 * configuration, never on a command line or in a file). The workspace's own hooks and fsmonitor
 * never run: the agent could have written them.
 */
import { execFile } from 'node:child_process';
import { childProcessEnv } from '../../core/secrets';

export class GitStepError extends Error {
  override name = 'GitStepError';
}

const SAFE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'commit.gpgSign=false'];

function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { ...childProcessEnv(process.env), GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', ...extraEnv };
    execFile('git', [...SAFE_CONFIG, ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8', timeout: 300_000 }, (error, stdout, stderr) => {
      if (error) reject(new GitStepError(`git ${args[0]} failed: ${(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/** Why the agent must not start here: credentials in the repository's configuration, where its commands can read them. */
export async function persistedCredentials(workspace: string): Promise<string | undefined> {
  const config = await git(workspace, ['config', '--local', '--list']).catch(() => '');
  for (const line of config.split('\n')) {
    const [key = '', ...rest] = line.split('=');
    const entry = rest.join('=');
    if (/^http\..*extraheader$/i.test(key) || /^http\.extraheader$/i.test(key)) return `.git/config holds an HTTP header (${key}), which is how actions/checkout keeps the token`;
    if (/^remote\..*\.url$/i.test(key) && /^[a-z]+:\/\/[^/@\s]+@/i.test(entry)) return `the remote URL in .git/config (${key}) holds credentials`;
  }
  return undefined;
}

/** Files changed, added or deleted in the working tree since the checkout (untracked files included), as Git names them. */
export async function changedFiles(workspace: string): Promise<string[]> {
  const status = await git(workspace, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const names: string[] = [];
  const fields = status.split('\0');
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index]!;
    if (field.length < 4) continue;
    names.push(field.slice(3));
    // A rename's entry is followed by its old name.
    if (field[0] === 'R' || field[0] === 'C') index++;
  }
  return names;
}

export interface PushOptions {
  workspace: string;
  branch: string;
  message: string;
  /** The server whose URLs get the token's header (GITHUB_SERVER_URL). */
  serverUrl: string;
  token: string | undefined;
}

/** Commits everything on a new branch and pushes it to origin; returns the commit. */
export async function commitAndPush(options: PushOptions): Promise<string> {
  const { workspace, branch } = options;
  await git(workspace, ['checkout', '-b', branch]);
  await git(workspace, ['add', '-A']);
  const identity = { GIT_AUTHOR_NAME: 'evergreen[bot]', GIT_AUTHOR_EMAIL: 'evergreen@users.noreply.github.com', GIT_COMMITTER_NAME: 'github-actions[bot]', GIT_COMMITTER_EMAIL: '41898282+github-actions[bot]@users.noreply.github.com' };
  await git(workspace, ['commit', '--no-verify', '-q', '-m', options.message], identity);
  const commit = (await git(workspace, ['rev-parse', 'HEAD'])).trim();
  // The token only in this process's environment, as configuration Git reads (GIT_CONFIG_COUNT).
  const auth: Record<string, string> = options.token
    ? {
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: `http.${options.serverUrl.replace(/\/+$/, '')}/.extraheader`,
        GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}`,
      }
    : {};
  await git(workspace, ['push', '--no-verify', 'origin', `HEAD:refs/heads/${branch}`], auth);
  return commit;
}

/**
 * Which repository a session worked on, so an import can say when a run comes from another one.
 * A run on a GitHub runner and the user's clone name the same repository differently (an HTTPS URL
 * with a token in it, `git@github.com:owner/name.git`, a local path): they are compared as
 * `host/owner/name`, lower case, without credentials or `.git`.
 */
import { execFile } from 'node:child_process';
import { childProcessEnv } from '../secrets';

/** A remote URL (or a GitHub `owner/name` with its server) as `host/path`; a local path stays a path. */
export function normalizeRepository(remote: string): string | undefined {
  const text = remote.trim();
  if (text === '') return undefined;
  // scp-like syntax: user@host:path (not a Windows drive, not a URL).
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(text);
  let host: string;
  let pathPart: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return undefined;
    }
    if (url.protocol === 'file:') return stripGit(decodeURIComponent(url.pathname));
    host = url.hostname;
    pathPart = url.pathname;
  } else if (scp && !/^[A-Za-z]$/.test(scp[1]!)) {
    host = scp[1]!;
    pathPart = scp[2]!;
  } else {
    return stripGit(text);
  }
  const trimmed = stripGit(pathPart.replace(/^\/+/, ''));
  return trimmed === '' ? undefined : `${host}/${trimmed}`.toLowerCase();
}

function stripGit(value: string): string {
  return value.replace(/\/+$/, '').replace(/\.git$/i, '');
}

/** The repository of a GitHub Actions run: `GITHUB_SERVER_URL`'s host and `GITHUB_REPOSITORY`. */
export function githubRepository(serverUrl: string | undefined, repository: string | undefined): string | undefined {
  if (!repository) return undefined;
  return normalizeRepository(`${serverUrl ?? 'https://github.com'}/${repository}`);
}

/**
 * The workspace's `origin` remote, normalized; undefined when it is not a Git repository or has no
 * origin. Only reads configuration: nothing the repository configures can run.
 */
export function workspaceRepository(root: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const env = { ...childProcessEnv(process.env), GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
    execFile('git', ['config', '--get', 'remote.origin.url'], { cwd: root, env, timeout: 10_000, encoding: 'utf8' }, (error, stdout) => {
      resolve(error ? undefined : normalizeRepository(stdout));
    });
  });
}

/**
 * Git run by Evergreen itself (checkpoints' shadow repository, the chats' worktrees, their
 * review), isolated from everything that could make it run a command: no system or global
 * config (a user's or an installer's filters, credential helpers or pager), hooks pointed at
 * nothing, fsmonitor off, no prompts, no optional locks, and every inherited GIT_* variable
 * dropped (a terminal's GIT_DIR or GIT_INDEX_FILE must not redirect us). Credentials leave the
 * environment as for every child (secrets.ts).
 *
 * A repository's own `.git/config` is still read when Git works in that repository: Git has no
 * switch to skip it, and it says what the repository is (object format, ref storage, bare or
 * not). The sandbox keeps commands from writing it, so what is there is the user's.
 */
import { spawn } from 'node:child_process';
import { childProcessEnv } from './secrets';

/** What a finished Git run left: its exact stdout, its stderr as text, its exit code. */
export interface GitRun {
  stdout: Buffer;
  stderr: string;
  code: number;
}

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    /** Git's exit code; undefined when Git could not be started at all. */
    readonly code?: number,
    readonly stderr = '',
  ) {
    super(message);
  }
}

const NULL_DEVICE = process.platform === 'win32' ? 'NUL' : '/dev/null';

/** The variables that keep every configuration file but the repository's own away, and Git from asking or locking. */
export const ISOLATED_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: NULL_DEVICE,
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
};

/** Options before the subcommand: given on the command line, they win over the repository's config. */
export const ISOLATED_GIT_OPTIONS: readonly string[] = ['-c', `core.hooksPath=${NULL_DEVICE}`, '-c', 'core.fsmonitor=false', '-c', 'core.pager=cat', '-c', 'diff.external='];

/** The process environment for an isolated Git: inherited GIT_* dropped, then `extra` (GIT_DIR, an identity) on top. */
export function isolatedGitEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = childProcessEnv(process.env);
  for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key];
  return { ...env, ...ISOLATED_GIT_ENV, LC_ALL: 'C', ...extra };
}

export interface GitOptions {
  cwd?: string;
  /** Variables added to the isolated environment (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, an identity). */
  env?: Readonly<Record<string, string>>;
  input?: Buffer | string;
  /** Return a failed run instead of throwing. */
  allowFailure?: boolean;
  gitPath?: string;
}

/** Runs `git <args>` isolated; throws GitError with Git's own words when it fails (unless allowFailure). */
export async function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitRun> {
  const gitPath = options.gitPath ?? 'git';
  let run: GitRun;
  try {
    run = await runProcess(gitPath, [...ISOLATED_GIT_OPTIONS, ...args], isolatedGitEnv(options.env), options.input, options.cwd);
  } catch (error) {
    throw new GitError(`could not run ${gitPath} (${error instanceof Error ? error.message : String(error)}); is Git installed?`);
  }
  if (run.code !== 0 && options.allowFailure !== true) {
    throw new GitError(`git ${args.find((arg) => !arg.startsWith('-')) ?? args[0] ?? ''} failed: ${run.stderr.trim() || `exit code ${run.code}`}`, run.code, run.stderr);
  }
  return run;
}

/** Runs Git and returns its stdout as trimmed UTF-8 text. */
export async function gitText(args: readonly string[], options: GitOptions = {}): Promise<string> {
  return (await runGit(args, options)).stdout.toString('utf8').trim();
}

/** A NUL-separated list (`-z` output) as its non-empty items. */
export function nulList(buffer: Buffer): string[] {
  return buffer
    .toString('utf8')
    .split('\0')
    .filter((item) => item.length > 0);
}

/** Starts a process with the exact arguments and environment given and collects its output. */
export function runProcess(file: string, args: readonly string[], env: NodeJS.ProcessEnv, input: Buffer | string | undefined, cwd?: string): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: code ?? 1 }));
    child.stdin.on('error', () => undefined); // Git may exit before reading all input; its exit code says what happened
    child.stdin.end(input ?? '');
  });
}

/**
 * The user's Git identity for a commit Evergreen makes on their behalf (a merge they asked for),
 * as the author and committer variables. Read with their own global config, which isolated Git
 * leaves out; `git config --get` only reads. Throws GitError with the command that sets it.
 */
export async function userIdentity(cwd: string, gitPath = 'git'): Promise<Record<string, string>> {
  const env = childProcessEnv(process.env);
  for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key];
  const read = async (key: string) => (await runProcess(gitPath, ['config', '--get', key], { ...env, GIT_TERMINAL_PROMPT: '0' }, undefined, cwd).catch(() => undefined))?.stdout.toString('utf8').trim() ?? '';
  const [name, email] = [await read('user.name'), await read('user.email')];
  if (name === '' || email === '') throw new GitError('Git does not know who you are, so it cannot make the merge commit: run git config --global user.name "Your Name" and git config --global user.email you@example.com, then try again.');
  return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}

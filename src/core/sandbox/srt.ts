// The OS sandbox, through @anthropic-ai/sandbox-runtime (bubblewrap + socat + a filtering proxy on
// Linux, Seatbelt on macOS): the same library Claude Code confines its Bash tool and MCP servers
// with. It keeps one set of proxies per process, so it is initialized once with "nothing allowed"
// and every command carries its session's own rules (customConfig, per-command domain lists).
// Its package says Node >= 22.12; the parts used here run on Node 20 (VS Code 1.100's and the
// CLI's), which the sandbox suite checks with real bubblewrap.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, renameSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import type { Logger } from '../logger';
import { shellQuote } from '../shellQuote';
import { isNodeError } from '../workspace/workspace';
import { SANDBOX_INSTALL_HINT_DEBIAN, SandboxError, type CommandSandbox, type SandboxedCommand, type SandboxState } from '../shell/commandSandbox';
import { buildSandboxPolicy, GIT_WATCHED, normalizeDomains, type DirEntry, type SandboxPolicy } from './policy';

export interface OsSandboxOptions {
  workspaceRoot: string;
  storageRoot: string;
  sessionDir: string;
  allowedDomains: readonly string[];
  logger: Logger;
  home?: string;
}

/** How long the start-up probe (one `true` in the sandbox) may take before the sandbox counts as broken. */
const PROBE_TIMEOUT_MS = 20_000;

let initializing: Promise<void> | undefined;
let probeSucceeded = false;

/**
 * In the bundles the library looks for its seccomp helper in vendor/ next to extension.js and
 * cli.js; a package tool that drops the executable bit would make every sandboxed command fail.
 */
function ensureHelperExecutable(logger: Logger): void {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const helper = path.join(__dirname, 'vendor', 'seccomp', arch, 'apply-seccomp');
  try {
    if (existsSync(helper) && (statSync(helper).mode & 0o111) === 0) chmodSync(helper, 0o755);
  } catch (error) {
    logger.warn(`sandbox: could not make ${helper} executable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function initializeOnce(): Promise<void> {
  initializing ??= SandboxManager.initialize({
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
  }).catch((error: unknown) => {
    initializing = undefined; // a later session may find the dependencies installed
    throw error;
  });
  return initializing;
}

/**
 * Stops the library's proxy servers, which would otherwise keep a finished CLI process alive and
 * outlive a deactivated extension. A later session initializes them again.
 */
export async function shutdownOsSandbox(): Promise<void> {
  if (initializing === undefined) return;
  initializing = undefined;
  await SandboxManager.reset();
}

function installHint(): string {
  if (process.platform === 'darwin') return 'brew install ripgrep (sandbox-exec ships with macOS)';
  if (process.platform === 'linux') return `${SANDBOX_INSTALL_HINT_DEBIAN} (Debian/Ubuntu; other distributions: the bubblewrap, socat and ripgrep packages)`;
  return 'the sandbox supports Linux and macOS; on this system set evergreen.sandbox.enabled to false (or --no-sandbox) to run commands unconfined';
}

const READ_ONLY_FAILURE = /Read-only file system|EROFS/;
const NETWORK_FAILURE = /Could not resolve host|Temporary failure in name resolution|getaddrinfo|ENOTFOUND|EAI_AGAIN|Network is unreachable|ENETUNREACH|ECONNREFUSED|Connection refused|403 Forbidden|Connection blocked by network allowlist|tunnel (connection )?failed/i;

export function describeSandboxFailure(output: string, allowedDomains: readonly string[], violations: string, undone: readonly string[] = []): string | undefined {
  const reasons: string[] = undone.map(
    (file) => `The command created ${file}, which would make Git outside the sandbox read another configuration; it was moved out of .git.`,
  );
  if (violations.trim() !== '') reasons.push(violations.trim());
  if (READ_ONLY_FAILURE.test(output)) {
    reasons.push(
      'The sandbox refused a write: commands may write only inside the workspace and $TMPDIR, and not to .git/config, .git/hooks, .vscode, the files that configure commands (package.json, Makefile, …) or Evergreen\'s session storage.',
    );
  }
  if (NETWORK_FAILURE.test(output)) {
    reasons.push(
      allowedDomains.length === 0
        ? 'The sandbox has no network access (no allowed domains are configured: evergreen.sandbox.allowedDomains / --allow-domain).'
        : `The sandbox allows network access only to: ${allowedDomains.join(', ')}.`,
    );
  }
  if (reasons.length === 0) return undefined;
  return `[sandbox] ${reasons.join('\n[sandbox] ')}\nIf the command really needs this, run it again with outside_sandbox_reason set to why; the user must approve that run.`;
}

/** Moves Git redirect files a command created out of `.git` (into the private temp dir); returns the ones it moved. */
function undoGitRedirects(gitDir: string, absentBefore: readonly string[], quarantine: string, logger: Logger): string[] {
  const moved: string[] = [];
  for (const name of absentBefore) {
    const file = path.join(gitDir, name);
    if (!existsSync(file)) continue;
    try {
      renameSync(file, path.join(quarantine, `${name}-${Date.now()}`));
      moved.push(`.git/${name}`);
      logger.warn(`sandbox: moved .git/${name}, created by a sandboxed command, to ${quarantine}`);
    } catch (error) {
      logger.error(`sandbox: could not move .git/${name} aside: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return moved;
}

/** One folder's entries for the policy; a folder that cannot be read has none (logged unless it is simply not there). */
function listDirFor(logger: Logger): (dir: string) => DirEntry[] {
  return (dir) => {
    try {
      return readdirSync(dir, { withFileTypes: true }).map((entry) => ({ name: entry.name, isDirectory: entry.isDirectory() }));
    } catch (error) {
      if (!(isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))) {
        logger.warn(`sandbox: could not list ${dir} for protected files: ${error instanceof Error ? error.message : String(error)}`);
      }
      return [];
    }
  };
}

/**
 * The policy's paths as srt entries marked literal: they are names from the disk (a folder may be
 * called `[x]`), and on Linux srt drops a write entry that reads as a pattern.
 */
const asNames = (paths: readonly string[]) => paths.map((p) => ({ path: p, literal: true as const }));

/** Probes the platform and dependencies, then runs one command for real: only a sandbox that worked is reported on. */
export async function createOsSandbox(options: OsSandboxOptions): Promise<CommandSandbox> {
  const unavailable = (problem: string): CommandSandbox => {
    const state: SandboxState = { kind: 'unavailable', problem, installHint: installHint() };
    options.logger.warn(`command sandbox unavailable: ${problem}`);
    return { state, wrap: () => Promise.reject(new SandboxError(`The sandbox cannot run here: ${problem}`)) };
  };
  if (!SandboxManager.isSupportedPlatform() || (process.platform !== 'linux' && process.platform !== 'darwin')) return unavailable(`${process.platform} is not supported`);
  const dependencies = SandboxManager.checkDependencies();
  if (dependencies.errors.length > 0) return unavailable(dependencies.errors.join('; '));
  for (const warning of dependencies.warnings) options.logger.warn(`command sandbox: ${warning}`);
  ensureHelperExecutable(options.logger);
  try {
    await initializeOnce();
  } catch (error) {
    return unavailable(error instanceof Error ? error.message : String(error));
  }
  const privateTmp = mkdtempSync(path.join(os.tmpdir(), 'evergreen-sandbox-'));
  const home = options.home ?? os.homedir();
  const listDir = listDirFor(options.logger);
  const policyNow = (): SandboxPolicy =>
    buildSandboxPolicy({
      workspaceRoot: options.workspaceRoot,
      home,
      privateTmp,
      storageRoot: options.storageRoot,
      sessionDir: options.sessionDir,
      allowedDomains: options.allowedDomains,
      exists: existsSync,
      listDir,
    });
  const sandbox: CommandSandbox = {
    state: { kind: 'on', allowedDomains: normalizeDomains(options.allowedDomains) },
    async wrap(command, { shell, signal }): Promise<SandboxedCommand> {
      const policy = policyNow();
      const gitDir = path.join(options.workspaceRoot, '.git');
      const watched = existsSync(gitDir) ? GIT_WATCHED.filter((name) => !existsSync(path.join(gitDir, name))) : [];
      // 128 random bits: the proxy reads this id from inside the sandbox to pick the domain list.
      const commandId = randomBytes(16).toString('base64url');
      let wrapped: string;
      try {
        wrapped = await SandboxManager.wrapWithSandbox(
          `export TMPDIR=${shellQuote(privateTmp)}\n${command}`,
          undefined,
          {
            filesystem: { allowWrite: asNames(policy.allowWrite), denyWrite: asNames(policy.denyWrite), denyRead: asNames(policy.denyRead), allowRead: asNames(policy.allowRead) },
            network: { allowedDomains: policy.allowedDomains, deniedDomains: [] },
          },
          signal,
          { commandId, commandText: command },
        );
      } catch (error) {
        SandboxManager.cleanupAfterCommand();
        throw new SandboxError(`The sandbox could not prepare the command: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (policy.allowedDomains.length > 0) SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: policy.allowedDomains });
      let released = false;
      return {
        file: shell,
        args: ['-c', wrapped],
        afterExit: (output, failed) => {
          const undone = undoGitRedirects(gitDir, watched, privateTmp, options.logger);
          if (!failed && undone.length === 0) return undefined;
          return describeSandboxFailure(failed ? output : '', policy.allowedDomains, failed ? SandboxManager.annotateStderrWithSandboxFailures(commandId, '') : '', undone);
        },
        release() {
          if (released) return;
          released = true;
          SandboxManager.unregisterCommandNetworkLists(commandId);
          SandboxManager.cleanupAfterCommand();
        },
      };
    },
  };
  // Whether user namespaces work does not change while the process runs: one successful probe
  // serves every later session (each New Chat would otherwise pay for a sandboxed `true`).
  if (probeSucceeded) return sandbox;
  const problem = await probe(sandbox);
  if (problem === undefined) probeSucceeded = true;
  return problem === undefined ? sandbox : unavailable(problem);
}

/** Runs `true` in the sandbox: user namespaces may be off (containers, AppArmor) even with bwrap installed. */
async function probe(sandbox: CommandSandbox): Promise<string | undefined> {
  let prepared: SandboxedCommand;
  try {
    prepared = await sandbox.wrap('true', { shell: 'bash', cwd: os.tmpdir() });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  try {
    return await new Promise<string | undefined>((resolve) => {
      const child = spawn(prepared.file, prepared.args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: os.tmpdir() });
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(`a test command did not finish within ${PROBE_TIMEOUT_MS / 1000} s`);
      }, PROBE_TIMEOUT_MS);
      child.once('error', (error) => {
        clearTimeout(timer);
        resolve(error.message);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code === 0 ? undefined : `a test command failed: ${stderr.trim().split('\n').slice(-2).join(' ') || `exit code ${code}`}`);
      });
    });
  } finally {
    prepared.release();
  }
}

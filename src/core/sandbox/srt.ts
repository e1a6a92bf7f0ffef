// The OS sandbox, through @anthropic-ai/sandbox-runtime (bubblewrap + socat + a filtering proxy on
// Linux, Seatbelt on macOS): the same library Claude Code confines its Bash tool and MCP servers
// with. It keeps one set of proxies per process, so it is initialized once with "nothing allowed"
// and every command carries its session's own rules (customConfig, per-command domain lists).
// Its package says Node >= 22.12; the parts used here run on Node 20 (VS Code 1.100's and the
// CLI's), which the sandbox suite checks with real bubblewrap.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import type { Logger } from '../logger';
import { shellQuote } from '../shellQuote';
import { isNodeError } from '../workspace/workspace';
import { SANDBOX_INSTALL_HINT_DEBIAN, SandboxError, type CommandSandbox, type SandboxedCommand, type SandboxState } from '../shell/commandSandbox';
import { buildSandboxPolicy, GIT_WATCHED, normalizeDomains, type DirEntry, type SandboxPolicy } from './policy';
import { createOverlayDirs, findOverlayTools, overlayCommand, processAlive, removeOverlayDirs, sweepStaleOverlays, usableOverlayParent, type OverlayDirs, type OverlayTools } from './overlay';
import { finishOverlayCommand } from './overlayResult';
import { userNamespaceFix, type HostReader } from './hostDiagnosis';
import { userText } from '../texts/userText';
import type { UserText } from '../texts/userText';

/** This host's /proc, for the diagnosis of a sandbox that is installed but cannot run. */
const procReader: HostReader = {
  read: (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
  exists: existsSync,
};
import { prepareWorktreeGit, worktreeWriteNote, type WorktreeGitAccess } from './worktreeGit';

export interface OsSandboxOptions {
  workspaceRoot: string;
  storageRoot: string;
  sessionDir: string;
  allowedDomains: readonly string[];
  logger: Logger;
  home?: string;
  /**
   * How protected paths that do not exist yet are held (Linux): 'overlay' (the default where it
   * works; the workspace is an overlay and what a command wrote is checked before it is applied)
   * or 'placeholders' (read-only empty files stand in for them while the command runs; the
   * fallback where an overlay cannot be mounted, and what tests of that fallback ask for).
   */
  mechanism?: 'overlay' | 'placeholders';
  /** The workspace is a Git worktree Evergreen made for this chat: what its Git may write in the main repository (worktreeGit.ts). */
  worktree?: WorktreeGitAccess;
}

/** How long the start-up probe (one `true` in the sandbox) may take before the sandbox counts as broken. */
const PROBE_TIMEOUT_MS = 20_000;

let initializing: Promise<void> | undefined;

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

/**
 * The socat the runtime starts as its network bridge on the host, under `setpriv --pdeathsig KILL`:
 * started by this process, it dies with it even on a SIGKILL (without this a killed CLI left its
 * bridge running for good). The same script runs socat inside the sandbox, where it changes nothing.
 */
function socatDyingWithParent(logger: Logger): string | undefined {
  const find = (name: string) =>
    (process.env.PATH ?? '/usr/bin:/bin')
      .split(':')
      .filter((dir) => dir !== '')
      .map((dir) => path.join(dir, name))
      .find((file) => existsSync(file));
  const socat = find('socat');
  const setpriv = find('setpriv');
  if (process.platform !== 'linux' || socat === undefined || setpriv === undefined) return undefined;
  try {
    const folder = ownTempFolder('socat');
    const script = path.join(folder, 'socat');
    writeFileSync(script, `#!/bin/sh\nexec ${shellQuote(setpriv)} --pdeathsig KILL -- ${shellQuote(socat)} "$@"\n`, { mode: 0o755 });
    return script;
  } catch (error) {
    logger.warn(`sandbox: could not write the socat wrapper, so a killed Evergreen may leave its network bridge running: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

function initializeOnce(logger: Logger): Promise<void> {
  if (initializing) return initializing;
  const socatPath = socatDyingWithParent(logger);
  initializing = SandboxManager.initialize({
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    ...(socatPath === undefined ? {} : { socatPath }),
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
/** Temp folders this process made for itself (commands' TMPDIR, the socat wrapper, the neutral working directory): removed when it exits. */
const ownFolders: string[] = [];
const OWN_FOLDER = /^evergreen-(sandbox|socat|srt-cwd)-(\d+)-/;

/** A temp folder named with this process's id, so a later run can tell one a killed process left. */
function ownTempFolder(kind: 'sandbox' | 'socat' | 'srt-cwd'): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), `evergreen-${kind}-${process.pid}-`));
  if (ownFolders.length === 0) process.once('exit', () => ownFolders.forEach((own) => rmSync(own, { recursive: true, force: true })));
  ownFolders.push(folder);
  return folder;
}

/** Removes one of this process's own temp folders now (a session closed), rather than when the process exits. */
function removeOwnTempFolder(folder: string, logger: Logger): void {
  const index = ownFolders.indexOf(folder);
  if (index >= 0) ownFolders.splice(index, 1);
  try {
    rmSync(folder, { recursive: true, force: true });
  } catch (error) {
    logger.warn(`sandbox: could not remove ${folder}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Removes the temp folders of Evergreen processes that are gone (SIGKILLed, so their exit handler never ran). */
function sweepStaleTempFolders(logger: Logger): void {
  let names: string[];
  try {
    names = readdirSync(os.tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(OWN_FOLDER.exec(name)?.[2]);
    if (!Number.isInteger(pid) || processAlive(pid)) continue;
    try {
      rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    } catch (error) {
      logger.warn(`sandbox: could not remove ${name}, left by an Evergreen process that is gone: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

export async function shutdownOsSandbox(): Promise<void> {
  if (initializing === undefined) return;
  initializing = undefined;
  await SandboxManager.reset();
}

function installHint(): UserText {
  if (process.platform === 'darwin') return userText('start.sandboxInstallMac', { command: 'brew install ripgrep' });
  if (process.platform === 'linux') return userText('start.sandboxInstallLinux', { command: SANDBOX_INSTALL_HINT_DEBIAN });
  return userText('start.sandboxUnsupportedPlatform', {});
}

const READ_ONLY_FAILURE = /Read-only file system|EROFS/;
const NETWORK_FAILURE = /Could not resolve host|Temporary failure in name resolution|getaddrinfo|ENOTFOUND|EAI_AGAIN|Network is unreachable|ENETUNREACH|ECONNREFUSED|Connection refused|403 Forbidden|Connection blocked by network allowlist|tunnel (connection )?failed/i;

export function describeSandboxFailure(output: string, allowedDomains: readonly string[], violations: string, undone: readonly string[] = [], readOnlyWorkspace = false, worktree?: WorktreeGitAccess): string | undefined {
  const reasons: string[] = undone.map(
    (file) => `The command created ${file}, which would make Git outside the sandbox read another configuration; it was moved out of .git.`,
  );
  if (violations.trim() !== '') reasons.push(violations.trim());
  if (READ_ONLY_FAILURE.test(output)) {
    reasons.push(
      readOnlyWorkspace
        ? 'The sandbox refused a write: in this mode the whole workspace is read-only for commands (only $TMPDIR is writable), so a command can look but not change anything.'
        : 'The sandbox refused a write: commands may write only inside the workspace and $TMPDIR, and not to .git/config, .git/hooks, .vscode, the files that configure commands (package.json, Makefile, …) or Evergreen\'s session storage.' +
        (worktree ? ` ${worktreeWriteNote(worktree)}` : ''),
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
  const wayOut = readOnlyWorkspace ? 'Propose the change in your plan instead.' : 'If the command really needs this, run it again with outside_sandbox_reason set to why; the user must approve that run.';
  return `[sandbox] ${reasons.join('\n[sandbox] ')}\n${wayOut}`;
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

/** Where a command's overlay can live, best first: beside the session storage (usually the workspace's own filesystem, so applying is a rename), else the temp folder. */
function overlayParents(storageRoot: string): string[] {
  const uid = process.getuid?.() ?? 'user';
  return [path.join(storageRoot, 'sandbox-overlays'), path.join(os.tmpdir(), `evergreen-overlays-${uid}`)].filter(usableOverlayParent);
}

/** How the sandbox holds the workspace for this session: through an overlay, or with placeholders (and why). */
type Holding = { kind: 'overlay'; tools: OverlayTools; parent: string } | { kind: 'placeholders'; why?: string };

/**
 * The paths inside the workspace where bubblewrap will make a mount point because they do not exist
 * (the first missing part of each): in an overlay those land in the upper folder, and are bwrap's,
 * not the command's, so they are never applied.
 */
function mountPointsInside(workspaceRoot: string, policy: SandboxPolicy, exists: (p: string) => boolean): string[] {
  const found = new Set<string>();
  for (const target of [...policy.denyWrite, ...policy.denyRead]) {
    if (!(target === workspaceRoot || target.startsWith(`${workspaceRoot}${path.sep}`)) || exists(target)) continue;
    let first = target;
    for (let parent = path.dirname(first); parent !== first && !exists(parent); parent = path.dirname(parent)) first = parent;
    found.add(path.relative(workspaceRoot, first).split(path.sep).join('/'));
  }
  return [...found];
}

/** Probes the platform and dependencies, then runs one command for real: only a sandbox that worked is reported on. */
export async function createOsSandbox(options: OsSandboxOptions): Promise<CommandSandbox> {
  // Installed but failing to run: on Linux the usual cause is the host refusing user namespaces.
  const unavailable = (problem: string, hint: UserText = installHint()): CommandSandbox => {
    const state: SandboxState = { kind: 'unavailable', problem, installHint: hint };
    options.logger.warn(`command sandbox unavailable: ${problem}`);
    return { state, wrap: () => Promise.reject(new SandboxError(`The sandbox cannot run here: ${problem}`)) };
  };
  if (!SandboxManager.isSupportedPlatform() || (process.platform !== 'linux' && process.platform !== 'darwin')) return unavailable(`${process.platform} is not supported`);
  const dependencies = SandboxManager.checkDependencies();
  if (dependencies.errors.length > 0) return unavailable(dependencies.errors.join('; '));
  for (const warning of dependencies.warnings) options.logger.warn(`command sandbox: ${warning}`);
  ensureHelperExecutable(options.logger);
  try {
    await initializeOnce(options.logger);
  } catch (error) {
    return unavailable(error instanceof Error ? error.message : String(error));
  }
  const workspaceRoot = path.resolve(options.workspaceRoot);
  sweepStaleTempFolders(options.logger);
  const privateTmp = ownTempFolder('sandbox');
  const build = (holding: Holding): CommandSandbox => buildSandbox({ ...options, workspaceRoot }, privateTmp, holding);
  // A sandbox that cannot run gives no session a use for the folder made for its commands.
  const unavailableNow = (problem: string): CommandSandbox => {
    removeOwnTempFolder(privateTmp, options.logger);
    return unavailable(problem, (process.platform === 'linux' ? userNamespaceFix(procReader) : undefined) ?? installHint());
  };
  // Placeholders on macOS too: Seatbelt refuses a path by its name, so nothing is ever mounted there.
  if (process.platform !== 'linux' || options.mechanism === 'placeholders') {
    const sandbox = build({ kind: 'placeholders' });
    const problem = await probeOnce(sandbox, `placeholders:${workspaceRoot}`);
    return problem === undefined ? sandbox : unavailableNow(problem);
  }
  const tools = findOverlayTools();
  const reasons: string[] = typeof tools === 'string' ? [tools] : [];
  if (typeof tools !== 'string') {
    for (const parent of overlayParents(options.storageRoot)) {
      await sweepStaleOverlays(parent, options.logger);
      const sandbox = build({ kind: 'overlay', tools, parent });
      const problem = await probeOnce(sandbox, `overlay:${parent}:${workspaceRoot}`);
      if (problem === undefined) return sandbox;
      reasons.push(`${parent}: ${problem}`);
    }
  }
  // Without an overlay the sandbox still holds: protected paths that do not exist yet get
  // placeholders while a command runs, as before the overlay existed. Said once per session.
  const why = reasons.join('; ');
  options.logger.warn(`command sandbox: the workspace overlay is not available here (${why}); holding protected paths with placeholders`);
  const sandbox = build({ kind: 'placeholders', why });
  const problem = await probeOnce(sandbox, `placeholders:${workspaceRoot}`);
  return problem === undefined ? sandbox : unavailableNow(problem);
}

/** One session's sandbox, holding the workspace as `holding` says. */
function buildSandbox(options: OsSandboxOptions, privateTmp: string, holding: Holding): CommandSandbox {
  const { workspaceRoot, logger } = options;
  const home = options.home ?? os.homedir();
  const listDir = listDirFor(logger);
  const sessionOverlay = holding.kind === 'overlay' ? holding : undefined;
  const policyNow = (readOnlyWorkspace: boolean): SandboxPolicy =>
    buildSandboxPolicy({
      workspaceRoot,
      home,
      privateTmp,
      storageRoot: options.storageRoot,
      sessionDir: options.sessionDir,
      allowedDomains: options.allowedDomains,
      exists: existsSync,
      listDir,
      holdsNewPaths: sessionOverlay ? 'after' : 'placeholders',
      runtimeHome: os.homedir(),
      hiddenFolders: sessionOverlay ? [sessionOverlay.parent] : [],
      readOnlyWorkspace,
      ...(options.worktree ? { worktree: options.worktree } : {}),
    });
  return {
    state: { kind: 'on', allowedDomains: normalizeDomains(options.allowedDomains), ...(holding.kind === 'placeholders' && holding.why ? { limitation: holding.why } : {}) },
    dispose() {
      removeOwnTempFolder(privateTmp, logger);
    },
    async wrap(command, { shell, signal, readOnlyWorkspace = false }): Promise<SandboxedCommand> {
      if (options.worktree) prepareWorktreeGit(options.worktree, logger);
      const policy = policyNow(readOnlyWorkspace);
      // A read-only workspace needs no overlay to check writes in, and cannot get a Git redirect.
      const overlay = readOnlyWorkspace ? undefined : sessionOverlay;
      const gitDir = path.join(workspaceRoot, '.git');
      const watched = !overlay && !readOnlyWorkspace && existsSync(gitDir) ? GIT_WATCHED.filter((name) => !existsSync(path.join(gitDir, name))) : [];
      // 128 random bits: the proxy reads this id from inside the sandbox to pick the domain list.
      const commandId = randomBytes(16).toString('base64url');
      let wrapped: string;
      try {
        wrapped = await withNeutralWorkingDirectory([workspaceRoot, privateTmp], () =>
          SandboxManager.wrapWithSandbox(
            `export TMPDIR=${shellQuote(privateTmp)}\n${command}`,
            undefined,
            {
              filesystem: { allowWrite: asNames(policy.allowWrite), denyWrite: asNames(policy.denyWrite), denyRead: asNames(policy.denyRead), allowRead: asNames(policy.allowRead) },
              network: { allowedDomains: policy.allowedDomains, deniedDomains: [] },
            },
            signal,
            { commandId, commandText: command },
          ),
        );
      } catch (error) {
        SandboxManager.cleanupAfterCommand();
        throw new SandboxError(`The sandbox could not prepare the command: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (policy.allowedDomains.length > 0) SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: policy.allowedDomains });
      let dirs: OverlayDirs | undefined;
      try {
        dirs = overlay ? createOverlayDirs(overlay.parent) : undefined;
      } catch (error) {
        SandboxManager.unregisterCommandNetworkLists(commandId);
        SandboxManager.cleanupAfterCommand();
        throw new SandboxError(`The sandbox could not make a folder for the command's writes: ${error instanceof Error ? error.message : String(error)}`);
      }
      const mountPoints = overlay ? mountPointsInside(workspaceRoot, policy, existsSync) : [];
      const spawnAs = overlay && dirs ? overlayCommand(overlay.tools, dirs, workspaceRoot, shell, wrapped) : { file: shell, args: ['-c', wrapped] };
      let released = false;
      return {
        ...spawnAs,
        async finish(output, failed, approveHeld) {
          const notes: string[] = [];
          if (dirs) {
            notes.push(
              ...(await finishOverlayCommand({ dirs, workspaceRoot, heldRoot: path.join(options.sessionDir, 'held-by-sandbox'), output, approveHeld, logger, ignored: mountPoints })),
            );
          }
          const undone = undoGitRedirects(gitDir, watched, privateTmp, logger);
          const failure = failed || undone.length > 0 ? describeSandboxFailure(failed ? output : '', policy.allowedDomains, failed ? SandboxManager.annotateStderrWithSandboxFailures(commandId, '') : '', undone, readOnlyWorkspace, options.worktree) : undefined;
          const lines = [...notes.map((note) => `[sandbox] ${note}`), ...(failure ? [failure] : [])];
          return lines.length === 0 ? undefined : lines.join('\n');
        },
        release() {
          if (released) return;
          released = true;
          SandboxManager.unregisterCommandNetworkLists(commandId);
          SandboxManager.cleanupAfterCommand();
          if (dirs) void removeOverlayDirs(dirs.dir, logger);
        },
      };
    },
  };
}

/** Keys of probes that succeeded: whether user namespaces and the overlay work does not change while the process runs. */
const probesSucceeded = new Set<string>();

/** Runs `true` in the sandbox once per key (each New Chat would otherwise pay for it); returns the problem, if any. */
async function probeOnce(sandbox: CommandSandbox, key: string): Promise<string | undefined> {
  if (probesSucceeded.has(key)) return undefined;
  const problem = await probe(sandbox);
  if (problem === undefined) probesSucceeded.add(key);
  return problem;
}

/** Runs `true` in the sandbox: user namespaces may be off (containers, AppArmor) even with bwrap installed, and an overlay may not mount. */
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
    await prepared.finish('', false, async () => false).catch(() => undefined);
    prepared.release();
  }
}

/** An empty folder only this process uses, to stand in for its working directory while srt wraps a command. */
let neutralDirectory: string | undefined;
let neutralUsers = 0;
let realCwd: (() => string) | undefined;

/**
 * The sandbox runtime protects some names relative to the process's working directory (`.bashrc`,
 * `.vscode`, `.git/hooks`, … and what a ripgrep scan finds below it), making an empty placeholder
 * for each one that does not exist. When that directory is the workspace (the CLI run from it, an
 * editor started there), those placeholders appear inside it: `git add -A` fails on them. Our own
 * policy protects those names already, so while srt wraps a command it is shown an empty folder
 * as the working directory. Only `process.cwd` is replaced, not the directory itself, and only
 * while the working directory lies in a folder commands may write.
 */
async function withNeutralWorkingDirectory<T>(writable: readonly string[], run: () => Promise<T>): Promise<T> {
  const cwd = (realCwd ?? process.cwd)();
  if (process.env.EG_ALWAYS_NEUTRAL === undefined && !writable.some((root) => cwd === root || cwd.startsWith(`${root}${path.sep}`))) return run();
  neutralDirectory ??= ownTempFolder('srt-cwd');
  const neutral = neutralDirectory;
  if (neutralUsers++ === 0) {
    realCwd = process.cwd;
    process.cwd = () => neutral;
  }
  try {
    return await run();
  } finally {
    if (--neutralUsers === 0 && realCwd) {
      process.cwd = realCwd;
      realCwd = undefined;
    }
  }
}

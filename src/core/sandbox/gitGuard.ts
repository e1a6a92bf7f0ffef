// Which of a command's changes would arm a program outside the sandbox, checked before any of
// them reaches the workspace (the overlay holds them until then, so there is no window).
//
// Git: VS Code's Git extension runs `git status` in every repository it finds, a nested one
// included, whenever files change; the user's own Git runs there too. A Git directory a command
// made or changed may bring only configuration that runs nothing: `git init` and `git clone` are
// fine, `core.fsmonitor`, `core.hooksPath`, a hook, a filter or any redirect (commondir, a `.git`
// file or link) is not. The editor, the shell and other agents: the new workspace entries of
// WORKSPACE_CREATE_PROTECTED and OVERLAY_ALSO_HELD (an existing one is read-only in the sandbox).
import { execFile } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { PROTECTED_WHY, protectedWriteWhy } from '../approvals/protectedPaths';
import { protectedWhyText } from '../approvals/texts';
import { userText, type UserText } from '../texts/userText';
import type { HeldWhy } from './policy';
import { bytes, displayPath, isAtOrBelow, toByteString, type OverlayChange } from './overlayChanges';

/** A change that needs the user's explicit approval before it is applied; declined, it is kept aside. */
export interface GuardedChange {
  /** Workspace-relative byte string; a folder covers everything below it. */
  path: string;
  /** Why, in English: the command's result tells the model. */
  reason: string;
  /** Why, as the approval card says it. */
  said: UserText;
  /** What exactly is risky (the configuration lines, the link's target), shown with the question. */
  detail?: string;
}

/**
 * Configuration keys that run nothing and point Git at nothing else: what `git init`, `git clone`,
 * `git remote`, `git branch -u` and `git config user.*` write. Any other key asks (keys as
 * `git config --list` prints them: section and name lower-case, a subsection as written).
 */
const INERT_GIT_KEYS: readonly RegExp[] = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|checkstat|trustctime|untrackedcache|sparsecheckout|sparsecheckoutcone|commentchar|abbrev|compression|bigfilethreshold|preloadindex|longpaths|whitespace|worktree)$/,
  /^extensions\.(objectformat|worktreeconfig|refstorage)$/,
  /^remote\..+\.(url|pushurl|fetch|push|mirror|tagopt|prune|prunetags|skipfetchall|promisor|partialclonefilter)$/,
  /^branch\..+\.(remote|pushremote|merge|rebase|description)$/,
  /^submodule\..+\.(url|active|branch|ignore|shallow)$/,
  /^(user\.(name|email|signingkey)|init\.defaultbranch|pull\.(rebase|ff)|push\.(default|autosetupremote)|fetch\.prune|merge\.(ff|conflictstyle|log)|rebase\.(autostash|autosquash)|color\.ui|column\.ui|gc\.auto|index\.version|commit\.gpgsign|tag\.gpgsign)$/,
  /^(lfs\.repositoryformatversion|advice\.[a-z0-9]+|status\.[a-z0-9]+)$/,
];

/** The config files of one Git directory; `config.worktree` applies with extensions.worktreeConfig. */
const CONFIG_FILES = new Set(['config', 'config.worktree']);
/** Files that point Git at another folder, whose config then applies. */
const REDIRECT_FILES = new Set(['commondir']);

export interface GuardInput {
  changes: readonly OverlayChange[];
  upperRoot: string;
  workspaceRoot: string;
  /** Workspace-root names a command may not create without approval, each with its reason (undefined: the write tools' reason for it). */
  createProtected: ReadonlyMap<string, HeldWhy | undefined>;
}

export async function guardOverlayChanges(input: GuardInput): Promise<GuardedChange[]> {
  const upper = toByteString(input.upperRoot);
  const workspace = toByteString(input.workspaceRoot);
  const deleted = input.changes.filter((change) => change.kind === 'delete').map((change) => change.path);
  const inMerged = (relative: string): boolean => {
    const fromUpper = lstatBytes(path.join(upper, relative));
    if (fromUpper !== undefined) return !(fromUpper.isCharacterDevice() && fromUpper.rdev === 0);
    return !deleted.some((root) => isAtOrBelow(relative, root)) && lstatBytes(path.join(workspace, relative)) !== undefined;
  };
  const isGitDirectory = (relative: string): boolean =>
    path.basename(relative).toLowerCase() === '.git' || (inMerged(`${relative}/HEAD`) && (inMerged(`${relative}/objects`) || inMerged(`${relative}/refs`)));
  const createProtected = new Map([...input.createProtected].map(([name, why]) => [name.toLowerCase(), why]));
  const guarded: GuardedChange[] = [];
  for (const change of input.changes) {
    if (change.kind === 'delete' || guarded.some((item) => isAtOrBelow(change.path, item.path))) continue;
    const topLevel = !change.path.includes('/');
    if (topLevel && createProtected.has(change.path.toLowerCase()) && lstatBytes(path.join(workspace, change.path)) === undefined) {
      const why = createProtected.get(change.path.toLowerCase()) ?? writeToolsWhy(displayPath(change.path));
      guarded.push({ path: change.path, reason: `a new ${displayPath(change.path)}: ${why.english}`, said: userText('approval.heldNew', { path: displayPath(change.path), why: why.said }) });
      continue;
    }
    const gitDir = enclosingGitDirectory(change.path, isGitDirectory);
    const found = gitDir === undefined ? outsideGitDirectory(change, upper) : await insideGitDirectory(change, gitDir, upper);
    if (found) guarded.push(found);
  }
  return guarded;
}

/** The write tools' reason for a protected name, or that it configures what runs outside the sandbox. */
function writeToolsWhy(shown: string): HeldWhy {
  const why = protectedWriteWhy(shown);
  if (why !== undefined) return { english: PROTECTED_WHY[why], said: protectedWhyText(why) };
  return { english: 'it configures what runs outside the sandbox', said: { kind: 'approval.heldWhyOutside', data: {} } };
}

function lstatBytes(byteString: string) {
  try {
    return lstatSync(bytes(byteString));
  } catch {
    return undefined;
  }
}

/** The nearest folder above `relative` that is a Git directory, if any. */
function enclosingGitDirectory(relative: string, isGitDirectory: (relative: string) => boolean): string | undefined {
  for (let dir = path.posix.dirname(relative); dir !== '.' && dir !== ''; dir = path.posix.dirname(dir)) if (isGitDirectory(dir)) return dir;
  return undefined;
}

/**
 * A `.git` file or link outside any Git directory names the Git directory of a worktree or
 * submodule: wherever it points, that folder's configuration would apply. Checking the target's
 * shape and content would leave a gap (a folder with just a config); these are rare in a command's
 * work (a worktree or submodule added inside a nested repository), so each asks.
 */
function outsideGitDirectory(change: OverlayChange, upper: string): GuardedChange | undefined {
  if (path.posix.basename(change.path).toLowerCase() !== '.git') return undefined;
  if (change.kind === 'symlink') return { path: change.path, reason: 'a .git link: Git would use the folder it points to, and its configuration, as this repository', said: userText('approval.heldGitLink', {}), detail: `-> ${displayPath(change.target)}` };
  if (change.kind !== 'file') return undefined;
  return { path: change.path, reason: 'a .git file: Git would use the folder it names, and its configuration, as this repository', said: userText('approval.heldGitFile', {}), detail: firstLines(readText(path.join(upper, change.path)) ?? '') };
}

function insideGitDirectory(change: OverlayChange, gitDir: string, upper: string): Promise<GuardedChange | undefined> | GuardedChange | undefined {
  const inner = change.path.slice(gitDir.length + 1);
  const where = displayPath(gitDir);
  if (change.kind === 'symlink') return { path: change.path, reason: `a link inside the Git directory ${where}: Git could read configuration through it`, said: userText('approval.heldLinkInGitDir', { where }), detail: `-> ${displayPath(change.target)}` };
  if (change.kind !== 'file') return undefined;
  if (inner.startsWith('hooks/') && !inner.endsWith('.sample')) {
    return { path: change.path, reason: `a Git hook in ${where}: Git runs it outside the sandbox`, said: userText('approval.heldGitHook', { where }), detail: firstLines(readText(path.join(upper, change.path)) ?? '') };
  }
  const name = path.posix.basename(inner);
  // commondir names the folder whose config applies; a target with just a config in it would pass any check of its shape.
  if (REDIRECT_FILES.has(name)) return { path: change.path, reason: `${name} in ${where}: Git would read its configuration from the folder it names`, said: userText('approval.heldGitRedirect', { name, where }), detail: firstLines(readText(path.join(upper, change.path)) ?? '') };
  if (!CONFIG_FILES.has(name)) return undefined;
  return riskyConfiguration(path.join(upper, change.path)).then((risky) =>
    risky === undefined ? undefined : { path: change.path, reason: `Git configuration in ${where} that runs commands or points Git elsewhere`, said: userText('approval.heldGitConfig', { where }), detail: risky },
  );
}

function readText(byteString: string): string | undefined {
  try {
    return readFileSync(bytes(byteString)).toString('utf8');
  } catch {
    return undefined;
  }
}

function firstLines(text: string): string {
  const lines = text.split('\n');
  return lines.slice(0, 6).join('\n') + (lines.length > 6 ? `\n… (${lines.length - 6} more lines)` : '');
}

/**
 * The keys of a Git config file that are not inert, as `key = value` lines, or undefined when all
 * are. Git itself parses the file (the reader the danger comes from), with includes off and no
 * other configuration read; a file Git cannot parse, or no Git to parse it, counts as risky.
 */
export async function riskyConfiguration(file: string): Promise<string | undefined> {
  const listed = await new Promise<{ stdout: Buffer } | { error: string }>((resolve) => {
    execFile(
      'git',
      ['config', '--file', bytes(file).toString('utf8'), '--no-includes', '--list', '-z'],
      {
        encoding: 'buffer',
        timeout: 10_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (error) resolve({ error: (stderr.toString('utf8').trim() || error.message).split('\n')[0] ?? error.message });
        else resolve({ stdout });
      },
    );
  });
  if ('error' in listed) return `Git could not read it, so it cannot be checked: ${listed.error}`;
  const risky: string[] = [];
  for (const entry of listed.stdout.toString('utf8').split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    const key = newline === -1 ? entry : entry.slice(0, newline);
    if (INERT_GIT_KEYS.some((pattern) => pattern.test(key))) continue;
    risky.push(newline === -1 ? key : `${key} = ${entry.slice(newline + 1)}`);
  }
  return risky.length === 0 ? undefined : risky.join('\n');
}

// What a sandboxed command may touch, as data: rebuilt for every command from the workspace, the
// session storage and the user's settings, then handed to the OS sandbox (srt.ts). Pure (the disk
// is reached through `exists` and `listDir`), so the rules are unit-tested without bubblewrap.
//
// What is protected, and why, is protectedLocations() (approvals/protectedPaths.ts), the list the write tools
// ask about. This file only decides how bubblewrap can hold it: which entries are protected before
// they exist, how far patterns are looked for, and what inside `.git` stays writable.
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { protectedLocations, type ProtectedLocation } from '../approvals/protectedPaths';
import type { HeldWhyText } from '../texts/approvals';
import { isInside } from '../workspace/workspace';
import { worktreeGitParts, type WorktreeGitAccess } from './worktreeGit';

/** One entry of a folder; a symbolic link is not a directory here (it is not followed). */
export interface DirEntry {
  name: string;
  isDirectory: boolean;
}

export interface SandboxPolicyInput {
  workspaceRoot: string;
  home: string;
  /** The command's private temp dir (TMPDIR inside the sandbox). */
  privateTmp: string;
  /** Evergreen's storage root (all sessions): never writable, other sessions never readable. */
  storageRoot: string;
  /** This session's own folder: readable (persisted outputs the model was pointed to), not writable. */
  sessionDir: string;
  /** Domains commands may reach (the network is off without any). */
  allowedDomains: readonly string[];
  /** Whether a path exists now: the policy is rebuilt for every command, since files come and go. */
  exists: (absolutePath: string) => boolean;
  /** The entries of a folder, links not followed; [] when it does not exist or cannot be read. */
  listDir: (absolutePath: string) => readonly DirEntry[];
  /**
   * How protected paths that do not exist yet are held: 'placeholders' mounts a read-only stand-in
   * over each while the command runs (visible to it, left behind by a SIGKILL); 'after' mounts
   * nothing, since the command writes into an overlay that is checked before it is applied
   * (gitGuard.ts). Default 'placeholders'.
   */
  holdsNewPaths?: 'placeholders' | 'after';
  /** Folders of Evergreen's that commands must neither read nor write (the overlays' upper folders). */
  hiddenFolders?: readonly string[];
  /** The home folder the sandbox runtime itself uses for its default writable folders (os.homedir()); default `home`. */
  runtimeHome?: string;
  /** Plan mode: nothing of the workspace is writable, only the command's temp folder (so no protected path needs holding). */
  readOnlyWorkspace?: boolean;
  /** The workspace is a Git worktree Evergreen made for this chat (issue 31): what of the main repository's Git directory its commits need. */
  worktree?: WorktreeGitAccess;
}

export interface SandboxPolicy {
  allowWrite: string[];
  denyWrite: string[];
  denyRead: string[];
  allowRead: string[];
  allowedDomains: string[];
}

/**
 * Inside a Git directory, what decides which commands run: config (core.fsmonitor, aliases,
 * pagers, includes), hooks, info/ (attributes pick filters), and the files that turn a folder into
 * a repository with its own config. Everything else stays writable — objects, refs, logs, the
 * index, HEAD and the lock files — so `git add`, `git commit` and `git stash` work in the sandbox.
 */
export const GIT_READ_ONLY = ['config', 'hooks', 'info', 'modules', 'worktrees'] as const;

/**
 * Files Git reads when present, which redirect it to another config (commondir names the folder
 * whose config applies). A placeholder cannot stand in for them: Git fails on an unreadable or
 * empty one. So they are read-only where they exist, and one a command created in the workspace's
 * own `.git` is moved out when it ends (srt.ts), before a Git outside the sandbox can read it.
 */
export const GIT_WATCHED = ['commondir', 'config.worktree'] as const;

/**
 * Workspace entries (protectedLocations patterns) protected even before they exist: what VS Code,
 * the user's shell or an agent runs outside the sandbox without asking. With the workspace overlay
 * a new one waits for the user's approval after the command (gitGuard.ts); without it, bubblewrap
 * holds a missing path by mounting over its first missing part, which leaves an empty placeholder
 * in the workspace while the command runs. Every other protected name is read-only only where it
 * exists (a command may still create a new Makefile; running it is again sandboxed or asked).
 * With placeholders `.git` is one too when there is no repository (git init would bring a config
 * of its choosing); with the overlay a new repository's config is checked like any other.
 */
export const WORKSPACE_CREATE_PROTECTED = ['.vscode', '.envrc', '.husky', '.githooks', '.devcontainer', '.mcp.json'] as const;

/**
 * With the overlay, more new workspace entries can wait for the user at no cost to the command
 * (nothing is mounted for them): other agents' and editors' project settings that run commands.
 * Each with why, since the write tools' list does not name them.
 */
export const OVERLAY_ALSO_HELD: Readonly<Record<string, HeldWhy>> = {
  '.claude': { english: "Claude Code's project settings run hooks and define its commands and agents", said: { kind: 'approval.heldWhyClaude', data: {} } },
  '.idea': { english: "JetBrains IDEs' project settings hold run configurations and startup tasks", said: { kind: 'approval.heldWhyJetBrains', data: {} } },
};

/** Why a new entry waits for the user: in English for the command's result (the model), as a kind for the approval card. */
export interface HeldWhy {
  english: string;
  said: HeldWhyText;
}

/**
 * Patterns that match at any depth are looked for at their root and in each folder directly below
 * it (`package.json`, `sub/package.json`; `.github/workflows`, `sub/.github/workflows`), never
 * deeper: srt would walk the whole tree for every command, node_modules included. Deeper copies
 * (`packages/a/package.json`, `.venv/lib/python3.12/site-packages/x.pth`) are not held read-only.
 */
export const PATTERN_FOLDER_DEPTH = 1;

/** Folders below a root that are not searched for protected names, and why. */
export const NOT_SEARCHED: Readonly<Record<string, string>> = {
  node_modules: 'installed packages: npm install rewrites their package.json files, and one folder holds thousands',
  '.git': "Git's own folder: GIT_READ_ONLY says what in it is read-only (HEAD and refs must stay writable)",
};

/**
 * Folders of the home directory the sandbox runtime would make writable by default (npm's logs,
 * Claude Code's debug logs): hidden instead, so nothing outside the workspace and the command's own
 * temp folder is writable. npm then skips its log file.
 */
export const HOME_DEFAULT_WRITABLE_HIDDEN = ['.npm/_logs', '.claude/debug'] as const;

/** Credentials and secret stores a command never needs to read. Relative to the home directory. */
export const HOME_READ_DENIED = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.git-credentials',
  '.config/gh',
  '.local/share/keyrings',
  '.password-store',
  // VS Code's secret storage (encrypted in state.vscdb) for desktop, remote server and code-server.
  '.config/Code/User/globalStorage',
  '.config/Code - Insiders/User/globalStorage',
  '.vscode-server/data/User/globalStorage',
  '.local/share/code-server/User/globalStorage',
] as const;

export function buildSandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
  const root = path.resolve(input.workspaceRoot);
  const storageRoot = path.resolve(input.storageRoot);
  const sessionDir = path.resolve(input.sessionDir);
  const hidden = (input.hiddenFolders ?? []).map((folder) => path.resolve(folder));
  const inHome = (relative: string) => path.join(input.home, relative);
  const reads = {
    // Storage as a whole is hidden; this session's own folder is opened again (allowRead wins).
    denyRead: unique([...HOME_READ_DENIED.map(inHome), ...HOME_DEFAULT_WRITABLE_HIDDEN.map((relative) => path.join(input.runtimeHome ?? input.home, relative)), storageRoot, ...hidden]),
    allowRead: [sessionDir],
    allowedDomains: normalizeDomains(input.allowedDomains),
  };
  // Everything but the command's temp folder stays as read-only as the root is: nothing to hold, nothing placed in the workspace.
  if (input.readOnlyWorkspace) return { allowWrite: [path.resolve(input.privateTmp)], denyWrite: [], ...reads };
  const locations = protectedLocations({ workspaceRoot: root, home: path.resolve(input.home), sessionStorage: storageRoot, ...(input.worktree ? { worktree: root } : {}) });
  const listings = new Map<string, readonly DirEntry[]>();
  const list = (dir: string): readonly DirEntry[] => {
    let entries = listings.get(dir);
    if (entries === undefined) listings.set(dir, (entries = input.listDir(dir)));
    return entries;
  };
  const denyWrite: string[] = [];
  const placeholders = (input.holdsNewPaths ?? 'placeholders') === 'placeholders';
  const protect = (found: DirEntry & { path: string }): void => {
    // A Git directory stays usable: only what makes Git run commands is read-only in it.
    if (found.isDirectory && found.name.toLowerCase() === '.git') denyWrite.push(...gitDirectoryReadOnly(found.path, input.exists, placeholders));
    else denyWrite.push(found.path);
  };
  // A pattern the sandbox does not hold says why (notInSandbox); the write tools still ask for it.
  const patterns = locations.filter((location): location is Extract<ProtectedLocation, { kind: 'pattern' }> => location.kind === 'pattern' && location.notInSandbox === undefined);
  for (const location of locations) if (location.kind === 'path' && input.exists(location.path)) denyWrite.push(location.path);
  const matches = segmentMatcher();
  const { names, paths } = groupPatterns(patterns);
  const heldIn = (dir: string, group: NameGroup): void => {
    for (const entry of list(dir)) if (matches(group.names, entry.name) && !(group.filesOnly && entry.isDirectory)) protect({ ...entry, path: path.join(dir, entry.name) });
  };
  const held = (location: PatternLocation, found: DirEntry & { path: string }): void => {
    if (!(location.filesOnly && found.isDirectory)) protect(found);
  };
  for (const group of names) heldIn(group.root, group);
  for (const location of paths) for (const found of matchesBelow(location.root, patternSegments(location.pattern), list, matches)) held(location, found);
  // Folders protected as a whole at a root are not searched again.
  const protectedAtRoot = new Set(denyWrite);
  const folders = new Map<string, string[]>();
  const below = (root: string): string[] => {
    let found = folders.get(root);
    if (found === undefined) folders.set(root, (found = searchedFolders(root, list, protectedAtRoot)));
    return found;
  };
  for (const group of names) if (group.anyDepth) for (const folder of below(group.root)) heldIn(folder, group);
  for (const location of paths) {
    if (!matchesAtAnyDepth(location.pattern)) continue;
    for (const folder of below(location.root)) for (const found of matchesBelow(folder, patternSegments(location.pattern), list, matches)) held(location, found);
  }
  if (placeholders) {
    for (const name of WORKSPACE_CREATE_PROTECTED) {
      if (patterns.some((location) => location.root === root && location.pattern === name)) denyWrite.push(path.join(root, name));
    }
    const gitDir = path.join(root, '.git');
    if (!input.exists(gitDir)) denyWrite.push(gitDir);
  }
  // A worktree in Evergreen's storage is this chat's workspace: the storage around it stays
  // read-only as everything outside the writable roots is, and hidden (denyRead below).
  const storageAroundWorkspace = input.worktree !== undefined && isInside(root, storageRoot);
  denyWrite.push(...(storageAroundWorkspace ? [] : [storageRoot]), sessionDir, ...hidden);
  const git = input.worktree ? worktreeGitParts(input.worktree, input.exists, list) : { allowWrite: [], denyWrite: [] };
  // The worktree's .git file names its Git directory: pointed elsewhere, another configuration would apply.
  denyWrite.push(...git.denyWrite, ...(input.worktree ? [path.join(root, '.git')] : []));
  return {
    allowWrite: [root, path.resolve(input.privateTmp), ...git.allowWrite],
    denyWrite: unique(denyWrite),
    ...reads,
  };
}

/**
 * What is read-only in one Git directory: GIT_READ_ONLY (with placeholders, also where missing),
 * and the GIT_WATCHED files that exist. With the overlay, what is missing is checked after the
 * command instead (a new hook, config or redirect waits for the user).
 */
function gitDirectoryReadOnly(gitDir: string, exists: (absolutePath: string) => boolean, placeholders: boolean): string[] {
  const readOnly = GIT_READ_ONLY.map((name) => path.join(gitDir, name));
  return [...(placeholders ? readOnly : readOnly.filter(exists)), ...GIT_WATCHED.map((name) => path.join(gitDir, name)).filter(exists)];
}

/**
 * gitignore semantics: a pattern without a '/' but at its end, or one starting with `**\/`, matches
 * at any depth; any other is anchored at its root.
 */
function matchesAtAnyDepth(pattern: string): boolean {
  return pattern.startsWith('**/') || !pattern.replace(/\/$/, '').includes('/');
}

/** The pattern as path segments from the folder it is matched in (a leading `/` or `**\/` dropped). */
function patternSegments(pattern: string): string[] {
  return pattern
    .replace(/^\*\*\//, '')
    .split('/')
    .filter((segment) => segment !== '');
}

type PatternLocation = Extract<ProtectedLocation, { kind: 'pattern' }>;

/** Patterns of one name each, matched together: `names` is one gitignore text, a pattern a line. */
interface NameGroup {
  root: string;
  anyDepth: boolean;
  filesOnly: boolean;
  names: string;
}

/**
 * The list has hundreds of one-name patterns (`Dockerfile`, `*.csproj`): matched one by one against
 * every entry of every searched folder they cost more than the rest of the policy, so they are
 * matched as one gitignore text per root, depth and kind. Patterns with a folder in them stay apart.
 */
function groupPatterns(patterns: readonly PatternLocation[]): { names: NameGroup[]; paths: PatternLocation[] } {
  const groups = new Map<string, { root: string; anyDepth: boolean; filesOnly: boolean; names: string[] }>();
  const paths: PatternLocation[] = [];
  for (const location of patterns) {
    const segments = patternSegments(location.pattern);
    if (segments.length !== 1) {
      paths.push(location);
      continue;
    }
    const anyDepth = matchesAtAnyDepth(location.pattern);
    const filesOnly = location.filesOnly === true;
    const key = `${location.root}\0${anyDepth}\0${filesOnly}`;
    const group = groups.get(key) ?? { root: location.root, anyDepth, filesOnly, names: [] };
    group.names.push(segments[0] as string);
    groups.set(key, group);
  }
  return { names: [...groups.values()].map((group) => ({ ...group, names: group.names.join('\n') })), paths };
}

/** The folders directly below `root` that a pattern matching at any depth is also looked for in. */
function searchedFolders(root: string, list: Lister, protectedWhole: ReadonlySet<string>): string[] {
  let folders = [root];
  const searched: string[] = [];
  for (let depth = 0; depth < PATTERN_FOLDER_DEPTH; depth++) {
    folders = folders.flatMap((dir) =>
      list(dir)
        .filter((entry) => entry.isDirectory && !Object.hasOwn(NOT_SEARCHED, entry.name) && !protectedWhole.has(path.join(dir, entry.name)))
        .map((entry) => path.join(dir, entry.name)),
    );
    searched.push(...folders);
  }
  return searched;
}

/** Compiled segment matchers, kept across commands: compiling them for every command costs more than the rest of the policy. */
let segmentMatchers = new Map<string, Ignore>();
let policiesBuilt = 0;

/**
 * Whether one name matches one pattern segment (or any line of a NameGroup's text), as the write
 * tools match it (gitignore, case-insensitive). `ignore` caches every name it was asked about, so the matchers are renewed
 * every 64 policies: the cache cannot grow with every name a long session creates.
 */
function segmentMatcher(): (segment: string, name: string) => boolean {
  if (++policiesBuilt % 64 === 0) segmentMatchers = new Map();
  const matchers = segmentMatchers;
  return (segment, name) => {
    let matcher = matchers.get(segment);
    if (matcher === undefined) matchers.set(segment, (matcher = ignore({ ignorecase: true }).add(segment)));
    return matcher.ignores(name);
  };
}

type Lister = (dir: string) => readonly DirEntry[];
type SegmentMatcher = (segment: string, name: string) => boolean;

/** The entries below `dir` that the segments match, one listing per segment. */
function matchesBelow(dir: string, segments: readonly string[], list: Lister, matches: SegmentMatcher): Array<DirEntry & { path: string }> {
  const [segment, ...rest] = segments;
  if (segment === undefined) return [];
  if (segment === '**') throw new Error(`a protected pattern with ** inside it cannot be held by the sandbox: ${segments.join('/')}`);
  const matched = list(dir).filter((entry) => matches(segment, entry.name));
  if (rest.length === 0) return matched.map((entry) => ({ ...entry, path: path.join(dir, entry.name) }));
  return matched.filter((entry) => entry.isDirectory).flatMap((entry) => matchesBelow(path.join(dir, entry.name), rest, list, matches));
}

/** Registries a user can open in one step (`evergreen.sandbox.allowPackageRegistries`, `--allow-package-registries`). */
export const PACKAGE_REGISTRY_DOMAINS = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'index.crates.io',
  'static.crates.io',
  'proxy.golang.org',
  'sum.golang.org',
  'rubygems.org',
  'repo.maven.apache.org',
  'repo1.maven.org',
] as const;

const DOMAIN = /^(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$|^localhost$/;

/** Checks one allowed-domain entry; returns the problem in words, or undefined when it is usable. */
export function domainProblem(entry: string): string | undefined {
  const domain = entry.trim().toLowerCase();
  if (domain === '') return 'an empty entry';
  if (domain === '*' || domain === '*.*') return `"${entry}" would open the whole network; list the domains commands need`;
  if (!DOMAIN.test(domain)) return `"${entry}" is not a domain name (e.g. "example.com" or "*.example.com")`;
  return undefined;
}

/** The allowed domains from a setting or flags: every usable entry, and each bad one in words. */
export function parseAllowedDomains(entries: readonly unknown[], packageRegistries: boolean): { domains: string[]; problems: string[] } {
  const domains: string[] = packageRegistries ? [...PACKAGE_REGISTRY_DOMAINS] : [];
  const problems: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') {
      problems.push(`${JSON.stringify(entry)} is not a string`);
      continue;
    }
    const problem = domainProblem(entry);
    if (problem) problems.push(problem);
    else domains.push(entry.trim().toLowerCase());
  }
  return { domains: unique(domains), problems };
}

/** Domains as the proxy compares them: trimmed, lower-case, once each. */
export function normalizeDomains(domains: readonly string[]): string[] {
  return unique(domains.map((domain) => domain.trim().toLowerCase()).filter((domain) => domain !== ''));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

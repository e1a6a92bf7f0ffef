// What a sandboxed command may touch, as data: built once per session from the workspace, the
// session storage and the user's settings, then handed to the OS sandbox (srt.ts). Pure, so the
// rules are unit-tested without bubblewrap.
import * as path from 'node:path';

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
  /** Extra absolute paths that must stay read-only (protected files outside the workspace, e.g. VS Code's settings.json). */
  extraReadOnly?: readonly string[];
  /** Whether a path exists now: the policy is rebuilt for every command, since files come and go. */
  exists: (absolutePath: string) => boolean;
}

export interface SandboxPolicy {
  allowWrite: string[];
  denyWrite: string[];
  denyRead: string[];
  allowRead: string[];
  allowedDomains: string[];
}

/**
 * Inside `.git`, what decides which commands run: config (core.fsmonitor, aliases, pagers,
 * includes), hooks, info/ (attributes pick filters), and the files that turn a folder into a
 * repository with its own config. Objects, refs, logs, the index and HEAD stay writable, so
 * `git add`, `git commit` and `git stash` work in the sandbox.
 */
export const GIT_READ_ONLY = ['config', 'hooks', 'info', 'modules', 'worktrees'] as const;

/**
 * Files Git reads when present, which redirect it to another config (commondir names the folder
 * whose config applies). A placeholder cannot stand in for them: Git fails on an unreadable or
 * empty one. So they are read-only where they exist, and one a command created is moved out of
 * `.git` when it ends (srt.ts), before a Git outside the sandbox can read it.
 */
export const GIT_WATCHED = ['commondir', 'config.worktree'] as const;

/**
 * Protected even before they exist: what VS Code, the user's shell or Git run outside the sandbox
 * without asking. bubblewrap protects a missing path by mounting over its first missing part, which
 * leaves an empty placeholder on disk while the command runs, so the rest of the list below is
 * protected only where it exists (a command may still create a new Makefile; running it is again
 * sandboxed or asked).
 */
export const WORKSPACE_CREATE_PROTECTED = ['.vscode', '.envrc', '.husky', '.githooks', '.devcontainer', '.mcp.json'] as const;

/**
 * Workspace files that configure what later commands run (the same concern as protectedPaths.ts,
 * which makes the write tools ask). Kept read-only inside the sandbox: a command cannot plant what
 * an allow-listed `git status` or `npm test` would then execute. Nested copies (a package.json in
 * a sub-package) are matched by the glob forms.
 */
export const WORKSPACE_READ_ONLY = [
  '.devcontainer.json',
  '.github/workflows',
  '.gitattributes',
  '.gitmodules',
  '.lfsconfig',
  '.gitconfig',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.env',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.yarn',
  '.pnpmfile.cjs',
  '.pnp.cjs',
  'package.json',
  'Makefile',
  'GNUmakefile',
  'justfile',
  'Rakefile',
  'Gemfile',
  'composer.json',
  'pom.xml',
  '.mvn',
  'build.gradle',
  'build.gradle.kts',
  'settings.gradle',
  'settings.gradle.kts',
  'gradle.properties',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'tox.ini',
  'noxfile.py',
  'pytest.ini',
  'conftest.py',
  'Cargo.toml',
  'build.rs',
  '.cargo',
  'mise.toml',
  '.mise.toml',
  '.tool-versions',
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.profile',
  '.evergreen',
] as const;

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

/** Start-up and configuration files in the home directory that run code: read-only even if home were writable. */
export const HOME_READ_ONLY = [
  '.config/git',
  '.gitconfig',
  '.ssh/config',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.config/Code/User/settings.json',
  '.vscode-server/data/Machine/settings.json',
  '.local/share/code-server/User/settings.json',
  '.local/share/code-server/Machine/settings.json',
] as const;

export function buildSandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
  const root = path.resolve(input.workspaceRoot);
  const inRoot = (relative: string) => path.join(root, relative);
  const inHome = (relative: string) => path.join(input.home, relative);
  const gitDir = inRoot('.git');
  const denyWrite = [
    // No repository yet: `.git` itself stays uncreatable (git init would bring a config of its choosing).
    ...(input.exists(gitDir) ? [...GIT_READ_ONLY.map((name) => path.join(gitDir, name)), ...GIT_WATCHED.map((name) => path.join(gitDir, name)).filter(input.exists)] : [gitDir]),
    ...WORKSPACE_CREATE_PROTECTED.map(inRoot),
    ...WORKSPACE_READ_ONLY.map(inRoot).filter(input.exists),
    ...HOME_READ_ONLY.map(inHome).filter(input.exists),
    path.resolve(input.storageRoot),
    path.resolve(input.sessionDir),
    ...(input.extraReadOnly ?? []),
  ];
  return {
    allowWrite: [root, path.resolve(input.privateTmp)],
    denyWrite: unique(denyWrite),
    // Storage as a whole is hidden; this session's own folder is opened again (allowRead wins).
    denyRead: unique([...HOME_READ_DENIED.map(inHome), path.resolve(input.storageRoot)]),
    allowRead: [path.resolve(input.sessionDir)],
    allowedDomains: unique(input.allowedDomains.map((domain) => domain.trim().toLowerCase()).filter((domain) => domain !== '')),
  };
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

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

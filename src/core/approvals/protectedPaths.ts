// Files that decide what a later command executes. With writes on auto and `git status` on the
// shell allow-list, one write to `.git/config` (core.fsmonitor, an alias, a hook) and one allowed
// `git status` would run anything without a prompt; the same holds for npm scripts, Makefiles,
// direnv files, editor tasks, tool configs that are code (eslint.config.js), CI workflows, shell
// start-up files, SSH and Git user config, VS Code's user settings and Evergreen's own session
// storage. A write to any of these always asks, whatever `approvals.writes` says.
//
// Judged by where a write really lands, not by the name the model gave: the write tools pass the
// real path (symbolic links resolved), and protectedWriteReasonAt also finds what a name cannot
// show — a folder that is a Git directory by its content (HEAD, objects, refs) whatever it is
// called, and a protected entry that is a symbolic link to the target (`.git -> store`,
// `~/.bashrc -> dotfiles/bashrc`), and a virtualenv's bin folder by the pyvenv.cfg beside it.
//
// The same list is what the shell sandbox keeps read-only: protectedLocations(), held by
// src/core/sandbox/policy.ts.
//
// Not covered, and said so in docs/security.md: an allow-listed command that runs the project's own code
// (`npm test` runs the test files) trusts every file that code loads.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isInside, realpathLoose } from '../workspace/workspace';
import type { ProtectedWhy } from '../texts/approvals';

export interface ProtectedRule {
  /** gitignore syntax, matched case-insensitively (on macOS and Windows `.GIT/config` is `.git/config`). */
  patterns: readonly string[];
  why: ProtectedWhy;
  /** The names are files only: a folder so named is not protected (Bazel's `BUILD` beside a `build/` output folder, `WORKSPACE` beside `workspace/`). */
  filesOnly?: true;
  /** Why the OS sandbox does not hold these read-only (the write tools still ask). */
  notInSandbox?: string;
}

/**
 * Each reason a path is protected, in English: what the sandbox's notes to the model and the logs
 * say, and the English of its kind (`approval.protected…`), which the front ends word for the user
 * (src/frontends/words/approvals.ts takes its templates from here: one definition of each sentence).
 */
export const PROTECTED_WHY: Readonly<Record<ProtectedWhy, string>> = {
  git: 'Git configuration and hooks run commands (core.fsmonitor, core.pager, aliases, hooks)',
  gitSelectors: 'it selects Git filters, diff drivers, includes and submodule commands',
  gitHead: 'a HEAD file turns its folder into a Git repository whose config runs commands',
  gitHooks: 'Git hooks run commands',
  ci: "CI definitions run commands with the repository's secrets",
  editor: "workspace settings and tasks run commands and hold Evergreen's own settings",
  devContainer: 'dev container definitions run commands',
  mcpServers: 'it lists MCP servers, commands that agents such as Claude Code start',
  packageScripts: 'package scripts and package-manager settings run commands',
  yarn: 'Yarn runs the code kept here on every yarn command',
  toolCode: 'tool configuration written in code runs when the tool starts',
  buildCode: 'build definitions run code',
  maven: 'Maven wrapper settings run code',
  toolVersions: 'tool and build settings change what commands run',
  buildFiles: 'build files run commands',
  environmentFiles: 'environment files change what commands run (direnv, dotenv)',
  shellStartup: 'shell start-up files run commands',
  pythonBuild: 'Python build and test configuration runs code',
  pythonStartup: 'Python runs this code whenever it starts',
  cargo: 'Cargo build scripts and settings run code',
  containers: 'container builds run their steps, and compose files start containers with host mounts and privileges',
  goModules: 'Go module and tool settings choose the toolchain and the code go and its linters run',
  buildDefinitions: 'build definitions run commands and code when the project builds',
  rustToolchain: 'rustup runs the toolchain these name (a path too), and cross and cargo-make run their commands',
  pythonPackages: 'Python installs the packages these list (and runs their code), or takes the interpreter they name',
  pluginSettings: 'these load plugins or run code when the tool starts',
  nodeBins: 'npm scripts and npx run the programs installed here',
  toolSettings: 'tool settings name the commands, plugins and parsers the tool runs',
  toolFiles: 'tool settings and tool files written in code run when the tool starts',
  msbuild: 'MSBuild project and import files run their tasks when .NET builds',
  versionFiles: 'version files choose the toolchain commands run, and version managers download and run it',
  devEnvironments: 'development environments run their shell hooks and start-up tasks when entered',
  ideSettings: 'editor and IDE project settings hold run configurations, tasks and language servers the editor runs',
  evergreenData: "it is Evergreen's own data",
  ssh: 'SSH configuration runs commands (ProxyCommand, LocalCommand) and decides who may log in',
  packageManagers: 'package-manager settings decide what code is installed and run',
  vscodeUser: "VS Code's user and machine settings, tasks and MCP servers run commands",
  vscodeExtensions: 'VS Code runs the extensions installed here',
  userTools: 'user-wide tool settings choose the programs every build and test runs',
  sessionStorage: "it is Evergreen's own session storage: transcripts a resumed session trusts as its history",
  gitDirectory: 'it is inside a Git directory (a folder with HEAD, objects and refs), whatever its name: Git reads its config and hooks',
  virtualenv: "it is a virtualenv's bin folder (pyvenv.cfg beside it), whatever its name: python, pip and pytest there are what commands in the environment run",
};

/** Shell start-up files, by name: protected at any depth in the workspace and at the top of the home folder. */
const SHELL_STARTUP = [
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.profile', '.inputrc',
  '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.kshrc', '.mkshrc', '.cshrc', '.tcshrc', '.login', '.logout',
  '.xprofile', '.xsession', '.xsessionrc', '.xinitrc', '.pam_environment',
];

/** Paths relative to the workspace root (patterns without a leading '/' match at any depth). */
export const WORKSPACE_RULES: readonly ProtectedRule[] = [
  // `.git` is also the file of a worktree or submodule that names its Git directory.
  { patterns: ['.git'], why: 'git' },
  { patterns: ['.gitattributes', '.gitmodules', '.lfsconfig', '.gitconfig'], why: 'gitSelectors' },
  // Git takes any folder holding HEAD, objects/ and refs/ for a repository (with its own config and
  // core.fsmonitor), even in a workspace that is not one: the HEAD file is what makes it so.
  { patterns: ['HEAD', 'commondir', 'gitdir'], why: 'gitHead' },
  { patterns: ['.githooks', '.husky'], why: 'gitHooks' },
  {
    patterns: ['.pre-commit-config.yaml', '.pre-commit-config.yml', 'lefthook.yml', 'lefthook.yaml', '.lefthook.yml', '.lefthook.yaml', 'lefthook-local.yml', 'lefthook-local.yaml'],
    why: 'gitHooks',
  },
  { patterns: ['**/.github/workflows', '**/.github/actions', '.gitlab-ci.yml', '.circleci', 'azure-pipelines.yml', 'bitbucket-pipelines.yml', 'Jenkinsfile'], why: 'ci' },
  { patterns: ['.vscode', '*.code-workspace'], why: 'editor' },
  { patterns: ['.devcontainer', '.devcontainer.json'], why: 'devContainer' },
  { patterns: ['.mcp.json'], why: 'mcpServers' },
  {
    patterns: ['package.json', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.pnp.cjs', '.pnp.loader.mjs', 'bunfig.toml', 'deno.json', 'deno.jsonc'],
    why: 'packageScripts',
  },
  // Yarn Berry runs the release named by yarnPath (.yarn/releases/*.cjs) on every `yarn`.
  { patterns: ['.yarn'], why: 'yarn' },
  // Tools load these as code when they start (eslint, vite, jest, webpack, babel, prettier, mocha…).
  {
    patterns: ['*.config.js', '*.config.cjs', '*.config.mjs', '*.config.ts', '*.config.cts', '*.config.mts', '.*rc.js', '.*rc.cjs', '.*rc.mjs', '.*rc.ts', '.*rc.cts', '.*rc.mts', '*.conf.js', '.mocharc.*', 'gulpfile.*', 'gruntfile.*', '.vscode-test.*'],
    why: 'toolCode',
  },
  {
    patterns: ['Gemfile', 'composer.json', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts', 'gradle.properties', 'Vagrantfile', 'Procfile'],
    why: 'buildCode',
  },
  { patterns: ['.mvn'], why: 'maven' },
  { patterns: ['mise.toml', '.mise.toml', '.tool-versions', 'config.mak'], why: 'toolVersions' },
  { patterns: ['Makefile', 'GNUmakefile', 'justfile', '.justfile', 'Rakefile', 'Taskfile.yml', 'Taskfile.yaml', '*.mk'], why: 'buildFiles' },
  { patterns: ['.envrc', '.env', '.env.*'], why: 'environmentFiles' },
  { patterns: SHELL_STARTUP, why: 'shellStartup' },
  { patterns: ['pyproject.toml', 'setup.py', 'setup.cfg', 'tox.ini', 'noxfile.py', 'pytest.ini', 'conftest.py'], why: 'pythonBuild' },
  // Python runs the import lines of every .pth file in site-packages at start-up (a virtualenv in the workspace too).
  { patterns: ['**/site-packages/*.pth', '**/dist-packages/*.pth', 'sitecustomize.py', 'usercustomize.py'], why: 'pythonStartup' },
  { patterns: ['build.rs', 'Cargo.toml', '**/.cargo/config', '**/.cargo/config.toml'], why: 'cargo' },
  // Containers: `docker build` runs a Dockerfile's RUN steps; compose files start containers with host mounts, devices and privileges.
  { patterns: ['Dockerfile', 'Dockerfile.*', '*.Dockerfile', '*.dockerfile', 'Containerfile', 'Containerfile.*', 'docker-compose.yml', 'docker-compose.yaml', 'docker-compose.*.yml', 'docker-compose.*.yaml', 'compose.yml', 'compose.yaml', 'compose.*.yml', 'compose.*.yaml', 'docker-bake.hcl', 'docker-bake.json', 'Earthfile', 'Tiltfile', 'skaffold.yaml'], why: 'containers' },
  // go.mod's toolchain line makes `go` download and run another toolchain; its tool and replace lines pick the code go runs.
  { patterns: ['go.mod', 'go.work', '.golangci.yml', '.golangci.yaml', '.golangci.toml', '.golangci.json', '.goreleaser.yml', '.goreleaser.yaml'], why: 'goModules' },
  { patterns: ['CMakeLists.txt', '*.cmake', 'CMakePresets.json', 'CMakeUserPresets.json', 'meson.build', 'meson_options.txt', 'meson.options', 'BUILD.bazel', 'WORKSPACE.bazel', 'MODULE.bazel', '*.bzl', '.bazelrc', '.bazelversion', 'SConstruct', 'SConscript', 'configure.ac', 'configure.in', 'Makefile.am', 'Makefile.in', 'build.zig', 'Package.swift', 'mix.exs', 'rebar.config', '*.sbt', 'project.clj', 'deps.edn', 'bb.edn', 'Makefile.PL', 'Build.PL', '*.nimble', 'config.nims'], why: 'buildDefinitions' },
  // Bazel's BUILD and WORKSPACE files: by name only, never a build/ or workspace/ folder.
  { patterns: ['BUILD', 'WORKSPACE', 'BUCK'], why: 'buildDefinitions', filesOnly: true },
  { patterns: ['rust-toolchain', 'rust-toolchain.toml', 'Cross.toml', 'Makefile.toml'], why: 'rustToolchain' },
  // pip installs what these list, -e and --index-url lines included, and a package's build runs its code.
  { patterns: ['requirements*.txt', 'requirements*.in', '**/requirements/*.txt', '**/requirements/*.in', 'constraints*.txt', 'Pipfile', 'pixi.toml', 'pyvenv.cfg'], why: 'pythonPackages' },
  // Options that load plugins or code: pylint's load-plugins and init-hook, mypy's plugins, coverage's plugins, pdb's start-up commands, R's and Octave's profiles.
  { patterns: ['.pylintrc', 'pylintrc', 'mypy.ini', '.mypy.ini', '.coveragerc', '.pdbrc', '.Rprofile', '.octaverc'], why: 'pluginSettings' },
  // A virtualenv's bin folder is judged by its content (pyvenv.cfg beside it): see the 'virtualenv' reason.
  {
    patterns: ['**/node_modules/.bin', '**/node_modules/*/bin', '**/node_modules/@*/*/bin'],
    why: 'nodeBins',
    notInSandbox: 'npm install writes these folders, and the sandbox never searches node_modules (a folder holds thousands of packages)',
  },
  // Config files that name the plugins, parsers or commands a tool loads (JSON and YAML ones; the JavaScript ones are above).
  { patterns: ['.lintstagedrc', '.lintstagedrc.*', '.huskyrc', '.huskyrc.*', '.simple-git-hooks.json', 'simple-git-hooks.json', '.eslintrc', '.eslintrc.*', '.prettierrc', '.prettierrc.*', '.stylelintrc', '.stylelintrc.*', '.babelrc', '.babelrc.*', 'babel.config.*', '.postcssrc', '.postcssrc.*', '.nycrc', '.nycrc.*', '.swcrc', 'nx.json', 'project.json', 'lerna.json', 'turbo.json'], why: 'toolSettings' },
  { patterns: ['.rspec', '.rubocop.yml', 'Guardfile', 'Brewfile', 'Podfile', 'Fastfile', 'Dangerfile', 'Capfile', 'phpunit.xml', 'phpunit.xml.dist', '.php-cs-fixer.php', '.php-cs-fixer.dist.php', 'ansible.cfg'], why: 'toolFiles' },
  // MSBuild imports Directory.Build.* into every project below it; project files run their targets' tasks and Exec steps.
  { patterns: ['Directory.Build.props', 'Directory.Build.targets', 'Directory.Build.rsp', 'Directory.Packages.props', '*.csproj', '*.vbproj', '*.fsproj', '*.vcxproj', '*.proj', '*.props', '*.targets', 'NuGet.config', 'global.json', 'dotnet-tools.json'], why: 'msbuild' },
  // Version files: mise, asdf, nvm, fnm, pyenv, rbenv, sdkman (and uv) choose, and may download and run, the toolchain a command uses.
  { patterns: ['mise.*.toml', '.mise.*.toml', '.mise', 'mise-tasks', '.rtx.toml', '.nvmrc', '.node-version', '.python-version', '.ruby-version', '.java-version', '.go-version', '.terraform-version', '.sdkmanrc'], why: 'versionFiles' },
  { patterns: ['flake.nix', 'flake.lock', 'shell.nix', 'default.nix', 'devenv.nix', 'devenv.yaml', 'devbox.json', '.gitpod.yml', '.replit', 'replit.nix'], why: 'devEnvironments' },
  // JetBrains run configurations, file watchers and external tools; Fleet, Zed and Helix tasks and language servers; editors' local rc files.
  { patterns: ['.idea', '*.run.xml', '.run', '.fleet', '.zed', '.helix', '.theia', '.nvim.lua', '.nvimrc', '.exrc', '*.sublime-project', '.dir-locals.el', '*.launch'], why: 'ideSettings' },
  // More CI systems, and GitHub actions defined anywhere (`uses: ./tools/action` reads its action.yml).
  { patterns: ['.buildkite', '.drone.yml', '.drone.star', '.travis.yml', 'appveyor.yml', '.appveyor.yml', 'azure-pipelines.yaml', '.azure-pipelines', 'cloudbuild.yaml', 'cloudbuild.yml', 'buildspec.yml', 'buildspec.yaml', 'bitrise.yml', '.woodpecker.yml', '.woodpecker.yaml', '.woodpecker', 'codemagic.yaml', '.semaphore', '.tekton', '**/.gitea/workflows', '**/.forgejo/workflows', '.gitlab', 'Jenkinsfile.*', '*.jenkinsfile', 'action.yml', 'action.yaml'], why: 'ci' },
  { patterns: ['.evergreen'], why: 'evergreenData' },
];

/** VS Code (and its forks' and servers') user and machine folders: settings, tasks, MCP servers and keybindings run commands. */
const VSCODE_DATA = ['Code', 'Code - Insiders', 'Code - OSS', 'VSCodium', 'Cursor', 'Windsurf'].flatMap((app) => [
  `.config/${app}/User`,
  `Library/Application Support/${app}/User`,
  `AppData/Roaming/${app}/User`,
]);
const VSCODE_SERVER_DATA = ['.vscode-server', '.vscode-server-insiders', '.vscode-remote', '.cursor-server'].flatMap((dir) => [`${dir}/data/User`, `${dir}/data/Machine`]);

/** Paths relative to the home folder; each is anchored there (a leading '/'). */
export const HOME_RULES: readonly ProtectedRule[] = [
  { patterns: ['/.ssh'], why: 'ssh' },
  { patterns: ['/.gitconfig', '/.config/git'], why: 'git' },
  { patterns: SHELL_STARTUP.map((name) => `/${name}`).concat(['/.config/fish', '/.config/environment.d', '/.config/autostart', '/.config/systemd/user']), why: 'shellStartup' },
  { patterns: ['/.npmrc', '/.yarnrc', '/.yarnrc.yml', '/.config/pip', '/.pip'], why: 'packageManagers' },
  {
    patterns: [...VSCODE_DATA, ...VSCODE_SERVER_DATA, '.local/share/code-server/User', '.local/share/code-server/Machine'].map((dir) => `/${dir}`),
    why: 'vscodeUser',
  },
  {
    patterns: ['/.vscode/extensions', '/.vscode-insiders/extensions', '/.vscode-oss/extensions', '/.vscode-server/extensions', '/.cursor/extensions', '/.local/share/code-server/extensions'],
    why: 'vscodeExtensions',
  },
  { patterns: ['/.local/lib/python*/site-packages/*.pth', '/Library/Python/*/lib/python/site-packages/*.pth'], why: 'pythonStartup' },
  // GOFLAGS=-toolexec in Go's env file, Cargo's runner and rustc wrapper, Gradle's init scripts, mise's global tools and tasks.
  { patterns: ['/.config/go/env', '/.cargo/config', '/.cargo/config.toml', '/.gradle/init.d', '/.gradle/init.gradle', '/.gradle/init.gradle.kts', '/.config/mise', '/.tool-versions', '/.pdbrc'], why: 'userTools' },
];

interface CompiledRule {
  matcher: Ignore;
  why: ProtectedWhy;
}

// A files-only name is re-included as a folder (`!BUILD/`), so build/out.js is not protected by it.
const compile = (rules: readonly ProtectedRule[]): CompiledRule[] =>
  rules.map((rule) => ({ matcher: ignore({ ignorecase: true }).add([...rule.patterns, ...(rule.filesOnly ? rule.patterns.map((pattern) => `!${pattern}/`) : [])]), why: rule.why }));
const WORKSPACE_MATCHERS = compile(WORKSPACE_RULES);
const HOME_MATCHERS = compile(HOME_RULES);

/** '/'-separated and relative, as `ignore` wants it; undefined for the root itself or a path that leaves it. */
function normalized(relativePath: string): string | undefined {
  const segments = relativePath.split(/[\\/]+/).filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0 || segments.includes('..')) return undefined;
  return segments.join('/');
}

function reasonIn(matchers: readonly CompiledRule[], relativePath: string): ProtectedWhy | undefined {
  const rel = normalized(relativePath);
  if (rel === undefined) return undefined;
  for (const { matcher, why } of matchers) if (matcher.ignores(rel)) return why;
  return undefined;
}

/**
 * Why a write to this workspace-relative path must always be approved by the user, or undefined
 * when the normal write policy applies (by name only: protectedWriteReasonAt also looks at the
 * disk). `relativePath` uses '/' or the platform separator.
 */
export function protectedWriteReason(relativePath: string): string | undefined {
  const why = protectedWriteWhy(relativePath);
  return why === undefined ? undefined : PROTECTED_WHY[why];
}

/** protectedWriteReason as the reason's id (what an approval card says, as a kind). */
export function protectedWriteWhy(relativePath: string): ProtectedWhy | undefined {
  return reasonIn(WORKSPACE_MATCHERS, relativePath);
}

/** Where protected files are for one session: its workspace, the user's home and Evergreen's storage. */
export interface ProtectedScope {
  /** Absolute (real) path of the workspace root. */
  workspaceRoot: string;
  /** The user's home folder (os.homedir()). */
  home: string;
  /** Evergreen's session storage root (all sessions, not only the current one), when there is one. */
  sessionStorage?: string | undefined;
  /**
   * The folder of this chat's Git worktree (issue 31), when the chat runs in one: a protected
   * location that contains the whole folder (Evergreen's storage, VS Code's user folder that holds
   * the extension's storage) does not protect what is inside it, which is the chat's workspace.
   * The workspace rules still apply inside it.
   */
  worktree?: string | undefined;
}

/** Whether `location` would protect all of the chat's worktree, which it then leaves to the workspace rules. */
function containsWorktree(location: string, scope: ProtectedScope): boolean {
  return scope.worktree !== undefined && isInside(path.resolve(scope.worktree), path.resolve(location));
}

/**
 * One protected location, as data a sandbox configuration can use to mark it read-only:
 * - `path`: an absolute path; a folder means everything in it. It may not exist (yet).
 * - `pattern`: a gitignore-style pattern relative to `root` (no leading '/' = at any depth below
 *   root; a folder match covers everything in it), matched case-insensitively; `filesOnly` and
 *   `notInSandbox` as on the rule it comes from.
 */
export type ProtectedLocation =
  | { kind: 'path'; path: string; why: ProtectedWhy }
  | { kind: 'pattern'; root: string; pattern: string; why: ProtectedWhy; filesOnly?: true; notInSandbox?: string };

const hasGlob = (pattern: string): boolean => /[*?[]/.test(pattern);

/**
 * Every location a write must not reach without the user's approval: what the write tools ask
 * for, and what a shell sandbox should keep read-only. Home entries without wildcards come as
 * absolute paths; workspace rules and home entries with wildcards as patterns.
 */
export function protectedLocations(scope: ProtectedScope): ProtectedLocation[] {
  const out: ProtectedLocation[] = [];
  for (const rule of HOME_RULES) {
    for (const pattern of rule.patterns) {
      if (hasGlob(pattern)) out.push({ kind: 'pattern', root: scope.home, pattern, why: rule.why });
      else out.push({ kind: 'path', path: path.join(scope.home, ...pattern.split('/').filter(Boolean)), why: rule.why });
    }
  }
  if (scope.sessionStorage !== undefined) out.push({ kind: 'path', path: path.resolve(scope.sessionStorage), why: 'sessionStorage' });
  for (const rule of WORKSPACE_RULES) {
    const flags = { ...(rule.filesOnly ? { filesOnly: rule.filesOnly } : {}), ...(rule.notInSandbox ? { notInSandbox: rule.notInSandbox } : {}) };
    for (const pattern of rule.patterns) out.push({ kind: 'pattern', root: scope.workspaceRoot, pattern, why: rule.why, ...flags });
  }
  // A location around the chat's worktree would make the whole workspace read-only.
  return out.filter((location) => !(location.kind === 'path' && containsWorktree(location.path, scope)));
}


/**
 * Why (its id in PROTECTED_WHY) a write to `target` (an absolute real path, as Workspace.resolve returns it) must always be
 * approved, or undefined. Judged by where the write lands: the workspace and home rules on the real
 * path; Evergreen's session storage; a Git directory by its content in any folder on the way; and
 * any protected entry of those folders (or of the home folder) that is a symbolic link leading to
 * the target.
 */
export async function protectedWriteReasonAt(target: string, scope: ProtectedScope): Promise<ProtectedWhy | undefined> {
  const root = scope.workspaceRoot;
  if (isInside(target, root)) {
    const byName = protectedWriteWhy(path.relative(root, target));
    if (byName) return byName;
  }
  // Inside the chat's own worktree, a location that holds the whole worktree protects nothing (containsWorktree).
  const inWorktree = scope.worktree !== undefined && isInside(target, path.resolve(scope.worktree));
  const aroundWorktree = (location: string) => inWorktree && containsWorktree(location, scope);
  // The target is a real path; the home folder may be reached through a link (/home/me -> /data/me).
  const realHome = await realpathLoose(scope.home).catch(() => scope.home);
  for (const home of new Set([scope.home, realHome])) {
    if (!isInside(target, home)) continue;
    const byHome = reasonIn(HOME_MATCHERS, path.relative(home, target));
    if (byHome && !(inWorktree && reasonIn(HOME_MATCHERS, path.relative(home, path.resolve(scope.worktree as string))) !== undefined)) return byHome;
  }
  if (scope.sessionStorage !== undefined) {
    const storage = path.resolve(scope.sessionStorage);
    for (const where of new Set([storage, await realpathLoose(storage).catch(() => storage)])) if (isInside(target, where) && !aroundWorktree(where)) return 'sessionStorage';
  }
  // Home entries that are links elsewhere (a dotfiles folder: ~/.bashrc -> ~/dotfiles/bashrc).
  for (const location of protectedLocations({ workspaceRoot: root, home: scope.home })) {
    if (location.kind !== 'path') continue;
    const real = await realpathLoose(location.path).catch(() => undefined);
    if (real !== undefined && real !== location.path && isInside(target, real) && !aroundWorktree(real)) return location.why;
  }
  if (isInside(target, root)) return insideWorkspaceByDisk(target, root);
  return undefined;
}

/** The folders from the target's own up to the workspace root: a Git directory by content, or a protected link to the target. */
async function insideWorkspaceByDisk(target: string, root: string): Promise<ProtectedWhy | undefined> {
  for (let dir = path.dirname(target); isInside(dir, root); dir = path.dirname(dir)) {
    if (await isGitDirectory(dir)) return 'gitDirectory';
    if (await isVirtualenvBin(dir)) return 'virtualenv';
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isSymbolicLink()) continue;
      const link = path.join(dir, entry.name);
      const why = protectedWriteWhy(path.relative(root, link));
      if (why === undefined) continue;
      const real = await realpathLoose(link).catch(() => undefined);
      if (real !== undefined && isInside(target, real)) return why;
    }
    if (dir === root) break;
  }
  return undefined;
}

/** A virtualenv's program folder: `bin` (`Scripts` on Windows) beside the pyvenv.cfg that makes its parent a virtualenv. */
async function isVirtualenvBin(dir: string): Promise<boolean> {
  if (!['bin', 'scripts'].includes(path.basename(dir).toLowerCase())) return false;
  return (await fsp.stat(path.join(path.dirname(dir), 'pyvenv.cfg')).catch(() => undefined))?.isFile() === true;
}

/** What Git checks before it takes a folder for a repository: a HEAD file, and objects/ and refs/ folders. */
async function isGitDirectory(dir: string): Promise<boolean> {
  const [head, objects, refs] = await Promise.all(['HEAD', 'objects', 'refs'].map((name) => fsp.stat(path.join(dir, name)).catch(() => undefined)));
  return head?.isFile() === true && objects?.isDirectory() === true && refs?.isDirectory() === true;
}

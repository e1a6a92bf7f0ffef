// Files that decide what a later command executes. With writes on auto and `git status` on the
// shell allow-list, one write to `.git/config` (core.fsmonitor, an alias, a hook) and one allowed
// `git status` would run anything without a prompt; the same holds for npm scripts, Makefiles,
// direnv files, editor tasks and Evergreen's own settings. A write to any of these always asks,
// whatever `approvals.writes` says.
//
// Not covered, and said so in the README: an allow-listed command that runs the project's own code
// (`npm test` runs the test files) trusts every file that code loads.

interface ProtectedRule {
  test: (segments: readonly string[], name: string) => boolean;
  why: string;
}

const anySegment = (wanted: string) => (segments: readonly string[]) => segments.slice(0, -1).includes(wanted);
const named = (...names: string[]) => {
  const set = new Set(names);
  return (_segments: readonly string[], name: string) => set.has(name);
};

// Matched case-insensitively: on macOS and Windows `.GIT/config` is `.git/config`.
const RULES: readonly ProtectedRule[] = [
  { test: (segments, name) => anySegment('.git')(segments) || name === '.git', why: 'Git configuration and hooks run commands (core.fsmonitor, core.pager, aliases, hooks)' },
  { test: named('.gitattributes', '.gitmodules', '.lfsconfig', '.gitconfig'), why: 'it selects Git filters, diff drivers, includes and submodule commands' },
  // Git takes any folder holding HEAD, objects/ and refs/ for a repository (with its own config and
  // core.fsmonitor), even in a workspace that is not one: the HEAD file is what makes it so.
  { test: (_segments, name) => name === 'head' || name === 'commondir' || name === 'gitdir', why: 'a HEAD file turns its folder into a Git repository whose config runs commands' },
  { test: (segments) => anySegment('.githooks')(segments), why: 'Git hooks run commands' },
  { test: (segments) => anySegment('.husky')(segments), why: 'Git hooks run commands' },
  { test: named('.pre-commit-config.yaml', 'lefthook.yml', 'lefthook.yaml', '.lefthook.yml', '.lefthook.yaml', 'lefthook-local.yml', 'lefthook-local.yaml'), why: 'Git hooks run commands' },
  { test: (segments) => anySegment('.vscode')(segments), why: 'workspace settings and tasks run commands and hold Evergreen\'s own settings' },
  { test: (_segments, name) => name.endsWith('.code-workspace'), why: 'workspace settings and tasks run commands and hold Evergreen\'s own settings' },
  { test: (segments, name) => anySegment('.devcontainer')(segments) || name === '.devcontainer.json', why: 'dev container definitions run commands' },
  { test: named('package.json', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.pnp.cjs', '.pnp.loader.mjs', 'bunfig.toml', 'deno.json', 'deno.jsonc'), why: 'package scripts and package-manager settings run commands' },
  // Yarn Berry runs the release named by yarnPath (.yarn/releases/*.cjs) on every `yarn`.
  { test: (segments) => anySegment('.yarn')(segments), why: 'Yarn runs the code kept here on every yarn command' },
  { test: named('gemfile', 'composer.json', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts', 'gradle.properties'), why: 'build definitions run code' },
  { test: (segments) => anySegment('.mvn')(segments), why: 'Maven wrapper settings run code' },
  { test: named('mise.toml', '.mise.toml', '.tool-versions', 'config.mak'), why: 'tool and build settings change what commands run' },
  { test: (_segments, name) => ['makefile', 'gnumakefile', 'justfile', '.justfile', 'rakefile', 'taskfile.yml', 'taskfile.yaml'].includes(name) || name.endsWith('.mk'), why: 'build files run commands' },
  { test: (_segments, name) => name === '.envrc' || name === '.env' || name.startsWith('.env.'), why: 'environment files change what commands run (direnv, dotenv)' },
  {
    test: named('.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zshenv', '.zprofile', '.inputrc', '.bash_logout'),
    why: 'shell start-up files run commands',
  },
  { test: named('pyproject.toml', 'setup.py', 'setup.cfg', 'tox.ini', 'noxfile.py', 'pytest.ini', 'conftest.py'), why: 'Python build and test configuration runs code' },
  { test: (segments, name) => name === 'build.rs' || name === 'cargo.toml' || (anySegment('.cargo')(segments) && name.startsWith('config')), why: 'Cargo build scripts and settings run code' },
  { test: (segments) => anySegment('.evergreen')(segments), why: 'it is Evergreen\'s own data' },
];

/**
 * Why a write to this workspace-relative path must always be approved by the user, or undefined
 * when the normal write policy applies. `relativePath` uses '/' or the platform separator.
 */
export function protectedWriteReason(relativePath: string): string | undefined {
  const segments = relativePath
    .split(/[\\/]+/)
    .filter((segment) => segment !== '' && segment !== '.')
    .map((segment) => segment.toLowerCase());
  const name = segments.at(-1);
  if (name === undefined) return undefined;
  for (const rule of RULES) if (rule.test(segments, name)) return rule.why;
  return undefined;
}

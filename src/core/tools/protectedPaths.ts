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
  { test: named('.gitattributes', '.gitmodules', '.lfsconfig'), why: 'it selects Git filters, diff drivers and submodule commands' },
  { test: (segments) => anySegment('.husky')(segments), why: 'Git hooks run commands' },
  { test: named('.pre-commit-config.yaml', 'lefthook.yml', 'lefthook.yaml', '.lefthook.yml'), why: 'Git hooks run commands' },
  { test: (segments) => anySegment('.vscode')(segments), why: 'workspace settings and tasks run commands and hold Evergreen\'s own settings' },
  { test: (_segments, name) => name.endsWith('.code-workspace'), why: 'workspace settings and tasks run commands and hold Evergreen\'s own settings' },
  { test: (segments) => anySegment('.devcontainer')(segments), why: 'dev container definitions run commands' },
  { test: named('package.json', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'bunfig.toml', 'deno.json', 'deno.jsonc'), why: 'package scripts and package-manager settings run commands' },
  { test: (_segments, name) => ['makefile', 'gnumakefile', 'justfile', '.justfile', 'rakefile', 'taskfile.yml', 'taskfile.yaml'].includes(name) || name.endsWith('.mk'), why: 'build files run commands' },
  { test: named('.envrc', '.env'), why: 'environment files change what commands run (direnv, dotenv)' },
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

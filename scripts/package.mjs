// Builds the .vsix for one platform, as VS Code's platform-specific extensions do: the sandbox's
// seccomp helper is a native program per CPU (x64 and arm64, ~300 KB each compressed), and a
// package for Linux on x64 has no use for the arm64 one, nor macOS or Windows for either.
//
//   node scripts/package.mjs                      this machine's platform -> evergreen-agent.vsix
//   node scripts/package.mjs --target linux-arm64 -> evergreen-agent-linux-arm64.vsix
//   node scripts/package.mjs --all                every target -> evergreen-agent-<target>.vsix
//   node scripts/package.mjs --ls [--target T]    the files the package holds (`vsce ls`)
//
// What goes in is .vscodeignore's allow-list plus the target's helper; vsce reads the combined
// list from a temporary ignore file (its negations win over its ignores, so the helper of another
// CPU can only be left out by never allowing it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** VS Code's target platforms, each with the seccomp helper its commands need (none off Linux). */
export const TARGET_HELPERS = {
  'linux-x64': 'x64',
  'linux-arm64': 'arm64',
  'alpine-x64': 'x64',
  'alpine-arm64': 'arm64',
  'darwin-x64': undefined,
  'darwin-arm64': undefined,
  'win32-x64': undefined,
  'win32-arm64': undefined,
};

/** This machine's target (Alpine is not told apart: its helper is the same static program). */
export function hostTarget() {
  return `${process.platform}-${process.arch}`;
}

/** The ignore file's text for `target`: the allow-list, and the target's helper allowed. */
export function ignoreFileFor(target) {
  if (!(target in TARGET_HELPERS)) throw new Error(`unknown target "${target}"; one of: ${Object.keys(TARGET_HELPERS).join(', ')}`);
  const allowList = readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8');
  const helper = TARGET_HELPERS[target];
  return helper ? `${allowList.trimEnd()}\n!dist/vendor/seccomp/${helper}/apply-seccomp\n` : allowList;
}

/** Runs vsce with the target's ignore file (and never with npm's dependency walk: the bundles hold them). */
function vsce(command, target, extra = []) {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'evergreen-package-'));
  try {
    const ignoreFile = path.join(folder, 'vscodeignore');
    writeFileSync(ignoreFile, ignoreFileFor(target));
    const cli = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    const run = spawnSync(process.execPath, [cli, command, '--no-dependencies', '--ignoreFile', ignoreFile, ...extra], { cwd: REPO_ROOT, stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`vsce ${command} for ${target} failed (${run.error?.message ?? `exit ${run.status ?? run.signal}`})`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function packageFor(target, out) {
  vsce('package', target, ['--skip-license', '--target', target, '-o', out]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--target');
  try {
    const chosen = at >= 0 ? args[at + 1] : hostTarget();
    if (at >= 0 && !chosen) throw new Error('--target needs a platform, e.g. linux-arm64');
    if (args.includes('--ls')) {
      vsce('ls', chosen);
    } else if (args.includes('--all')) {
      for (const target of Object.keys(TARGET_HELPERS)) packageFor(target, `evergreen-agent-${target}.vsix`);
    } else if (at >= 0) {
      packageFor(chosen, `evergreen-agent-${chosen}.vsix`);
    } else {
      if (!(chosen in TARGET_HELPERS)) throw new Error(`this machine (${chosen}) is no VS Code target; pass --target`);
      packageFor(chosen, 'evergreen-agent.vsix');
    }
  } catch (error) {
    console.error(`package: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

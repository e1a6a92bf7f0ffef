#!/usr/bin/env node
// Installs a real VS Code without downloading desktop builds: code-server 4.100.3 (VS Code
// 1.100.3) from the npm registry into .vscode-test/code-server-4.100.3/, plus the Debian
// packages it needs to build and the Chromium the browser tests drive (docs/architecture.md, "Testing").
//
// Usage: node scripts/setup-vscode.mjs            (idempotent; ~0.1 s when already installed)
//        import { ensureVSCode } from './setup-vscode.mjs'; await ensureVSCode()
//
// Found on this machine (npm 11, Node 20, root, no internet but the npm registry and apt):
// - code-server's own postinstall refuses root and @vscode/ripgrep's downloads rg from GitHub, so
//   everything is installed with --ignore-scripts and the native parts are built explicitly.
// - npm 11 blocks dependency install scripts during `npm install` unless approved in
//   `allowScripts`, but an explicit `npm rebuild [name]` still runs them (it only warns);
//   the native binaries are checked afterwards so a future npm that skips them fails here.
// - node-gyp builds against the local headers (`nodedir=/usr` in ~/.npmrc here); a machine
//   without that setting needs internet access to nodejs.org for the headers.
// - the binaries are tied to the Node ABI, so the marker records it and a different Node
//   triggers a reinstall.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, lstatSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const CODE_SERVER_VERSION = '4.100.3';
export const VSCODE_VERSION = '1.100.3';
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INSTALL_DIR = path.join(REPO_ROOT, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
const PACKAGE_DIR = path.join(INSTALL_DIR, 'node_modules', 'code-server');
const VSCODE_DIR = path.join(PACKAGE_DIR, 'lib', 'vscode');
const MARKER = path.join(INSTALL_DIR, '.installed');
const CHROMIUM = '/usr/bin/chromium';
const SYSTEM_RG = '/usr/bin/rg';

// node-gyp's toolchain, the libraries code-server documents for its native modules, ripgrep
// (VS Code's search binary, and the sandbox's), bubblewrap and socat (the OS sandbox that shell
// commands run in) and Chromium (driven by the browser tests).
const DEBIAN_PACKAGES = ['python3', 'make', 'g++', 'pkg-config', 'libkrb5-dev', 'libx11-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'ripgrep', 'git', 'bubblewrap', 'socat', 'chromium'];

// Files whose presence proves the install (and its native builds) completed.
const REQUIRED_FILES = [
  'node_modules/code-server/out/node/entry.js',
  'node_modules/argon2/lib/binding/napi-v3/argon2.node',
  'node_modules/code-server/lib/vscode/node_modules/node-pty/build/Release/pty.node',
  'node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node',
  'node_modules/code-server/lib/vscode/node_modules/native-watchdog/build/Release/watchdog.node',
  'node_modules/code-server/lib/vscode/node_modules/kerberos/build/Release/kerberos.node',
  'node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg',
  'node_modules/code-server/lib/vscode/node_modules.asar',
  'node_modules/code-server/lib/vscode/extensions/node_modules/typescript/package.json',
];

class SetupError extends Error {}

function log(message) {
  console.log(`[setup-vscode] ${message}`);
}

function paths() {
  return { codeServerBin: path.join(PACKAGE_DIR, 'out', 'node', 'entry.js'), chromiumPath: CHROMIUM };
}

function markerIsValid() {
  try {
    const marker = JSON.parse(readFileSync(MARKER, 'utf8'));
    return (
      marker.version === CODE_SERVER_VERSION &&
      marker.nodeAbi === process.versions.modules &&
      marker.arch === process.arch &&
      REQUIRED_FILES.every((f) => existsSync(path.join(INSTALL_DIR, f)))
    );
  } catch {
    return false;
  }
}

function run(command, args, { cwd, env = {} } = {}) {
  log(`$ (cd ${path.relative(REPO_ROOT, cwd) || '.'} && ${[command, ...args].join(' ')})`);
  const started = Date.now();
  // npm_config_local_prefix from an outer `npm run` must not point the child npm at the repo.
  const childEnv = { ...process.env, npm_config_local_prefix: undefined, ...env };
  for (const key of Object.keys(childEnv)) if (childEnv[key] === undefined) delete childEnv[key];
  const result = spawnSync(command, args, { cwd, env: childEnv, stdio: 'inherit' });
  if (result.error) throw new SetupError(`could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new SetupError(`\`${[command, ...args].join(' ')}\` in ${cwd} failed with exit code ${result.status ?? result.signal}`);
  }
  log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function missingDebianPackages() {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\n', ...DEBIAN_PACKAGES], { encoding: 'utf8' });
  if (result.error) {
    throw new SetupError(`dpkg-query is not available (${result.error.message}); this setup supports Debian/Ubuntu only. Needed packages: ${DEBIAN_PACKAGES.join(' ')}`);
  }
  const installed = new Set(
    result.stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([, status]) => status === 'ii')
      .map(([name]) => name.replace(/:.*$/, '')),
  );
  return DEBIAN_PACKAGES.filter((p) => !installed.has(p));
}

function ensureDebianPackages() {
  const missing = missingDebianPackages();
  if (missing.length === 0) {
    log(`Debian packages present: ${DEBIAN_PACKAGES.join(' ')}`);
    return;
  }
  const aptCommand = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new SetupError(`missing Debian packages: ${missing.join(' ')}\nInstall them as root, then run this again:\n  sudo sh -c '${aptCommand}'`);
  }
  log(`installing missing Debian packages: ${missing.join(' ')}`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { cwd: REPO_ROOT, env });
  run('apt-get', ['install', '-y', ...missing], { cwd: REPO_ROOT, env });
  const still = missingDebianPackages();
  if (still.length > 0) throw new SetupError(`apt-get finished but these packages are still missing: ${still.join(' ')}`);
}

// Replaces whatever is at `link` with a relative symlink to `target` (what postinstall.sh does).
function relink(target, link) {
  if (existsSync(link) || isSymlink(link)) unlinkSync(link);
  symlinkSync(target, link);
}

function isSymlink(p) {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function installCodeServer() {
  const started = Date.now();
  // A partial or stale install is not repairable reliably: start over (npm's cache keeps it fast).
  rmSync(INSTALL_DIR, { recursive: true, force: true });
  mkdirSync(INSTALL_DIR, { recursive: true });
  writeFileSync(path.join(INSTALL_DIR, 'package.json'), JSON.stringify({ name: 'evergreen-vscode-host', private: true }, null, 2) + '\n');

  log(`installing code-server ${CODE_SERVER_VERSION} into ${path.relative(REPO_ROOT, INSTALL_DIR)}`);
  const npmFlags = ['--no-audit', '--no-fund', '--loglevel=error'];
  run('npm', ['install', `code-server@${CODE_SERVER_VERSION}`, '--ignore-scripts', ...npmFlags], { cwd: INSTALL_DIR });
  log('building argon2 (password hashing; code-server loads it at startup)');
  run('npm', ['rebuild', 'argon2'], { cwd: INSTALL_DIR });

  log('installing VS Code server dependencies (lib/vscode)');
  run('npm', ['install', '--omit=dev', '--ignore-scripts', ...npmFlags], { cwd: VSCODE_DIR });
  // @vscode/ripgrep's postinstall skips its GitHub download when bin/ exists: use Debian's rg.
  const rgDir = path.join(VSCODE_DIR, 'node_modules', '@vscode', 'ripgrep', 'bin');
  mkdirSync(rgDir, { recursive: true });
  copyFileSync(SYSTEM_RG, path.join(rgDir, 'rg'));
  chmodSync(path.join(rgDir, 'rg'), 0o755);
  log(`copied ${SYSTEM_RG} to ${path.relative(REPO_ROOT, path.join(rgDir, 'rg'))}`);
  log('building native modules (node-pty, spdlog, kerberos, watcher, ...); takes ~1 min');
  run('npm', ['rebuild'], { cwd: VSCODE_DIR, env: { npm_config_yes: 'true' } });

  relink('node_modules', path.join(VSCODE_DIR, 'node_modules.asar'));
  relink('code-linux.sh', path.join(VSCODE_DIR, 'bin', 'remote-cli', 'code-server'));
  relink('browser-linux.sh', path.join(VSCODE_DIR, 'bin', 'helpers', 'browser.sh'));
  log('linked node_modules.asar, bin/remote-cli/code-server, bin/helpers/browser.sh');

  log('installing built-in extensions dependencies (lib/vscode/extensions)');
  run('npm', ['install', '--omit=dev', ...npmFlags], { cwd: path.join(VSCODE_DIR, 'extensions') });

  const missing = REQUIRED_FILES.filter((f) => !existsSync(path.join(INSTALL_DIR, f)));
  if (missing.length > 0) {
    throw new SetupError(`install finished but these files are missing (a native build was skipped or failed):\n  ${missing.join('\n  ')}`);
  }
  writeFileSync(
    MARKER,
    JSON.stringify({ version: CODE_SERVER_VERSION, nodeAbi: process.versions.modules, arch: process.arch, installedAt: new Date().toISOString() }, null, 2) + '\n',
  );
  log(`code-server ${CODE_SERVER_VERSION} installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Installs what is missing (a fast no-op when the marker is valid).
 * @returns {Promise<{ codeServerBin: string, chromiumPath: string }>} codeServerBin runs with `node`
 */
export async function ensureVSCode() {
  if (markerIsValid()) return paths();
  if (process.platform !== 'linux') throw new SetupError('this setup supports Linux (Debian/Ubuntu) only');
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor !== 20) {
    throw new SetupError(`code-server ${CODE_SERVER_VERSION} requires Node 20 (its native modules are built for the running Node), found ${process.versions.node}`);
  }
  ensureDebianPackages();
  installCodeServer();
  return paths();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // No top-level await: tsx's require() hook (used by the e2e tests) compiles this file to CJS.
  ensureVSCode().then(
    ({ codeServerBin, chromiumPath }) =>
      log(`ready: VS Code ${VSCODE_VERSION} (code-server ${CODE_SERVER_VERSION}) at ${path.relative(REPO_ROOT, codeServerBin)}; Chromium at ${chromiumPath}`),
    (err) => {
      console.error(`\n[setup-vscode] FAILED: ${err instanceof SetupError ? err.message : err?.stack ?? err}`);
      process.exit(1);
    },
  );
}

// Library: start code-server (real VS Code 1.100.3 in the browser) and a headless Chromium,
// and always clean both up. Used by run-integration.mjs, start.mjs, test/e2e and test/package.
//
// Found on this machine:
// - code-server accepts `--bind-addr 127.0.0.1:0` and logs "HTTP server listening on
//   http://127.0.0.1:PORT/", so port 0 picks a free port without a race.
// - without `--config` code-server writes ~/.config/code-server/config.yaml; with no XDG_DATA_HOME
//   it writes ~/.local/share/code-server/{heartbeat,coder-logs}; Chromium writes
//   ~/.config/chromium/Crash Reports whatever its flags. Hence the per-run config file and the
//   XDG_* overrides (callers pass XDG_DATA_HOME in `env` when they want full isolation).
// - code-server forks a child server which forks the extension hosts: it is started in its own
//   process group and the whole group is killed.
// - the extension host inherits code-server's environment ({...process.env, ...}), and its log
//   is <userDataDir>/logs/<timestamp>/exthost1/remoteexthost.log.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureVSCode } from './setup-vscode.mjs';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const LOG_LINES = 300;

// What is still running or lying around. On Ctrl-C/SIGTERM the async closers run (graceful,
// bounded) before exiting; the 'exit' handler is the synchronous safety net for every other way
// out (uncaught error, process.exit).
const closers = new Set();
const liveGroups = new Set();
const tempDirs = new Set();
let handlersInstalled = false;
let shuttingDown = false;

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function installExitHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
  // code-server runs in its own process group, so Ctrl-C in the terminal never reaches it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      const code = signal === 'SIGINT' ? 130 : 143;
      if (shuttingDown) process.exit(code); // second Ctrl-C: the exit handler kills what is left
      shuttingDown = true;
      Promise.allSettled([...closers].map((close) => close())).finally(() => process.exit(code));
    });
  }
}

/** Makes a temp dir under the OS temp dir; it is removed at the latest when this process exits. */
export function makeTempDir(prefix) {
  installExitHandlers();
  const dir = mkdtempSync(path.join(os.tmpdir(), `evergreen-${prefix}-`));
  tempDirs.add(dir);
  return dir;
}

/**
 * Starts code-server bound to 127.0.0.1 with auth off. Resolves once it answers HTTP.
 * @param {object} o
 * @param {string} o.folder                folder VS Code opens
 * @param {string} [o.userDataDir]         default: a temp dir removed by stop()
 * @param {number} [o.port]                0 (default) picks a free port
 * @param {string[]} [o.extraArgs]         more code-server arguments
 * @param {Record<string,string>} [o.env]  extra environment (inherited by the extension host)
 * @param {(line: string) => void} [o.onOutput]  every line code-server prints
 * @param {number} [o.startTimeoutMs]
 */
export async function startCodeServer({ folder, userDataDir, port = 0, extraArgs = [], env = {}, onOutput, startTimeoutMs = 90_000 }) {
  const { codeServerBin } = await ensureVSCode();
  const ownsUserDataDir = !userDataDir;
  const dataDir = userDataDir ?? makeTempDir('vscode-user');
  mkdirSync(dataDir, { recursive: true });
  const configFile = path.join(dataDir, 'code-server.yaml');
  writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  const args = [
    codeServerBin,
    '--config', configFile,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--user-data-dir', dataDir,
    '--extensions-dir', path.join(dataDir, 'extensions'),
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    ...extraArgs,
    folder,
  ];
  installExitHandlers();
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  liveGroups.add(child.pid);

  const lines = [];
  let listeningPort;
  let onListening;
  const listening = new Promise((resolve) => (onListening = resolve));
  const consume = (stream) => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop();
      for (const line of parts) {
        lines.push(line);
        if (lines.length > LOG_LINES) lines.shift();
        onOutput?.(line);
        const m = /HTTP server listening on https?:\/\/127\.0\.0\.1:(\d+)/.exec(line);
        if (m && !listeningPort) onListening((listeningPort = Number(m[1])));
      }
    });
  };
  consume(child.stdout);
  consume(child.stderr);

  let exitInfo;
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exitInfo = signal ?? `exit code ${code}`;
      liveGroups.delete(child.pid);
      resolve(exitInfo);
    }),
  );

  const logTail = (n = 60) => {
    let out = `--- code-server output (last ${Math.min(n, lines.length)} lines) ---\n${lines.slice(-n).join('\n')}`;
    const extHostLog = findExtensionHostLog(dataDir);
    if (extHostLog) {
      const extLines = readFileSync(extHostLog, 'utf8').trimEnd().split('\n');
      out += `\n--- ${extHostLog} (last ${Math.min(n, extLines.length)} lines) ---\n${extLines.slice(-n).join('\n')}`;
    }
    return out;
  };

  let stopped;
  const stop = () =>
    (stopped ??= (async () => {
      if (!exitInfo) {
        killGroup(child.pid, 'SIGTERM');
        const graceful = await Promise.race([exited.then(() => true), delay(5_000).then(() => false)]);
        if (!graceful) killGroup(child.pid, 'SIGKILL');
        await exited;
      }
      // The forked server/extension hosts share the group: make sure none survives its parent.
      killGroup(child.pid, 'SIGKILL');
      closers.delete(stop);
      if (ownsUserDataDir) rmSync(dataDir, { recursive: true, force: true });
    })());
  closers.add(stop);

  try {
    const deadline = Date.now() + startTimeoutMs;
    const boundPort = await raceStart(listening, exited, deadline, () => exitInfo);
    const url = `http://127.0.0.1:${boundPort}`;
    await waitForHttp(`${url}/healthz`, exited, deadline, () => exitInfo);
    return { url, port: boundPort, userDataDir: dataDir, exited, logTail, stop };
  } catch (err) {
    const tail = logTail();
    await stop();
    throw new Error(`code-server did not start: ${err.message}\n${tail}`);
  }
}

/**
 * Installs a .vsix the way a user does (`--install-extension`, offline) into the extensions dir
 * startCodeServer uses for the same userDataDir, so a server started on it loads the installed
 * copy. Resolves with code-server's output; rejects with it when the install fails.
 * @param {string} vsixPath
 * @param {object} o
 * @param {string} o.userDataDir
 * @param {Record<string,string>} [o.env]
 * @param {number} [o.timeoutMs]
 */
export async function installExtension(vsixPath, { userDataDir, env = {}, timeoutMs = 60_000 }) {
  const { codeServerBin } = await ensureVSCode();
  mkdirSync(userDataDir, { recursive: true });
  const configFile = path.join(userDataDir, 'code-server.yaml');
  writeFileSync(configFile, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  const args = [codeServerBin, '--config', configFile, '--user-data-dir', userDataDir, '--extensions-dir', path.join(userDataDir, 'extensions'), '--install-extension', vsixPath];
  installExitHandlers();
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  liveGroups.add(child.pid);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), timeoutMs);
  const [code, signal] = await new Promise((resolve) => child.on('exit', (...result) => resolve(result)));
  clearTimeout(timer);
  liveGroups.delete(child.pid);
  killGroup(child.pid, 'SIGKILL');
  // It exits 1 on a broken package; its success line is required as well, as positive evidence.
  if (code !== 0 || !/was successfully installed/.test(output)) {
    throw new Error(`code-server --install-extension ${vsixPath} failed (${signal ?? `exit code ${code}`}):\n${output}`);
  }
  return output;
}

function raceStart(listening, exited, deadline, exitInfo) {
  return Promise.race([
    listening,
    exited.then(() => Promise.reject(new Error(`it exited (${exitInfo()}) before listening`))),
    delay(Math.max(0, deadline - Date.now())).then(() => Promise.reject(new Error('timed out waiting for "HTTP server listening"'))),
  ]);
}

async function waitForHttp(url, exited, deadline, exitInfo) {
  let dead = false;
  exited.then(() => (dead = true));
  for (;;) {
    if (dead) throw new Error(`it exited (${exitInfo()}) before answering HTTP`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not answering yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    await delay(250);
  }
}

/** Newest extension host log under a code-server user-data-dir, if any. */
export function findExtensionHostLog(userDataDir) {
  const logsDir = path.join(userDataDir, 'logs');
  let sessions;
  try {
    sessions = readdirSync(logsDir).sort().reverse();
  } catch {
    return undefined;
  }
  for (const session of sessions) {
    const hosts = readdirSync(path.join(logsDir, session)).filter((d) => d.startsWith('exthost')).sort().reverse();
    for (const host of hosts) {
      const file = path.join(logsDir, session, host, 'remoteexthost.log');
      if (existsSync(file)) return file;
    }
  }
  return undefined;
}

/**
 * Launches headless Debian Chromium through playwright-core, kept off the network. Chromium's
 * own config/cache dirs go to a temp dir removed when the browser closes.
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchChromium({ executablePath = '/usr/bin/chromium', args = [] } = {}) {
  const { chromium } = createRequire(import.meta.url)('playwright-core');
  const home = makeTempDir('chromium-home');
  try {
    const browser = await chromium.launch({
      executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, ...args],
      env: { ...process.env, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
      timeout: 60_000,
      // Signals are handled above, so browser and code-server close in one orderly pass.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const close = () => Promise.race([browser.close(), delay(5_000)]);
    closers.add(close);
    browser.on('disconnected', () => {
      closers.delete(close);
      rmSync(home, { recursive: true, force: true });
    });
    return browser;
  } catch (err) {
    rmSync(home, { recursive: true, force: true });
    throw new Error(`could not launch Chromium at ${executablePath} (run \`node scripts/setup-vscode.mjs\`, it installs the Debian package): ${err.message}`);
  }
}

/** `vscode-remote://` URI the browser hands to the server for an absolute server-side path. */
function remoteUri(serverUrl, absPath) {
  return `vscode-remote://${new URL(serverUrl).host}${absPath.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Workbench URL opening `folder` (or `workspace`, a .code-workspace file: a multi-root workspace),
 * optionally with extension-development payload entries (extensionDevelopmentPath loads an
 * unpacked extension, extensionTestsPath runs tests).
 */
export function workbenchUrl(serverUrl, { folder, workspace, extensionDevelopmentPath, extensionTestsPath } = {}) {
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remoteUri(serverUrl, extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remoteUri(serverUrl, extensionTestsPath)]);
  payload.push(['skipWelcome', 'true']);
  const query = [];
  if (workspace) query.push(`workspace=${encodeURIComponent(workspace)}`);
  else if (folder) query.push(`folder=${encodeURIComponent(folder)}`);
  query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  return `${serverUrl}/?${query.join('&')}`;
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

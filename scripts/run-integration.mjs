#!/usr/bin/env node
// Runs the mocha suite out/test/integration/ inside the real VS Code 1.100.3 extension host
// (code-server, driven by headless Chromium). Build first: node esbuild.mjs --tests
//
// Usage: node scripts/run-integration.mjs [--results FILE] [--timeout SECONDS] [--extension DIR]
//   --results    also write {"passed": N, "failed": N} there (for an orchestrator; default:
//                $EVERGREEN_TEST_RESULTS, as scripts/test.mjs sets it); a run that produced no
//                counts is written as {"passed": 0, "failed": 1, "error": "..."}
//   --timeout    whole-run limit, default 600
//   --extension  the extension folder to load, default this repo
// Prints "integration: N passed, N failed"; exits non-zero on any failure, a missing results
// file, a non-zero test exit code or the timeout.
//
// How it works (found on this machine):
// - the extension under development and the tests are passed in the page URL payload
//   (extensionDevelopmentPath / extensionTestsPath as vscode-remote:// URIs); when run()
//   settles the workbench calls window.codeAutomationExit(code), exposed here by Playwright.
// - in that "tests from CLI" mode the extension host's console.* is forwarded to the page's
//   logService, so mocha's spec output arrives as page console messages
//   ('%c INFO', 'color: ...', format, ...args); they are re-formatted here. Whatever the
//   extension host writes to its real stdout/stderr shows up in code-server's output as
//   "[ExtensionHostConnection] <pid> ..." and is forwarded too.
// - the extension host inherits code-server's environment (server-main.js builds it as
//   {...process.env, ...}; checked in /proc/<pid>/environ), so EVERGREEN_TEST_RESULTS reaches
//   test/integration/index.ts.
// - the extension host log: <user-data-dir>/logs/<timestamp>/exthost1/remoteexthost.log
//   (printed on failure).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, parseArgs } from 'node:util';
import { REPO_ROOT } from './setup-vscode.mjs';
import { launchChromium, makeTempDir, startCodeServer, workbenchUrl } from './vscode-harness.mjs';

export const TESTS_DIR = path.join(REPO_ROOT, 'out', 'test', 'integration');
const FIXTURE_WORKSPACE = path.join(REPO_ROOT, 'test', 'fixtures', 'workspace');

// Known harmless noise: the workbench queries the Open VSX gallery (no internet here) and asks
// for vsda, a closed-source module code-server does not ship.
const NOISE = [/open-vsx\.org/, /^Failed to load resource: net::ERR_NAME_NOT_RESOLVED/, /^Failed to load resource: .*\/vsda/];

function log(message) {
  console.log(`[run-integration] ${message}`);
}

export function assertTestsBuilt() {
  if (!existsSync(path.join(TESTS_DIR, 'index.js'))) {
    throw new Error(`${path.relative(REPO_ROOT, TESTS_DIR)}/index.js not found: build first with \`node esbuild.mjs --tests\``);
  }
}

/** The folder the test VS Code opens: a copy of test/fixtures/workspace, else a one-file dir. */
export function prepareWorkspace(dir) {
  if (existsSync(FIXTURE_WORKSPACE)) {
    cpSync(FIXTURE_WORKSPACE, dir, { recursive: true });
  } else {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'README.md'), '# Evergreen integration workspace\n');
  }
}

/**
 * Reads what test/integration/index.ts wrote, prints the counts, copies them to `resultsOut`.
 * @returns {number} the process exit code
 */
export function reportResults({ resultsFile, exitCode, resultsOut }) {
  const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : undefined;
  writeResults(resultsOut, results ?? { passed: 0, failed: 1, error: 'no results file' });
  if (!results) {
    console.log(`integration: no results (exit code ${exitCode}): test/integration/index.ts did not run or could not write ${resultsFile}`);
    return 1;
  }
  console.log(`integration: ${results.passed} passed, ${results.failed} failed`);
  return exitCode === 0 && results.failed === 0 ? 0 : 1;
}

/** Copies counts for an orchestrator (scripts/test.mjs); a run that crashed is one failure. */
export function writeResults(resultsOut, results) {
  if (!resultsOut) return;
  mkdirSync(path.dirname(path.resolve(resultsOut)), { recursive: true });
  writeFileSync(resultsOut, JSON.stringify(results) + '\n');
}

/** Turns a page console message back into the text the extension host printed. */
async function formatConsoleMessage(msg) {
  // Network errors carry no arguments; the resource is only in the location.
  if (msg.args().length === 0) return msg.location().url ? `${msg.text()} (${msg.location().url})` : msg.text();
  let args;
  try {
    args = await Promise.all(msg.args().map((a) => a.jsonValue()));
  } catch {
    return msg.text();
  }
  // VS Code's browser ConsoleLogger prefixes '%c LEVEL', 'color: ...'.
  if (typeof args[0] === 'string' && args[0].startsWith('%c') && typeof args[1] === 'string') {
    args = args.slice(2);
  }
  return format(...args);
}

async function main(options) {
  assertTestsBuilt();
  const timeoutMs = Number(options.timeout) * 1000;
  const started = Date.now();
  const tmp = makeTempDir('integration');
  const workspace = path.join(tmp, 'workspace');
  const resultsFile = path.join(tmp, 'results.json');
  prepareWorkspace(workspace);

  let server;
  let browser;
  try {
    server = await startCodeServer({
      folder: workspace,
      userDataDir: path.join(tmp, 'user-data'),
      env: { EVERGREEN_TEST_RESULTS: resultsFile, XDG_DATA_HOME: path.join(tmp, 'xdg-data') },
      onOutput: (line) => {
        const m = /\[ExtensionHostConnection\] (<\d+>.*)$/.exec(line);
        if (m) console.log(`[exthost] ${m[1]}`);
      },
    });
    log(`code-server ${server.url} (user data ${server.userDataDir})`);

    browser = await launchChromium();
    // As a user who allowed code-server the clipboard (@terminal may read VS Code's copy through it).
    const page = await browser.newPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    let onExit;
    const exitCode = new Promise((resolve) => (onExit = resolve));
    await page.exposeFunction('codeAutomationExit', (code) => onExit(Number(code)));
    page.on('console', async (msg) => {
      const text = await formatConsoleMessage(msg);
      if (NOISE.some((re) => re.test(text))) return;
      const level = msg.type();
      console.log(level === 'error' || level === 'warning' ? `[vscode ${level}] ${text}` : text);
    });
    page.on('pageerror', (err) => console.log(`[vscode pageerror] ${err.message}`));

    const extension = path.resolve(options.extension);
    const url = workbenchUrl(server.url, { folder: workspace, extensionDevelopmentPath: extension, extensionTestsPath: TESTS_DIR });
    log(`opening ${url}`);
    await page.goto(url);

    let timer;
    const code = await Promise.race([
      exitCode,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${options.timeout} s`)), Math.max(0, timeoutMs - (Date.now() - started)));
      }),
      new Promise((_, reject) => browser.on('disconnected', () => reject(new Error('Chromium disconnected')))),
    ]).finally(() => clearTimeout(timer));

    const status = reportResults({ resultsFile, exitCode: code, resultsOut: options.results });
    log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (status !== 0) console.log(server.logTail());
    return status;
  } catch (err) {
    if (server) console.log(server.logTail());
    throw err;
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values: options } = parseArgs({
    options: {
      results: { type: 'string' },
      timeout: { type: 'string', default: '600' },
      extension: { type: 'string', default: REPO_ROOT },
    },
  });
  options.results ??= process.env.EVERGREEN_TEST_RESULTS;
  try {
    process.exitCode = await main(options);
  } catch (err) {
    console.error(`[run-integration] FAILED: ${err.message}`);
    writeResults(options.results, { passed: 0, failed: 1, error: err.message });
    process.exitCode = 1;
  }
}

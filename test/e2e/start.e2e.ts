// `npm start`: the address a user types, http://127.0.0.1:PORT/ with nothing after it, must show
// VS Code with Evergreen loaded (the front door redirects it to the extension-development URL).
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, makeTempDir } from '../../scripts/vscode-harness.mjs';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

describe('npm start (scripts/start.mjs)', function () {
  this.timeout(180_000);
  let tmp: string;
  let start: ChildProcess | undefined;
  let browser: Browser | undefined;
  let output = '';

  after(async () => {
    await browser?.close().catch(() => {});
    if (start && start.exitCode === null) {
      const exited = new Promise((resolve) => start?.once('exit', resolve));
      start.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('serves Evergreen at the bare URL the user types', async () => {
    tmp = makeTempDir('start');
    const workspace = path.join(tmp, 'workspace');
    mkdirSync(workspace);
    writeFileSync(path.join(workspace, 'README.md'), '# start e2e\n');
    const port = await freePort();
    start = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: REPO_ROOT,
      env: { ...process.env, EVERGREEN_PORT: String(port), EVERGREEN_WORKSPACE: workspace, EVERGREEN_USER_DATA_DIR: path.join(tmp, 'user-data'), XDG_DATA_HOME: path.join(tmp, 'xdg') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    start.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    start.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}/`;
    for (let tries = 0; tries < 1200 && !output.includes(`open ${url}`); tries++) {
      if (start.exitCode !== null) assert.fail(`npm start exited early:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(output.includes(`open ${url}`), `npm start never printed the URL:\n${output}`);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    const icon = page.locator('.activitybar .action-item a[aria-label="Evergreen"]');
    await icon.waitFor({ timeout: 90_000 }).catch(async () => {
      mkdirSync(RESULTS_DIR, { recursive: true });
      await page.screenshot({ path: path.join(RESULTS_DIR, 'npm-start-failure.png') }).catch(() => {});
      throw new Error(`no "Evergreen" activity-bar icon at ${url} (screenshot test-results/npm-start-failure.png)\n${output}`);
    });
    // The page stayed on the typed origin; only the query was added.
    assert.equal(new URL(page.url()).origin, `http://127.0.0.1:${port}`);
  });
});

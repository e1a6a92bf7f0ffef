// "Evergreen: Open Run…" in the real workbench (code-server + Chromium), issue 32: a CI run's
// artifact .zip, picked through the palette and VS Code's own file dialog, opens as the chat with
// its history, gauge and cost; the run's branch, offered, is fetched and checked out (or opened in a worktree of
// its own for review); one more message continues
// the conversation with the whole history sent. Screenshot: test-results/e2e-open-run.png.
// Build first (node esbuild.mjs), then:
//   npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 test/e2e/openRun.e2e.ts
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { exportSessionToZip } from '../../src/core/archive/exportSession';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { reply } from '../fake-anthropic/server';
import { runCliCaptured } from '../support/cliCapture';
import { openChatPanel, openChatWorkbench, showChat, runPaletteCommand, sendFromComposer, withFailureReport, type ChatWorkbench } from '../support/e2eChat';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
const SCREENSHOT = path.join(RESULTS_DIR, 'e2e-open-run.png');
const FAILURE_SCREENSHOT = path.join(RESULTS_DIR, 'e2e-open-run-failure.png');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } }).trim();
}

/** The user's clone with an `origin` (a local bare repository) to which the run pushed `branch` with one file. */
function cloneWithRunBranch(workspace: string, tmp: string, branch: string, file: string): void {
  const remote = path.join(tmp, 'origin.git');
  git(tmp, 'init', '-q', '--bare', '-b', 'main', remote);
  git(workspace, 'init', '-q', '-b', 'main');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'first');
  git(workspace, 'remote', 'add', 'origin', remote);
  git(workspace, 'push', '-q', 'origin', 'main');
  const runner = path.join(tmp, 'runner-checkout');
  git(tmp, 'clone', '-q', remote, runner);
  writeFileSync(path.join(runner, file), 'from the run\n');
  git(runner, 'add', '-A');
  git(runner, 'commit', '-q', '-m', 'the run');
  git(runner, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
}

describe('Open Run… on a CI run\'s artifact (code-server + Chromium)', function () {
  this.timeout(300_000);
  let bench: ChatWorkbench | undefined;
  const pageErrors: string[] = [];

  before(async () => {
    bench = await openChatWorkbench({ prefix: 'e2e-open-run', files: { 'notes.txt': 'The release codename is BLUE-HERON.\n' }, onPage: (page) => page.on('pageerror', (error) => pageErrors.push(error.message)) });
  });
  after(async () => {
    await bench?.close();
  });

  /** Open Run… on `zip`: the palette, the kind of download, then VS Code's own file dialog (code-server's is a quick input taking a path). */
  async function openRunZip(zip: string): Promise<void> {
    const { page } = bench!;
    await runPaletteCommand(page, 'Evergreen: Open Run…');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'A downloaded .zip' }).click({ timeout: 15_000 });
    const pathBox = page.locator('.quick-input-widget .quick-input-box input');
    await pathBox.waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    await pathBox.fill(zip);
    await page.waitForTimeout(500);
    await pathBox.press('Enter');
    // This workspace's origin is a local repository, not the run's github.com/acme/widgets: the import warns, and goes on when told to.
    await page.getByRole('button', { name: 'Import Anyway' }).click({ timeout: 30_000 });
  }

  it('imports the .zip, shows the chat with its history, gauge and cost, checks out the run\'s branch, and continues it', async () => {
    const { page, fake, workspace, tmp } = bench!;
    mkdirSync(RESULTS_DIR, { recursive: true });
    for (const stale of [SCREENSHOT, FAILURE_SCREENSHOT]) rmSync(stale, { force: true });
    await withFailureReport({ ...bench!, pageErrors }, FAILURE_SCREENSHOT, async () => {
      // The run, as the action's CLI made it on a runner: its own storage, then its artifact.
      const runnerStorage = path.join(tmp, 'runner-storage');
      fake.enqueue(reply.toolUse('read_file', { path: 'notes.txt' }, { id: 'toolu_notes' }), reply.text('The codename is **BLUE-HERON**.'));
      // In this process, so without the OS sandbox: its network bridge lives as long as the process that
      // started it and would keep mocha from exiting (the run only reads a file; the sandbox has its own tests).
      const run = await runCliCaptured(['--workspace', workspace, '--storage-dir', runnerStorage, '--base-url', fake.url, '--model', 'claude-sonnet-4-6', '--output-format', 'stream-json', '--yes', '--no-sandbox', '-p', 'What is the release codename?'], { ANTHROPIC_API_KEY: fake.apiKey, PATH: process.env.PATH }, workspace);
      assert.equal(run.code, 0, run.stderr);
      const sessionId = run.events.find((event) => event.type === 'session_started')?.sessionId;
      assert.ok(sessionId);
      const zip = path.join(tmp, 'evergreen-4242.zip');
      cloneWithRunBranch(workspace, tmp, 'evergreen/4242', 'from-the-run.txt');
      await exportSessionToZip({ store: new FileSessionStore(runnerStorage), sessionId, repository: 'github.com/acme/widgets', run: { id: '4242', branch: 'evergreen/4242' } }, zip);

      // The workbench has loaded Evergreen once its view shows.
      await showChat(page);
      await openRunZip(zip);

      const { webview } = await openChatPanel(page);
      await webview.locator('.eg-assistant strong', { hasText: 'BLUE-HERON' }).waitFor({ timeout: 60_000 });
      await webview.locator('.eg-user', { hasText: 'What is the release codename?' }).waitFor({ timeout: 15_000 });
      assert.match(await webview.locator('.eg-gauge-text').innerText(), /%/);
      assert.match(await webview.locator('.eg-gauge-text').innerText(), /\$\d/);
      const offer = page.locator('.notifications-toasts .notification-toast', { hasText: "The run's changes are on the branch evergreen/4242." });
      await offer.waitFor({ timeout: 30_000 });
      await page.screenshot({ path: SCREENSHOT });
      await offer.getByRole('button', { name: 'Fetch and Check Out' }).click();
      await page.locator('.notifications-toasts', { hasText: 'checked out evergreen/4242' }).waitFor({ timeout: 60_000 });
      assert.equal(git(workspace, 'rev-parse', '--abbrev-ref', 'HEAD'), 'evergreen/4242');
      assert.ok(existsSync(path.join(workspace, 'from-the-run.txt')), "the run's file is not in the workspace");
      assert.equal(readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'The release codename is BLUE-HERON.\n');

      // One more message: the conversation goes on from the imported history.
      const before = fake.messageRequests().length;
      fake.enqueue(reply.text('Still **BLUE-HERON**, as before.'));
      await sendFromComposer(webview, 'Say the codename once more.');
      await webview.locator('.eg-assistant strong', { hasText: 'BLUE-HERON' }).nth(1).waitFor({ timeout: 60_000 });
      const sent = fake.messageRequests().slice(before);
      assert.equal(sent.length, 1);
      const body = JSON.stringify(sent[0]!.body);
      assert.ok(body.includes('What is the release codename?') && body.includes('toolu_notes') && body.includes('Say the codename once more.'), 'the continued request lost the imported history');
      assert.deepEqual(pageErrors, []);
    });
  });
  it("opens another run's branch in a worktree of its own for review, leaving the checkout on its branch", async () => {
    const { page, fake, workspace, tmp } = bench!;
    await withFailureReport({ ...bench!, pageErrors }, FAILURE_SCREENSHOT, async () => {
      const runnerStorage = path.join(tmp, 'runner-storage-2');
      fake.enqueue(reply.text('Nothing to read this time.'));
      const run = await runCliCaptured(['--workspace', workspace, '--storage-dir', runnerStorage, '--base-url', fake.url, '--model', 'claude-sonnet-4-6', '--output-format', 'stream-json', '--yes', '--no-sandbox', '-p', 'Add a second file.'], { ANTHROPIC_API_KEY: fake.apiKey, PATH: process.env.PATH }, workspace);
      assert.equal(run.code, 0, run.stderr);
      const sessionId = run.events.find((event) => event.type === 'session_started')?.sessionId;
      assert.ok(sessionId);
      // The second run forked from main on the runner and pushed evergreen/4343 with a file of its own.
      const runner = path.join(tmp, 'runner-checkout');
      git(runner, 'switch', '-q', '-c', 'second', 'origin/main');
      writeFileSync(path.join(runner, 'second-run.txt'), 'from the second run\n');
      git(runner, 'add', '-A');
      git(runner, 'commit', '-q', '-m', 'the second run');
      git(runner, 'push', '-q', 'origin', 'HEAD:refs/heads/evergreen/4343');
      const zip = path.join(tmp, 'evergreen-4343.zip');
      await exportSessionToZip({ store: new FileSessionStore(runnerStorage), sessionId, repository: 'github.com/acme/widgets', run: { id: '4343', branch: 'evergreen/4343' } }, zip);

      await openRunZip(zip);
      const offer = page.locator('.notifications-toasts .notification-toast', { hasText: "The run's changes are on the branch evergreen/4343." });
      await offer.getByRole('button', { name: 'Review in a Worktree' }).click({ timeout: 60_000 });
      const done = page.locator('.notifications-toasts .notification-toast', { hasText: "the run's changes are in the worktree" });
      await done.waitFor({ timeout: 60_000 });
      const folder = /in the worktree (\/\S+) on evergreen\/4343/.exec(await done.innerText())?.[1];
      assert.ok(folder, await done.innerText());
      assert.equal(readFileSync(path.join(folder, 'second-run.txt'), 'utf8'), 'from the second run\n');
      assert.equal(git(workspace, 'rev-parse', '--abbrev-ref', 'HEAD'), 'evergreen/4242', 'the checkout stays on its branch');
      assert.equal(existsSync(path.join(workspace, 'second-run.txt')), false, "the run's file is not in the checkout until applied");
      // The Background Chats view lists it with its one changed file, ready for review.
      await done.getByRole('button', { name: 'Show Background Chats' }).click();
      await page.locator('.monaco-list-row', { hasText: 'evergreen/4343' }).first().waitFor({ timeout: 30_000 });
      assert.deepEqual(pageErrors, []);
    });
  });
});

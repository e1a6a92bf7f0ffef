// `npm test`: every suite in order, then one closing line `N passed, N failed` summing them all.
// Lint and the type check count as one test each. A suite that crashes before reporting counts as
// one failure, so nothing is ever skipped silently.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const resultsDir = mkdtempSync(join(tmpdir(), 'evergreen-results-'));
const mocha = ['node_modules/mocha/bin/mocha.js', '--reporter', 'test/support/countingReporter.cjs'];

const steps = [
  { name: 'setup (Debian packages, code-server)', cmd: ['node', 'scripts/setup-vscode.mjs'], counts: false },
  { name: 'build', cmd: ['node', 'esbuild.mjs', '--tests'], counts: false },
  { name: 'lint', cmd: ['node', 'node_modules/eslint/bin/eslint.js', '.'], counts: 'exit' },
  { name: 'type check', cmd: ['node', 'node_modules/typescript/bin/tsc', '--noEmit', '-p', '.'], counts: 'exit' },
  // The fast tier (test/unit: no processes, servers or real clocks), then the system tier
  // (test/system: real git, bash, ripgrep, sandboxes, MCP servers, the CLI against the fake APIs).
  { name: 'unit (fast tier)', cmd: ['node', ...mocha], counts: 'file' },
  { name: 'system', cmd: ['node', ...mocha, '--config', 'test/system/.mocharc.json'], counts: 'file' },
  { name: 'integration (VS Code extension host)', cmd: ['node', 'scripts/run-integration.mjs'], counts: 'file' },
  { name: 'e2e (Chromium + VS Code)', cmd: ['node', ...mocha, '--no-config', '--require', 'tsx/cjs', '--extension', 'ts', '--timeout', '300000', 'test/e2e/**/*.e2e.ts'], counts: 'file' },
  // Last: `npm run package` rebuilds dist/ in production mode, which the suites above must not run on.
  { name: 'package (.vsix installed into VS Code)', cmd: ['node', ...mocha, '--no-config', '--require', 'tsx/cjs', '--extension', 'ts', '--timeout', '300000', 'test/package/*.e2e.ts'], counts: 'file' },
];

const STEP_TIMEOUT_MS = 30 * 60_000;

let passed = 0;
let failed = 0;
const summary = [];
/** Each failed test in one line, printed last: CI shows only the tail of the log. */
const failures = [];
for (const [index, step] of steps.entries()) {
  const resultsFile = join(resultsDir, `${index}.json`);
  console.log(`\n━━ ${step.name} ━━ ${step.cmd.join(' ')}`);
  const started = Date.now();
  // A step that hangs (a server left running keeps a runner alive) fails in bounded time instead of
  // eating CI's whole window.
  const run = spawnSync(step.cmd[0], step.cmd.slice(1), { stdio: 'inherit', env: { ...process.env, EVERGREEN_TEST_RESULTS: resultsFile }, timeout: STEP_TIMEOUT_MS, killSignal: 'SIGKILL' });
  if (run.error) console.error(`\n${step.name}: ${run.error.code === 'ETIMEDOUT' ? `did not finish within ${STEP_TIMEOUT_MS / 60_000} minutes and was killed` : run.error.message}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = run.status === 0;
  if (!step.counts) {
    summary.push(`${ok ? 'ok  ' : 'FAIL'} ${step.name} (${seconds}s)`);
    if (!ok) {
      failed += 1;
      console.error(`\n${step.name} failed (exit ${run.status ?? run.signal}); the suites after it cannot run.`);
      break;
    }
    continue;
  }
  let counts = { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  if (step.counts === 'file') {
    const reported = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : undefined;
    if (reported && typeof reported.passed === 'number' && typeof reported.failed === 'number') {
      // A runner that exits non-zero with zero reported failures still failed.
      counts = { passed: reported.passed, failed: reported.failed + (!ok && reported.failed === 0 ? 1 : 0) };
      if (Array.isArray(reported.failures)) failures.push(...reported.failures.map((line) => `  ✗ ${step.name}: ${line}`));
      if (reported.passed + reported.failed === 0) counts.failed += 1; // A suite that ran nothing is a failure.
    } else {
      counts = { passed: 0, failed: 1 };
    }
  }
  passed += counts.passed;
  failed += counts.failed;
  summary.push(`${counts.failed === 0 ? 'ok  ' : 'FAIL'} ${step.name}: ${counts.passed} passed, ${counts.failed} failed (${seconds}s)`);
}

console.log(`\n━━ summary ━━\n${summary.join('\n')}`);
if (failures.length > 0) console.log(`failed tests:\n${failures.join('\n')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

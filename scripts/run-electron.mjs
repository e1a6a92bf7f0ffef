#!/usr/bin/env node
// Runs the same integration suite (out/test/integration/) in desktop VS Code through
// @vscode/test-electron, for machines that can download VS Code (this one cannot: use
// scripts/run-integration.mjs, which runs it in code-server). Build first: node esbuild.mjs --tests
//
// Usage: node scripts/run-electron.mjs [--results FILE] [--vscode-version VERSION]
//   --results         as in run-integration.mjs
//   --vscode-version  default 1.100.3 (the version code-server runs); 'stable' and 'insiders' work
// On a Linux machine without a display run it under Xvfb: xvfb-run -a node scripts/run-electron.mjs
//
// runTests() downloads VS Code into .vscode-test/ (cached), starts it with
// --extensionDevelopmentPath/--extensionTestsPath, passes extensionTestsEnv to the extension
// host and resolves with exit code 0 or rejects with TestRunFailedError.
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT, VSCODE_VERSION } from './setup-vscode.mjs';
import { makeTempDir } from './vscode-harness.mjs';
import { runTests, TestRunFailedError } from '@vscode/test-electron';
import { assertTestsBuilt, prepareWorkspace, reportResults, TESTS_DIR, writeResults } from './run-integration.mjs';

const { values: options } = parseArgs({
  options: {
    results: { type: 'string' },
    'vscode-version': { type: 'string', default: VSCODE_VERSION },
  },
});
options.results ??= process.env.EVERGREEN_TEST_RESULTS;

let tmp;
try {
  assertTestsBuilt();
  tmp = makeTempDir('electron');
  const workspace = path.join(tmp, 'workspace');
  const resultsFile = path.join(tmp, 'results.json');
  prepareWorkspace(workspace);

  let exitCode;
  try {
    exitCode = await runTests({
      version: options['vscode-version'],
      cachePath: path.join(REPO_ROOT, '.vscode-test'),
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: TESTS_DIR,
      extensionTestsEnv: { EVERGREEN_TEST_RESULTS: resultsFile },
      // A fresh profile per run, and no other installed extensions.
      launchArgs: [
        workspace,
        '--disable-extensions',
        `--user-data-dir=${path.join(tmp, 'user-data')}`,
        `--extensions-dir=${path.join(tmp, 'extensions')}`,
      ],
    });
  } catch (err) {
    // A failing suite makes VS Code exit non-zero: still report the counts.
    if (!(err instanceof TestRunFailedError)) throw err;
    exitCode = err.code ?? 1;
  }
  process.exitCode = reportResults({ resultsFile, exitCode, resultsOut: options.results });
} catch (err) {
  console.error(`[run-electron] FAILED: ${err.message}`);
  writeResults(options.results, { passed: 0, failed: 1, error: err.message });
  process.exitCode = 1;
} finally {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}

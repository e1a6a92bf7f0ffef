// Entry point VS Code's extension host calls for `extensionTestsPath` (bundled to
// out/test/integration/index.js). Runs every *.test.js beside it with mocha (bdd) and writes
// {"passed": N, "failed": N} to $EVERGREEN_TEST_RESULTS so the runner outside VS Code can
// report counts (the extension host inherits the environment of code-server / Electron).
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export interface IntegrationResults {
  passed: number;
  failed: number;
  /** Each failed test's title and the first line of its error, for the summary at the end of `npm test`. */
  failures?: string[];
}

export function run(): Promise<void> {
  // Console output is forwarded to the runner's stdout, which is not a TTY: no ANSI colors.
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 60_000 });
  for (const file of readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort()) {
    mocha.addFile(path.join(__dirname, file));
  }

  return new Promise((resolve, reject) => {
    try {
      const failed: string[] = [];
      const runner = mocha.run((failures) => {
        const results: IntegrationResults = {
          passed: runner.stats?.passes ?? 0,
          // A load/hook error can fail the run without a failed test: never report it as green.
          failed: Math.max(failures, runner.stats?.failures ?? 0),
          failures: failed,
        };
        writeResults(results);
        if (results.failed > 0) reject(new Error(`${results.failed} integration test(s) failed`));
        else if (results.passed === 0) reject(new Error('no integration tests ran'));
        else resolve();
      });
      runner.on('fail', (test, error: unknown) => failed.push(`${test.fullTitle()}: ${String(error instanceof Error ? error.message : error).split('\n')[0]!.slice(0, 300)}`));
    } catch (err) {
      writeResults({ passed: 0, failed: 1 });
      reject(err);
    }
  });
}

function writeResults(results: IntegrationResults): void {
  const file = process.env.EVERGREEN_TEST_RESULTS;
  if (!file) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(results) + '\n');
}

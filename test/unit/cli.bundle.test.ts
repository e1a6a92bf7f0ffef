import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

// The bundle is what users run: esbuild's CJS output can break where the TS sources work
// (an ESM dependency reading import.meta.url did once). `npm test` builds before this suite.
describe('dist/cli.js bundle', () => {
  it('starts and prints its usage', function () {
    this.timeout(20_000);
    assert.ok(fs.existsSync('dist/cli.js'), 'dist/cli.js is missing: run `npm run build` first');
    const run = spawnSync(process.execPath, ['dist/cli.js', '--help'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Usage: evergreen \[options\]/);
  });

  it('fails a bad flag with exit 2 and the usage', () => {
    const run = spawnSync(process.execPath, ['dist/cli.js', '--frobnicate'], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^evergreen: Unknown option '--frobnicate'/);
  });
});

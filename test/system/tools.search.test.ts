import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { findRipgrepOnPath } from '../../src/core/tools/grepSearch';
import { createToolRegistry } from '../../src/core/tools/registry';
import { makeContext, makeSearchTree, makeTempDirs, type TempDirs } from '../support/toolFixtures';

const rgPath = findRipgrepOnPath();

describe('tools grep_search', () => {
  let dirs: TempDirs;
  const js = createToolRegistry({ trusted: false });
  beforeEach(async () => {
    dirs = makeTempDirs();
    await makeSearchTree(dirs);
  });
  afterEach(() => dirs.cleanup());

  const queries: Array<Record<string, unknown>> = [
    { pattern: 'needle' },
    { pattern: 'NEEDLE', case_insensitive: true },
    { pattern: 'needle', glob: '*.ts' },
    { pattern: 'needle', path: 'src' },
    { pattern: 'needle', path: 'src', glob: 'sub/*.ts' },
    { pattern: 'needle', glob: '*.{log,yml}' },
    { pattern: 'ne+dle\\s\\w+' },
    { pattern: '^const' },
    { pattern: 'needle', max_results: 2 },
    { pattern: 'needle', path: 'a.ts' },
    { pattern: 'needle', path: 'secret.ts' },
    { pattern: 'zzz_no_match' },
  ];

  it('falls back to JS when the configured rg binary does not exist', async () => {
    const broken = createToolRegistry({ trusted: false, ripgrepPath: path.join(dirs.outside, 'no-such-rg') });
    for (const query of queries.slice(0, 3)) {
      const expected = await js.executeToolCall('grep_search', query, makeContext(dirs.workspace));
      const actual = await broken.executeToolCall('grep_search', query, makeContext(dirs.workspace));
      assert.deepEqual(actual, expected, JSON.stringify(query));
    }
  });

  it('skips a 1 GB sparse file (text head, binary tail) quickly with both engines', async () => {
    const file = path.join(dirs.root, 'huge.txt');
    await fsp.writeFile(file, 'needle in huge\n'.repeat(1000));
    await fsp.truncate(file, 1024 ** 3);
    for (const registry of rgPath ? [js, createToolRegistry({ trusted: false, ripgrepPath: rgPath })] : [js]) {
      const result = await registry.executeToolCall('grep_search', { pattern: 'needle in huge' }, makeContext(dirs.workspace));
      assert.match(result.content, /No matches/);
    }
  });

  (rgPath ? describe : describe.skip)('with ripgrep', () => {
    const rg = createToolRegistry({ trusted: false, ripgrepPath: rgPath ?? 'rg' });

    it('gives the same results as the JS fallback', async () => {
      for (const query of queries) {
        const fromRg = await rg.executeToolCall('grep_search', query, makeContext(dirs.workspace));
        const fromJs = await js.executeToolCall('grep_search', query, makeContext(dirs.workspace));
        assert.deepEqual(fromRg, fromJs, `query ${JSON.stringify(query)}`);
        assert.equal(fromRg.isError, undefined, fromRg.content);
      }
    });

    it('really runs rg (Rust-only syntax works there, not in JS)', async () => {
      const fromRg = await rg.executeToolCall('grep_search', { pattern: '(?i)NEEDLE UPPER' }, makeContext(dirs.workspace));
      assert.equal(fromRg.content, 'src/app.ts:1:// Needle upper');
      const fromJs = await js.executeToolCall('grep_search', { pattern: '(?i)NEEDLE UPPER' }, makeContext(dirs.workspace));
      assert.equal(fromJs.isError, true);
    });

    it('invalid regex is a clear error (rg)', async () => {
      const result = await rg.executeToolCall('grep_search', { pattern: '(unclosed' }, makeContext(dirs.workspace));
      assert.equal(result.isError, true);
      assert.match(result.content, /Invalid regular expression "\(unclosed"/);
    });

    it('refuses to search outside the workspace', async () => {
      for (const p of ['link-out', '..', dirs.outside]) {
        const result = await rg.executeToolCall('grep_search', { pattern: 'needle', path: p }, makeContext(dirs.workspace));
        assert.equal(result.isError, true, p);
        assert.match(result.content, /outside the workspace root/, p);
      }
    });
  });
});

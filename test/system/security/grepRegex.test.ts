// Issue 18 item 3, "regexes": without ripgrep, grep_search ran the model's pattern as a JS RegExp
// on the main thread. A backtracking pattern like ^(a+)+$ then blocked the extension host (or the
// CLI) with no way out: no timer fired and Ctrl-C could not stop the tool. The regex now runs in a
// worker with a time budget and a cancel ends it at once.
// (Each line below takes 2 s or more of backtracking in V8, so the old code finishes — slowly — and fails
// these assertions instead of hanging the test run.)
import assert from 'node:assert/strict';
import { createToolRegistry } from '../../../src/core/tools/registry';
import { makeContext, makeTempDirs, writeFiles, type TempDirs } from '../../support/toolFixtures';

const EVIL = '^(a+)+$';
const evilLines = (count: number) => Array.from({ length: count }, () => `${'a'.repeat(28)}!`).join('\n') + '\n';

describe('security: the JS grep fallback cannot hang on a backtracking regex', function () {
  this.timeout(60_000);
  let dirs: TempDirs;
  beforeEach(async () => {
    dirs = makeTempDirs();
    await writeFiles(dirs.root, { 'src/slow.txt': evilLines(4), 'src/ok.txt': 'aaaa\nbbb\n' });
  });
  afterEach(() => dirs.cleanup());

  it('a pattern that outlives the time budget ends the search with an error that says why and what to do', async () => {
    const tools = createToolRegistry({ trusted: false, grep: { regexBudgetMs: 300 } });
    const started = Date.now();
    const result = await tools.executeToolCall('grep_search', { pattern: EVIL }, makeContext(dirs.workspace));
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 3_000, `the search took ${elapsed} ms`);
    assert.equal(result.isError, true, result.content);
    assert.match(result.content, /ran longer than 0\.3 s on the lines of src\/slow\.txt from line 1/);
    assert.match(result.content, /\(a\+\)\+/);
    // The worker is gone and the next search works as before.
    const again = await tools.executeToolCall('grep_search', { pattern: '^a+$' }, makeContext(dirs.workspace));
    assert.equal(again.content, 'src/ok.txt:1:aaaa');
  });

  it('Ctrl-C (the tool call aborted) stops a running match at once, whatever the budget', async () => {
    const tools = createToolRegistry({ trusted: false, grep: { regexBudgetMs: 600_000 } });
    const ctx = makeContext(dirs.workspace);
    // The main thread stays free while the worker backtracks: this timer fires on time.
    let firedLateBy = Number.NaN;
    const abortAt = Date.now() + 500;
    setTimeout(() => {
      firedLateBy = Date.now() - abortAt;
      ctx.controller.abort();
    }, 500);
    const started = Date.now();
    const result = await tools.executeToolCall('grep_search', { pattern: EVIL }, ctx);
    const elapsed = Date.now() - started;
    assert.ok(firedLateBy < 500, `the cancel timer fired ${firedLateBy} ms late: the main thread was blocked`);
    assert.ok(elapsed < 2_500, `the cancelled search took ${elapsed} ms`);
    assert.equal(result.cancelled, true, result.content);
  });

  it('ordinary patterns still find every match, in order, with the same output', async () => {
    await writeFiles(dirs.root, { 'big.txt': Array.from({ length: 10_000 }, (_, i) => (i % 1000 === 0 ? `hit ${i}` : `line ${i}`)).join('\n') });
    const tools = createToolRegistry({ trusted: false });
    const result = await tools.executeToolCall('grep_search', { pattern: '^hit \\d+$', path: 'big.txt' }, makeContext(dirs.workspace));
    assert.equal(result.content, Array.from({ length: 10 }, (_, i) => `big.txt:${i * 1000 + 1}:hit ${i * 1000}`).join('\n'));
    const limited = await tools.executeToolCall('grep_search', { pattern: 'hit', path: 'big.txt', max_results: 3 }, makeContext(dirs.workspace));
    assert.match(limited.content, /^big\.txt:1:hit 0\nbig\.txt:1001:hit 1000\nbig\.txt:2001:hit 2000\n\[Showing the first 3 matching lines; there are more/);
  });
});

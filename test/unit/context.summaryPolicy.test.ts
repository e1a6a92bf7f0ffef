/**
 * Clearing or summarizing by expected cost over the rest of the session (summaryPolicy.ts): a
 * summary runs once the skeleton no clearing removes has cost, in reads since the last summary, as
 * much as a summary costs, and only when the session is likely to go on long enough to repay it.
 */
import assert from 'node:assert/strict';
import { CONTEXT_DEFAULTS } from '../../src/core/context/defaults';
import { decideSummary, type SummaryPolicyInput } from '../../src/core/context/summaryPolicy';
import { blocksOf } from '../../src/core/model/content';
import { bulk, Rig } from './context.harness';

const prices = { cacheReadPrice: 0.1, cacheWritePrice: 1.25, outputPrice: 5 };
const base: SummaryPolicyInput = {
  usedTokens: 40_000,
  floorTokens: 30_000,
  keptTokens: 8_000,
  baseTokens: 3_000,
  summaryOutputTokens: 3_000,
  requestsSinceCompaction: 100,
  requestsInSession: 100,
  prices,
};

describe('context engine: summarize or keep clearing, by cost over the session', () => {
  it('prices a summary as its request, its reply and the rewrite after it', () => {
    const decision = decideSummary(base);
    const after = 8_000 + 0.6 * 3_000;
    assert.equal(decision.gap, 30_000 - after);
    assert.equal(decision.price, 0.1 * 40_000 + 5 * 3_000 + 1.25 * (after - 3_000));
  });

  it('summarizes once the reads the skeleton cost since the last summary reach the price (ski rental)', () => {
    const price = decideSummary(base).price;
    const gap = decideSummary(base).gap;
    // r * gap * n / 2 >= price  <=>  n >= 2 price / (r gap)
    const breakEven = Math.ceil((2 * price) / (0.1 * gap));
    assert.equal(decideSummary({ ...base, requestsSinceCompaction: breakEven - 1, requestsInSession: 1_000 }).summarize, false);
    const due = decideSummary({ ...base, requestsSinceCompaction: breakEven, requestsInSession: 1_000 });
    assert.ok(due.summarize, JSON.stringify(due));
    assert.match(due.why, /cost about as much in reads/);
  });

  it('does not summarize a young session the rest of which is unlikely to repay it', () => {
    // Before any compaction the count since one is infinite: the session's own length decides.
    assert.equal(decideSummary({ ...base, requestsSinceCompaction: Number.POSITIVE_INFINITY, requestsInSession: 10 }).summarize, false);
    assert.equal(decideSummary({ ...base, requestsSinceCompaction: Number.POSITIVE_INFINITY, requestsInSession: 1_000 }).summarize, true);
  });

  it('never summarizes when clearing alone reaches what a summary would leave', () => {
    const decision = decideSummary({ ...base, floorTokens: 9_000, requestsSinceCompaction: 10_000, requestsInSession: 10_000 });
    assert.equal(decision.summarize, false);
    assert.ok(decision.gap <= 0);
  });

  it('a dearer reply (output price) postpones the summary', () => {
    const cheap = decideSummary({ ...base, requestsSinceCompaction: 140, requestsInSession: 1_000 });
    const dear = decideSummary({ ...base, requestsSinceCompaction: 140, requestsInSession: 1_000, prices: { ...prices, outputPrice: 50 } });
    assert.equal(cheap.summarize, true);
    assert.equal(dear.summarize, false);
  });

  it('in the engine: a long session is summarized below the threshold, the newest rounds kept verbatim, no file restored', async () => {
    const r = new Rig({ window: 200_000 });
    r.user('Work through the modules.');
    let prepared = await r.prepare();
    r.respond(prepared);
    let compactedAt: number | undefined;
    for (let i = 0; i < 400 && compactedAt === undefined; i++) {
      r.round([{ name: 'read_file', input: { path: `src/m${i % 50}.ts` }, result: bulk(3_000, `m${i}`) }], `Step ${i}: reading src/m${i % 50}.ts to check how the cache feeds the parser before the change.`);
      const before = r.entries.filter((e) => e.type === 'compaction').length;
      prepared = await r.prepare();
      if (r.entries.filter((e) => e.type === 'compaction').length > before) compactedAt = i;
      r.respond(prepared, Math.round(prepared.mark.liveChars / 4), 50, Math.round(prepared.mark.liveChars / 4) - 100);
      r.advance(5_000);
    }
    assert.ok(compactedAt !== undefined, 'a summary ran');
    const record = r.entries.flatMap((e) => (e.type === 'compaction' ? [e.compaction] : [])).at(-1)!;
    assert.equal(record.trigger, 'auto');
    assert.ok(record.stats.tokensBefore < r.engine.budget.threshold, `below the threshold: ${record.stats.tokensBefore} < ${r.engine.budget.threshold}`);
    assert.deepEqual(record.restoredFiles, []);
    // The newest rounds stay verbatim: the kept part holds the newest keepRecentResults results whole.
    const kept = r.history.slice(record.keptFrom);
    const results = kept.flatMap((m) => blocksOf(m)).filter((b) => b.type === 'tool_result');
    assert.equal(results.length, CONTEXT_DEFAULTS.keepRecentResults);
    assert.ok(r.logs.some((line) => line.includes('summarizing before the threshold')), r.logs.slice(-5).join('\n'));
  });
});

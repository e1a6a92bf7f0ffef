/**
 * Token arithmetic has one definition (src/core/model/usage.ts): the session's meta totals, a
 * subagent's stats, the stream accumulator and the gauges all add and size usage through it.
 */
import assert from 'node:assert/strict';
import { addUsage, isUsageCounts, promptTokensFromUsage, zeroUsage } from '../../src/core/model/usage';

describe('model usage arithmetic', () => {
  it('adds every count into a running total that may carry more fields, and returns that total', () => {
    const totals = { ...zeroUsage(), costUsd: 1.5 };
    const returned = addUsage(totals, { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 });
    addUsage(totals, { inputTokens: 10, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 40 });
    assert.equal(returned, totals);
    assert.deepEqual(totals, { inputTokens: 11, outputTokens: 22, cacheReadTokens: 33, cacheWriteTokens: 44, costUsd: 1.5 });
  });

  it('sizes a prompt as uncached input plus cache reads and writes, never the reply', () => {
    assert.equal(promptTokensFromUsage({ inputTokens: 5, outputTokens: 1000, cacheReadTokens: 70, cacheWriteTokens: 300 }), 375);
  });

  it('accepts only a record with all four counts as numbers', () => {
    assert.equal(isUsageCounts({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }), true);
    assert.equal(isUsageCounts({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 }), false);
    assert.equal(isUsageCounts({ inputTokens: '1', outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }), false);
    assert.equal(isUsageCounts(null), false);
  });
});

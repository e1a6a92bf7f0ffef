import assert from 'node:assert/strict';
import { cacheReadShare, contextBudget, contextTokensFromUsage } from '../../src/core/context/gauge';
import { costOf, parsePriceOverrides, priceFor } from '../../src/core/model/models';

describe('model prices and gauge arithmetic', () => {
  it('prices dated model ids by their family and lets a setting override', () => {
    assert.deepEqual(priceFor('claude-sonnet-4-5-20250929'), { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    assert.equal(priceFor('claude-opus-4-5-20251101')?.input, 5);
    assert.equal(priceFor('claude-opus-4-1')?.input, 15);
    assert.equal(priceFor('some-local-model'), undefined);
    assert.equal(priceFor('claude-sonnet-4-5', { 'claude-sonnet-4-5': { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } })?.input, 1);
  });

  it('computes cost from all four usage fields', () => {
    const cost = costOf({ inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 2_000_000, cacheWriteTokens: 400_000 }, priceFor('claude-sonnet-4-5'));
    assert.equal(cost?.toFixed(4), (3 + 1.5 + 0.6 + 1.5).toFixed(4));
    // No price is no cost figure at all, not $0: the front ends say "price unknown".
    assert.equal(costOf({ inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, priceFor('some-local-model')), undefined);
  });

  it('reports bad price overrides instead of using them', () => {
    const { prices, problems } = parsePriceOverrides({ good: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 }, bad: { input: 'x' } });
    assert.deepEqual(Object.keys(prices), ['good']);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /"bad".*input, output, cacheRead, cacheWrite/);
    assert.deepEqual(parsePriceOverrides([]).problems, ['pricing must be an object keyed by model id']);
  });

  it('puts the default auto-compact threshold at effective window - 13k', () => {
    assert.deepEqual(contextBudget(200_000, 16_000), { window: 200_000, outputReserve: 16_000, effective: 184_000, threshold: 171_000 });
    assert.equal(contextBudget(200_000, 16_000, 50).threshold, 92_000);
    // Small windows: reserve capped at 20%, margin at 7% (40k: reserve 8k, threshold 29.2k).
    assert.deepEqual(contextBudget(40_000, 16_000), { window: 40_000, outputReserve: 8_000, effective: 32_000, threshold: 29_200 });
    const usage = { inputTokens: 100, outputTokens: 50, cacheReadTokens: 800, cacheWriteTokens: 100 };
    assert.equal(contextTokensFromUsage(usage), 1050);
    assert.equal(cacheReadShare(usage), 0.8);
  });
});

/**
 * The rule that decides when a tier edit repays its cache rewrite uses the model's own price
 * ratios: Anthropic charges 1.25x for a cache write and 0.1x for a read, OpenAI no write premium
 * and its own read discount. Unknown prices keep the defaults.
 */
import assert from 'node:assert/strict';
import { cacheEconomicsFor, CONTEXT_DEFAULTS } from '../../src/core/context/defaults';
import { priceFor } from '../../src/core/model/models';

describe('context engine: cache economics per provider', () => {
  it('takes Anthropic ratios from its price table (the documented defaults)', () => {
    const economics = cacheEconomicsFor(priceFor('claude-sonnet-4-6', {}, 'anthropic'));
    assert.equal(economics.cacheWritePrice, CONTEXT_DEFAULTS.cacheWritePrice);
    assert.ok(Math.abs((economics.cacheReadPrice ?? 0) - CONTEXT_DEFAULTS.cacheReadPrice) < 1e-9);
  });

  it('gives OpenAI models no cache-write premium and their own read discount', () => {
    const price = priceFor('gpt-4.1', {}, 'openai');
    assert.ok(price, 'gpt-4.1 is priced');
    const economics = cacheEconomicsFor(price);
    assert.equal(economics.cacheWritePrice, 1);
    assert.equal(economics.cacheReadPrice, price.cacheRead / price.input);
    assert.notEqual(economics.cacheReadPrice, CONTEXT_DEFAULTS.cacheReadPrice);
  });

  it('keeps the defaults for a model without a price (a local server) or a free one', () => {
    assert.deepEqual(cacheEconomicsFor(priceFor('llama3.1:8b', {}, 'openai')), {});
    assert.deepEqual(cacheEconomicsFor({ input: 0, cacheRead: 0, cacheWrite: 0 }), {});
  });
});

/**
 * PROVIDER_FACTS (model/models.ts) is the one table of provider and model facts; the lookups
 * read one fact at a time, so a row without a fact never hides a shorter family's.
 */
import assert from 'node:assert/strict';
import { PROVIDERS } from '../../src/core/model/backend';
import { createBackend } from '../../src/core/model/createBackend';
import { contextWindowFor, defaultModelFor, knownWindowFor, priceFor, PROVIDER_FACTS } from '../../src/core/model/models';

describe('provider and model facts', () => {
  it('prices every default model and gives every row a fact', () => {
    for (const provider of PROVIDERS) {
      assert.ok(priceFor(defaultModelFor(provider), {}, provider), `${provider}: the default model has no price`);
      for (const [prefix, facts] of Object.entries(PROVIDER_FACTS[provider].models)) assert.ok(facts.window !== undefined || facts.price !== undefined || facts.thinking !== undefined, `${provider} ${prefix}: an empty row`);
    }
  });

  it("takes a window from the longest prefix that has one, else the provider's fallback", () => {
    // gpt-5-mini's row has a price and no window: gpt-5's window applies.
    assert.equal(knownWindowFor('openai', 'gpt-5-mini-2025-08-07'), PROVIDER_FACTS.openai.models['gpt-5']!.window);
    assert.equal(priceFor('gpt-5-mini-2025-08-07', {}, 'openai'), PROVIDER_FACTS.openai.models['gpt-5-mini']!.price);
    // gpt-4-turbo's row has a window and no price.
    assert.equal(knownWindowFor('openai', 'gpt-4-turbo'), 128_000);
    assert.equal(priceFor('gpt-4-turbo', {}, 'openai'), undefined);
    assert.equal(contextWindowFor('openai', 'qwen2.5-coder:7b'), PROVIDER_FACTS.openai.fallbackWindow);
    assert.equal(contextWindowFor('anthropic', 'claude-sonnet-4-6'), PROVIDER_FACTS.anthropic.fallbackWindow);
  });

  it("gives each back end its provider's capabilities, as a copy", () => {
    for (const provider of PROVIDERS) {
      const backend = createBackend({ provider, apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
      assert.deepEqual(backend.capabilities, PROVIDER_FACTS[provider].capabilities);
      assert.notEqual(backend.capabilities, PROVIDER_FACTS[provider].capabilities);
    }
  });
});

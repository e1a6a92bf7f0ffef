/**
 * Server-side web searches in the gauge (issue 30): each is billed apart from tokens, so the hover
 * and the breakdown document name how many ran beside the session's cost (which includes them).
 */
import assert from 'node:assert/strict';
import { renderContextBreakdown } from '../../src/frontends/contextBreakdown';
import { contextGauge, withStreamedTokens } from '../../src/core/context/gauge';
import { word } from '../../src/frontends/words';
import { saidTooltip } from '../support/gaugeSaid';

const numbers = { window: 200_000, outputReserve: 32_000, usedTokens: 10_000, autoCompactThreshold: 155_000, cacheReadShare: 0, sessionCostUsd: 0.5 };

describe('web searches in the gauge', () => {
  it('names the searches beside the session cost, in the hover and the breakdown document', () => {
    const gauge = contextGauge({ ...numbers, webSearches: 3 });
    assert.match(saidTooltip(gauge.reading), /^Cache reads: .* session cost \$0\.50 \(3 web searches\)$/m);
    assert.match(renderContextBreakdown({ gauge, savings: undefined, at: new Date(0), word, voice: 'extension' }), /^- Session cost so far: \$0\.50 \(3 web searches\)$/m);
    assert.match(saidTooltip(contextGauge({ ...numbers, webSearches: 1 }).reading), /\(1 web search\)$/m);
  });

  it('says nothing of searches when none ran', () => {
    for (const gauge of [contextGauge(numbers), contextGauge({ ...numbers, webSearches: 0 })]) {
      assert.doesNotMatch(saidTooltip(gauge.reading), /web search/);
      assert.doesNotMatch(renderContextBreakdown({ gauge, savings: undefined, at: new Date(0), word, voice: 'extension' }), /web search/);
    }
  });

  it('keeps the count the session gives while a reply streams', () => {
    const streamed = withStreamedTokens(contextGauge(numbers), 500, { sessionCostUsd: 0.51, subagentCostUsd: undefined, unpricedRequests: 0, webSearches: 2 });
    assert.equal(streamed.webSearches, 2);
    assert.match(saidTooltip(streamed.reading), /\(2 web searches\)$/m);
  });
});

/**
 * Unknown prices (issue: rough edges): a model with no known price must not read as "$0.00", which
 * looks like a real figure. One definition (src/core/model/cost.ts) is used by the gauge, the
 * breakdown document, the session picker, the CLI, the transcript and the subagent cards.
 */
import assert from 'node:assert/strict';
import { renderContextBreakdown } from '../../src/frontends/contextBreakdown';
import { contextGauge, type GaugeNumbers } from '../../src/core/context/gauge';
import { formatCost, PRICE_SETTING, PRICE_UNKNOWN, priceUnknownHint } from '../../src/core/model/cost';
import type { SessionMeta } from '../../src/core/storage/sessionStore';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { applySubagentEvent, subagentFigures } from '../../src/webview/subagents';
import { gaugeView } from '../../src/webview/gauge';
import { WEBVIEW_STRINGS } from '../../src/protocol';
import { wordGauge } from '../../src/frontends/words/wordGauge';
import { word } from '../../src/frontends/words';
import { saidTooltip, saidSecondary } from '../support/gaugeSaid';

const numbers: GaugeNumbers = { window: 200_000, outputReserve: 16_000, usedTokens: 20_000, autoCompactThreshold: 171_000, cacheReadShare: 0.5, sessionCostUsd: 0 };
const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe('unknown prices', () => {
  it('formatCost: a figure when every request was priced, "price unknown" when none was, both when some were', () => {
    assert.equal(formatCost(0.42), '$0.42');
    assert.equal(formatCost(0), '$0.00', 'a priced session that cost nothing is a real $0.00');
    assert.equal(formatCost(0.004), '$0.0040');
    assert.equal(formatCost(0, 3), PRICE_UNKNOWN);
    assert.equal(formatCost(0.42, 1), `$0.42 + ${PRICE_UNKNOWN}`);
    assert.equal(formatCost(0.5, 0, 4), '$0.5000');
    assert.equal(formatCost(0, 1, 4), PRICE_UNKNOWN);
    assert.equal(priceUnknownHint(0), '');
    assert.match(priceUnknownHint(1), /^1 request to a model with no known price: set its price .* in "evergreen\.pricing"/);
    assert.match(priceUnknownHint(1_200), /^1,200 requests /);
    assert.equal(PRICE_SETTING, 'evergreen.pricing');
  });

  it("formatCost says an unknown price in the front end's words: the panel's and VS Code's in the user's language", () => {
    assert.equal(formatCost(0.42, 1, undefined, 'prix inconnu'), '$0.42 + prix inconnu');
    assert.equal(formatCost(0, 2, 4, 'prix inconnu'), 'prix inconnu');
    assert.equal(formatCost(0.42, 0, undefined, 'prix inconnu'), '$0.42', 'a known price needs no word');
    assert.equal(WEBVIEW_STRINGS['insights.priceUnknown'], PRICE_UNKNOWN, "the panel's English is the CLI's");
  });

  it('the gauge (panel, status bar) says the price is unknown and where to set it, never $0.00', () => {
    const gauge = contextGauge({ ...numbers, unpricedRequests: 2 });
    assert.equal(saidSecondary(gauge.reading), 'cache 50% · price unknown');
    assert.match(saidTooltip(gauge.reading), /session cost price unknown\n2 requests to a model with no known price: set its price \(USD per million tokens\) in "evergreen\.pricing"/);
    assert.ok(!saidTooltip(gauge.reading).includes('$0.00'), saidTooltip(gauge.reading));
    const view = gaugeView(wordGauge(gauge));
    assert.equal(view.secondary, 'cache 50% · price unknown');
    assert.match(view.ariaValueText, /price unknown/);
    // A priced session reads as before, without the hint.
    const priced = contextGauge({ ...numbers, sessionCostUsd: 1.5 });
    assert.equal(saidSecondary(priced.reading), 'cache 50% · $1.50');
    assert.ok(!saidTooltip(priced.reading).includes(PRICE_SETTING));
  });

  it('the breakdown document says it too, with the next step', () => {
    const text = renderContextBreakdown({ gauge: contextGauge({ ...numbers, unpricedRequests: 1 }), savings: undefined, sessionId: 's', model: 'local-llama', at: new Date(0), word, voice: 'extension' });
    assert.match(text, /- Session cost so far: price unknown\n {2}- 1 request to a model with no known price: set its price .* in "evergreen\.pricing"/);
  });

  it('the archived transcript header and a subagent line and card say "price unknown"', async () => {
    const meta: SessionMeta = {
      id: 's1',
      title: 't',
      model: 'local-llama',
      workspace: undefined,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
      messageCount: 0,
      totals: { ...usage, costUsd: 0, unpricedRequests: 2 },
    };
    const finished = { type: 'subagent_finished', toolUseId: 'tu1', childId: 'c1', status: 'done', report: 'r', usage, costUsd: 0, unpricedRequests: 2, toolCalls: 1, elapsedMs: 1000 } as const;
    const { type: _type, ...data } = finished;
    const rendered = await renderTranscript(meta, [{ line: 0, entry: { type: 'event', ts: 't1', name: 'subagent_finished', data } }]);
    assert.match(rendered.text, /cache write · cost price unknown \(2 requests to a model with no known price: set its price .*"evergreen\.pricing".*\)/);
    assert.match(rendered.text, /\*\*Subagent done\*\* .* · price unknown · t1/);
    const card = applySubagentEvent(undefined, { ...finished, turnId: 't' });
    assert.ok(card);
    assert.equal(subagentFigures(card), '1 tool call · 1.0 s · price unknown');
  });
});

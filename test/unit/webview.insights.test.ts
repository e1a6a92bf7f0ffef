/**
 * The insights panel's arithmetic and words (src/webview/insights/chartMath.ts, insightsText.ts),
 * in node: the ticks, one shape per pixel column whatever the session's length, the cursor's keys,
 * and what the readouts, summaries and data tables say for a session the core built.
 */
import assert from 'node:assert/strict';
import { buildSessionInsights } from '../../src/core/insights/sessionInsights';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import { columnStarts, columnsPath, cursorMove, indexAt, lastOfColumns, linePath, nextActionRequest, niceTicks, peakOfColumns, type Plot } from '../../src/webview/insights/chartMath';
import { chartSummary, dataTable, readout, removedByKind } from '../../src/webview/insights/insightsText';
import { SYNTHETIC_BUDGET, syntheticSession } from '../support/insightsSession';
import { wordInsights } from '../../src/frontends/words/wordInsights';

describe('the insights charts’ arithmetic', () => {
  it('puts round ticks from 0 to at least the maximum', () => {
    assert.deepEqual(niceTicks(1), [0, 0.25, 0.5, 0.75, 1]);
    assert.deepEqual(niceTicks(160_000), [0, 50_000, 100_000, 150_000, 200_000]);
    assert.deepEqual(niceTicks(17.74), [0, 5, 10, 15, 20]);
    assert.deepEqual(niceTicks(300, 6), [0, 50, 100, 150, 200, 250, 300]);
    assert.deepEqual(niceTicks(0), [0]);
    assert.deepEqual(niceTicks(Number.NaN), [0]);
  });

  it('draws at most one shape per pixel column, however long the session', () => {
    assert.deepEqual(columnStarts(5, 800), [0, 1, 2, 3, 4], 'fewer requests than columns: one each');
    const starts = columnStarts(10_000, 800);
    assert.equal(starts.length, 800);
    assert.equal(starts[0], 0);
    assert.ok(starts.every((start, index) => index === 0 || start > starts[index - 1]!));
    const values = Array.from({ length: 10_000 }, (_, index) => (index === 4_321 ? 99 : index % 7));
    const peaks = peakOfColumns(starts, 10_000, (index) => values[index]!);
    assert.equal(peaks.length, 800);
    assert.ok(peaks.includes(4_321), 'a spike is never averaged away');
    assert.deepEqual(lastOfColumns([0, 4, 8], 10), [3, 7, 9]);
    assert.equal(linePath(peaks.map((index) => [index, values[index]!])).match(/[ML]/g)?.length, 800);
  });

  it('writes path data for lines and columns, leaving out empty columns', () => {
    assert.equal(linePath([]), '');
    assert.equal(linePath([[1, 2], [3.14159, 4]]), 'M1 2L3.1 4');
    assert.equal(columnsPath([[10, 20, 50], [20, 50, 50]], 4), 'M8 50V20h4V50Z');
  });

  it('maps the pointer to a request, clamped to the plot', () => {
    const plot: Plot = { left: 50, top: 0, width: 100, height: 100, count: 10, yMax: 1 };
    assert.equal(indexAt(plot, 50), 0);
    assert.equal(indexAt(plot, 149), 9);
    assert.equal(indexAt(plot, 0), 0);
    assert.equal(indexAt(plot, 500), 9);
  });

  it('moves the cursor with the arrows, Page Up/Down, Home and End, and between actions with [ and ]', () => {
    assert.equal(cursorMove('ArrowRight', 0, 300), 1);
    assert.equal(cursorMove('ArrowLeft', 0, 300), 0);
    assert.equal(cursorMove('PageUp', 5, 300), 35);
    assert.equal(cursorMove('PageDown', 5, 300), 0);
    assert.equal(cursorMove('Home', 120, 300), 0);
    assert.equal(cursorMove('End', 1, 300), 299);
    assert.equal(cursorMove('x', 1, 300), undefined);
    assert.equal(nextActionRequest([4, 9, 30], 4, true), 9);
    assert.equal(nextActionRequest([4, 9, 30], 30, true), undefined);
    assert.equal(nextActionRequest([4, 9, 30], 9, false), 4);
    assert.equal(nextActionRequest([4, 9, 30], 4, false), undefined);
  });
});

describe('what the insights panel says', () => {
  const entries: TranscriptEntry[] = [
    { type: 'message', ts: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: 'go' } },
    { type: 'usage', ts: '2026-01-01T00:00:01.000Z', model: 'm', usage: { inputTokens: 1_000, cacheWriteTokens: 9_000, cacheReadTokens: 0, outputTokens: 500 }, costUsd: 0.05, request: { canonicalCount: 1, liveCount: 1, liveChars: 1 } },
    { type: 'tier_edit', ts: '2026-01-01T00:00:02.000Z', tier: 'microcompact', edits: [{ toolUseId: 'a', action: 'clear' }], tokensBefore: 10_000, tokensAfter: 4_000 },
    { type: 'usage', ts: '2026-01-01T00:00:03.000Z', model: 'unpriced', usage: { inputTokens: 100, cacheWriteTokens: 0, cacheReadTokens: 4_000, outputTokens: 50 }, costUsd: 0, priceUnknown: true, request: { canonicalCount: 3, liveCount: 3, liveChars: 1 }, },
  ];
  const insights = wordInsights(buildSessionInsights(entries, { budget: { window: 20_000, maxOutputTokens: 2_000 }, priceOf: (model) => (model === 'm' ? { input: 3, output: 15, cacheRead: 1, cacheWrite: 3.75 } : undefined) }));

  it('reads out the request under the cursor and what happened just before it', () => {
    assert.equal(readout('context', insights, 0), 'Request 1 of 2: 50% of the window (10k of 20k tokens; summarizing at 17k).');
    assert.equal(readout('context', insights, 1, insights.actions), 'Request 2 of 2: 21% of the window (4.1k of 20k tokens; summarizing at 17k). Before it: Cleared 1 old tool result.');
    assert.equal(readout('tokens', insights, 0), 'Request 1 of 2: uncached 1.0k, cache write 9.0k, cache read 0, output 500.');
    assert.equal(readout('cost', insights, 1), 'Request 2 of 2: price unknown for this request, $0.05 so far.');
    assert.equal(readout('removed', insights, 1, insights.actions), 'Request 2 of 2: 6.0k tokens removed just before it. Before it: Cleared 1 old tool result.');
  });

  it('describes each chart in words, an unknown price included', () => {
    assert.match(chartSummary('context', insights), /^How full the context window was at each of 2 requests: at most 50%, last 21%\. Automatic summarizing starts at 83% \(the dashed line\)\. 1 marker shows where/);
    assert.match(chartSummary('tokens', insights), /read from the cache 4\.0k \(28% of all input\)/);
    assert.equal(chartSummary('cost', insights), 'What the session had cost after each request: $0.05 + price unknown in all.');
    assert.equal(chartSummary('removed', insights), 'What making room removed: 6.0k tokens in 1 action. Reading them again in every later request would have cost $0.00 or more (some models had no known price).');
    const empty = wordInsights(buildSessionInsights([], { budget: SYNTHETIC_BUDGET, priceOf: () => undefined }));
    assert.equal(chartSummary('context', empty), 'No requests yet: the chart fills in after the first reply.');
    assert.equal(chartSummary('removed', empty), 'Nothing was removed from the context in this session.');
  });

  it('keeps every request in the table behind a chart', () => {
    const long = wordInsights(buildSessionInsights(syntheticSession({ requests: 1_000 }), { budget: SYNTHETIC_BUDGET, priceOf: () => undefined }));
    const table = dataTable('tokens', long);
    assert.equal(table.rows, 1_000);
    assert.equal(table.columns.length, table.row(999).length);
    assert.equal(table.row(999)[0], '1000');
    const actions = dataTable('removed', long);
    assert.equal(actions.rows, long.actions.length);
    const kinds = removedByKind(long.actions);
    assert.deepEqual(kinds.map((kind) => kind.tokens), [...kinds.map((kind) => kind.tokens)].sort((a, b) => b - a), 'largest first');
    assert.equal(kinds.reduce((sum, kind) => sum + kind.tokens, 0), long.totals.removedTokens);
  });
});

/**
 * Session insights from a transcript (issue 33): which usage entries are the conversation's
 * requests, where each action sits, what it removed and what re-reading that would have cost, the
 * cumulative cost (equal to foldTranscript's totals), and the CSV of both tables.
 */
import assert from 'node:assert/strict';
import { foldTranscript } from '../../src/core/agent/fold';
import { contextBudget } from '../../src/core/context/gauge';
import { ACTION_CSV_HEADER, actionsCsv, REQUEST_CSV_HEADER, requestsCsv } from '../../src/core/insights/insightsCsv';
import { buildSessionInsights, type InsightsOptions } from '../../src/core/insights/sessionInsights';
import type { ModelPrice } from '../../src/core/model/models';
import type { CompactionRecord, TranscriptEntry } from '../../src/core/storage/transcript';
import { SYNTHETIC_BUDGET, SYNTHETIC_MODEL, syntheticSession } from '../support/insightsSession';
import { wordInsights } from '../../src/frontends/words/wordInsights';
import { said } from '../support/said';

const ts = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
/** cacheRead $1 per million tokens: a re-read of N tokens by R requests costs N × R / 1e6. */
const KNOWN: ModelPrice = { input: 3, output: 15, cacheRead: 1, cacheWrite: 3.75 };
const options: InsightsOptions = { budget: { window: 100_000, maxOutputTokens: 10_000 }, priceOf: (model) => (model === 'known' ? KNOWN : undefined) };

let second = 0;
const user = (text: string): TranscriptEntry => ({ type: 'message', ts: ts(second++), message: { role: 'user', content: text } });
const assistant = (text: string): TranscriptEntry => ({ type: 'message', ts: ts(second++), model: 'known', message: { role: 'assistant', content: text } });
function request(prompt: number, costUsd: number, extra: Partial<Extract<TranscriptEntry, { type: 'usage' }>> = {}): TranscriptEntry {
  const cacheRead = Math.floor(prompt / 2);
  return { type: 'usage', ts: ts(second++), model: 'known', usage: { inputTokens: prompt - cacheRead - 10, cacheWriteTokens: 10, cacheReadTokens: cacheRead, outputTokens: 50 }, costUsd, request: { canonicalCount: 1, liveCount: 1, liveChars: prompt * 4 }, ...extra };
}
function compaction(id: string, before: number, after: number, trigger: CompactionRecord['trigger'] = 'auto'): TranscriptEntry {
  return { type: 'compaction', ts: ts(second++), compaction: { id, trigger, summary: 's', keptFrom: 1, restoredFiles: [], stats: { tokensBefore: before, tokensAfter: after, messagesSummarized: 6, messagesKept: 2, summaryRequests: 1 } } };
}

describe('session insights', () => {
  it('takes the conversation’s requests from the usage entries, and puts subagents and summaries in the cost only', () => {
    const entries: TranscriptEntry[] = [
      user('go'),
      request(20_000, 0.1),
      assistant('a'),
      { type: 'usage', ts: ts(second++), model: 'known', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0.05, childId: 'child1' },
      // A summary request (no mark, and a compaction comes next, not a message).
      { type: 'usage', ts: ts(second++), model: 'known', usage: { inputTokens: 500, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0.02 },
      compaction('c1', 30_000, 8_000),
      request(9_000, 0.03),
      assistant('b'),
    ];
    const insights = buildSessionInsights(entries, options);
    const { requests, totals, actions } = insights;
    assert.equal(requests.count, 2);
    assert.deepEqual(requests.promptTokens, [20_000, 9_000]);
    assert.deepEqual(requests.cacheRead, [10_000, 4_500]);
    assert.deepEqual(requests.uncached, [9_990, 4_490]);
    assert.deepEqual(requests.costUsd, [0.1, 0.03]);
    // The second request's cumulative cost has the subagent's and the summary's in it.
    assert.deepEqual(requests.cumulativeCostUsd.map((usd) => Number(usd.toFixed(6))), [0.1, 0.2]);
    assert.equal(Number(totals.subagentCostUsd.toFixed(6)), 0.05);
    assert.equal(Number(totals.summaryCostUsd.toFixed(6)), 0.02);
    assert.equal(actions.length, 1);
    assert.equal(actions[0]!.kind, 'compaction');
    assert.equal(Number(actions[0]!.costUsd.toFixed(6)), 0.02, 'the summary request is the compaction’s cost');
    assert.equal(actions[0]!.atRequest, 1);
    // One definition of the session's cost: the fold's.
    assert.equal(totals.costUsd.toFixed(9), foldTranscript(entries).totals.costUsd.toFixed(9));
  });

  it('reads an old transcript’s unmarked usage as a request when a message answers it', () => {
    const { request: _mark, ...unmarked } = request(5_000, 0.01) as Extract<TranscriptEntry, { type: 'usage' }>;
    const insights = buildSessionInsights([user('go'), unmarked, assistant('a'), unmarked, compaction('c', 6_000, 1_000)], options);
    assert.equal(insights.requests.count, 1);
    assert.equal(Number(insights.totals.summaryCostUsd.toFixed(6)), 0.01);
  });

  it('gives each action its place, its words, what it removed and what re-reading that would have cost', () => {
    const entries: TranscriptEntry[] = [
      user('go'),
      request(40_000, 0.1), // 0
      { type: 'tier_edit', ts: ts(second++), tier: 'microcompact', edits: [{ toolUseId: 'a', action: 'clear' }, { toolUseId: 'b', action: 'clear' }], tokensBefore: 40_000, tokensAfter: 30_000 },
      request(31_000, 0.1), // 1: reads the 10k again... would have
      { type: 'persisted_output', ts: ts(second++), toolUseId: 'p', toolName: 'run_shell', file: '/s/tool-results/p.txt', bytes: 80_000, lines: 900, tokensBefore: 20_000, tokensAfter: 1_000 },
      request(33_000, 0.1, { model: 'unpriced' }), // 2
      request(35_000, 0.1), // 3
      compaction('c1', 35_000, 5_000),
      request(6_000, 0.1), // 4
      request(7_000, 0.1), // 5
    ];
    const { actions, totals } = buildSessionInsights(entries, options);
    assert.deepEqual(
      actions.map((action) => [action.kind, action.atRequest, action.removedTokens, action.rereadRequests]),
      [
        ['clear', 1, 10_000, 3], // requests 1-3; the compaction at 4 would have removed them anyway
        ['saved', 2, 19_000, 2], // requests 2-3
        ['compaction', 4, 30_000, 2], // requests 4-5, to the session's end
      ],
    );
    const [clear, saved, summary] = actions;
    assert.equal(said(clear!.label), 'Cleared 2 old tool results');
    assert.match(said(clear!.detail), /40,000 → 30,000 tokens/);
    // Request 2's model has no price: its re-read counts nothing and the sum says it is partial.
    const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);
    near(clear!.rereadCostUsd, (10_000 * 2) / 1e6);
    assert.equal(clear!.rereadPartial, true);
    near(saved!.rereadCostUsd, (19_000 * 1) / 1e6);
    near(summary!.rereadCostUsd, (30_000 * 2) / 1e6);
    assert.equal(summary!.rereadPartial, false);
    assert.match(said(summary!.detail), /Summarized 6 older messages \(automatically, at the threshold\)/);
    assert.equal(totals.removedTokens, 59_000);
    near(totals.rereadCostUsd, (10_000 * 2 + 19_000 + 30_000 * 2) / 1e6);
    assert.equal(totals.rereadPartial, true);
    assert.equal(totals.compactions, 1);
  });

  it('ends a summary’s savings at its undo, and marks undos, failures, learned windows and restores', () => {
    const entries: TranscriptEntry[] = [
      user('go'),
      request(50_000, 0.1), // 0
      compaction('c1', 50_000, 10_000, 'manual'),
      request(11_000, 0.1), // 1
      { type: 'compaction_undo', ts: ts(second++), compactionId: 'c1', tokensBefore: 11_000, tokensAfter: 51_000 },
      request(52_000, 0.1), // 2
      { type: 'compaction_failed', ts: ts(second++), trigger: 'auto', reason: 'the summary came back empty', counts: true },
      { type: 'window_learned', ts: ts(second++), window: 60_000, assumed: 100_000 },
      request(53_000, 0.1), // 3
      { type: 'rewind', ts: ts(second++), checkpoint: 2, toEntry: 5, files: 'kept' },
      request(12_000, 0.1), // 4
    ];
    const { actions, requests } = buildSessionInsights(entries, options);
    assert.deepEqual(actions.map((action) => action.kind), ['compaction', 'undo', 'failed', 'window', 'restore']);
    assert.equal(actions[0]!.rereadRequests, 1, 'only request 1 ran without the summarized messages');
    assert.match(said(actions[0]!.detail), /you asked for it/);
    assert.match(said(actions[2]!.detail), /the summary came back empty/);
    assert.equal(said(actions[3]!.label), 'Learned a window of 60,000 tokens');
    // The learned window and its threshold apply from the next request on.
    assert.deepEqual(requests.window, [100_000, 100_000, 100_000, 60_000, 60_000]);
    assert.deepEqual(requests.threshold, [...[100_000, 100_000, 100_000, 60_000, 60_000].map((window) => contextBudget(window, 10_000).threshold)]);
    // The rewind discarded the entries from index 5 (the undo) on: requests 2 and 3 were sent but are no longer the conversation.
    assert.deepEqual(requests.rewound, [false, false, true, true, false]);
    assert.equal(said(actions[4]!.label), 'Restored checkpoint 2');
  });

  it('builds a long generated session whose totals agree with the fold', () => {
    const entries = syntheticSession({ requests: 300 });
    const insights = buildSessionInsights(entries, { budget: SYNTHETIC_BUDGET, priceOf: () => KNOWN });
    const fold = foldTranscript(entries);
    assert.equal(insights.requests.count, 300);
    assert.equal(insights.totals.costUsd.toFixed(9), fold.totals.costUsd.toFixed(9));
    assert.equal(insights.totals.compactions, fold.compactions);
    assert.ok(insights.totals.compactions >= 2, `only ${insights.totals.compactions} compactions: the generator no longer reaches the threshold`);
    assert.ok(insights.actions.some((action) => action.kind === 'clear') && insights.actions.some((action) => action.kind === 'saved'));
    assert.ok(insights.totals.peakUtilization > 0.7 && insights.totals.peakUtilization < 1, String(insights.totals.peakUtilization));
    assert.ok(insights.requests.model.every((model) => model === SYNTHETIC_MODEL));
    // Cumulative cost never falls.
    for (let index = 1; index < insights.requests.count; index++) assert.ok(insights.requests.cumulativeCostUsd[index]! >= insights.requests.cumulativeCostUsd[index - 1]!);
  });

  describe('as CSV', () => {
    it('writes one row per request and per action, quoted where a field needs it and never a formula', () => {
      const entries: TranscriptEntry[] = [
        user('go'),
        request(40_000, 0.1),
        compaction('c1', 40_000, 5_000, 'manual'),
        request(6_000, 0.2),
      ];
      (entries[2] as Extract<TranscriptEntry, { type: 'compaction' }>).compaction.focus = '=HYPERLINK("http://x", "y"), then "the tests"';
      const insights = wordInsights(buildSessionInsights(entries, options));
      const requests = requestsCsv(insights).split('\r\n');
      assert.equal(requests[0], REQUEST_CSV_HEADER.join(','));
      assert.equal(requests.length, 1 + 2 + 1, 'header, two rows, and the final line end');
      assert.equal(requests.at(-1), '');
      const first = requests[1]!.split(',');
      assert.equal(first[0], '1');
      assert.equal(first[3], '40000');
      assert.equal(first[5], '40', 'percent of the window');
      assert.match(requests[2]!, /,Summarized 6 older messages$/, 'the action before request 2');
      const actions = actionsCsv(insights).split('\r\n');
      assert.equal(actions[0], ACTION_CSV_HEADER.join(','));
      assert.equal(actions.length, 3);
      // The focus is inside a quoted field, its quotes doubled; the field cannot start a formula.
      assert.ok(actions[1]!.includes('Focus: =HYPERLINK(""http://x"", ""y""), then ""the tests"""'), actions[1]);
      assert.ok(!/(^|,)"?=/.test(actions[1]!), actions[1]);
    });

    it('guards a text field that starts like a formula', () => {
      const entries: TranscriptEntry[] = [user('go'), request(1_000, 0, { model: '=cmd|calc' }), assistant('a')];
      const row = requestsCsv(wordInsights(buildSessionInsights(entries, options))).split('\r\n')[1]!;
      assert.equal(row.split(',')[2], "'=cmd|calc");
    });
  });
});

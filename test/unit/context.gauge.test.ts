/**
 * The token gauge people read (issue 8 item 1): one whole-window percent, bar shares that add up to
 * the window, an honest over-limit state, the warning band below the auto-compact threshold, the
 * live estimate while a reply streams, and the tier preview of the breakdown document.
 */
import assert from 'node:assert/strict';
import { ContextEngine } from '../../src/core/context/engine';
import { renderContextBreakdown } from '../../src/frontends/contextBreakdown';
import { BREAKDOWN_CATEGORIES, breakdownPartText, contextGauge, gaugeLevel, usedPercent, type GaugeNumbers } from '../../src/core/context/gauge';
import { bulk, Rig, type RigOptions } from './context.harness';
import { word } from '../../src/frontends/words';
import { said } from '../support/said';
import { saidTooltip, saidLabel, saidSecondary } from '../support/gaugeSaid';

const base: Omit<GaugeNumbers, 'usedTokens'> = { window: 200_000, outputReserve: 16_000, autoCompactThreshold: 171_000, cacheReadShare: 0.8, sessionCostUsd: 0.4234 };

describe('context gauge: the numbers people read', () => {
  it('is a percent of the whole window, and the label adds up to the window the user set', () => {
    const gauge = contextGauge({ ...base, usedTokens: 124_000 });
    assert.equal(usedPercent(gauge), 62);
    assert.equal(gauge.reading.percent, 62);
    assert.equal(saidLabel(gauge.reading), '62% · 124k / 200k');
    assert.equal(saidSecondary(gauge.reading), 'cache 80% · $0.42');
  });

  it('the reported case: 38k used of a 30k window reads over the limit, not "158% · 38k / 24k"', () => {
    const gauge = contextGauge({ window: 30_000, outputReserve: 6_000, usedTokens: 38_000, autoCompactThreshold: 21_900, cacheReadShare: 0, sessionCostUsd: 0 });
    assert.equal(gauge.reading.level, 'over');
    assert.equal(saidLabel(gauge.reading), '>100% · 38k / 30k');
    assert.equal(gauge.reading.usedShare, 1, 'the bar is clamped to the window');
    assert.equal(gauge.reading.reserveShare + gauge.reading.freeShare, 0);
    assert.match(saidTooltip(gauge.reading), /Over the window/);
  });

  it('used + reserve + free = window for every value, also when the conversation eats into the reserve', () => {
    for (const usedTokens of [0, 1, 50_000, 171_000, 184_000, 190_000, 199_999, 200_000, 250_000]) {
      const { reading } = contextGauge({ ...base, usedTokens });
      const sum = reading.usedShare + reading.reserveShare + reading.freeShare;
      assert.ok(Math.abs(sum - 1) < 1e-12, `${usedTokens}: shares add up to ${sum}`);
      for (const share of [reading.usedShare, reading.reserveShare, reading.freeShare]) assert.ok(share >= 0 && share <= 1, `${usedTokens}: share ${share}`);
      assert.ok(reading.percent <= 100 || usedTokens > base.window, `${usedTokens}: ${reading.percent}% only above the window`);
    }
    const eating = contextGauge({ ...base, usedTokens: 190_000 }).reading;
    assert.equal(eating.reserveShare, 10_000 / 200_000, 'only what is left of the window is still reserved');
    assert.equal(eating.freeShare, 0);
    assert.equal(contextGauge({ ...base, usedTokens: 124_000 }).reading.thresholdShare, 171_000 / 200_000);
  });

  it('changes colour within 10% of the window below the threshold, past it, and over the window', () => {
    const levels = [150_999, 151_000, 171_000, 171_001, 200_000, 200_001].map((usedTokens) => gaugeLevel({ ...base, usedTokens }));
    assert.deepEqual(levels, ['ok', 'near', 'near', 'past', 'past', 'over']);
    assert.equal(contextGauge({ ...base, usedTokens: 171_001 }).reading.level, 'past');
  });

  it('the hover lists every breakdown category and the cost; a stale reading is never carried over', () => {
    const breakdown = { system: 2_000, instructions: 0, skills: 800, memory: 200, tools: 3_000, mcpTools: 1_500, messages: 10_000, toolResults: 20_000, summaries: 1_000, persistedPreviews: 500, subagents: 0, thinking: 1_000, total: 40_000 };
    const gauge = contextGauge({ ...base, usedTokens: 40_000, breakdown });
    for (const { key } of BREAKDOWN_CATEGORIES) assert.match(saidTooltip(gauge.reading), new RegExp(`^${said(breakdownPartText(key))}: `, 'm'));
    assert.match(saidTooltip(gauge.reading), /Tool results: 20k \(10%\)/);
    assert.match(saidTooltip(gauge.reading), /session cost \$0\.42/);
    const moved = contextGauge({ ...gauge, usedTokens: 180_000 });
    assert.equal(moved.reading.level, 'past', 'the reading is recomputed from the new numbers');
    assert.equal(moved.reading.percent, 90);
  });
});

describe('context gauge from the engine', () => {
  it('every context event carries the reading of its own numbers', async () => {
    const rig = new Rig({ window: 40_000 });
    rig.user(bulk(20_000));
    const prepared = await rig.prepare();
    rig.respond(prepared, 6_000, 500);
    const events = rig.eventsOf('context');
    assert.ok(events.length >= 2);
    for (const event of events) {
      assert.equal(event.type, 'context');
      assert.equal(event.gauge.reading.percent, Math.round((event.gauge.usedTokens / 40_000) * 100));
    }
    assert.equal(events.at(-1)!.gauge.usedTokens, 6_500);
    assert.equal(saidLabel(events.at(-1)!.gauge.reading), '16% · 6.5k / 40k');
  });

  it('estimateWithPending adds the streamed characters at the calibrated ratio, as messages', async () => {
    const rig = new Rig({ window: 100_000 });
    rig.user(bulk(40_000));
    const prepared = await rig.prepare();
    rig.respond(prepared, 8_000, 0);
    rig.assistant('ok');
    rig.user('next');
    const next = await rig.prepare();
    const before = rig.eventsOf('context').at(-1)!.gauge;
    assert.equal(before.usedTokens, next.estimatedTokens);
    const ratio = 8_000 / prepared.mark.liveChars;
    const during = rig.engine.estimateWithPending(4_000);
    assert.equal(during.usedTokens, before.usedTokens + Math.round(4_000 * ratio));
    assert.equal(during.estimated, true);
    assert.ok(during.breakdown && before.breakdown);
    assert.equal(during.breakdown.messages - before.breakdown.messages, Math.round(4_000 * ratio));
    assert.equal(during.reading.percent, Math.round((during.usedTokens / 100_000) * 100));
  });
});

describe('tier savings: what each tier would free now', () => {
  /** 8 old tool results plus 3 recent ones: a superseded read, 5 searches, a 40k-char shell output. */
  function scripted(extraShellOutputs = 0, settings: RigOptions['settings'] = {}): Rig {
    // Tier 3's early clearing from 30%, so the gates below are met or not by the numbers these tests steer.
    const rig = new Rig({ window: 100_000, settings: { clearUtilization: 0.3, ...settings } });
    rig.user('Refactor the parser.');
    rig.round([{ name: 'read_file', input: { path: 'src/a.ts' }, result: bulk(12_000, 'a') }]);
    for (let i = 0; i < 5; i++) rig.round([{ name: 'grep_search', input: { pattern: `p${i}` }, result: bulk(2_000, `g${i}`) }]);
    rig.round([{ name: 'run_shell', input: { command: 'npm test' }, result: bulk(40_000, 's') }]);
    for (let i = 0; i < extraShellOutputs; i++) rig.round([{ name: 'run_shell', input: { command: `npm run step${i}` }, result: bulk(28_000, `x${i}`) }]);
    rig.round([{ name: 'read_file', input: { path: 'src/a.ts' }, result: bulk(12_000, 'b') }]);
    for (let i = 0; i < 3; i++) rig.round([{ name: 'list_files', input: { path: `d${i}` }, result: bulk(500, `l${i}`) }]);
    rig.assistant('Done reading.');
    return rig;
  }

  it('lists tiers 1-3 with the results each would touch, its tokens, and whether its condition is met', async () => {
    const rig = scripted();
    const prepared = await rig.prepare();
    const ratio = 0.25;
    rig.respond(prepared, Math.round(prepared.mark.liveChars * ratio), 10);
    const savings = rig.engine.tierSavings();
    assert.deepEqual(savings.tiers.map((tier) => [tier.level, tier.tier]), [[1, 'budget'], [2, 'snip'], [3, 'microcompact']]);
    const [trim, snip, clear] = savings.tiers as [typeof savings.tiers[0], typeof savings.tiers[0], typeof savings.tiers[0]];
    // ~20k tokens of 84k usable: under 30%, no gate is met yet.
    assert.ok(savings.usedTokens > 15_000 && savings.usedTokens < 0.3 * 84_000, `used ${savings.usedTokens}`);
    assert.deepEqual([trim.due, snip.due, clear.due], [false, false, false]);
    assert.equal(trim.items, 1, 'only the 40k shell output is over 30k characters');
    assert.ok(Math.abs(trim.tokens - 10_000 * ratio) < 100, `trim frees ~2.5k tokens, got ${trim.tokens}`);
    assert.equal(snip.items, 3, 'the superseded read and the 2 oldest of 5 searches');
    assert.ok(Math.abs(snip.tokens - (12_000 + 2 * 2_000) * ratio) < 100, `snip ${snip.tokens}`);
    assert.equal(clear.items, 8, 'all but the 3 newest of 11 results');
    assert.ok(Math.abs(clear.tokens - (12_000 + 5 * 2_000 + 40_000 + 12_000) * ratio) < 300, `clear ${clear.tokens}`);
    assert.ok(clear.tokens > snip.tokens && clear.tokens > trim.tokens);
  });

  it('predicts what tier 3 really frees when it runs', async () => {
    const rig = scripted();
    const prepared = await rig.prepare();
    rig.respond(prepared, Math.round(prepared.mark.liveChars * 0.25), 10);
    assert.equal(rig.eventsOf('tier').length, 0, 'nothing was due yet');
    rig.advance(6 * 60_000);
    const savings = rig.engine.tierSavings();
    const clear = savings.tiers.find((tier) => tier.tier === 'microcompact')!;
    assert.equal(clear.due, true, 'the cache is cold: tier 3 is due');
    assert.equal(clear.items, 8);

    rig.user('Go on.');
    await rig.prepare();
    const applied = rig.eventsOf('tier').filter((event) => event.tier === 'microcompact');
    assert.equal(applied.length, 1);
    assert.equal(applied[0]!.items, clear.items);
    const freed = applied[0]!.tokensBefore - applied[0]!.tokensAfter;
    assert.ok(Math.abs(freed - clear.tokens) <= Math.max(50, clear.tokens * 0.02), `preview ${clear.tokens} vs applied ${freed}`);
  });

  it('a summary lands inside the range the preview gave', async () => {
    // Tiers 1-3 off, so the big context stays big until the summary.
    const rig = scripted(4, { budgetSoftUtilization: 1, budgetHardUtilization: 1, snipUtilization: 1, clearUtilization: 1 });
    const prepared = await rig.prepare();
    rig.respond(prepared, Math.round(prepared.mark.liveChars * 0.25), 10);
    const savings = rig.engine.tierSavings();
    const summary = savings.summary;
    assert.ok(summary.possible);
    assert.ok(summary.tokensAfter.max < savings.usedTokens, `${summary.tokensAfter.max} < ${savings.usedTokens}`);
    assert.equal(summary.tokensAfter.max - summary.tokensAfter.min, summary.summaryMaxTokens);
    assert.equal(summary.frees.max, savings.usedTokens - summary.tokensAfter.min);
    assert.equal(summary.frees.min, savings.usedTokens - summary.tokensAfter.max);
    const outcome = await rig.engine.compact(undefined, 'auto', new AbortController().signal);
    assert.equal(outcome.ok, true);
    assert.ok(outcome.record);
    const after = outcome.record.stats.tokensAfter;
    assert.ok(after >= summary.keptTokens && after <= summary.tokensAfter.max, `after ${after} in [${summary.keptTokens}, ${summary.tokensAfter.max}]`);
    assert.equal(outcome.record.stats.messagesKept, summary.messagesKept);
  });

  it('says why a summary is not possible yet', () => {
    const rig = new Rig({ window: 100_000 });
    rig.user('Hello');
    const savings = rig.engine.tierSavings();
    assert.equal(savings.summary.possible, false);
    assert.ok(!savings.summary.possible);
    assert.equal(savings.summary.reason.kind, 'context.summaryNothingYet');
    assert.equal(said(savings.summary.reason), 'nothing to summarize yet');
    assert.ok(savings.tiers.every((tier) => tier.items === 0 && tier.tokens === 0));
  });

  it('the breakdown document has the categories, the window numbers and a line per tier', async () => {
    const rig = scripted();
    const prepared = await rig.prepare();
    rig.respond(prepared, Math.round(prepared.mark.liveChars * 0.25), 10, 1_000);
    const text = renderContextBreakdown({ gauge: rig.engine.gauge(), savings: rig.engine.tierSavings(), sessionId: 's1', model: 'claude-test', at: new Date(0), word, voice: 'extension' });
    // No thinking in this session: its line is shown only while it holds tokens (test/unit/gauge.thinking.test.ts).
    for (const category of BREAKDOWN_CATEGORIES.filter((candidate) => !('whenPresent' in candidate))) assert.match(text, new RegExp(`^\\| ${said(breakdownPartText(category.key))} \\| ~[\\d,]+ \\| [\\d.]+% \\|$`, 'm'));
    assert.match(text, /^\| \*\*Window\*\* \| \*\*100,000\*\* \| 100% \|$/m);
    assert.match(text, /Auto-compact threshold: /);
    assert.match(text, /Cache reads: \d+%/);
    assert.match(text, /Session cost so far: \$/);
    for (const line of [/^\| Trim old tool results \| /m, /^\| Snip superseded reads and old searches \| /m, /^\| Clear old tool results \| ~[\d,]+ tokens \(8 results\)/m, /^\| Summarize the conversation: \d+ message\(s\) summarized/m]) {
      assert.match(text, line);
    }
  });

  it("the breakdown speaks the user's words, the engine's names only under How it works, one link away", async () => {
    const rig = scripted();
    const prepared = await rig.prepare();
    rig.respond(prepared, Math.round(prepared.mark.liveChars * 0.25), 10, 1_000);
    const text = renderContextBreakdown({ gauge: rig.engine.gauge(), savings: rig.engine.tierSavings(), sessionId: 's1', model: 'claude-test', at: new Date(0), word, voice: 'extension' });
    const [body, mechanism] = text.split(/^## How it works$/m);
    assert.ok(mechanism, 'a How it works section');
    assert.match(body!, /\[How each step works\]\(#how-it-works\)/);
    for (const jargon of [/\btier\b/i, /pays for itself/, /persisted/i, /microcompact|\bsnip\b|\bbudget\b/]) assert.doesNotMatch(body!, jargon);
    assert.match(body!, /^\| Previews of large outputs \| /m);
    for (const name of [/tier 1 \(`budget`\)/, /tier 2 \(`snip`\)/, /tier 3 \(`microcompact`\)/, /tier 4/, /tier 0/]) assert.match(mechanism, name);
  });
});

// Against each back end (the test matrix of issue 9): the live estimate and the counted reading after it.

describe('context gauge: after a manual compaction', () => {
  it('the divider and the gauge show the same counted number (review: they disagreed after the re-anchor)', async () => {
    const r = new Rig({ window: 200_000, settings: { clearUtilization: 1 } });
    const counted: number[] = [];
    const options = r.engineOptions();
    const countingModel = {
      ...options.model,
      // A count that differs from the 4-chars-per-token estimate, as the API's does.
      countTokens: async (request: { messages: readonly unknown[] }) => {
        const tokens = 3_000 + request.messages.length * 7;
        counted.push(tokens);
        return tokens;
      },
    };
    r.engine = new ContextEngine({ ...options, model: countingModel });
    r.user('Find the bug.');
    r.round([{ name: 'grep_search', input: { pattern: 'bug' }, result: bulk(40_000, 'match') }], 'Searching.');
    r.assistant('Found it.');
    r.user('Fix it.');
    const prepared = await r.prepare();
    r.respond(prepared);
    r.events.length = 0;
    const outcome = await r.engine.compact(undefined, 'manual', new AbortController().signal);
    assert.equal(outcome.ok, true, said(outcome.message));
    const compaction = r.eventsOf('compaction')[0];
    assert.ok(compaction, 'a compaction event');
    assert.equal(compaction.tokensAfter, counted.at(-1), 'the divider shows the API count');
    const lastGauge = r.eventsOf('context').at(-1);
    assert.ok(lastGauge, 'a context event after the compaction');
    assert.equal(lastGauge.gauge.usedTokens, compaction.tokensAfter, 'the gauge agrees with the divider');
    assert.equal(r.events.at(-1)?.type, 'context', 'the counted gauge is the last word');
  });
});

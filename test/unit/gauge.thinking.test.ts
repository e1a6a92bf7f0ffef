/**
 * Thinking in the gauge and the breakdown (issue 21): a running turn's thinking blocks are counted
 * as their own line ("Thinking"), which shows only while it holds tokens; while a reply streams
 * the gauge grows with the thinking too, on that line.
 */
import assert from 'node:assert/strict';
import { streamingGauge, STREAMING_GAUGE_INTERVAL_MS } from '../../src/core/agent/streamingGauge';
import { contextBreakdownChars } from '../../src/core/context/breakdown';
import { renderContextBreakdown } from '../../src/frontends/contextBreakdown';
import { breakdownLines, contextGauge, withStreamedTokens, type ContextGauge } from '../../src/core/context/gauge';
import type { MessageParam } from '../../src/core/model/messages';
import { bulk, Rig } from './context.harness';
import { word } from '../../src/frontends/words';
import { saidTooltip } from '../support/gaugeSaid';

const THINKING = 'The flaky test waits on a real clock; a fake clock would make it deterministic. '.repeat(20);

/** A turn in progress: the user asked, the model thought and called a tool, the result is back. */
const runningTurn: MessageParam[] = [
  { role: 'user', content: [{ type: 'text', text: 'Why is the test flaky?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: THINKING, signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'test/clock.test.ts' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'it("ticks", () => {});' }] },
];

const costs = { sessionCostUsd: 0.5, subagentCostUsd: undefined, unpricedRequests: 0 };

function baseGauge(): ContextGauge {
  const breakdown = { system: 1_000, instructions: 0, skills: 0, memory: 0, tools: 2_000, mcpTools: 0, messages: 3_000, toolResults: 4_000, summaries: 0, persistedPreviews: 0, subagents: 0, thinking: 0, total: 10_000 };
  return contextGauge({ window: 200_000, outputReserve: 32_000, usedTokens: 10_000, autoCompactThreshold: 155_000, cacheReadShare: 0, sessionCostUsd: 0.5, breakdown });
}

describe('thinking in the gauge and the breakdown', () => {
  it('counts thinking blocks, redacted ones too, as thinking and not as messages', () => {
    const chars = contextBreakdownChars('system', [], runningTurn);
    assert.ok(chars.thinking >= THINKING.length, `thinking ${chars.thinking}`);
    const withoutThinking = contextBreakdownChars('system', [], [runningTurn[0]!, { role: 'assistant', content: [runningTurn[1]!.content[2] as never] }, runningTurn[2]!]);
    assert.equal(withoutThinking.thinking, 0);
    assert.equal(chars.messages, withoutThinking.messages, 'the thinking is not counted as messages');
    assert.equal(chars.total - withoutThinking.total, chars.thinking, 'and it is in the total');
  });

  it("the engine's gauge gives a running turn's thinking its own line, in the hover and the breakdown document", async () => {
    const rig = new Rig({ window: 100_000 });
    rig.user(bulk(8_000));
    rig.respond(await rig.prepare(), 2_000, 100);
    for (const message of runningTurn.slice(1)) rig.push(message);
    const gauge = rig.engine.gauge();
    assert.ok(gauge.breakdown, 'the engine gives a breakdown');
    assert.ok(gauge.breakdown.thinking > 0, `thinking tokens ${gauge.breakdown.thinking}`);
    assert.match(saidTooltip(gauge.reading), /^Thinking: \d[\d.k]* \(\d+%\)$/m);
    const text = renderContextBreakdown({ gauge, savings: undefined, at: new Date(0), word, voice: 'extension' });
    assert.match(text, /^\| Thinking \| ~[\d,]+ \| [\d.]+% \|$/m);
  });

  it('has no Thinking line when no thinking is in the context (a completed turn, or thinking off)', () => {
    const gauge = baseGauge();
    assert.ok(!breakdownLines(gauge.breakdown!).some((category) => category.key === 'thinking'));
    assert.doesNotMatch(saidTooltip(gauge.reading), /Thinking/);
    assert.doesNotMatch(renderContextBreakdown({ gauge, savings: undefined, at: new Date(0), word, voice: 'extension' }), /Thinking/);
    assert.match(saidTooltip(gauge.reading), /^Messages: /m, 'the other lines stay');
  });

  it('adds streamed thinking to the used tokens and to its own line; streamed text to the messages', () => {
    const base = baseGauge();
    const during = withStreamedTokens(base, 1_500, costs, 1_200);
    assert.equal(during.usedTokens, 11_500);
    assert.equal(during.breakdown!.thinking, 1_200);
    assert.equal(during.breakdown!.messages, 3_300);
    assert.equal(during.breakdown!.total, 11_500);
    assert.equal(during.estimated, true);
    assert.match(saidTooltip(during.reading), /^Thinking: 1\.2k \(1%\)$/m);
    // A thinking count beyond what streamed cannot make the messages shrink.
    assert.equal(withStreamedTokens(base, 100, costs, 500).breakdown!.messages, 3_000);
  });

  it('the streaming gauge grows while thinking streams and tells the estimate which part is thinking', () => {
    let now = 0;
    const calls: Array<[number, number]> = [];
    const published: ContextGauge[] = [];
    const base = baseGauge();
    const streamed = streamingGauge({
      now: () => now,
      estimate: (chars, thinkingChars) => {
        calls.push([chars, thinkingChars]);
        return withStreamedTokens(base, Math.round(chars / 4), costs, Math.round(thinkingChars / 4));
      },
      publish: (gauge) => published.push(gauge),
    });
    now += STREAMING_GAUGE_INTERVAL_MS;
    streamed.add(4_000, 'thinking');
    now += STREAMING_GAUGE_INTERVAL_MS;
    streamed.add(4_000, 'thinking');
    now += STREAMING_GAUGE_INTERVAL_MS;
    streamed.add(400);
    assert.deepEqual(calls, [[4_000, 4_000], [8_000, 8_000], [8_400, 8_000]]);
    assert.deepEqual(published.map((gauge) => gauge.usedTokens), [11_000, 12_000, 12_100], 'it grows with every thinking delta');
    assert.deepEqual(published.map((gauge) => gauge.breakdown!.thinking), [1_000, 2_000, 2_000]);
    // A retry starts the reply over: nothing it streamed is counted any more.
    streamed.reset();
    now += STREAMING_GAUGE_INTERVAL_MS;
    streamed.add(40, 'thinking');
    assert.deepEqual(calls.at(-1), [40, 40]);
  });
});

/**
 * The gauge's reading as kinds with data (issue 27 item 6): each front end words the label, the
 * secondary line and the hover, and the English reads word for word as it did when the core wrote
 * it (the expected texts below are what the core's English said). Numbers stay numbers: the
 * extension formats them in the user's locale.
 */
import assert from 'node:assert/strict';
import { contextGauge, type GaugeNumbers } from '../../src/core/context/gauge';
import type { ContextBreakdown } from '../../src/core/context/breakdown';
import { configureWords } from '../../src/frontends/words';
import { wordGauge } from '../../src/frontends/words/wordGauge';
import { saidLabel, saidSecondary, saidTooltip } from '../support/gaugeSaid';

const breakdown: ContextBreakdown = { system: 3000, instructions: 1200, skills: 0, memory: 400, tools: 9000, mcpTools: 2500, messages: 60000, thinking: 0, toolResults: 20000, summaries: 1500, persistedPreviews: 700, subagents: 800, total: 99100 };
const cases: GaugeNumbers[] = [
  { window: 200_000, outputReserve: 16_000, usedTokens: 124_000, autoCompactThreshold: 171_000, cacheReadShare: 0.8, sessionCostUsd: 0.4234, breakdown },
  { window: 200_000, outputReserve: 16_000, usedTokens: 160_000, autoCompactThreshold: 171_000, cacheReadShare: 0.5, sessionCostUsd: 1.5, subagentCostUsd: 0.12, webSearches: 1, unpricedRequests: 1, estimated: true },
  { window: 200_000, outputReserve: 16_000, usedTokens: 180_000, autoCompactThreshold: 171_000, cacheReadShare: 0, sessionCostUsd: 0, unpricedRequests: 1200, webSearches: 3 },
  { window: 30_000, outputReserve: 6_000, usedTokens: 38_000, autoCompactThreshold: 21_900, cacheReadShare: 0, sessionCostUsd: 0.004, breakdown: { ...breakdown, thinking: 1200, skills: 300 } },
];

// What the core's English said for each case: every level, an estimate, subagents' share, web searches, unknown prices (one and many).
const expected = [
  {
    label: '62% · 124k / 200k',
    secondary: 'cache 80% · $0.42',
    tooltip: [
      'Context: 124,000 of 200,000 tokens (62%)',
      'Reserved for the reply: 16,000 · free: 60,000',
      'Auto-compact at 171,000 (86%)',
      '',
      'System prompt: 3.0k (2%)',
      'Instructions: 1.2k (1%)',
      'Memory: 400 (0%)',
      'Tool definitions: 9.0k (5%)',
      'MCP tools: 2.5k (1%)',
      'Messages: 60k (30%)',
      'Tool results: 20k (10%)',
      'Summaries and task list: 1.5k (1%)',
      'Previews of large outputs: 700 (0%)',
      'Subagent reports: 800 (0%)',
      '',
      'Cache reads: 80% of the last prompt · session cost $0.42',
    ].join('\n'),
  },
  {
    label: '80% · 160k / 200k',
    secondary: 'cache 50% · $1.50 + price unknown',
    tooltip: [
      'Context: ~160,000 of 200,000 tokens (80%)',
      'Reserved for the reply: 16,000 · free: 24,000',
      'Auto-compact at 171,000 (86%)',
      'Near the auto-compact threshold.',
      '',
      'Cache reads: 50% of the last prompt · session cost $1.50 + price unknown (subagents $0.12) (1 web search)',
      '1 request to a model with no known price: set its price (USD per million tokens) in "evergreen.pricing" to see what it costs.',
    ].join('\n'),
  },
  {
    label: '90% · 180k / 200k',
    secondary: 'cache 0% · price unknown',
    tooltip: [
      'Context: 180,000 of 200,000 tokens (90%)',
      'Reserved for the reply: 16,000 · free: 4,000',
      'Auto-compact at 171,000 (86%)',
      'Past the auto-compact threshold: the conversation is summarized before the next request.',
      '',
      'Cache reads: 0% of the last prompt · session cost price unknown (3 web searches)',
      '1,200 requests to a model with no known price: set its price (USD per million tokens) in "evergreen.pricing" to see what it costs.',
    ].join('\n'),
  },
  {
    label: '>100% · 38k / 30k',
    secondary: 'cache 0% · $0.0040',
    tooltip: [
      'Context: 38,000 of 30,000 tokens (>100%)',
      'Reserved for the reply: 6,000 · free: 0',
      'Auto-compact at 21,900 (73%)',
      'Over the window: the next request fails unless compaction frees room.',
      '',
      'System prompt: 3.0k (10%)',
      'Instructions: 1.2k (4%)',
      'Skills: 300 (1%)',
      'Memory: 400 (1%)',
      'Tool definitions: 9.0k (30%)',
      'MCP tools: 2.5k (8%)',
      'Messages: 60k (200%)',
      'Thinking: 1.2k (4%)',
      'Tool results: 20k (67%)',
      'Summaries and task list: 1.5k (5%)',
      'Previews of large outputs: 700 (2%)',
      'Subagent reports: 800 (3%)',
      '',
      'Cache reads: 0% of the last prompt · session cost $0.0040',
    ].join('\n'),
  },
];

describe('gauge words: the reading as kinds, worded by each front end', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('reads word for word as before in the CLI', () => {
    cases.forEach((numbers, index) => {
      const { reading } = contextGauge(numbers);
      assert.deepEqual({ label: saidLabel(reading), secondary: saidSecondary(reading), tooltip: saidTooltip(reading) }, expected[index], `case ${index}`);
    });
  });

  it('reads the same in the extension (no sentence here names a command or flag), worded once for the panel', () => {
    configureWords({ locale: 'en', voice: 'extension' });
    cases.forEach((numbers, index) => {
      const worded = wordGauge(contextGauge(numbers));
      assert.equal(typeof worded.reading.label, 'string');
      assert.deepEqual({ label: worded.reading.label, secondary: worded.reading.secondary, tooltip: saidTooltip(worded.reading) }, expected[index], `case ${index}`);
      assert.equal(worded.usedTokens, numbers.usedTokens, 'the numbers stay numbers');
    });
  });

  it('formats the counts in the user\'s locale', () => {
    configureWords({ locale: 'de', voice: 'extension' });
    const tooltip = saidTooltip(contextGauge(cases[0]!).reading);
    assert.match(tooltip, /^Context: 124\.000 of 200\.000 tokens \(62%\)$/m);
    assert.match(tooltip, /^Reserved for the reply: 16\.000 · free: 60\.000$/m);
  });
});

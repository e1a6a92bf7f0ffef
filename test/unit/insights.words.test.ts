/**
 * The insights' actions as kinds with data (issue 27 item 6): the host words each label and detail
 * before the insights panel and the CSVs get them, and the English reads word for word as it did
 * when the core wrote it (the expected texts below are what the core's English said), for every
 * kind of action, trigger and plural.
 */
import assert from 'node:assert/strict';
import { buildSessionInsights } from '../../src/core/insights/sessionInsights';
import type { CompactionRecord, TranscriptEntry } from '../../src/core/storage/transcript';
import { configureWords } from '../../src/frontends/words';
import { wordInsights } from '../../src/frontends/words/wordInsights';
import { said } from '../support/said';

let second = 0;
const ts = () => new Date(Date.UTC(2026, 0, 1, 0, 0, second++)).toISOString();
const request = (prompt: number) => ({ type: 'usage', ts: ts(), model: 'known', usage: { inputTokens: prompt - 10, cacheWriteTokens: 10, cacheReadTokens: 0, outputTokens: 50 }, costUsd: 0.1, request: { canonicalCount: 1, liveCount: 1, liveChars: prompt * 4 } });
const compaction = (id: string, trigger: CompactionRecord['trigger'], messagesSummarized: number, messagesKept: number, restoredFiles: string[], focus?: string) => ({ type: 'compaction', ts: ts(), compaction: { id, trigger, summary: 's', keptFrom: 1, restoredFiles, ...(focus ? { focus } : {}), stats: { tokensBefore: 51_234.6, tokensAfter: 9_999.4, messagesSummarized, messagesKept, summaryRequests: 1 } } });
const entries = [
  { type: 'message', ts: ts(), message: { role: 'user', content: 'go' } },
  request(20_000),
  { type: 'tier_edit', ts: ts(), tier: 'snip', edits: [{ toolUseId: 'a', action: 'clear' }], tokensBefore: 20_000, tokensAfter: 19_000 },
  { type: 'tier_edit', ts: ts(), tier: 'budget', edits: [{ toolUseId: 'a', action: 'clear' }, { toolUseId: 'b', action: 'clear' }], tokensBefore: 1_234_567, tokensAfter: 19_000 },
  request(20_000),
  { type: 'persisted_output', ts: ts(), toolUseId: 'x', toolName: 'grep', file: '/s/x.txt', bytes: 10, lines: 1 },
  { type: 'persisted_output', ts: ts(), toolUseId: 'y', toolName: 'read_file', file: '/s/y.txt', bytes: 10, lines: 1, tokensBefore: 500, tokensAfter: 20 },
  compaction('c1', 'manual', 1, 1, ['a.ts'], 'the  login\nform'),
  compaction('c2', 'tool', 12, 3, ['a.ts', 'b.ts']),
  compaction('c3', 'reactive', 2, 2, []),
  compaction('c4', 'drop', 1, 4, []),
  request(9_000),
  { type: 'compaction_undo', ts: ts(), compactionId: 'c4', tokensBefore: 11_000, tokensAfter: 51_000 },
  { type: 'compaction_failed', ts: ts(), trigger: 'manual', reason: 'the summary\n came back empty', counts: true },
  { type: 'compaction_failed', ts: ts(), trigger: 'reactive', reason: 'x', counts: true },
  { type: 'window_learned', ts: ts(), window: 60_000, assumed: 1_000_000 },
  request(9_000),
  { type: 'rewind', ts: ts(), checkpoint: 2, toEntry: 5, files: 'kept' },
  { type: 'rewind', ts: ts(), checkpoint: 13, toEntry: 5, files: 'restored' },
  request(9_000),
] as TranscriptEntry[];

const EXPECTED: ReadonlyArray<readonly [label: string, detail: string]> = [
  ['Snipped 1 old tool result', 'Snipped 1 old tool result to make room (snip superseded reads and old searches): 20,000 → 19,000 tokens. The full results stay saved, and the model can read them back.'],
  ['Trimmed 2 old tool results', 'Trimmed 2 old tool results to make room (trim old tool results): 1,234,567 → 19,000 tokens. The full results stay saved, and the model can read them back.'],
  ['Saved a large grep output to a file', 'A grep output of 1 line went to /s/x.txt; the context kept a preview.'],
  ['Saved a large read_file output to a file', 'A read_file output of 1 line went to /s/y.txt; the context kept a preview (500 → 20 tokens).'],
  ['Summarized 1 older message', 'Summarized 1 older message (you asked for it), kept 1 message verbatim and restored 1 file: 51,235 → 9,999 tokens. Focus: the login form'],
  ['Summarized 12 older messages', 'Summarized 12 older messages (the model asked for it), kept 3 messages verbatim and restored 2 files: 51,235 → 9,999 tokens.'],
  ['Summarized 2 older messages', 'Summarized 2 older messages (the API said the prompt was too long), kept 2 messages verbatim: 51,235 → 9,999 tokens.'],
  ['Dropped the oldest 1 message', 'Dropped the oldest 1 message (the API said the prompt was too long), kept 4 messages verbatim: 51,235 → 9,999 tokens.'],
  ['Undid the last summary', 'The summarized messages are back in the context: 11,000 → 51,000 tokens.'],
  ['A summary failed', 'A summary (you asked for it) failed: the summary came back empty'],
  ['A summary failed', 'A summary (the API said the prompt was too long) failed: x'],
  ['Learned a window of 60,000 tokens', 'The server refused a prompt: its window is 60,000 tokens, not the 1,000,000 assumed. Later requests count against it.'],
  ['Restored checkpoint 2', 'The conversation went back to checkpoint 2 (the files were kept); the requests after it stay counted.'],
  ['Restored checkpoint 13', 'The conversation went back to checkpoint 13 and the files with it; the requests after it stay counted.'],
];

const options = { budget: { window: 200_000, maxOutputTokens: 32_000 }, priceOf: () => undefined };

describe('insights words: each action said by the host, as before', () => {
  afterEach(() => configureWords({ locale: 'en', voice: 'cli' }));

  it('words every label and detail word for word as the core said them', () => {
    const { actions } = buildSessionInsights(entries, options);
    assert.deepEqual(actions.map((action) => [said(action.label), said(action.detail)]), EXPECTED);
  });

  it('the host words them once for the panel (the extension\'s voice reads the same English), the numbers stay numbers', () => {
    configureWords({ locale: 'en', voice: 'extension' });
    const core = buildSessionInsights(entries, options);
    const worded = wordInsights(core);
    assert.deepEqual(worded.actions.map((action) => [action.label, action.detail]), EXPECTED);
    assert.deepEqual(worded.requests, core.requests);
    assert.deepEqual(worded.totals, core.totals);
  });

  it('formats counts in the user\'s locale', () => {
    configureWords({ locale: 'de', voice: 'extension' });
    const { actions } = wordInsights(buildSessionInsights(entries, options));
    assert.equal(actions.find((action) => action.kind === 'window')?.label, 'Learned a window of 60.000 tokens');
  });
});

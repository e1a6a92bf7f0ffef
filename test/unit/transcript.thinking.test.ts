/**
 * Thinking in the archived-transcript tab (issue 21): folded sooner than tool output, as it is
 * collapsed in the chat, with a link to the whole block; redacted thinking as "(redacted)"; the
 * model's text inert in a fence.
 */
import assert from 'node:assert/strict';
import { emptyTotals, type SessionMeta, type TranscriptLine } from '../../src/core/storage/sessionStore';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import { renderTranscript, TRANSCRIPT_RENDER_DEFAULTS } from '../../src/extension/transcriptMarkdown';

const meta: SessionMeta = {
  id: '20260101-120000-abcdef',
  title: 'Think first',
  model: 'claude-sonnet-4-6',
  workspace: '/w',
  createdAt: '2026-01-01T12:00:00.000Z',
  updatedAt: '2026-01-01T13:00:00.000Z',
  messageCount: 2,
  compactions: 0,
  totals: emptyTotals(),
};

const numbered = (entries: TranscriptEntry[]): TranscriptLine[] => entries.map((entry, index) => ({ line: index + 1, entry }));
const lines = (count: number, label: string) => Array.from({ length: count }, (_, index) => `${label} ${index + 1}`).join('\n');

async function render(content: Extract<TranscriptEntry, { type: 'message' }>['message']['content']): Promise<string> {
  const entries: TranscriptEntry[] = [
    { type: 'message', ts: 't1', message: { role: 'user', content: 'Why is the test flaky?' } },
    { type: 'message', ts: 't2', message: { role: 'assistant', content } },
  ];
  return (await renderTranscript(meta, numbered(entries), { transcriptPath: '/s/transcript.jsonl' })).text;
}

describe('thinking in the archived transcript', () => {
  it('folds long thinking to its head and tail, sooner than a tool output of the same length, with a link to the line', async () => {
    const thinking = lines(40, 'thought');
    assert.ok(40 <= TRANSCRIPT_RENDER_DEFAULTS.foldLines, 'a tool output of this length would be shown whole');
    const text = await render([{ type: 'thinking', thinking, signature: 'sig' }, { type: 'text', text: 'The clock.' }]);
    assert.match(text, /^\*Thinking\* · ~\d+ tokens$/m);
    assert.match(text, /^thought 1$/m);
    assert.match(text, /^thought 6$/m);
    assert.doesNotMatch(text, /^thought 7$/m, 'folded after the head');
    assert.match(text, /^thought 40$/m, 'the tail is shown');
    assert.match(text, /\*… 31 lines folded — full text: \[transcript\.jsonl line 2\]\(file:\/\/\/s\/transcript\.jsonl#L2\) …\*/);
    // The thinking comes before the reply's text, as the model wrote it.
    assert.ok(text.indexOf('thought 1') < text.indexOf('The clock.'));
  });

  it('shows short thinking whole, in a fence its text cannot close or turn into links', async () => {
    const thinking = 'Maybe ```\n[run](command:workbench.action.terminal.sendSequence)\n<img src=x onerror=alert(1)>';
    const text = await render([{ type: 'thinking', thinking, signature: 'sig' }]);
    assert.match(text, /^`{4}text$/m, 'the fence is longer than any backtick run in the thinking');
    assert.ok(text.includes(thinking), 'the text is whole');
    assert.doesNotMatch(text, /lines folded/);
  });

  it('shows redacted thinking as "(redacted)", never its data', async () => {
    const text = await render([{ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' }, { type: 'text', text: 'Answer.' }]);
    assert.match(text, /^\*Thinking\* · \(redacted\)$/m);
    assert.doesNotMatch(text, /EmwKAhgB/);
    assert.doesNotMatch(text, /\[redacted_thinking\]/);
  });
});

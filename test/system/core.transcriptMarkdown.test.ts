import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { emptyTotals, transcriptLines, type SessionMeta } from '../../src/core/storage/sessionStore';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { useTempDirs } from '../support/tempDirs';

const meta: SessionMeta = {
  id: '20250101-120000-abcdef',
  title: 'Fix the parser',
  model: 'claude-sonnet-4-5',
  workspace: '/w',
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-01T13:00:00.000Z',
  messageCount: 6,
  compactions: 1,
  totals: emptyTotals(),
};

const lines = (count: number, label: string) => Array.from({ length: count }, (_, index) => `${label} ${index + 1}`).join('\n');

describe('archived transcript rendering', () => {
  const temp = useTempDirs();
  let dir: string;
  beforeEach(() => {
    dir = temp.make('evergreen-render-');
  });

  it('renders a 50 MB transcript from disk without blocking the event loop, folding it into an openable document', async function () {
    this.timeout(120_000);
    const file = path.join(dir, 'transcript.jsonl');
    const output = lines(2_000, 'output line with some text to make it longer');
    const out = fs.openSync(file, 'w');
    let entries = 0;
    let size = 0;
    try {
      for (let round = 0; size < 50 * 1024 * 1024; round++) {
        const chunk =
          [
            { type: 'message', ts: `u${round}`, message: { role: 'assistant', content: [{ type: 'tool_use', id: `tu${round}`, name: 'run_shell', input: { command: `step ${round}` } }] } },
            { type: 'message', ts: `r${round}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${round}`, content: output }] } },
            // Many small entries too: the per-entry cost is what a long agentic session pays.
            ...Array.from({ length: 40 }, (_, index) => ({ type: 'usage', ts: `s${round}.${index}`, model: 'm', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0 })),
            { type: 'message', ts: `a${round}`, message: { role: 'assistant', content: `Step ${round} looks fine.` } },
          ]
            .map((entry) => JSON.stringify(entry))
            .join('\n') + '\n';
        fs.writeSync(out, chunk);
        size += Buffer.byteLength(chunk);
        entries += 43;
      }
      const last = JSON.stringify({ type: 'message', ts: 'end', message: { role: 'user', content: 'THE LAST QUESTION' } }) + '\n';
      fs.writeSync(out, last);
      entries++;
    } finally {
      fs.closeSync(out);
    }
    assert.ok(fs.statSync(file).size >= 50 * 1024 * 1024);

    // Timers scheduled before rendering starts must run while it is still going.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    let firedAt: 'during' | 'after' | undefined;
    let done = false;
    setTimeout(() => {
      firedAt = done ? 'after' : 'during';
    }, 0);
    const started = Date.now();
    let rendered;
    try {
      rendered = await renderTranscript(meta, transcriptLines(file), { transcriptPath: file });
    } finally {
      done = true;
      clearInterval(ticker);
    }
    const elapsed = Date.now() - started;
    assert.equal(firedAt, 'during');
    assert.ok(ticks >= Math.min(10, elapsed / 50), `only ${ticks} timer ticks in ${elapsed} ms: the renderer did not yield`);
    assert.equal(rendered.entries, entries);
    assert.equal(rendered.cut, false);
    assert.ok(rendered.text.includes('THE LAST QUESTION'), 'everything is rendered, just folded');
    assert.ok(rendered.text.length < 24_000_000, `${rendered.text.length} characters`);
    assert.equal(rendered.foldedBlocks, (entries - 1) / 43);
    console.log(`      (${entries} entries, ${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB rendered to ${(rendered.text.length / 1024 / 1024).toFixed(1)} MB in ${elapsed} ms; ${ticks} timer ticks meanwhile)`);
  });
});

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { emptyTotals, transcriptLines, type SessionMeta, type TranscriptLine } from '../../src/core/storage/sessionStore';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
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

const numbered = (entries: TranscriptEntry[]): TranscriptLine[] => entries.map((entry, index) => ({ line: index + 1, entry }));
const lines = (count: number, label: string) => Array.from({ length: count }, (_, index) => `${label} ${index + 1}`).join('\n');

describe('archived transcript rendering', () => {
  const temp = useTempDirs();
  let dir: string;
  beforeEach(() => {
    dir = temp.make('evergreen-render-');
  });

  it("links a message's image to a copy saved once in the session folder, so a click opens it; without a folder it is only named", async () => {
    // A 2x1 PNG.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR42mP8z8DwnwEIGAEAOxkD/Ql8c4YAAAAASUVORK5CYII=';
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: png } };
    const entries: TranscriptEntry[] = [
      { type: 'message', ts: 't1', message: { role: 'user', content: [{ type: 'text', text: '<attachment kind="image" label="shot.png">\n[image: image/png, 2x1 px]\n</attachment>' }, image, { type: 'text', text: 'What is this?' }] } },
      { type: 'message', ts: 't2', message: { role: 'user', content: [image, { type: 'text', text: 'The same one again.' }] } },
    ];
    const rendered = await renderTranscript(meta, numbered(entries), { sessionDir: dir });
    const saved = fs.readdirSync(path.join(dir, 'images'));
    assert.equal(saved.length, 1, 'one file for one picture');
    assert.match(saved[0]!, /^[0-9a-f]{32}\.png$/);
    const file = path.join(dir, 'images', saved[0]!);
    assert.deepEqual(fs.readFileSync(file), Buffer.from(png, 'base64'));
    const link = `*\\[image: image/png, 2x1\\]* ([open image](${pathToFileURL(file).href}))`;
    assert.equal(rendered.text.split(link).length - 1, 2, rendered.text);
    assert.deepEqual(rendered.unsavedImages, []);

    // Drawn again: the file is not written anew (its time, set back a day, stays where it was put).
    const dayAgo = new Date(Date.now() - 86_400_000);
    fs.utimesSync(file, dayAgo, dayAgo);
    const before = fs.statSync(file).mtimeMs;
    await renderTranscript(meta, numbered(entries), { sessionDir: dir });
    assert.equal(fs.statSync(file).mtimeMs, before);

    // A folder that cannot be written: the image is named and linked, and the failure is reported.
    const blocked = path.join(dir, 'blocked');
    fs.writeFileSync(blocked, 'a file where the folder should be');
    const failed = await renderTranscript(meta, numbered(entries), { sessionDir: blocked });
    assert.equal(failed.unsavedImages.length, 1);
    assert.match(failed.unsavedImages[0]!, /ENOTDIR|EEXIST/);

    const named = await renderTranscript(meta, numbered(entries), {});
    assert.match(named.text, /\*\\\[image: image\/png, 2x1\\\]\*\n/);
    assert.doesNotMatch(named.text, /open image/);
  });

  it('renders messages, tool calls with their inputs and outputs, a boundary with its summary and the tier notes', async () => {
    const persistedFile = path.join(dir, 'tool-results', 'tu2.txt');
    const entries: TranscriptEntry[] = [
      { type: 'system_prompt', ts: 't0', text: 'SYSTEM PROMPT TEXT' },
      { type: 'message', ts: 't1', message: { role: 'user', content: 'Please fix the parser\nin src/parser.ts' } },
      { type: 'message', ts: 't2', message: { role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_use', id: 'tu1', name: 'write_file', input: { path: 'a.ts', content: 'line one\nline two' } }] } },
      { type: 'message', ts: 't3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'Wrote a.ts' }] } },
      { type: 'message', ts: 't4', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'tu2', name: 'run_shell', input: { command: 'npm test' } }] } },
      { type: 'persisted_output', ts: 't5', toolUseId: 'tu2', toolName: 'run_shell', file: persistedFile, bytes: 40_960, lines: 900 },
      { type: 'message', ts: 't6', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu2', content: 'preview of the test run', is_error: true }] } },
      { type: 'tier_edit', ts: 't7', tier: 'snip', edits: [{ toolUseId: 'tu1', action: 'snip', reason: 'read again' }], tokensBefore: 5000, tokensAfter: 4000 },
      {
        type: 'compaction',
        ts: 't8',
        compaction: {
          id: 'c1',
          trigger: 'manual',
          focus: 'the parser bug',
          summary: '1. Primary request: fix the parser.\n9. Next step: run the tests.',
          keptFrom: 4,
          restoredFiles: [{ path: 'src/parser.ts', content: 'x' }],
          stats: { tokensBefore: 52_000, tokensAfter: 7_000, messagesSummarized: 4, messagesKept: 1, summaryRequests: 1 },
        },
      },
      { type: 'window_learned', ts: 't8a', window: 9_000, assumed: 200_000 },
      { type: 'token_anchor', ts: 't8b', anchor: { promptTokens: 7_123, atMs: 1, mark: { canonicalCount: 5, liveCount: 3, liveChars: 100, pendingWaste: 0 } } },
      { type: 'message', ts: 't9', message: { role: 'assistant', content: 'Done.' } },
    ];
    const rendered = await renderTranscript(meta, numbered(entries), { transcriptPath: path.join(dir, 'transcript.jsonl') });
    const text = rendered.text;
    assert.equal(typeof text, 'string');
    assert.match(text, /^# Fix the parser\n/);
    assert.ok(!text.includes('SYSTEM PROMPT TEXT'), 'the system prompt is not part of the readable transcript');
    assert.match(text, /## User · t1\n\n> Please fix the parser\n> in src\/parser\.ts/);
    assert.match(text, /## Assistant · t2\n\nReading it\./);
    // Tool call: scalar inputs as JSON, a multi-line input (the file content) as its own block.
    assert.match(text, /\*\*Tool call `write_file`\*\* \(tu1\)\n\n```json\n\{\n {2}"path": "a\.ts"\n\}\n```\n\n`content`:\n\n```text\nline one\nline two\n```/);
    assert.match(text, /### Tool results · t3\n\n\*\*Result of `write_file`\*\* \(tu1\)\n\n```text\nWrote a\.ts\n```/);
    // The persisted output: named, sized and linked as a file URI.
    const persistedUrl = pathToFileURL(persistedFile).href;
    assert.ok(text.includes(`**Result of \`run_shell\` (error)** (tu2) · output too large for the context (40.0 KB, 900 lines), saved in full: [tool-results/tu2.txt](${persistedUrl})`), text);
    assert.match(text, /Context snip · t7: 1 old tool result\(s\) shortened in what the model sees \(~5,000 → ~4,000 tokens\)/);
    // The boundary: trigger, tokens before -> after, focus, restored files, the summary.
    assert.match(text, /## Context compacted \(manual\) · t8\n\n~52,000 → ~7,000 tokens; 4 message\(s\) summarized, 1 kept verbatim; focus: the parser bug\./);
    assert.match(text, /Files restored: `src\/parser\.ts`/);
    assert.match(text, /\*\*Summary\*\*\n\n```text\n1\. Primary request: fix the parser\.\n9\. Next step: run the tests\.\n```/);
    assert.equal(rendered.compactionLines.length, 1);
    assert.equal(text.split('\n')[rendered.compactionLines[0]!], '## Context compacted (manual) · t8');
    // The gauge's calibration is one quiet line, not a JSON dump.
    assert.match(text, /\*Context counted by the API: 7,123 tokens · t8b\*/);
    assert.ok(!text.includes('liveChars'), 'no token-anchor JSON');
    assert.match(text, /\*The server's context window is 9,000 tokens, smaller than the 200,000 assumed;[^*]* · t8a\*/);
    assert.equal(rendered.entries, entries.length);
    assert.equal(rendered.foldedBlocks, 0);
    assert.equal(rendered.cut, false);
  });

  it('folds large outputs to head and tail with links to the saved file and the JSONL line', async () => {
    const transcriptPath = path.join(dir, 'transcript.jsonl');
    const persistedFile = path.join(dir, 'tool-results', 'big one.txt');
    const entries: TranscriptEntry[] = [
      { type: 'message', ts: 't1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'grep_search', input: { pattern: 'x' } }] } },
      { type: 'persisted_output', ts: 't2', toolUseId: 'tu1', toolName: 'grep_search', file: persistedFile, bytes: 50_000, lines: 500 },
      { type: 'message', ts: 't3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: lines(500, 'match') }] } },
      { type: 'message', ts: 't4', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu9', content: `short\n${'y'.repeat(5000)}` }] } },
    ];
    const rendered = await renderTranscript(meta, numbered(entries), { transcriptPath });
    const text = rendered.text;
    assert.equal(rendered.foldedBlocks, 2);
    // Head (30 lines) and tail (10 lines) stay, the middle is folded with the count and the links.
    assert.match(text, /match 30\n```\n\n\*… 460 lines folded — full text: /);
    assert.ok(!text.includes('match 31\n'), 'the folded middle is not in the document');
    assert.match(text, /\n```text\nmatch 491\n/);
    assert.match(text, /match 500\n```/);
    const jsonlUrl = pathToFileURL(transcriptPath).href;
    assert.ok(text.includes(`full text: [saved output](${pathToFileURL(persistedFile).href}) · [transcript.jsonl line 3](${jsonlUrl}#L3) …*`), text);
    assert.ok(pathToFileURL(persistedFile).href.includes('big%20one.txt'), 'spaces in the path are encoded, so the link stays one link');
    // One over-long line is cut, and says where the whole line is.
    assert.match(text, /y{2000} … \[3,000 more characters\]/);
    assert.ok(text.includes(`*… 1 long line(s) cut — full text: [transcript.jsonl line 4](${jsonlUrl}#L4) …*`));
  });

  it('keeps content from closing its fence and escapes link text', async () => {
    const entries: TranscriptEntry[] = [
      { type: 'message', ts: 't1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'before\n````\n# not a heading\n`````' }] } },
      { type: 'persisted_output', ts: 't2', toolUseId: 'tu2', toolName: 'run_shell', file: path.join(dir, 'tool-results', 'a](evil).txt'), bytes: 1, lines: 1 },
      { type: 'message', ts: 't3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu2', content: 'ok' }] } },
    ];
    const { text } = await renderTranscript(meta, numbered(entries));
    assert.match(text, /``````text\nbefore\n````\n# not a heading\n`````\n``````/);
    assert.ok(text.includes('[tool-results/a\\](evil).txt]('), text);
  });

  it('streams a transcript file, lists unreadable lines, and reports every boundary line (drops included)', async () => {
    const file = path.join(dir, 'transcript.jsonl');
    const boundary = (id: string, trigger: 'auto' | 'drop', summary?: string): TranscriptEntry => ({
      type: 'compaction',
      ts: id,
      compaction: { id, trigger, ...(summary ? { summary } : {}), keptFrom: 0, restoredFiles: [], stats: { tokensBefore: 10, tokensAfter: 5, messagesSummarized: 1, messagesKept: 0, summaryRequests: trigger === 'drop' ? 0 : 1 } },
    });
    const body = [
      JSON.stringify({ type: 'message', ts: 't1', message: { role: 'user', content: 'first question' } }),
      '{"type":"message","ts":"t2","mess',
      JSON.stringify(boundary('c1', 'auto', 'SUMMARY ONE')),
      JSON.stringify({ type: 'message', ts: 't3', message: { role: 'user', content: 'second question' } }),
      JSON.stringify(boundary('c2', 'drop')),
    ];
    fs.writeFileSync(file, body.join('\n') + '\n');
    const rendered = await renderTranscript(meta, transcriptLines(file), { transcriptPath: file });
    assert.deepEqual(rendered.problems.map((problem) => problem.line), [2]);
    assert.match(rendered.text, /1 unreadable transcript line\(s\) were skipped: line 2 \(not valid JSON/);
    const docLines = rendered.text.split('\n');
    assert.deepEqual(rendered.compactionLines.map((line) => docLines[line]), ['## Context compacted (auto) · c1', '## Oldest rounds dropped (prompt too long) · c2']);
    assert.ok(rendered.text.indexOf('first question') < rendered.text.indexOf('SUMMARY ONE'));
    assert.ok(rendered.text.indexOf('SUMMARY ONE') < rendered.text.indexOf('second question'));
  });

  it("notes a fetched page's card in one line (URL, status, type, size, redirects), escaped; a malformed one as a plain event", async () => {
    const entries: TranscriptEntry[] = [
      { type: 'event', ts: 't1', name: 'tool_card', data: { toolUseId: 'toolu_1', web: { url: 'https://docs.example.com/a_*b*', status: 200, contentType: 'text/html', bytes: 49_357, truncated: false, redirects: ['https://docs.example.com/old'] } } },
      { type: 'event', ts: 't2', name: 'tool_card', data: { toolUseId: 'toolu_2', web: { url: 'https://x.example/', status: 'OK' } } },
    ];
    const { text } = await renderTranscript(meta, numbered(entries));
    assert.ok(text.includes('*Page fetched by `toolu_1`: https://docs.example.com/a\\_\\*b\\* · HTTP 200 · text/html · 49,357 bytes · after 1 redirect(s) from https://docs.example.com/old · t1*'), text);
    assert.ok(text.includes('*Event `tool_card` · t2*'), 'the malformed record is shown as it is');
  });

  it('notes an undone compaction in one line, naming the boundary it took back', async () => {
    const entries: TranscriptEntry[] = [
      { type: 'message', ts: 't1', message: { role: 'user', content: 'first question' } },
      { type: 'compaction', ts: 't2', compaction: { id: 'c1', trigger: 'manual', summary: 'S', keptFrom: 1, restoredFiles: [], stats: { tokensBefore: 12_000, tokensAfter: 900, messagesSummarized: 1, messagesKept: 0, summaryRequests: 1 } } },
      { type: 'compaction_undo', ts: 't3', compactionId: 'c1', tokensBefore: 950, tokensAfter: 12_050 },
      { type: 'compaction_undo', ts: 't4', compactionId: 'unknown', tokensBefore: 1, tokensAfter: 2 },
    ];
    const { text } = await renderTranscript(meta, numbered(entries));
    const notes = text.split('\n').filter((line) => line.startsWith('*Compaction undone'));
    assert.deepEqual(notes, [
      '*Compaction undone · t3: the boundary of t2 no longer applies; ~950 → ~12,050 tokens, the summarized messages are sent verbatim again.*',
      '*Compaction undone · t4: the newest boundary no longer applies; ~1 → ~2 tokens, the summarized messages are sent verbatim again.*',
    ]);
    assert.ok(!text.includes('`compaction_undo`'), 'the undo fell through to the unknown-entry line');
  });

  it('yields to the event loop itself when the entries come from memory (no I/O to wait on)', async () => {
    const output = lines(300, 'row');
    const many = numbered(Array.from({ length: 4_000 }, (_, index): TranscriptEntry => ({ type: 'message', ts: `t${index}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${index}`, content: output }] } })));
    let done = false;
    let firedDuring = false;
    setTimeout(() => {
      firedDuring = !done;
    }, 0);
    const rendered = await renderTranscript(meta, many);
    done = true;
    assert.equal(rendered.entries, 4_000);
    assert.equal(firedDuring, true, 'a timer due before rendering started waited until it finished');
  });

  it('names the provider and model that wrote each reply, and renders older replies without them', async () => {
    const entries: TranscriptEntry[] = [
      { type: 'message', ts: 't1', message: { role: 'user', content: 'hi' } },
      { type: 'message', ts: 't2', message: { role: 'assistant', content: 'from before the seam' } },
      { type: 'message', ts: 't3', message: { role: 'user', content: 'again' } },
      { type: 'message', ts: 't4', message: { role: 'assistant', content: 'from Claude' }, provider: 'anthropic', model: 'claude-sonnet-4-5' },
      { type: 'message', ts: 't5', message: { role: 'assistant', content: 'from GPT' }, provider: 'openai', model: 'gpt-4.1' },
    ];
    const { text } = await renderTranscript(meta, numbered(entries));
    assert.match(text, /^## User · t1$/m);
    assert.match(text, /^## Assistant · t2$/m);
    assert.match(text, /^## Assistant · t4 · `anthropic\/claude-sonnet-4-5`$/m);
    assert.match(text, /^## Assistant · t5 · `openai\/gpt-4\.1`$/m);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    const many = numbered(Array.from({ length: 5_000 }, (_, index): TranscriptEntry => ({ type: 'message', ts: `t${index}`, message: { role: 'user', content: 'hello' } })));
    setImmediate(() => controller.abort());
    await assert.rejects(renderTranscript(meta, many, { signal: controller.signal, yieldEveryEntries: 100 }), { name: 'AbortError' });
  });
});

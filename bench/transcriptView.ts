/**
 * The rendered archived transcript (issue 33): what opening it rendered costs, by transcript size,
 * and so where it should open as source instead (RENDERED_TRANSCRIPT_MAX_CHARS). Run alone with
 *   node --require tsx/cjs bench/transcriptView.ts [--sizes=1,2,5,10,20,50] [--no-write]
 * or as part of `npm run bench`. Writes its section of bench/RESULTS.md (between markers).
 *
 * For each size, a generated transcript.jsonl of that many MB (user questions and replies of
 * markdown prose, tool calls, 200-line outputs, which the document folds), then as the host does it:
 * 1. its markdown document (renderTranscript: streamed, yields, so the host stays responsive);
 * 2. the page's HTML (transcriptHtml: synchronous, so the extension host waits for it);
 * 3. that HTML with media/transcript.css loaded and laid out in headless Chromium.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchChromium } from '../scripts/vscode-harness.mjs';
import { emptyTotals, transcriptLines, type SessionMeta } from '../src/core/storage/sessionStore';
import { RENDERED_TRANSCRIPT_MAX_CHARS, transcriptHtml } from '../src/extension/transcriptHtml';
import { renderTranscript } from '../src/extension/transcriptMarkdown';
import { writeResultsSection, runAsScript } from './results';

const START = '<!-- transcript-view-bench:start -->';
const END = '<!-- transcript-view-bench:end -->';
const REPO_ROOT = path.resolve(__dirname, '..');

const meta: SessionMeta = { id: 'bench', title: 'A long session', model: 'm', workspace: '/w', createdAt: '', updatedAt: '', messageCount: 0, totals: emptyTotals() };
const PROSE = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} with **bold**, \`code\` and a [link](https://example.com/${i}).`).join('\n\n');
const OUTPUT = Array.from({ length: 200 }, (_, i) => `output line ${i} with some text to make it longer`).join('\n');

function parseOptions(argv: string[]): { sizes: number[]; write: boolean } {
  const options = { sizes: [1, 2, 5, 10, 20, 50], write: true };
  for (const arg of argv) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (key === 'no-write') options.write = false;
    else if (key === 'sizes' && value && value.split(',').every((size) => Number(size) > 0)) options.sizes = value.split(',').map(Number);
    else throw new Error(`unknown or invalid option ${arg} (see the header of bench/transcriptView.ts)`);
  }
  return options;
}

function writeTranscript(file: string, megabytes: number): void {
  const out = fs.openSync(file, 'w');
  try {
    for (let round = 0, size = 0; size < megabytes * 1024 * 1024; round++) {
      const chunk =
        [
          { type: 'message', ts: 'u', message: { role: 'user', content: `Question ${round}: ${PROSE}` } },
          { type: 'message', ts: 'a', message: { role: 'assistant', content: [{ type: 'text', text: PROSE }, { type: 'tool_use', id: `tu${round}`, name: 'run_shell', input: { command: `step ${round}` } }] } },
          { type: 'message', ts: 'r', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${round}`, content: OUTPUT }] } },
        ]
          .map((entry) => JSON.stringify(entry))
          .join('\n') + '\n';
      fs.writeSync(out, chunk);
      size += Buffer.byteLength(chunk);
    }
  } finally {
    fs.closeSync(out);
  }
}

const elapsed = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e6;
const mb = (chars: number): string => `${(chars / 1_000_000).toFixed(1)} M`;

export async function runTranscriptViewBench(argv: string[] = []): Promise<string> {
  const options = parseOptions(argv);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-transcript-view-bench-'));
  const css = fs.readFileSync(path.join(REPO_ROOT, 'media', 'transcript.css'), 'utf8');
  const browser = await launchChromium();
  const rows: string[] = [];
  try {
    for (const size of options.sizes) {
      const file = path.join(tmp, `${size}.jsonl`);
      writeTranscript(file, size);
      let started = process.hrtime.bigint();
      const rendered = await renderTranscript(meta, transcriptLines(file), { transcriptPath: file });
      const markdownMs = elapsed(started);
      started = process.hrtime.bigint();
      const html = transcriptHtml(rendered.text);
      const htmlMs = elapsed(started);
      const page = await browser.newPage();
      started = process.hrtime.bigint();
      await page.setContent(`<!DOCTYPE html><html><head><style>${css}</style></head><body><div id="transcript-root"><main>${html}</main></div></body></html>`);
      await page.evaluate(() => document.body.getBoundingClientRect().height);
      const pageMs = elapsed(started);
      const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
      await page.close();
      fs.rmSync(file);
      const opens = rendered.text.length > RENDERED_TRANSCRIPT_MAX_CHARS ? 'source' : 'rendered';
      rows.push(`| ${size} MB | ${mb(rendered.text.length)} | ${markdownMs.toFixed(0)} ms | ${htmlMs.toFixed(0)} ms | ${pageMs.toFixed(0)} ms | ${elements.toLocaleString('en-US')} | ${opens} |`);
    }
  } finally {
    await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const section = [
    START,
    '## The rendered archived transcript',
    '',
    `Generated transcripts (bench/transcriptView.ts). *markdown*: the document (streamed, yields); *HTML*: markdown-it in the extension host (blocks it); *page*: loaded and laid out in headless Chromium. Past ${RENDERED_TRANSCRIPT_MAX_CHARS.toLocaleString('en-US')} characters of markdown the transcript opens as source.`,
    '',
    '| transcript.jsonl | markdown chars | markdown | HTML | page | elements | opens |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    END,
  ].join('\n');
  if (options.write) writeResultsSection(section, START, END);
  return section;
}

if (require.main === module) runAsScript(() => runTranscriptViewBench(process.argv.slice(2)));

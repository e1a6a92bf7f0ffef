/**
 * The web session (issue 30): 100 web_fetch calls of pages from 50 KB to 3 MB, served on 127.0.0.1
 * (allowed with --allow-web, as a user would), in a 64k window, through the CLI against the fake
 * Messages API. Reports requests the API refused as too long (must be 0), whether every page is
 * whole on disk (tier 0's saved copy, or the whole result in the transcript), the tokens a page adds
 * to the context (the result as the next request sent it) and the conversion time per page.
 * Run alone: `node --require tsx/cjs bench/web.ts`; `npm run bench` runs it too. Writes its section
 * of bench/RESULTS.md.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliCaptured } from '../test/support/cliCapture';
import { startWebServer } from '../test/support/webServer';
import { reply, startFakeAnthropic, type MessagesRequestBody } from '../test/fake-anthropic/server';
import { writeResultsSection, runAsScript } from './results';

const PAGES = 100;
const WINDOW = 64_000;
const START = '<!-- web: start -->';
const END = '<!-- web: end -->';

/** A docs-like page of about `bytes`: navigation, scripts, and article paragraphs with code and a table. */
function page(index: number, bytes: number): string {
  const nav = `<nav>${Array.from({ length: 80 }, (_, i) => `<a href="/p${i}">Section ${i}</a>`).join(' ')}</nav>`;
  const unit = `<h2>Function ${index}</h2><p>${`Page ${index} explains the options of this function, what each returns and when it throws. `.repeat(8)}</p><pre><code class="language-js">call(${index}, { retries: 3 });</code></pre><table><tr><th>Option</th><th>Default</th></tr><tr><td>retries</td><td>3</td></tr></table>`;
  const body = unit.repeat(Math.max(1, Math.ceil(bytes / unit.length)));
  return `<!doctype html><html><head><title>Page ${index}</title><script>${'var tracking = 1;'.repeat(200)}</script></head><body><header>Site</header>${nav}<main><article>${body}</article></main><footer>Footer</footer></body></html>`;
}

/** Sizes from 50 KB to 3 MB, spread log-uniformly and deterministically. */
function sizeOf(index: number): number {
  const low = Math.log(50 * 1024);
  const high = Math.log(3 * 1024 * 1024);
  return Math.round(Math.exp(low + ((index * 37) % PAGES) / (PAGES - 1) * (high - low)));
}

export async function runWebBench(): Promise<string> {
  const pages = Array.from({ length: PAGES }, (_, i) => page(i, sizeOf(i)));
  const site = await startWebServer((req, res) => {
    const index = Number(/\/p\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[index] ?? '');
  });
  const fake = await startFakeAnthropic();
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-bench-web-ws-'));
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-bench-web-store-'));
  try {
    for (let i = 0; i < PAGES; i++) fake.enqueue(reply.toolUse('web_fetch', { url: `${site.origin}/p/${i}` }));
    fake.enqueue(reply.text('Read them all.'));
    const started = Date.now();
    const run = await runCliCaptured(
      ['--workspace', workspace, '--storage-dir', storage, '--no-sandbox', '--context-window', String(WINDOW), '--allow-web', '127.0.0.1', '--max-output-tokens', '4000', '--output-format', 'stream-json', '-p', 'Read the 100 pages.'],
      { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH },
      workspace,
    );
    const elapsedMs = Date.now() - started;
    const requests = fake.messageRequests();
    const tooLong = requests.filter((request) => request.reply?.status === 400 && JSON.stringify(request.reply).includes('prompt is too long')).length;
    // The tokens a page adds: its tool_result in the request right after it, at the fake's 4 characters a token estimate.
    const added: number[] = [];
    for (const request of requests) {
      const body = request.body as MessagesRequestBody;
      const last = body.messages?.at(-1);
      if (!last || typeof last.content === 'string') continue;
      for (const block of last.content) if (block.type === 'tool_result') added.push(Math.round((typeof block.content === 'string' ? block.content : JSON.stringify(block.content)).length / 4));
    }
    const sessions = fs.readdirSync(path.join(storage, 'sessions'));
    const dir = path.join(storage, 'sessions', sessions[0] ?? '');
    const saved = fs.existsSync(path.join(dir, 'tool-results')) ? fs.readdirSync(path.join(dir, 'tool-results')) : [];
    const transcript = fs.readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8');
    // Whole on disk: the last article paragraph of every page is in a saved copy or in the transcript.
    const savedText = saved.map((file) => fs.readFileSync(path.join(dir, 'tool-results', file), 'utf8')).join('\n');
    const whole = pages.filter((_, i) => savedText.includes(`## Function ${i}`) || transcript.includes(`## Function ${i}`)).length;
    const sorted = [...added].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    const lines = [
      START,
      '## Web session (bench/web.ts)',
      '',
      `${PAGES} web_fetch calls of HTML pages from 50 KB to 3 MB (log-spread; ${(pages.reduce((sum, text) => sum + text.length, 0) / 1024 / 1024).toFixed(1)} MB in all) in a ${WINDOW.toLocaleString('en-US')}-token window, through the CLI against the fake Messages API; pages on 127.0.0.1, allowed with --allow-web.`,
      '',
      '| measure | value |',
      '| --- | --- |',
      `| exit code | ${run.code} |`,
      `| requests / refused as too long | ${requests.length} / ${tooLong} |`,
      `| pages whole on disk (saved copy or transcript) | ${whole} of ${PAGES} |`,
      `| saved copies in tool-results/ | ${saved.length} |`,
      `| tokens a page adds to the context (median / max) | ${median.toLocaleString('en-US')} / ${(sorted.at(-1) ?? 0).toLocaleString('en-US')} |`,
      `| wall time (fetch, convert, 101 requests) | ${(elapsedMs / 1000).toFixed(1)} s (${Math.round(elapsedMs / PAGES)} ms a page) |`,
      END,
    ];
    const section = lines.join('\n');
    writeResultsSection(section, START, END);
    return section;
  } finally {
    await Promise.all([site.close(), fake.close()]);
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(storage, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runAsScript(() => runWebBench());
}

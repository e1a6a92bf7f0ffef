/**
 * Session insights benchmark (issue 33: a 10,000-request session opens in under a second). Run alone with
 *   node --require tsx/cjs bench/insights.ts [--runs=5] [--requests=10000] [--no-write]
 * or as part of `npm run bench`. Writes its section of bench/RESULTS.md (between markers).
 *
 * What opening the panel on a saved session costs, in the order the host does it, on a generated
 * transcript of 10,000 requests (test/support/insightsSession.ts: tier edits, saved outputs,
 * subagents, summaries) written to a temporary folder:
 * 1. reading transcript.jsonl line by line, every line checked (transcriptLines, as the panel reads it);
 * 2. the series (buildSessionInsights) and both CSVs (insightsCsv.ts);
 * 3. the panel drawing them: the real bundle (dist/insights.js, rebuilt when older than its
 *    sources) and media/insights.css in headless Chromium (bench/insights/page.ts), from posting
 *    the view to the painted frame, on a fresh page each run.
 * Target: the sum of the medians (read + series + painted) under 1,000 ms.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { actionsCsv, requestsCsv } from '../src/core/insights/insightsCsv';
import { buildSessionInsights } from '../src/core/insights/sessionInsights';
import { priceFor } from '../src/core/model/models';
import { transcriptLines } from '../src/core/storage/sessionStore';
import type { TranscriptEntry } from '../src/core/storage/transcript';
import type { InsightsView, SessionInsights } from '../src/protocol';
import { launchChromium } from '../scripts/vscode-harness.mjs';
import { SYNTHETIC_BUDGET, syntheticSession } from '../test/support/insightsSession';
import { loadInsightsPage, type HostWindow } from './insights/page';
import { median } from './random';
import { writeResultsSection, runAsScript } from './results';
import { wordInsights } from '../src/frontends/words/wordInsights';

const START = '<!-- insights-bench:start -->';
const END = '<!-- insights-bench:end -->';
const REPO_ROOT = path.resolve(__dirname, '..');
const BUNDLE = path.join(REPO_ROOT, 'dist', 'insights.js');
const TARGET_MS = 1_000;

interface Options {
  runs: number;
  requests: number;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { runs: 5, requests: 10_000, write: true };
  for (const arg of argv) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    const number = Number(value);
    if (key === 'no-write') options.write = false;
    else if (key === 'runs' && Number.isInteger(number) && number > 0) options.runs = number;
    else if (key === 'requests' && Number.isInteger(number) && number > 1) options.requests = number;
    else throw new Error(`unknown or invalid option ${arg} (see the header of bench/insights.ts)`);
  }
  return options;
}

/** Rebuilds the bundles when dist/insights.js is missing or older than the panel's sources. */
function ensureBundle(): string {
  const dir = path.join(REPO_ROOT, 'src', 'webview', 'insights');
  const sources = [path.join(REPO_ROOT, 'src', 'protocol.ts'), ...fs.readdirSync(dir).map((name) => path.join(dir, name))];
  const newest = Math.max(...sources.map((file) => fs.statSync(file).mtimeMs));
  if (!fs.existsSync(BUNDLE) || fs.statSync(BUNDLE).mtimeMs < newest) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
  return fs.readFileSync(BUNDLE, 'utf8');
}

const elapsed = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e6;
const ms = (value: number): string => `${value.toFixed(0)} ms`;

export async function runInsightsBench(argv: string[] = []): Promise<string> {
  const options = parseOptions(argv);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-insights-bench-'));
  const file = path.join(tmp, 'transcript.jsonl');
  const browser = await launchChromium();
  try {
    fs.writeFileSync(file, syntheticSession({ requests: options.requests }).map((entry) => JSON.stringify(entry)).join('\n') + '\n');
    const bundle = ensureBundle();
    const css = fs.readFileSync(path.join(REPO_ROOT, 'media', 'insights.css'), 'utf8');
    const samples = { read: [] as number[], series: [] as number[], csv: [] as number[], built: [] as number[], painted: [] as number[] };
    let insights: SessionInsights | undefined;
    for (let run = 0; run < options.runs; run++) {
      let started = process.hrtime.bigint();
      const entries: TranscriptEntry[] = [];
      for await (const item of transcriptLines(file)) {
        if (!('entry' in item)) throw new Error('the generated transcript has a line the reader refuses');
        entries.push(item.entry);
      }
      samples.read.push(elapsed(started));
      started = process.hrtime.bigint();
      insights = wordInsights(buildSessionInsights(entries, { budget: SYNTHETIC_BUDGET, priceOf: (model) => priceFor(model) }));
      samples.series.push(elapsed(started));
      if (insights.requests.count !== options.requests) throw new Error(`${insights.requests.count} requests in the series, ${options.requests} generated`);
      started = process.hrtime.bigint();
      requestsCsv(insights);
      actionsCsv(insights);
      samples.csv.push(elapsed(started));
      const view: InsightsView = { sessionId: 'bench', title: 'A generated session', current: false, budgetNote: 'A generated session.', insights };
      const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
      try {
        const { page, errors } = await loadInsightsPage(context, { bundle, css });
        const drawn = await page.evaluate((shown) => (window as unknown as HostWindow).__host.show(shown), view);
        if (errors.length > 0) throw new Error(`the panel reported errors: ${errors.join('; ')}`);
        samples.built.push(drawn.builtMs);
        samples.painted.push(drawn.paintedMs);
      } finally {
        await context.close();
      }
    }
    const total = median(samples.read) + median(samples.series) + median(samples.painted);
    const section = [
      START,
      '## Session insights (bench/insights.ts)',
      '',
      `A generated session of ${options.requests.toLocaleString('en-US')} requests (${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB of transcript, ${insights?.actions.length ?? 0} tier actions and summaries), opened as the panel opens a saved one; medians of ${options.runs} runs. Chromium ${browser.version()} (headless), Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}.`,
      '',
      '| Step | Median | Slowest |',
      '|---|---|---|',
      `| Read transcript.jsonl (every line checked) | ${ms(median(samples.read))} | ${ms(Math.max(...samples.read))} |`,
      `| The series (buildSessionInsights) | ${ms(median(samples.series))} | ${ms(Math.max(...samples.series))} |`,
      `| Both CSVs (on demand, not part of opening) | ${ms(median(samples.csv))} | ${ms(Math.max(...samples.csv))} |`,
      `| The panel: view posted to charts built | ${ms(median(samples.built))} | ${ms(Math.max(...samples.built))} |`,
      `| The panel: view posted to the painted frame | ${ms(median(samples.painted))} | ${ms(Math.max(...samples.painted))} |`,
      '',
      `Opening, read + series + painted: **${ms(total)}** (target under ${ms(TARGET_MS)}: ${total < TARGET_MS ? 'met' : 'NOT met'}).`,
      END,
    ].join('\n');
    if (options.write) writeResultsSection(section, START, END);
    return section;
  } finally {
    await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runAsScript(() => runInsightsBench(process.argv.slice(2)));
}

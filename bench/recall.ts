/**
 * recall's index (src/core/recall/recallIndex.ts) on two 50 MB transcripts (issue 27, item 8): the
 * memory it keeps, what building it costs, and how fast a search and a lookup are once it is built.
 * Run alone with `node --require tsx/cjs bench/recall.ts [--mb=50] [--runs=7] [--no-write]`, or as
 * part of `npm run bench`. Writes its section of bench/RESULTS.md (between markers).
 *
 * - *grep results*: the transcript of test/unit/tools.recall.test.ts's 50 MB case, tool calls
 *   whose results are 200 lines of `path:line: code` with quotes and backslashes (ASCII);
 * - *a working session*: seeded turns as a session writes them: a user message (now and then with
 *   an image), the reply's signed thinking, text with typographic punctuation, one tool call
 *   (read_file with numbered lines, some files with non-ASCII comments; grep_search; run_shell
 *   logs; write_file with the file in its input), its result; every 12th result is over tier 0's
 *   threshold: a `persisted_output` entry, a head-and-tail preview in the transcript and the whole
 *   output in tool-results/ (searched too, from the file).
 *
 * Memory is what the index retains: the heap and external memory after a full GC with the index
 * alive, minus the same once it is dropped (in the transcript's bytes, so the ratio is the target's
 * measure). The peak is the most heap and external memory in use while the index is built, above
 * what was in use before (what the build allocates on the way, parsed lines included; sampled every
 * 5 ms), not RSS, which a process that grew before (npm run bench) does not give back. Target: retained <= 2x the transcript; a search and a lookup no
 * slower than before (the closing note in RESULTS.md has the numbers before).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TranscriptRecall } from '../src/core/recall/recallIndex';
import type { RecallQuery } from '../src/core/tools/recallTypes';
import { collectGarbage } from './gc';
import { writeResultsSection, runAsScript } from './results';
import { median, prng, sentence, WORDS } from './random';

const START = '<!-- recall-bench:start -->';
const END = '<!-- recall-bench:end -->';
const TARGET_RATIO = 2;
const TS = '2026-11-25T10:00:00.000Z';

interface Options {
  mb: number;
  runs: number;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { mb: 50, runs: 7, write: true };
  for (const arg of argv) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    const number = Number(value);
    if (key === 'no-write') options.write = false;
    else if (key === 'mb' && number > 0) options.mb = number;
    else if (key === 'runs' && number > 0) options.runs = number;
    else throw new Error(`unknown or invalid option ${arg} (see the header of bench/recall.ts)`);
  }
  return options;
}

/** Appends JSONL lines to a file in large writes; counts the bytes. */
class Writer {
  bytes = 0;
  private readonly fd: number;
  private pending: string[] = [];
  private pendingChars = 0;
  constructor(file: string) {
    this.fd = fs.openSync(file, 'w');
  }
  entry(value: unknown): void {
    const line = `${JSON.stringify(value)}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars > 4_000_000) this.flush();
  }
  flush(): void {
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    fs.writeSync(this.fd, chunk);
    this.bytes += chunk.length;
    this.pending = [];
    this.pendingChars = 0;
  }
  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

interface Scenario {
  label: string;
  dir: string;
  transcriptBytes: number;
  savedBytes: number;
  savedFiles: number;
  /** A plain query that matches once, one that matches on very many lines, a regex, a result id in the transcript and one saved to a file. */
  rare: string;
  frequent: string;
  regex: string;
  lookupId: string;
  savedLookupId?: string;
}

/** test/unit/tools.recall.test.ts's 50 MB transcript. */
function grepResults(dir: string, mb: number): Scenario {
  const writer = new Writer(path.join(dir, 'transcript.jsonl'));
  let calls = 0;
  for (let i = 0; writer.bytes < mb * 1024 * 1024; i++, calls++) {
    const text = Array.from({ length: 200 }, (_, j) => `src/f${i}_${j}.ts:${j}: const v${j} = compute("${i}-${j}") // "quoted" \\ text`).join('\n');
    writer.entry({ type: 'message', ts: TS, message: { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'grep_search', input: { pattern: `v${i}` } }] } });
    writer.entry({ type: 'message', ts: TS, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: text }] } });
    if (i % 50 === 49) writer.flush();
  }
  writer.close();
  return { label: 'grep results (ASCII)', dir, transcriptBytes: writer.bytes, savedBytes: 0, savedFiles: 0, rare: 'compute("77-3")', frequent: '"quoted" \\ text', regex: '/compute\\("1\\d\\d-7"\\)/', lookupId: `toolu_${Math.min(2000, calls - 1)}` };
}

function codeLines(random: () => number, count: number, unicode: boolean, file: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const name = WORDS[Math.floor(random() * WORDS.length)]!;
    const body =
      i % 7 === 0 ? `export function ${name}${file}_${i}(input: string): number {` : i % 7 === 6 ? '}' : i % 7 === 3 ? '' : `  const ${name} = input.length * ${i}; // ${unicode && i % 5 === 1 ? `${sentence(random, 3)} — ${name} → ok` : sentence(random, 4)}`;
    return body;
  });
}

/** A session as the agent writes it (see the header). */
function workingSession(dir: string, mb: number): Scenario {
  const random = prng(27);
  const writer = new Writer(path.join(dir, 'transcript.jsonl'));
  const results = path.join(dir, 'tool-results');
  fs.mkdirSync(results);
  let savedBytes = 0;
  let savedFiles = 0;
  const savedTurns: number[] = [];
  const image = Buffer.from(Array.from({ length: 45_000 }, () => Math.floor(random() * 256))).toString('base64');
  const idOf = (turn: number) => `toolu_${String(turn).padStart(6, '0')}`;
  let turns = 0;
  for (let turn = 0; writer.bytes < mb * 1024 * 1024; turn++, turns++) {
    const id = idOf(turn);
    const userContent: unknown[] = [{ type: 'text', text: `${sentence(random, 12)} Don’t touch ${WORDS[turn % WORDS.length]}.ts — it’s shared.` }];
    if (turn % 40 === 0) userContent.unshift({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } });
    writer.entry({ type: 'message', ts: TS, message: { role: 'user', content: userContent } });
    const kind = turn % 4;
    const file = `src/${WORDS[turn % WORDS.length]}/module${turn}.ts`;
    const unicode = turn % 3 === 0;
    const content = codeLines(random, 20 + Math.floor(random() * 60), unicode, turn);
    const call =
      kind === 0 ? { name: 'read_file', input: { path: file } } : kind === 1 ? { name: 'grep_search', input: { pattern: WORDS[turn % WORDS.length], path: 'src' } } : kind === 2 ? { name: 'run_shell', input: { command: `npm test -- --grep "${WORDS[turn % WORDS.length]}"` } } : { name: 'write_file', input: { path: file, content: content.join('\n') } };
    const thinking = { type: 'thinking', thinking: `${sentence(random, 40)} ${sentence(random, 30)}`, signature: image.slice(0, 400) };
    writer.entry({ type: 'message', ts: TS, message: { role: 'assistant', content: [thinking, { type: 'text', text: `${sentence(random, 20)} I’ll check \`${file}\` next — ${sentence(random, 8)}` }, { type: 'tool_use', id, ...call }] } });
    let output: string;
    if (kind === 0) output = [...content, ...codeLines(random, 100 + Math.floor(random() * 300), unicode, turn + 1)].map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join('\n');
    else if (kind === 1) output = Array.from({ length: 30 + Math.floor(random() * 200) }, (_, i) => `src/${WORDS[i % WORDS.length]}/m${turn}_${i}.ts:${i + 1}:  const ${WORDS[turn % WORDS.length]} = ${sentence(random, 5)}`).join('\n');
    else if (kind === 2) output = Array.from({ length: 40 + Math.floor(random() * 300) }, (_, i) => `[${String(i).padStart(4, '0')}] ${i % 9 === 0 ? '✓' : 'ok'} ${sentence(random, 6)} (${Math.floor(random() * 900)} ms)`).join('\n');
    else output = `Wrote ${content.join('\n').length} bytes to ${file}.`;
    if (turn % 12 === 5) {
      // Tier 0: the whole output on disk, a preview in the transcript.
      const whole = Array.from({ length: 800 + Math.floor(random() * 12_000) }, (_, i) => `${String(i).padStart(6)} ${turn % 2 ? 'INFO' : 'WARN'} ${sentence(random, 9)} id=${turn}-${i};`).join('\n');
      const saved = path.join(results, `${id}.txt`);
      fs.writeFileSync(saved, whole);
      savedBytes += Buffer.byteLength(whole);
      savedFiles++;
      savedTurns.push(turn);
      writer.entry({ type: 'persisted_output', ts: TS, toolUseId: id, toolName: call.name, file: saved, bytes: Buffer.byteLength(whole), lines: whole.split('\n').length });
      output = `[Output too large for the context: ${Buffer.byteLength(whole)} bytes, saved to ${saved}]\n${whole.slice(0, 2_000)}\n…\n${whole.slice(-2_000)}`;
    }
    writer.entry({ type: 'message', ts: TS, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] } });
    writer.entry({ type: 'message', ts: TS, message: { role: 'assistant', content: [{ type: 'text', text: `${sentence(random, 25)}\n\n- ${sentence(random, 8)}\n- ${sentence(random, 6)} — done.` }] } });
  }
  writer.close();
  // At 50 MB: turn 1001 (a saved output) and 2001; in a smaller session, one past its middle and the last.
  const savedTurn = savedTurns.find((turn) => turn > Math.min(1000, turns / 2)) ?? savedTurns.at(-1);
  return {
    label: 'a working session (mixed, non-ASCII)',
    dir,
    transcriptBytes: writer.bytes,
    savedBytes,
    savedFiles,
    rare: `id=${savedTurn ?? 0}-7;`,
    frequent: 'workspace',
    regex: '/module1\\d\\d\\.ts/',
    lookupId: idOf(Math.min(2001, turns - 1)),
    ...(savedTurn !== undefined ? { savedLookupId: idOf(savedTurn) } : {}),
  };
}

function parseQuery(raw: string): RecallQuery {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(raw);
  return regex ? { kind: 'regex', pattern: regex[1]!, flags: regex[2]! } : { kind: 'text', text: raw };
}

/** Heap and external memory after a full collection. */
async function settledMemory(): Promise<number> {
  await collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

async function timed<T>(body: () => Promise<T>): Promise<[number, T]> {
  const started = process.hrtime.bigint();
  const value = await body();
  return [Number(process.hrtime.bigint() - started) / 1e6, value];
}

interface Measured {
  scenario: Scenario;
  buildMs: number;
  retained: number;
  /** Heap and external memory at most while the index was built, above what the process held before (after a full GC). */
  peak: number;
  searches: Array<{ label: string; query: string; ms: number; matches: number }>;
  lookups: Array<{ label: string; ms: number; chars: number }>;
}

async function measure(scenario: Scenario, runs: number): Promise<Measured> {
  const before = await settledMemory();
  // The index lives only inside use(): once it returns, nothing holds it, and the memory it kept is the difference.
  const { withIndex, ...rest } = await use(new TranscriptRecall({ sessionDir: scenario.dir }), scenario, runs);
  const without = await settledMemory();
  return { scenario, ...rest, retained: withIndex - without, peak: rest.peak - before };
}

async function use(index: TranscriptRecall, scenario: Scenario, runs: number): Promise<Omit<Measured, 'scenario' | 'retained'> & { withIndex: number }> {
  const signal = new AbortController().signal;
  const inUse = (): number => {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.external;
  };
  let peak = inUse();
  // Sampled: the build yields to the event loop at every chunk it reads and every file it opens.
  const sampler = setInterval(() => (peak = Math.max(peak, inUse())), 5);
  const [buildMs] = await timed(() => index.search(parseQuery(scenario.rare), 10, signal));
  clearInterval(sampler);
  peak = Math.max(peak, inUse());
  const searches: Measured['searches'] = [];
  for (const [label, query] of [['one match', scenario.rare], ['many matches', scenario.frequent], ['regex', scenario.regex]] as const) {
    const samples: number[] = [];
    let matches = 0;
    for (let run = 0; run < runs; run++) {
      const [ms, outcome] = await timed(() => index.search(parseQuery(query), 10, signal));
      samples.push(ms);
      matches = outcome.totalMatches;
    }
    searches.push({ label, query, ms: median(samples), matches });
  }
  const lookups: Measured['lookups'] = [];
  for (const [label, id] of [['a result in the transcript', scenario.lookupId], ['a saved output', scenario.savedLookupId]] as const) {
    if (!id) continue;
    const samples: number[] = [];
    let chars = 0;
    for (let run = 0; run < runs; run++) {
      const [ms, found] = await timed(() => index.lookup(id, signal));
      if (found.kind !== 'found') throw new Error(`lookup ${id}: ${found.message}`);
      samples.push(ms);
      chars = found.text.length;
    }
    lookups.push({ label, ms: median(samples), chars });
  }
  return { buildMs, peak, searches, lookups, withIndex: await settledMemory() };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function runRecallBench(argv: string[] = []): Promise<string> {
  const options = parseOptions(argv);
  const load = [os.loadavg()[0]!, 0];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-bench-recall-'));
  const measured: Measured[] = [];
  try {
    for (const make of [grepResults, workingSession]) {
      const dir = fs.mkdtempSync(path.join(root, 'session-'));
      const scenario = make(dir, options.mb);
      measured.push(await measure(scenario, options.runs));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  load[1] = os.loadavg()[0]!;
  const section = formatSection(options, measured, load);
  if (options.write) writeResultsSection(section, START, END);
  return section;
}

function formatSection(options: Options, measured: Measured[], load: number[]): string {
  const cpus = os.cpus();
  const rows = measured.flatMap((m) => {
    const ratio = m.retained / m.scenario.transcriptBytes;
    const saved = m.scenario.savedFiles > 0 ? `; ${m.scenario.savedFiles} saved outputs, ${mb(m.scenario.savedBytes)} on disk` : '';
    return [
      `| ${m.scenario.label}: ${mb(m.scenario.transcriptBytes)} transcript${saved} | retained by the index | ${mb(m.retained)} = ${ratio.toFixed(2)}x the transcript | ≤ ${TARGET_RATIO}x: **${ratio <= TARGET_RATIO ? 'met' : 'missed'}** |`,
      `| | peak memory while building (heap and external, above the start) | ${mb(m.peak)} | |`,
      `| | build (the first search) | ${ms(m.buildMs)} | |`,
      ...m.searches.map((s) => `| | search, ${s.label}: \`${s.query}\` (${s.matches.toLocaleString('en-US')} matching lines) | ${ms(s.ms)} | no slower than before (see the closing note) |`),
      ...m.lookups.map((l) => `| | lookup, ${l.label} (${l.chars.toLocaleString('en-US')} characters) | ${ms(l.ms)} | no slower than before |`),
    ];
  });
  return [
    START,
    '## recall index (bench/recall.ts)',
    '',
    `Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}; 1-minute load average ${load[0]!.toFixed(1)} before, ${load[1]!.toFixed(1)} after (shared machine).`,
    '',
    'Command: `node --require tsx/cjs bench/recall.ts` (also run by `npm run bench`).',
    '',
    `Two generated transcripts of ${options.mb} MB (see the header of bench/recall.ts). *retained*: heap and external memory the index keeps after a full GC (with the index alive, minus without). Times are medians of ${options.runs} calls after the index is built.`,
    '',
    '| transcript | measure | value | target |',
    '|---|---|---|---|',
    ...rows,
    '',
    END,
  ].join('\n');
}

/** The generators, for a comparison script that builds other indexes on the same transcripts. */
export const __scenarios = { grep: grepResults, working: workingSession };

if (require.main === module) {
  runAsScript(() => runRecallBench(process.argv.slice(2)));
}

/**
 * Context-strategy benchmark (docs/architecture.md, "Context engine"; bench/SEEDS.md). Run alone with
 *   node --require tsx/cjs bench/context.ts [--steps=300] [--windows=200000,40000] [--modes=single,turns] [--only=evergreen,s06,...] [--long-steps=1200|0]
 * or as part of `npm run bench`. Writes its section of bench/RESULTS.md (between markers).
 *
 * One long session replayed through the real AgentSession loop against the fake API (simulated
 * model, bench/context/simModel.ts), once per strategy: no compression, the seeds 002/003 (s06),
 * 000 (v5) and 001 (4-tier), each also with one rolling cache breakpoint (+rb), and Evergreen.
 * Two shapes: one prompt driving N tool calls, and 20 user turns of N/20 calls, each turn stating
 * a fact the final answer needs. Also: Evergreen alone on a session four times as long (20 turns of
 * 60 calls, 200k window: its cost must grow about linearly), Evergreen's token estimate against the
 * fake's BPE count, and the engine's per-call overhead on long histories.
 */
import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { measureOverhead, type OverheadRow } from './context/overhead';
import { FACTS, runOne, type Mode, type RunResult, type RunSpec } from './context/run';
import { STRATEGY_LABELS, type StrategyId } from './context/strategies';
import { createWorkspace } from './context/workspace';
import { writeResultsSection, runAsScript } from './results';

const START = '<!-- context-bench:start -->';
const END = '<!-- context-bench:end -->';

interface Options {
  steps: number;
  turns: number;
  windows: number[];
  modes: Mode[];
  only: StrategyId[] | undefined;
  overheadRuns: number;
  /** Steps of the long session (Evergreen only, 200k, 20 turns); 0 leaves it out. */
  longSteps: number;
  write: boolean;
}

/**
 * Evergreen's cost on the 40k scenarios before the cost work of issue 20 (bench/RESULTS.md of
 * 2026-11-25, commit f770e99): the 40k targets are relative to it, since no other strategy finishes there.
 */
const BASELINE_40K_COST: Readonly<Record<Mode, number>> = { single: 2.33e6, turns: 2.43e6 };
/** Issue 20's targets. */
const TARGET = { ratio200k: 0.3, ratio40kToBaseline: 0.85, longGrowth: 4.4 } as const;

function parseArgs(argv: string[]): Options {
  const get = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  return {
    steps: Number(get('steps') ?? 300),
    turns: Number(get('turns') ?? 20),
    windows: (get('windows') ?? '200000,40000').split(',').map(Number),
    modes: (get('modes') ?? 'single,turns').split(',') as Mode[],
    only: get('only')?.split(',') as StrategyId[] | undefined,
    overheadRuns: Number(get('overhead-runs') ?? 200),
    longSteps: Number(get('long-steps') ?? 1200),
    write: !argv.includes('--no-write'),
  };
}

const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const mtok = (value: number) => (value / 1e6).toFixed(2);
const label = (spec: RunSpec) => `${STRATEGY_LABELS[spec.strategy]}${spec.rolling ? ' +rb' : ''}`;

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * Summaries a strategy that only summarizes at 85% of the window would need on this session:
 * Evergreen's canonical history (tier 0 applied, nothing else) filled from the fixed prefix, one
 * summary each time it would pass 85%, after which only the prefix and a 2,000-token summary remain.
 * Keeping anything more after a summary only adds summaries, so this is a lower bound.
 */
function summariesAt85(result: RunResult): number | undefined {
  if (!result.canonicalTokens) return undefined;
  const threshold = 0.85 * result.spec.window;
  let context = result.baseTokens;
  let count = 0;
  for (const tokens of result.canonicalTokens) {
    if (context + tokens > threshold) {
      count++;
      context = result.baseTokens + 2_000;
    }
    context += tokens;
  }
  return count;
}

/**
 * The steps that needed an earlier output exactly (bench/context/simModel.ts): how each strategy's
 * model got it — still in view, recalled (Evergreen), or run again (the seeds have no recall, and a
 * re-run of a changed or deleted file's read fails) — and what the requests that asked cost.
 */
function needTable(rows: readonly RunResult[]): string[] {
  const out = [
    '| strategy | needed an earlier output | of which non-reproducible | still in view | fetched exactly | failed | recall calls | recall hit rate | re-runs | cost of the requests that asked |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const n = r.need;
    const hitRate = n.recallCalls > 0 ? pct(n.recallHits / n.recallCalls) : '';
    out.push(`| ${label(r.spec)} | ${n.needs} | ${n.nonReproducible} | ${n.inView} | ${n.fetched} | ${n.failed} | ${n.recallCalls} | ${hitRate} | ${n.reruns} | ${mtok(r.fetchCost)} |`);
  }
  out.push('');
  return out;
}

/**
 * Issue 20's cost targets for one scenario: on the 200k window at most 0.30x the cheapest other
 * strategy that finishes; on the 40k window (where none does) at most 0.85x Evergreen's own cost
 * before the cost work.
 */
function costChecks(evergreen: RunResult, cheapPlain: RunResult | undefined, cheapAll: RunResult | undefined): Array<readonly [string, boolean | undefined]> {
  if (evergreen.spec.window >= 200_000) {
    return [
      [`cost <= ${TARGET.ratio200k} x cheapest finishing other`, cheapPlain === undefined ? undefined : evergreen.cost <= TARGET.ratio200k * cheapPlain.cost],
      [`cost <= ${TARGET.ratio200k} x cheapest finishing other incl. +rb`, cheapAll === undefined ? undefined : evergreen.cost <= TARGET.ratio200k * cheapAll.cost],
    ];
  }
  const checks: Array<readonly [string, boolean | undefined]> = [
    ['cost <= 0.5 x cheapest finishing other', cheapPlain === undefined ? undefined : evergreen.cost <= 0.5 * cheapPlain.cost],
  ];
  const baseline = evergreen.spec.window === 40_000 && evergreen.spec.steps === 300 ? BASELINE_40K_COST[evergreen.spec.mode] : undefined;
  if (baseline !== undefined) checks.push([`cost <= ${TARGET.ratio40kToBaseline} x ${mtok(baseline)}M (its cost before issue 20)`, evergreen.cost <= TARGET.ratio40kToBaseline * baseline]);
  return checks;
}

export async function runContextBench(argv: string[] = []): Promise<string> {
  const options = parseArgs(argv);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-ctx-bench-'));
  const results: RunResult[] = [];
  const longResults: RunResult[] = [];
  let overhead: OverheadRow[] = [];
  const started = Date.now();
  try {
    const workspace = createWorkspace(path.join(root, 'ws'));
    const strategies: Array<{ strategy: StrategyId; rolling: boolean }> = [];
    for (const strategy of ['none', 's06', 'v5', 'fourTier'] as const) {
      strategies.push({ strategy, rolling: false }, { strategy, rolling: true });
    }
    strategies.push({ strategy: 'evergreen', rolling: false });
    let runIndex = 0;
    for (const window of options.windows) {
      for (const mode of options.modes) {
        for (const { strategy, rolling } of strategies) {
          if (options.only && !options.only.includes(strategy)) continue;
          const spec: RunSpec = { strategy, rolling, mode, window, steps: options.steps, turns: options.turns };
          const result = await runOne(spec, workspace, path.join(root, `run-${runIndex++}`));
          results.push(result);
          console.error(
            `${String(window / 1000).padStart(3)}k ${mode.padEnd(6)} ${label(spec).padEnd(24)} needs=${JSON.stringify(result.need)} fetchCost=${mtok(result.fetchCost)} finished=${result.finished} steps=${result.stepsDone} rejected=${result.rejectedForLength} invalid=${result.invalid} redone=${result.redone} facts=${result.factsKept} peak=${pct(result.peakUtilization)} summaries=${result.summaries} cost=${mtok(result.cost)}M (${(result.wallMs / 1000).toFixed(1)} s)`,
          );
        }
      }
    }
    if (options.longSteps > 0 && (!options.only || options.only.includes('evergreen'))) {
      const spec: RunSpec = { strategy: 'evergreen', rolling: false, mode: 'turns', window: 200_000, steps: options.longSteps, turns: 20 };
      const result = await runOne(spec, workspace, path.join(root, `run-${runIndex++}`));
      longResults.push(result);
      console.error(
        `200k long   Evergreen ${options.longSteps} steps needs=${JSON.stringify(result.need)} fetchCost=${mtok(result.fetchCost)} finished=${result.finished} steps=${result.stepsDone} rejected=${result.rejectedForLength} invalid=${result.invalid} redone=${result.redone} facts=${result.factsKept} peak=${pct(result.peakUtilization)} summaries=${result.summaries} cost=${mtok(result.cost)}M (${(result.wallMs / 1000).toFixed(1)} s)`,
      );
    }
    overhead = await measureOverhead([200, 2_000, 10_000], options.overheadRuns);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const section = render(results, longResults, overhead, options, Date.now() - started, argv);
  if (options.write) writeResultsSection(section, START, END);
  return section;
}

function render(results: RunResult[], longResults: RunResult[], overhead: OverheadRow[], options: Options, wallMs: number, argv: string[]): string {
  const out: string[] = [];
  const nproc = (() => {
    try {
      return execSync('nproc').toString().trim();
    } catch {
      return String(os.cpus().length);
    }
  })();
  out.push(START, '## Context strategies (bench/context.ts)', '');
  out.push(`Date: ${new Date().toISOString().slice(0, 10)}. Machine: \`nproc\` = ${nproc} (${os.cpus()[0]?.model ?? 'cpu'}), \`node -v\` = ${process.version}. Wall time ${(wallMs / 1000).toFixed(0)} s.`, '');
  out.push(`Command: \`node --require tsx/cjs bench/context.ts${argv.length ? ' ' + argv.join(' ') : ''}\` (also run by \`npm run bench\`).`, '');
  out.push(
    `Each run is the real AgentSession loop (real tools on a generated workspace of 60 source files of 1-40 KB and 6 logs of 35-220 KB, the real SDK) against the fake API, ` +
      `whose responder is a simulated model that decides only from the request it receives (bench/context/simModel.ts): ${options.steps} steps of one tool call each ` +
      '(reads, re-reads, grep, list, `cat` of big logs, and every 28th step an edit or deletion of a file read earlier), a short text before each call, summaries written from what the summary request shows. ' +
      'Every 14th step from step 28 also needs the exact output of a read or search 20-60 steps back: the model takes it from the request when it is there whole, else recalls it (Evergreen: `recall` by the id in view, or found with `recall {query}`) or, without recall (the seeds), runs the call again — which gives other output when the workload changed or deleted the file since; an answer from anything but the exact output is a failure (a fresh workspace per run, since runs change it). ' +
      `Clock: simulated, 3-8 s per request; in 20-turn mode pauses of 20 s to 10 min between turns (every 4th turn past the 5-minute cache TTL). ` +
      `"single" = one prompt with ${FACTS} facts driving ${options.steps} tool calls; "turns" = ${options.turns} user turns of ${Math.ceil(options.steps / options.turns)} calls, one fact per turn. ` +
      'A run stops at its first API error (400): rejected or invalid means not finished.',
    '',
    'Replay notes: seeds as in bench/SEEDS.md, literally. 000 (0.853 x 200,000) and 002/003 (50,000) use absolute thresholds, so on the 40k window they overflow (SEEDS.md §0, literal reading). ' +
      "001's summarizer request carries the session's tool definitions: the fake, like the real API, refuses a request with tool_use/tool_result blocks and no tools, so the literal call (no tools) would be a 400 on every summary. " +
      "002/003's summarizer has no system prompt; the session's model client always sends one, so it is a single '.'. " +
      '001 measures utilization with `usage.input_tokens` only; with a cache breakpoint (+rb) that is only the uncached part, so its tiers stay off (the seed\'s documented flaw). ' +
      'Seed transcripts and saved outputs go to a folder outside the workspace (list_files never sees them).',
    '',
    'Columns: *rejected* = requests refused as "prompt is too long"; *invalid* = other 400s (orphan tool_result, …); *redone* = steps executed more than once; ' +
      `*facts* = facts (of ${FACTS}) the model could see in its final request (in parentheses when it never reached the final answer: facts visible in its last request); ` +
      '*peak* = largest prompt (input + cache write + cache read, from the SDK usage) / window; *summaries* = summary requests sent; ' +
      'token columns in millions, from the usage the SDK returned, summaries included; *cost* = uncached + 1.25 x write + 0.1 x read + 5 x output (millions of input-token equivalents). ' +
      '"+rb" = the same seed with one rolling cache breakpoint (system + newest message) on every request. ' +
      'Second table per scenario: the steps that needed an earlier output, how it was got, recall calls and the share that returned it exactly, re-runs, and the cost of the requests that asked (recall and re-run requests are extra requests, included in the totals above).',
    '',
  );
  const windows = [...new Set(results.map((r) => r.spec.window))];
  const modes = [...new Set(results.map((r) => r.spec.mode))];
  const verdicts: string[] = [];
  for (const window of windows) {
    for (const mode of modes) {
      const rows = results.filter((r) => r.spec.window === window && r.spec.mode === mode);
      if (rows.length === 0) continue;
      const evergreen = rows.find((r) => r.spec.strategy === 'evergreen');
      const reference = evergreen ? summariesAt85(evergreen) : undefined;
      out.push(`### ${window / 1000}k window, ${mode === 'single' ? `one prompt, ${options.steps} tool calls` : `${options.turns} user turns of ${Math.ceil(options.steps / options.turns)} calls`}`, '');
      out.push('| strategy | finished | steps done | rejected | invalid | redone | facts | peak | summaries | requests | uncached | cache write | cache read | output | cost | Evergreen / this (finished only) |');
      out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
      for (const r of rows) {
        const ratio = evergreen && r !== evergreen && r.finished ? (evergreen.cost / r.cost).toFixed(2) : '';
        out.push(
          `| ${label(r.spec)} | ${r.finished ? 'yes' : 'no'} | ${r.stepsDone} | ${r.rejectedForLength} | ${r.invalid} | ${r.redone} | ${r.factsFinal ? r.factsKept : `(${r.factsKept})`} | ${pct(r.peakUtilization)} | ${r.summaries} | ${r.requests} | ${mtok(r.uncached)} | ${mtok(r.cacheWrite)} | ${mtok(r.cacheRead)} | ${mtok(r.output)} | ${mtok(r.cost)} | ${ratio} |`,
        );
      }
      out.push('');
      out.push(...needTable(rows));
      const others = rows.filter((r) => r.spec.strategy !== 'evergreen' && r.finished);
      const plain = others.filter((r) => !r.spec.rolling);
      const cheapest = (list: RunResult[]) => list.reduce<RunResult | undefined>((best, r) => (!best || r.cost < best.cost ? r : best), undefined);
      const cheapPlain = cheapest(plain);
      const cheapAll = cheapest(others);
      const faithful = cheapest(others.filter((r) => r.redone === 0 && r.factsKept === FACTS));
      if (reference !== undefined) out.push(`- Summaries an 85% threshold needs on this session (lower bound, see bench/context.ts): **${reference}**.`);
      if (evergreen) {
        out.push(
          `- Evergreen cost / cheapest other strategy that finishes: ${cheapPlain ? `**${(evergreen.cost / cheapPlain.cost).toFixed(2)}** (vs ${label(cheapPlain.spec)})` : 'no other strategy finishes'}; ` +
            `including the +rb variants: ${cheapAll ? `**${(evergreen.cost / cheapAll.cost).toFixed(2)}** (vs ${label(cheapAll.spec)})` : 'no other strategy finishes'}.`,
        );
        if (faithful) out.push(`- Evergreen cost / cheapest other that finishes without forgetting (0 redone, all facts): ${(evergreen.cost / faithful.cost).toFixed(2)} (vs ${label(faithful.spec)}).`);
        const checks = [
          ['finishes', evergreen.finished],
          ['0 rejected', evergreen.rejectedForLength === 0],
          ['0 invalid', evergreen.invalid === 0],
          ['0 redone', evergreen.redone === 0],
          [`all ${FACTS} facts kept`, evergreen.factsFinal && evergreen.factsKept === FACTS],
          ['every earlier output it needed answered exactly', evergreen.need.needs > 0 && evergreen.need.failed === 0],
          [`summaries <= ${reference ?? '?'}`, reference !== undefined && evergreen.summaries <= reference],
          ...costChecks(evergreen, cheapPlain, cheapAll),
        ] as const;
        const line = checks.map(([name, ok]) => `${ok === undefined ? 'n/a (no other strategy finishes)' : ok ? 'met' : '**MISSED**'}: ${name}`).join('; ');
        out.push(`- Evergreen targets: ${line}.`);
        verdicts.push(`${window / 1000}k ${mode}: ${line}`);
      }
      const errors = rows.filter((r) => r.firstError);
      if (errors.length > 0) out.push(`- First error (or lost task) per run: ${errors.map((r) => `${label(r.spec)}: \`${r.firstError!.replace(/`/g, "'")}\``).join('; ')}.`);
      const prefill = rows.filter((r) => r.prefillRequests > 0);
      if (prefill.length > 0) {
        out.push(`- Requests ending with the assistant acknowledgement (a prefill; accepted here, refused with extended thinking): ${prefill.map((r) => `${label(r.spec)} ${r.prefillRequests}`).join(', ')}.`);
      }
      out.push('');
    }
  }
  // Token estimate error: the engine's estimate of each request vs the fake's BPE count of it.
  const errorsOf = (list: RunResult[]) => list.flatMap((r) => r.estimates.filter((s) => s.counted > 0).map((s) => Math.abs(s.estimated - s.counted) / s.counted));
  const evergreenRuns = results.filter((r) => r.spec.strategy === 'evergreen');
  if (evergreenRuns.length > 0) {
    out.push('### Token estimate error (Evergreen)', '');
    out.push("`PreparedRequest.estimatedTokens` of each request vs the fake's BPE count of it (input + cache write + cache read of its usage). Target: <= 3% on the long session.", '');
    out.push('| run | requests | median abs error | p95 abs error | max |', '|---|---|---|---|---|');
    for (const r of evergreenRuns) {
      const errors = errorsOf([r]);
      out.push(`| ${r.spec.window / 1000}k ${r.spec.mode} | ${errors.length} | ${pct(quantile(errors, 0.5))} | ${pct(quantile(errors, 0.95))} | ${pct(Math.max(...errors))} |`);
    }
    const all = errorsOf(evergreenRuns);
    out.push(`| all | ${all.length} | ${pct(quantile(all, 0.5))} | ${pct(quantile(all, 0.95))} | ${pct(Math.max(...all))} |`, '');
  }
  if (overhead.length > 0) {
    out.push('### Pipeline overhead per API call', '');
    out.push(
      '`ContextEngine.prepareRequest` (token accounting, tier planning, breakpoints) on a synthetic history; each sample appends one tool round, anchors the previous usage, and times one call. ' +
        'Window sized so the history is at ~65% (tiers 1-2 plan on every call); stub model; the proactive summary is turned off for this measurement (a model call, not overhead). Target: median <= 2 ms at 2,000 messages, linear or better growth.',
      '',
    );
    out.push('| messages | history (JSON chars) | runs | median | p95 | median growth vs previous row (size x) |', '|---|---|---|---|---|---|');
    overhead.forEach((row, index) => {
      const previous = overhead[index - 1];
      const growth = previous ? `${(row.medianMs / previous.medianMs).toFixed(1)}x (${(row.messages / previous.messages).toFixed(0)}x)` : '';
      out.push(`| ${row.messages.toLocaleString('en-US')} | ${row.chars.toLocaleString('en-US')} | ${row.runs} | ${row.medianMs.toFixed(3)} ms | ${row.p95Ms.toFixed(3)} ms | ${growth} |`);
    });
    out.push('');
  }
  for (const long of longResults) {
    const short = results.find((r) => r.spec.strategy === 'evergreen' && r.spec.window === long.spec.window && r.spec.mode === long.spec.mode && r.spec.steps === options.steps);
    const per = Math.ceil(long.spec.steps / long.spec.turns);
    out.push(`### ${long.spec.window / 1000}k window, ${long.spec.turns} user turns of ${per} calls (${long.spec.steps.toLocaleString('en-US')} steps, Evergreen only)`, '');
    out.push(
      `The same workload ${long.spec.steps / options.steps} times as long, to check that the cost grows about linearly with the session (issue 20). Evergreen only: the seeds' runs of this length would take most of an hour on this machine, and the ratio to them is checked on the ${options.steps}-step sessions above.`,
      '',
    );
    out.push('| strategy | finished | steps done | rejected | invalid | redone | facts | peak | summaries | requests | uncached | cache write | cache read | output | cost | cost / same strategy at ' + options.steps + ' steps |');
    out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    const growth = short ? long.cost / short.cost : undefined;
    out.push(
      `| ${label(long.spec)} | ${long.finished ? 'yes' : 'no'} | ${long.stepsDone} | ${long.rejectedForLength} | ${long.invalid} | ${long.redone} | ${long.factsFinal ? long.factsKept : `(${long.factsKept})`} | ${pct(long.peakUtilization)} | ${long.summaries} | ${long.requests} | ${mtok(long.uncached)} | ${mtok(long.cacheWrite)} | ${mtok(long.cacheRead)} | ${mtok(long.output)} | ${mtok(long.cost)} | ${growth === undefined ? 'n/a' : `${growth.toFixed(2)}x`} |`,
      '',
      ...needTable([long]),
    );
    const checks = [
      ['finishes', long.finished],
      ['0 rejected', long.rejectedForLength === 0],
      ['0 invalid', long.invalid === 0],
      ['0 redone', long.redone === 0],
      [`all ${FACTS} facts kept`, long.factsFinal && long.factsKept === FACTS],
      ['every earlier output it needed answered exactly', long.need.needs > 0 && long.need.failed === 0],
      [`cost <= ${TARGET.longGrowth} x its ${options.steps}-step cost`, growth === undefined ? undefined : growth <= TARGET.longGrowth],
    ] as const;
    const line = checks.map(([name, ok]) => `${ok === undefined ? `n/a (no ${options.steps}-step run in this mode)` : ok ? 'met' : '**MISSED**'}: ${name}`).join('; ');
    out.push(`- Evergreen targets: ${line}.`, '');
    verdicts.push(`${long.spec.window / 1000}k ${long.spec.steps.toLocaleString('en-US')} steps: ${line}`);
  }
  if (verdicts.length > 0) out.push('### Evergreen targets, summary', '', ...verdicts.map((v) => `- ${v}`), '');
  out.push(END);
  return out.join('\n');
}

if (require.main === module) {
  // Something (a keep-alive socket of the fake API) can hold the event loop open after the last run.
  runAsScript(() => runContextBench(process.argv.slice(2)), () => process.exit());
}

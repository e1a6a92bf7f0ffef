/**
 * The long session on both model back ends (issue 9). Run alone with
 *   node --require tsx/cjs bench/providers.ts [--steps=150] [--windows=40000,200000] [--no-write]
 * or as part of `npm run bench`. Writes its section of bench/RESULTS.md (between markers).
 *
 * One scripted task (a prompt driving N tool calls: module reads, re-reads, greps, a `cat` of a
 * 67 KB build log, the compact tool once) through the real AgentSession loop and the real SDK of
 * each provider, against that provider's strict fake (test/support/backends.ts): the Anthropic one
 * with explicit cache breakpoints, the OpenAI-compatible one with automatic prefix caching and the
 * window enforced by its o200k tokenizer. Per back end and window: requests, prompt tokens as the
 * fake counted them, the cached share, compactions, cost at the provider's list prices, and the
 * requests the fake rejected (the target is 0).
 */
import { shutdownOsSandbox } from '../src/core/sandbox/srt';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../src/core/agent/events';
import { startAgentSession } from '../src/core/agent/factory';
import type { ProviderId } from '../src/core/model/backend';
import { FileSessionStore, readTranscript } from '../src/core/storage/sessionStore';
import { BACKENDS, say, textOfMessage, type NeutralReply, type SentRequest } from '../test/support/backends';
import { writeResultsSection, runAsScript } from './results';

const START = '<!-- providers-bench:start -->';
const END = '<!-- providers-bench:end -->';
const MODULES = 30;
const CODENAME = 'BLUE-HERON';
const PROMPT = `Review every module under src/ and report what each exports. The release codename is ${CODENAME}.`;

interface Options {
  steps: number;
  windows: number[];
  write: boolean;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  return {
    steps: Number(get('steps') ?? 150),
    windows: (get('windows') ?? '40000,200000').split(',').map(Number),
    write: !argv.includes('--no-write'),
  };
}

interface Result {
  provider: ProviderId;
  model: string;
  window: number;
  finished: boolean;
  requests: number;
  summaryRequests: number;
  promptTokens: number;
  cachedTokens: number;
  peakPrompt: number;
  compactions: Record<string, number>;
  /** Tier 1-3 edits applied (trim, snip, microcompact), by tier. */
  tiers: Record<string, number>;
  costUsd: number;
  rejected: number;
  wallMs: number;
}

function moduleSource(index: number): string {
  const lines = [`// module ${index}`];
  for (let line = 0; line < 120; line++) lines.push(`export const value${index}_${line} = ${JSON.stringify(`entry ${line} of module ${index}`)};`);
  return lines.join('\n') + '\n';
}

function createWorkspace(dir: string): void {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  for (let index = 1; index <= MODULES; index++) fs.writeFileSync(path.join(dir, 'src', `module${index}.ts`), moduleSource(index));
  fs.writeFileSync(path.join(dir, 'build.log'), Array.from({ length: 1500 }, (_, line) => `[build] step ${line}: compiled chunk ${line} ok`).join('\n') + '\n');
}

/** The scripted model: the same mix of calls as the long-session test, for `steps` calls; summaries on request. */
function scriptedModel(steps: number, stats: { summaryRequests: number }): (request: SentRequest) => NeutralReply {
  let step = 0;
  return (request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'user' && textOfMessage(last).includes('CONTEXT COMPACTION')) {
      stats.summaryRequests++;
      return say.text(`<analysis>Walked the history.</analysis><summary>1. Primary request: review every module, codename ${CODENAME}.\n8. Current work: reviewed modules up to step ${step}.\n9. Next step: continue with the next module.</summary>`);
    }
    step++;
    if (step > steps) return say.text(`Reviewed all modules: each exports 120 constants. The codename is ${CODENAME}.`);
    const id = `toolu_step_${step}`;
    if (step === 13) return say.toolUse('run_shell', { command: 'cat build.log' }, { id, preamble: 'Checking the build log.' });
    if (step === Math.floor(steps * 0.6)) return say.toolUse('compact', { focus: 'which modules are reviewed' }, { id, preamble: 'Compacting before the rest.' });
    if (step % 5 === 0) return say.toolUse('grep_search', { pattern: 'value', path: 'src' }, { id, preamble: 'Searching.' });
    if (step % 7 === 0) return say.toolUse('read_file', { path: `src/module${Math.max(1, Math.floor(step / 2) % MODULES || 1)}.ts` }, { id, preamble: 'Re-reading.' });
    return say.toolUse('read_file', { path: `src/module${((step - 1) % MODULES) + 1}.ts` }, { id, preamble: `Step ${step}.` });
  };
}

async function runOne(factory: (typeof BACKENDS)[number], window: number, options: Options, root: string): Promise<Result> {
  const fake = await factory.start();
  const workspace = path.join(root, `ws-${factory.name}-${window}`);
  createWorkspace(workspace);
  fake.setModel(fake.model, { window, maxOutput: 64_000 });
  const stats = { summaryRequests: 0 };
  fake.setResponder(scriptedModel(options.steps, stats));
  const events: AgentEvent[] = [];
  const started = Date.now();
  try {
    const { session, handle } = await startAgentSession({
      config: fake.config({ contextWindow: window, maxToolRoundsPerTurn: options.steps + 50 }),
      workspaceRoot: workspace,
      store: new FileSessionStore(path.join(root, `store-${factory.name}-${window}`)),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: (event) => events.push(event),
    });
    const stop = await session.send(PROMPT);
    const wallMs = Date.now() - started;
    const finalText = textOfMessage(session.history.at(-1));
    const transcript = await readTranscript(handle.transcriptPath);
    handle.close();
    const compactions: Record<string, number> = {};
    for (const entry of transcript.entries) if (entry.type === 'compaction') compactions[entry.compaction.trigger] = (compactions[entry.compaction.trigger] ?? 0) + 1;
    const tiers: Record<string, number> = {};
    for (const event of events) if (event.type === 'tier') tiers[event.tier] = (tiers[event.tier] ?? 0) + 1;
    const requests = fake.requests();
    const usages = events.filter((event): event is Extract<AgentEvent, { type: 'usage' }> => event.type === 'usage');
    return {
      provider: factory.name,
      model: fake.model,
      window,
      finished: stop === 'end_turn' && finalText.includes(CODENAME),
      requests: requests.length,
      summaryRequests: stats.summaryRequests,
      promptTokens: requests.reduce((sum, request) => sum + request.promptTokens, 0),
      cachedTokens: requests.reduce((sum, request) => sum + request.cachedTokens, 0),
      peakPrompt: Math.max(...requests.map((request) => request.promptTokens)),
      compactions,
      tiers,
      costUsd: usages.reduce((sum, event) => sum + event.costUsd, 0),
      rejected: requests.filter((request) => request.status !== 200).length,
      wallMs,
    };
  } finally {
    await fake.close();
  }
}

export async function runProvidersBench(argv: string[] = []): Promise<string> {
  const options = parseArgs(argv);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-providers-bench-'));
  const results: Result[] = [];
  const started = Date.now();
  try {
    for (const window of options.windows) {
      for (const factory of BACKENDS) {
        const result = await runOne(factory, window, options, root);
        results.push(result);
        console.error(
          `${String(window / 1000).padStart(3)}k ${result.provider.padEnd(9)} finished=${result.finished} requests=${result.requests} prompt=${result.promptTokens} cached=${pct(result.cachedTokens / result.promptTokens)} compactions=${JSON.stringify(result.compactions)} tiers=${JSON.stringify(result.tiers)} cost=$${result.costUsd.toFixed(4)} rejected=${result.rejected} (${(result.wallMs / 1000).toFixed(1)} s)`,
        );
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const section = render(results, options, Date.now() - started, argv);
  if (options.write) writeResultsSection(section, START, END);
  return section;
}

const n = (value: number) => value.toLocaleString('en-US');
const usd = (value: number) => `$${value.toFixed(4)}`;
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

function render(results: Result[], options: Options, wallMs: number, argv: string[]): string {
  const out: string[] = [START, '## Model back ends: the long session on each (bench/providers.ts)', ''];
  out.push(`Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}. Wall time ${(wallMs / 1000).toFixed(0)} s.`, '');
  out.push(`Command: \`node --require tsx/cjs bench/providers.ts${argv.length ? ' ' + argv.join(' ') : ''}\` (also run by \`npm run bench\`).`, '');
  out.push(
    `One prompt driving ${options.steps} tool calls (reads of ${MODULES} modules of ~5 KB, re-reads, greps, a \`cat\` of a 67 KB build log, the compact tool once at 60%) through the real AgentSession loop and each provider's real SDK, ` +
      "against that provider's strict fake (test/support/backends.ts): Anthropic with explicit cache breakpoints, the OpenAI-compatible one with automatic prefix caching (128-token blocks from 1,024 tokens) and the window enforced by its o200k tokenizer. " +
      '*Prompt tokens* add up every request\'s prompt as the fake counted it (the two fakes tokenize differently, so compare each back end with itself across windows more than with the other); ' +
      "*cached* is the share of those served from the cache; *cost* is the session's own figure at the provider's list prices (Anthropic bills cache writes at 1.25x input, OpenAI nothing extra). " +
      '*Rejected* counts requests not answered 200: the target is 0.',
    '',
  );
  out.push('| window | back end (model) | finished | requests (summaries) | prompt tokens | cached | largest prompt | compactions | tier edits | cost | rejected | wall |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const counts = (record: Record<string, number>) => Object.entries(record).map(([name, count]) => `${count} ${name}`).join(', ') || '0';
    out.push(
      `| ${n(r.window)} | ${r.provider} (${r.model}) | ${r.finished ? 'yes' : 'no'} | ${r.requests} (${r.summaryRequests}) | ${n(r.promptTokens)} | ${pct(r.cachedTokens / r.promptTokens)} | ${n(r.peakPrompt)} | ${counts(r.compactions)} | ${counts(r.tiers)} | ${usd(r.costUsd)} | ${r.rejected} | ${(r.wallMs / 1000).toFixed(1)} s |`,
    );
  }
  out.push('');
  for (const window of options.windows) {
    const a = results.find((r) => r.window === window && r.provider === 'anthropic');
    const o = results.find((r) => r.window === window && r.provider === 'openai');
    if (!a || !o) continue;
    out.push(
      `- ${n(window)} window: ${o.requests} requests on the OpenAI back end against ${a.requests} on Anthropic, cached share ${pct(o.cachedTokens / o.promptTokens)} against ${pct(a.cachedTokens / a.promptTokens)}, ` +
        `largest prompt ${pct(o.peakPrompt / window)} of the window against ${pct(a.peakPrompt / window)}; rejected ${o.rejected} and ${a.rejected}.`,
    );
  }
  out.push('', END);
  return out.join('\n');
}

if (require.main === module) {
  // The sessions started the OS sandbox's proxies; they would keep the process alive.
  runAsScript(() => runProvidersBench(process.argv.slice(2)), () => shutdownOsSandbox());
}

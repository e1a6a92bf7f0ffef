/**
 * MCP benchmark (issue 16). Run alone with
 *   node --require tsx/cjs bench/mcp.ts [--calls=300] [--window=64000] [--tables=300] [--min-kb=100] [--max-kb=5120] [--no-write]
 * or as part of `npm run bench`. Writes its section of bench/RESULTS.md (between markers).
 *
 * One session through the real AgentSession loop (the factory, the real MCP client over stdio, the
 * real SDK) against the fake API on 127.0.0.1, in a 64k window, with one MCP server of 300 tools
 * (bench/mcp/server.mjs). Their definitions are far over 10% of the window, so the session offers
 * mcp_search and mcp_call. A scripted model searches once, then calls each tool once through
 * mcp_call, asking for 100 KB to 5 MB (log-uniform, seeded), and now and then reads a saved output
 * back by offset. Figures: rejected requests, every output compared with what the server sent
 * (size and SHA-256, regenerated from bench/mcp/records.mjs), the MCP definitions' tokens in each
 * request against 10% of the window, whether the `tools` array ever changed, the cache read share
 * of each request (median, p10, min) and the cost at the model's list prices.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentEvent } from '../src/core/agent/events';
import { startAgentSession } from '../src/core/agent/factory';
import { CONTEXT_DEFAULTS } from '../src/core/context/defaults';
import { lineLogger } from '../src/core/logger';
import { shutdownOsSandbox } from '../src/core/sandbox/srt';
import { parseMcpConfigValue } from '../src/core/mcp/config';
import { textsOf } from '../src/core/model/content';
import { promptTokensFromUsage } from '../src/core/model/usage';
import { FileSessionStore } from '../src/core/storage/sessionStore';
import { reply, startFakeAnthropic, type MessagesRequestBody, type ScriptedReply } from '../test/fake-anthropic/server';
import { countTextTokens } from '../test/fake-anthropic/tokens';
import { writeResultsSection, runAsScript } from './results';

const START = '<!-- mcp-bench:start -->';
const END = '<!-- mcp-bench:end -->';
const MODEL = 'claude-sonnet-4-6';
const SERVER = 'bench';
const SERVER_SCRIPT = path.join(__dirname, 'mcp', 'server.mjs');
/** Every this many calls the model reads its last saved output back by offset. */
const READ_BACK_EVERY = 50;
const READ_BACK_OFFSET = 100;
const READ_BACK_LINES = 5;

interface Options {
  calls: number;
  window: number;
  tables: number;
  minBytes: number;
  maxBytes: number;
  write: boolean;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  return {
    calls: Number(get('calls') ?? 300),
    window: Number(get('window') ?? 64_000),
    tables: Number(get('tables') ?? 300),
    minBytes: Number(get('min-kb') ?? 100) * 1024,
    maxBytes: Number(get('max-kb') ?? 5 * 1024) * 1024,
    write: !argv.includes('--no-write'),
  };
}

type Records = (table: number, seed: number, bytes: number) => string;

/** Sizes from min to max, log-uniform from a fixed seed; the first call asks for the maximum and the second for the minimum, so both ends are always in. */
function sizes(options: Options): number[] {
  let state = 0x9e3779b9;
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const ratio = options.maxBytes / options.minBytes;
  return Array.from({ length: options.calls }, (_, index) => (index === 0 ? options.maxBytes : index === 1 ? options.minBytes : Math.round(options.minBytes * ratio ** next())));
}

function lastUserText(body: MessagesRequestBody): string {
  const last = (body.messages as Anthropic.MessageParam[]).at(-1);
  if (!last || last.role !== 'user') return '';
  return textsOf(last as never).join('\n');
}

function lastToolResults(body: MessagesRequestBody): Array<{ id: string; text: string }> {
  const last = (body.messages as Anthropic.MessageParam[]).at(-1);
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return [];
  return last.content.flatMap((block) =>
    block.type === 'tool_result' ? [{ id: block.tool_use_id, text: typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('') }] : [],
  );
}

const SAVED_AT = /The full output is saved at (.+?) — /;

interface Script {
  responder(body: MessagesRequestBody): ScriptedReply;
  summaries: number;
  readBacks: Array<{ call: number; ok: boolean }>;
}

/** The model: one search, then one mcp_call per response; every READ_BACK_EVERY calls, a read_file of the last saved output. */
function script(options: Options, plan: number[], records: Records): Script {
  let searched = false;
  let calls = 0;
  let pendingReadBack: number | undefined;
  const state: Script = {
    summaries: 0,
    readBacks: [],
    responder(body) {
      if (lastUserText(body).includes('CONTEXT COMPACTION')) {
        state.summaries++;
        return reply.text(`<analysis>Fetched shards in order.</analysis><summary>1. Primary request: fetch every shard through the MCP server's tools.\n8. Current work: fetched shards 0 to ${calls - 1} with mcp_call (mcp__${SERVER}__fetch_records_<n>, arguments bytes and seed = n).\n9. Next step: fetch shard ${calls}.</summary>`);
      }
      const results = lastToolResults(body);
      if (pendingReadBack !== undefined) {
        const call = pendingReadBack;
        pendingReadBack = undefined;
        const expected = records(call % options.tables, call, plan[call]!).split('\n').slice(READ_BACK_OFFSET - 1, READ_BACK_OFFSET - 1 + READ_BACK_LINES);
        const text = results.find((result) => result.id === `toolu_read_${call}`)?.text ?? '';
        state.readBacks.push({ call, ok: expected.every((line) => text.includes(line)) });
      }
      if (!searched) {
        searched = true;
        return reply.toolUse('mcp_search', { query: 'fetch rows orders table', limit: 3 }, { id: 'toolu_search', preamble: 'Looking for the tools that fetch rows.' });
      }
      const justCalled = calls - 1;
      if (calls > 0 && calls % READ_BACK_EVERY === 0 && state.readBacks.at(-1)?.call !== justCalled) {
        const saved = SAVED_AT.exec(results.find((result) => result.id === `toolu_mcp_${justCalled}`)?.text ?? '');
        if (saved) {
          pendingReadBack = justCalled;
          return reply.toolUse('read_file', { path: saved[1], offset: READ_BACK_OFFSET, limit: READ_BACK_LINES }, { id: `toolu_read_${justCalled}`, preamble: 'Checking a few rows of the saved output.' });
        }
        state.readBacks.push({ call: justCalled, ok: false });
      }
      if (calls >= options.calls) return reply.text(`Fetched all ${options.calls} shards.`);
      const call = calls++;
      return reply.toolUse('mcp_call', { tool: `mcp__${SERVER}__fetch_records_${call % options.tables}`, arguments: { bytes: plan[call], seed: call } }, { id: `toolu_mcp_${call}`, preamble: `Fetching shard ${call}.` });
    },
  };
  return state;
}

interface Result {
  /** MCP calls that finished without an error. */
  calls: number;
  requests: number;
  rejected: number;
  totalBytes: number;
  whole: number;
  mismatched: string[];
  readBacks: Array<{ call: number; ok: boolean }>;
  summaries: number;
  /** Tier passes that cleared old results (not tier 0's persisting), by tier. */
  tierPasses: Record<string, number>;
  compactions: number;
  deferred: boolean;
  directDefinitionTokens: number;
  mcpDefinitionTokens: number;
  mcpBreakdownMaxTokens: number;
  distinctToolArrays: number;
  cacheShares: number[];
  costUsd: number;
  peakRssMb: number;
  wallMs: number;
  stop: string;
}

async function run(options: Options, root: string): Promise<Result> {
  const { records } = (await import(pathToFileURL(path.join(__dirname, 'mcp', 'records.mjs')).href)) as { records: Records };
  const plan = sizes(options);
  const fake = await startFakeAnthropic();
  fake.setModel(MODEL, { max_input_tokens: options.window, max_tokens: 64_000 });
  const model = script(options, plan, records);
  fake.setResponder((body) => model.responder(body));
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace, { recursive: true });
  const parsed = parseMcpConfigValue({ [SERVER]: { command: process.execPath, args: [SERVER_SCRIPT], env: { RECORD_TABLES: String(options.tables) } } }, { scope: 'user', source: 'bench/mcp.ts' }, { env: {} }, { bare: true });
  if (parsed.problems.length > 0) throw new Error(JSON.stringify(parsed.problems));
  const events: AgentEvent[] = [];
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const started = Date.now();
  try {
    const { session, handle, mcp } = await startAgentSession({
      config: {
        apiKey: fake.apiKey,
        baseURL: fake.url,
        model: MODEL,
        maxOutputTokens: 4096,
        approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [], mcp: 'auto' },
        trusted: true,
        ripgrepPath: undefined,
        contextWindow: options.window,
        mcp: { servers: parsed.servers, problems: [], notices: [] },
      },
      workspaceRoot: workspace,
      store: new FileSessionStore(path.join(root, 'store')),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: (event) => events.push(event),
      ...(process.env.MCP_BENCH_LOG ? { logger: lineLogger((line) => console.error(line)) } : {}),
    });
    try {
      const stop = await session.send('Fetch every shard of the records server and tell me when you are done.');
      const wallMs = Date.now() - started;
      // Every call's output, as the model was told where it is, against what the server sent.
      const finished = new Map(events.flatMap((event) => (event.type === 'tool_call_finished' ? [[event.toolUseId, event] as const] : [])));
      let whole = 0;
      const mismatched: string[] = [];
      for (let call = 0; call < options.calls; call++) {
        const event = finished.get(`toolu_mcp_${call}`);
        const file = SAVED_AT.exec(event?.content ?? '')?.[1];
        const expected = records(call % options.tables, call, plan[call]!);
        const onDisk = file && fs.existsSync(file) ? fs.readFileSync(file) : undefined;
        const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
        if (onDisk && onDisk.length === Buffer.byteLength(expected) && sha(onDisk) === sha(expected)) whole++;
        else mismatched.push(`call ${call}: ${!event ? 'never finished' : event.isError ? `error: ${event.content.slice(0, 200)}` : !file ? 'no saved file named' : !onDisk ? `missing ${file}` : `${onDisk.length} bytes on disk, ${expected.length} sent`}`);
      }
      const requests = fake.messageRequests();
      const mcpTools = (body: unknown) => ((body as { tools?: Array<{ name: string }> }).tools ?? []).filter((tool) => tool.name === 'mcp_search' || tool.name === 'mcp_call' || tool.name.startsWith('mcp__'));
      const usages = events.filter((event): event is Extract<AgentEvent, { type: 'usage' }> => event.type === 'usage' && event.childId === undefined);
      const breakdowns = events.flatMap((event) => (event.type === 'context' && event.gauge.breakdown ? [event.gauge.breakdown.mcpTools] : []));
      const listed = mcp?.list().find((server) => server.name === SERVER);
      handle.close();
      return {
        calls: [...finished.values()].filter((event) => event.toolUseId.startsWith('toolu_mcp_') && !event.isError).length,
        requests: requests.length,
        rejected: requests.filter((request) => request.reply?.status !== 200).length,
        totalBytes: plan.reduce((sum, bytes) => sum + bytes, 0),
        whole,
        mismatched,
        readBacks: model.readBacks,
        summaries: model.summaries,
        tierPasses: events.reduce<Record<string, number>>((counts, event) => (event.type === 'tier' && event.tier !== 'persist' && event.tier !== 'truncate' ? { ...counts, [event.tier]: (counts[event.tier] ?? 0) + 1 } : counts), {}),
        compactions: events.filter((event) => event.type === 'compaction').length,
        deferred: listed?.deferred ?? false,
        directDefinitionTokens: listed?.definitionTokens ?? 0,
        mcpDefinitionTokens: Math.max(...requests.map((request) => countTextTokens(JSON.stringify(mcpTools(request.body))))),
        mcpBreakdownMaxTokens: Math.max(0, ...breakdowns),
        distinctToolArrays: new Set(requests.map((request) => JSON.stringify((request.body as { tools?: unknown }).tools ?? []))).size,
        cacheShares: usages.map((event) => {
          const prompt = promptTokensFromUsage(event.usage);
          return prompt === 0 ? 0 : event.usage.cacheReadTokens / prompt;
        }),
        costUsd: usages.reduce((sum, event) => sum + event.costUsd, 0),
        peakRssMb: peakRss / 1024 / 1024,
        wallMs,
        stop,
      };
    } finally {
      await mcp?.stopAll();
    }
  } finally {
    clearInterval(sampler);
    await fake.close();
  }
}

export async function runMcpBench(argv: string[] = []): Promise<string> {
  const options = parseArgs(argv);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-mcp-bench-'));
  const started = Date.now();
  let result: Result;
  try {
    result = await run(options, root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  console.error(`mcp: ${result.calls} calls, ${result.requests} requests, ${result.rejected} rejected, ${result.whole}/${options.calls} whole on disk, definitions ${result.mcpDefinitionTokens} tokens, ${(result.wallMs / 1000).toFixed(1)} s`);
  const section = render(result, options, Date.now() - started, argv);
  if (options.write) writeResultsSection(section, START, END);
  return section;
}

const n = (value: number) => value.toLocaleString('en-US');
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function render(r: Result, options: Options, wallMs: number, argv: string[]): string {
  const limit = Math.floor(options.window * CONTEXT_DEFAULTS.mcpDeferShare);
  const readBacksOk = r.readBacks.filter((readBack) => readBack.ok).length;
  const out: string[] = [START, '## MCP servers (bench/mcp.ts)', ''];
  out.push(`Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${mb(os.totalmem())} RAM, Node ${process.version}, ${os.platform()} ${os.release()}. Wall time ${(wallMs / 1000).toFixed(0)} s.`, '');
  out.push(`Command: \`node --require tsx/cjs bench/mcp.ts${argv.length ? ' ' + argv.join(' ') : ''}\` (also run by \`npm run bench\`).`, '');
  out.push(
    `One session through the real AgentSession loop (the factory, the MCP SDK client over stdio, the Anthropic SDK) against the fake API (its BPE token counts and prompt cache, ${MODEL} list prices) in a ${n(options.window)}-token window. ` +
      `One MCP server (bench/mcp/server.mjs) with ${options.tables} tools; a scripted model searches once with mcp_search, then makes ${options.calls} mcp_call calls, one per response, each asking for ${n(options.minBytes / 1024)} KB to ${n(options.maxBytes / 1024)} KB ` +
      `(log-uniform, seeded; ${mb(r.totalBytes)} in all), and every ${READ_BACK_EVERY} calls reads the last saved output back by offset. Each output on disk is compared (size and SHA-256) with the server's text, regenerated from bench/mcp/records.mjs. ` +
      'Cache read share = cache reads / (uncached input + cache reads + cache writes) of each request, summary requests included.',
    '',
  );
  out.push('| figure | result | target |', '|---|---|---|');
  out.push(`| requests (rejected) | ${n(r.requests)} (${r.rejected}) | 0 rejected |`);
  out.push(`| MCP calls finished | ${n(r.calls)} of ${n(options.calls)} (turn ended: ${r.stop}) | all |`);
  out.push(`| outputs whole on disk (size and SHA-256) | ${n(r.whole)} of ${n(options.calls)} | all |`);
  out.push(`| saved outputs read back by offset | ${readBacksOk} of ${r.readBacks.length} | all |`);
  out.push(`| MCP definitions per request (mcp_search + mcp_call, BPE tokens) | ${n(r.mcpDefinitionTokens)} (${pct(r.mcpDefinitionTokens / options.window)} of the window); the breakdown's "MCP tools" line: ${n(r.mcpBreakdownMaxTokens)} at most | ≤ ${n(limit)} (10%) |`);
  out.push(`| the ${options.tables} tools' definitions offered directly (estimate, chars / 4) | ~${n(r.directDefinitionTokens)} (${pct(r.directDefinitionTokens / options.window)}): ${r.deferred ? 'deferred' : 'NOT deferred'} | deferred |`);
  out.push(`| distinct \`tools\` arrays across the requests | ${r.distinctToolArrays} | 1 |`);
  out.push(`| cache read share per request: median / p10 / min | ${pct(quantile(r.cacheShares, 0.5))} / ${pct(quantile(r.cacheShares, 0.1))} / ${pct(Math.min(...r.cacheShares))} | reported |`);
  const low = r.cacheShares.flatMap((share, index) => (share < 0.5 ? [index] : []));
  out.push(`| requests reading under 50% of their prompt from the cache | ${low.length}${low.length ? ` (request ${low.slice(0, 12).join(', ')}${low.length > 12 ? ', …' : ''}; the first has nothing cached yet)` : ''} | - |`);
  const tiers = Object.entries(r.tierPasses).map(([tier, count]) => `${tier} ${count}`).join(', ');
  out.push(`| tier passes clearing old results (they rewrite the prefix: the cache drops above) | ${tiers || 'none'} | - |`);
  out.push(`| compactions (summary requests) | ${r.compactions} (${r.summaries}) | - |`);
  out.push(`| cost | $${r.costUsd.toFixed(2)} | reported |`);
  out.push(`| peak RSS of the benchmark process (session, engine, fake API) | ${r.peakRssMb.toFixed(0)} MB | - |`);
  out.push(`| wall time of the session | ${(r.wallMs / 1000).toFixed(1)} s | - |`);
  if (r.mismatched.length > 0) out.push('', `Outputs not whole: ${r.mismatched.slice(0, 10).join('; ')}${r.mismatched.length > 10 ? ` (and ${r.mismatched.length - 10} more)` : ''}.`);
  out.push('', END);
  return out.join('\n');
}

if (require.main === module) {
  // The session started the OS sandbox's proxies; they would keep the process alive.
  runAsScript(() => runMcpBench(process.argv.slice(2)), () => shutdownOsSandbox());
}

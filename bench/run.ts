/**
 * `npm run bench`: medians of the paths whose speed and memory matter in this build, measured in
 * one run so ratios are comparable on this shared, noisy machine. Writes bench/RESULTS.md.
 *
 * - read_file on a 1 GB (sparse) file at a small and a deep offset: must stream, not slurp;
 * - transcript append and full read of a long session (resume cost);
 * - one agent round trip (request -> tool call -> result -> reply) against the fake API on 127.0.0.1;
 * - the context-strategy benchmark (bench/context.ts; run it alone with `node --require tsx/cjs bench/context.ts`);
 * - the subagent scenario: one survey of 150 files done directly and through a subagent; parent
 *   tokens, child tokens and cost (bench/subagents.ts; run it alone with `node --require tsx/cjs bench/subagents.ts`);
 * - the long session on both model back ends (Anthropic, OpenAI-compatible): requests, prompt tokens,
 *   cached share, compactions, cost, rejected requests (bench/providers.ts; run it alone with `node --require tsx/cjs bench/providers.ts`);
 * - the MCP session: 300 calls through mcp_call to a server of 300 tools, results of 100 KB-5 MB in a
 *   64k window; rejected requests, outputs whole on disk, definition tokens, cache read share per
 *   request, cost (bench/mcp.ts; run it alone with `node --require tsx/cjs bench/mcp.ts`);
 * - the web session: 100 web_fetch calls of 50 KB-3 MB pages in a 64k window; refused requests, pages
 *   whole on disk, tokens a page adds (bench/web.ts; run it alone with `node --require tsx/cjs bench/web.ts`);
 * - the webview benchmark: restoring 2,000 chat items and streaming 200 deltas/s in headless Chromium
 *   (bench/webview.ts; run it alone with `node --require tsx/cjs bench/webview.ts`);
 * - session insights: a 10,000-request session read, turned into the charts' series and drawn by
 *   the panel in headless Chromium (bench/insights.ts; run it alone with `node --require tsx/cjs bench/insights.ts`);
 * - the rendered archived transcript: 1-50 MB transcripts made into markdown, HTML and a laid-out
 *   page in headless Chromium (bench/transcriptView.ts; run it alone with `node --require tsx/cjs bench/transcriptView.ts`);
 * - the OS sandbox: run_shell's median per command with the workspace overlay against placeholders
 *   (bench/sandbox.ts; run it alone with `node --require tsx/cjs bench/sandbox.ts`);
 * - recall's index on two 50 MB transcripts: memory kept, build, search and lookup times
 *   (bench/recall.ts; run it alone with `node --require tsx/cjs bench/recall.ts`);
 * - an attached 12-megapixel photo made fit: how long the event loop stalls meanwhile
 *   (bench/images.ts; run it alone with `node --require tsx/cjs bench/images.ts`);
 * - mode switches: the tokens a switch's block adds and the cached share of the request after it, on
 *   both back ends (bench/modes.ts; run it alone with `node --require tsx/cjs bench/modes.ts`);
 * - the .vsix: `npm run package` and each file's share of it (bench/package.ts; run it alone with
 *   `node --require tsx/cjs bench/package.ts`).
 */
import { shutdownOsSandbox } from '../src/core/sandbox/srt';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startAgentSession } from '../src/core/agent/factory';
import { FileSessionStore, readTranscript } from '../src/core/storage/sessionStore';
import { createToolRegistry } from '../src/core/tools/registry';
import type { ToolContext } from '../src/core/tools/types';
import { NodeWorkspace } from '../src/core/workspace/workspace';
import { reply, startFakeAnthropic } from '../test/fake-anthropic/server';
import { runContextBench } from './context';
import { runImagesBench } from './images';
import { runInsightsBench } from './insights';
import { runTranscriptViewBench } from './transcriptView';
import { runMcpBench } from './mcp';
import { runModesBench } from './modes';
import { runPackageBench } from './package';
import { runWebBench } from './web';
import { runProvidersBench } from './providers';
import { runRecallBench } from './recall';
import { runSandboxBench } from './sandbox';
import { runSubagentBench } from './subagents';
import { runWebviewBench } from './webview';

interface Row {
  name: string;
  runs: number;
  medianMs: number;
  note: string;
}

async function timeRuns(runs: number, body: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    await body();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return samples;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function benchReadFile(root: string, rows: Row[]): Promise<void> {
  const big = path.join(root, 'big.log');
  // 1 GB of short lines would cost real disk; a sparse file of NULs would be refused as binary.
  // So: 200k real lines at the start, then a sparse hole extending the file to 1 GB.
  const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n') + '\n';
  fs.writeFileSync(big, lines);
  fs.truncateSync(big, 1024 ** 3);
  const registry = createToolRegistry({ trusted: true });
  const ctx: ToolContext = {
    workspace: new NodeWorkspace(root),
    signal: new AbortController().signal,
    onProgress: () => undefined,
    approve: async () => ({ approved: true }),
  };
  for (const offset of [1, 150_000]) {
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const samples = await timeRuns(9, async () => {
      const result = await registry.executeToolCall('read_file', { path: 'big.log', offset, limit: 200 }, ctx);
      if (result.isError) throw new Error(result.content);
      peak = Math.max(peak, process.memoryUsage().rss);
    });
    rows.push({ name: `read_file 1 GB file, 200 lines at line ${offset.toLocaleString('en-US')}`, runs: 9, medianMs: median(samples), note: `RSS growth ${mb(peak - rssBefore)}` });
  }
}

async function benchTranscript(root: string, rows: Row[]): Promise<void> {
  const store = new FileSessionStore(path.join(root, 'store'));
  const handle = await store.create({ model: 'bench' });
  const text = 'y'.repeat(2_000);
  const entries = 5_000;
  const appendSamples = await timeRuns(1, async () => {
    for (let i = 0; i < entries; i++) handle.append({ type: 'message', ts: 't', message: { role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text }] } });
  });
  rows.push({ name: `transcript append, ${entries.toLocaleString('en-US')} messages of 2 KB`, runs: 1, medianMs: appendSamples[0]! / entries, note: 'per message (synchronous append)' });
  const readSamples = await timeRuns(5, async () => {
    const loaded = await readTranscript(store.transcriptPath(handle.id));
    if (loaded.entries.length !== entries) throw new Error('short read');
  });
  rows.push({ name: `transcript read (resume), ${entries.toLocaleString('en-US')} messages, ${mb(fs.statSync(store.transcriptPath(handle.id)).size)}`, runs: 5, medianMs: median(readSamples), note: 'whole file' });
}

async function benchRoundTrip(root: string, rows: Row[]): Promise<void> {
  const fake = await startFakeAnthropic();
  try {
    const workspace = path.join(root, 'ws');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'hello\n');
    const { session } = await startAgentSession({
      config: { apiKey: fake.apiKey, baseURL: fake.url, model: 'claude-sonnet-4-6', maxOutputTokens: 4096, approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] }, trusted: true, ripgrepPath: undefined },
      workspaceRoot: workspace,
      store: new FileSessionStore(path.join(root, 'rt-store')),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: () => undefined,
    });
    const samples = await timeRuns(15, async () => {
      fake.enqueue(reply.toolUse('read_file', { path: 'a.txt' }), reply.text('done'));
      await session.send('read a.txt');
    });
    rows.push({ name: 'agent turn: tool call + reply against the fake API (2 streamed requests)', runs: 15, medianMs: median(samples), note: 'includes the fake\'s tokenizer and SSE' });
  } finally {
    await fake.close();
  }
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-bench-'));
  const rows: Row[] = [];
  try {
    await benchReadFile(root, rows);
    await benchTranscript(root, rows);
    await benchRoundTrip(root, rows);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${mb(os.totalmem())} RAM, Node ${process.version}, ${os.platform()} ${os.release()}`;
  const table = ['| benchmark | runs | median | note |', '|---|---|---|---|', ...rows.map((row) => `| ${row.name} | ${row.runs} | ${row.medianMs.toFixed(2)} ms | ${row.note} |`)].join('\n');
  const report = `# Benchmark results\n\nCommand: \`npm run bench\` (bench/run.ts), ${new Date().toISOString().slice(0, 10)}\n\nMachine: ${machine}\n\nMedians from one run; the machine is shared, so compare rows of the same run, not across runs.\n\n${table}\n`;
  fs.writeFileSync(path.join(__dirname, 'RESULTS.md'), report);
  console.log(report);
  // Each appends its own section to RESULTS.md.
  // The images first: the recall benchmark leaves a large heap behind.
  console.log(await runImagesBench([]));
  console.log(await runRecallBench([]));
  console.log(await runContextBench([]));
  console.log(await runSubagentBench([]));
  console.log(await runProvidersBench([]));
  console.log(await runMcpBench([]));
  console.log(await runWebBench());
  console.log(await runModesBench());
  console.log(await runWebviewBench([]));
  console.log(await runInsightsBench([]));
  console.log(await runTranscriptViewBench([]));
  console.log(await runSandboxBench());
  console.log(await runPackageBench([]));
  // Sessions ran sandboxed commands: the sandbox's proxy servers would keep the process alive.
  await shutdownOsSandbox();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

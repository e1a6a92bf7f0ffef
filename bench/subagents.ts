/**
 * Subagent benchmark (issue 10). Run alone with
 *   node --require tsx/cjs bench/subagents.ts [--files=150] [--windows=40000,200000] [--no-write]
 * or as part of `npm run bench`. Writes its section of bench/RESULTS.md (between markers).
 *
 * One survey task, "read every file under data/ and report", run two ways through the real
 * AgentSession loop (real tools, real SDK) against the fake API with a scripted model:
 * - direct: the main agent reads the files itself (five per response, with notes);
 * - subagent: the main agent hands the task to an explore subagent, which does the same reads in
 *   its own context and hands back a one-line report.
 * Figures: the parent's requests and prompt tokens, its context at the end, the child's prompt
 * tokens and compactions, and the cost of each (fake API usage at the model's list prices).
 */
import { shutdownOsSandbox } from '../src/core/sandbox/srt';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentEvent } from '../src/core/agent/events';
import { startAgentSession } from '../src/core/agent/factory';
import { textsOf } from '../src/core/model/content';
import { promptTokensFromUsage } from '../src/core/model/usage';
import { readTranscript, FileSessionStore } from '../src/core/storage/sessionStore';
import { reply, startFakeAnthropic, type MessagesRequestBody, type ScriptedReply } from '../test/fake-anthropic/server';
import { writeResultsSection, runAsScript } from './results';

const START = '<!-- subagent-bench:start -->';
const END = '<!-- subagent-bench:end -->';
const MODEL = 'claude-sonnet-4-6';
const READS_PER_STEP = 5;

interface Options {
  files: number;
  windows: number[];
  write: boolean;
}

type Mode = 'direct' | 'subagent';

interface Result {
  mode: Mode;
  window: number;
  parentRequests: number;
  parentPromptTokens: number;
  parentFinalContext: number;
  parentCompactions: number;
  childRequests: number;
  childPromptTokens: number;
  childCompactions: number;
  parentCostUsd: number;
  childCostUsd: number;
  rejected: number;
  wallMs: number;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  return {
    files: Number(get('files') ?? 150),
    windows: (get('windows') ?? '40000,200000').split(',').map(Number),
    write: !argv.includes('--no-write'),
  };
}

function dataFile(index: number): string {
  const lines = [`# data file ${index}`];
  for (let record = 1; record <= 40; record++) lines.push(`record ${record} of file ${index}: ${record === 13 && index === 77 ? 'FLAGGED' : 'ok'} ${'·'.repeat(20)}`);
  return lines.join('\n') + '\n';
}

/** What the scripted model writes about the files it read last: one entry per record. */
function notes(first: number, count: number): string {
  const lines: string[] = [];
  for (let index = Math.max(1, first); index < first + count; index++) {
    lines.push(`file${index}.txt: ${Array.from({ length: 40 }, (_, record) => `r${record + 1} ${record === 12 && index === 77 ? 'FLAGGED' : 'ok'}`).join(', ')}`);
  }
  return lines.join('\n');
}

function systemText(body: MessagesRequestBody): string {
  const system = body.system;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

function lastUserText(body: MessagesRequestBody): string {
  const last = (body.messages as Anthropic.MessageParam[]).at(-1);
  if (!last || last.role !== 'user') return '';
  return textsOf(last as never).join('\n');
}

function answered(body: MessagesRequestBody): boolean {
  const last = (body.messages as Anthropic.MessageParam[]).at(-1);
  return Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
}

/** The survey's reads, five per response, each reply carrying notes on the previous five. */
function surveyer(files: number): (body: MessagesRequestBody) => ScriptedReply | undefined {
  let step = 0;
  return (body) => {
    if (lastUserText(body).includes('CONTEXT COMPACTION')) {
      return reply.text(`<analysis>Went through the reads.</analysis><summary>1. Primary request: read every file under data/ and report.\n8. Current work: read files 1 to ${step * READS_PER_STEP}; file 77 marks record 13 as FLAGGED.\n9. Next step: read the next files.</summary>`);
    }
    if (step * READS_PER_STEP >= files) return undefined;
    step++;
    const first = (step - 1) * READS_PER_STEP + 1;
    const count = Math.min(READS_PER_STEP, files - first + 1);
    return reply.message([
      { type: 'text', text: `Notes so far:\n${notes(first - READS_PER_STEP, READS_PER_STEP)}\nReading files ${first} to ${first + count - 1}.` },
      ...Array.from({ length: count }, (_, offset) => ({ type: 'tool_use' as const, name: 'read_file', input: { path: `data/file${first + offset}.txt` } })),
    ]);
  };
}

const REPORT = 'Read every file under data/: each holds 40 numbered records; only file 77 marks record 13 as FLAGGED.';

async function runOne(mode: Mode, window: number, options: Options, root: string): Promise<Result> {
  const fake = await startFakeAnthropic();
  fake.setModel(MODEL, { max_input_tokens: window, max_tokens: 64_000 });
  const workspace = path.join(root, `ws-${mode}-${window}`);
  fs.mkdirSync(path.join(workspace, 'data'), { recursive: true });
  for (let index = 1; index <= options.files; index++) fs.writeFileSync(path.join(workspace, 'data', `file${index}.txt`), dataFile(index));
  const isChild = (body: MessagesRequestBody) => systemText(body).includes('You are a subagent');
  const survey = surveyer(options.files);
  fake.setResponder((body): ScriptedReply => {
    if (mode === 'subagent' && !isChild(body)) {
      if (lastUserText(body).includes('CONTEXT COMPACTION')) return reply.text('<analysis>-</analysis><summary>1. Primary request: survey data/.</summary>');
      return answered(body) ? reply.text('The survey found one flagged record: file 77, record 13.') : reply.toolUse('task', { description: 'Survey data/', prompt: `Read every file under data/ (file1.txt to file${options.files}.txt) and report anything unusual.`, agent_type: 'explore' });
    }
    return survey(body) ?? reply.text(mode === 'subagent' ? REPORT : `Done. ${REPORT}`);
  });
  const events: AgentEvent[] = [];
  const started = Date.now();
  try {
    const { session, handle } = await startAgentSession({
      config: { apiKey: fake.apiKey, baseURL: fake.url, model: MODEL, maxOutputTokens: 4096, approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] }, trusted: true, ripgrepPath: undefined, contextWindow: window },
      workspaceRoot: workspace,
      store: new FileSessionStore(path.join(root, `store-${mode}-${window}`)),
      approver: { requestApproval: async () => ({ approved: true }) },
      onEvent: (event) => events.push(event),
    });
    const stop = await session.send('Survey the data folder and tell me what stands out.');
    if (stop !== 'end_turn') throw new Error(`${mode} ${window}: the turn ended with ${stop}`);
    const wallMs = Date.now() - started;
    const usages = events.filter((event): event is Extract<AgentEvent, { type: 'usage' }> => event.type === 'usage');
    const prompt = (event: Extract<AgentEvent, { type: 'usage' }>) => promptTokensFromUsage(event.usage);
    const parent = usages.filter((event) => event.childId === undefined);
    const child = usages.filter((event) => event.childId !== undefined);
    const childStarted = events.find((event): event is Extract<AgentEvent, { type: 'subagent_started' }> => event.type === 'subagent_started');
    const childTranscript = childStarted ? await readTranscript(childStarted.transcriptPath) : undefined;
    const compactions = (entries: Awaited<ReturnType<typeof readTranscript>>['entries'] | undefined) => (entries ?? []).filter((entry) => entry.type === 'compaction' && entry.compaction.trigger !== 'drop').length;
    const parentTranscript = await readTranscript(handle.transcriptPath);
    handle.close();
    return {
      mode,
      window,
      parentRequests: parent.length,
      parentPromptTokens: parent.reduce((sum, event) => sum + prompt(event), 0),
      parentFinalContext: session.context.gauge().usedTokens,
      parentCompactions: compactions(parentTranscript.entries),
      childRequests: child.length,
      childPromptTokens: child.reduce((sum, event) => sum + prompt(event), 0),
      childCompactions: compactions(childTranscript?.entries),
      parentCostUsd: parent.reduce((sum, event) => sum + event.costUsd, 0),
      childCostUsd: child.reduce((sum, event) => sum + event.costUsd, 0),
      rejected: fake.messageRequests().filter((request) => request.reply?.status !== 200).length,
      wallMs,
    };
  } finally {
    await fake.close();
  }
}

export async function runSubagentBench(argv: string[] = []): Promise<string> {
  const options = parseArgs(argv);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-sub-bench-'));
  const results: Result[] = [];
  const started = Date.now();
  try {
    for (const window of options.windows) {
      for (const mode of ['direct', 'subagent'] as const) {
        const result = await runOne(mode, window, options, root);
        results.push(result);
        console.error(`${String(window / 1000).padStart(3)}k ${mode.padEnd(8)} parent=${result.parentPromptTokens} child=${result.childPromptTokens} cost=$${(result.parentCostUsd + result.childCostUsd).toFixed(4)} (${(result.wallMs / 1000).toFixed(1)} s)`);
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

function render(results: Result[], options: Options, wallMs: number, argv: string[]): string {
  const out: string[] = [START, '## Subagents (bench/subagents.ts)', ''];
  out.push(`Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}. Wall time ${(wallMs / 1000).toFixed(0)} s.`, '');
  out.push(`Command: \`node --require tsx/cjs bench/subagents.ts${argv.length ? ' ' + argv.join(' ') : ''}\` (also run by \`npm run bench\`).`, '');
  out.push(
    `One survey of ${options.files} files (2.3 KB each) through the real AgentSession loop against the fake API (its BPE token counts and prompt cache, ${MODEL} list prices), with a scripted model that reads five files per response and writes a line of notes per file. ` +
      '*direct*: the main agent does the reads itself. *subagent*: it sends one `task` (explore) and the child does the same reads in its own context, then reports in one line. ' +
      '*Prompt tokens* add up every request\'s prompt (uncached input + cache reads + cache writes); *context at end* is the parent\'s gauge after the turn; compactions exclude deterministic drops.',
    '',
  );
  out.push('| window | mode | parent requests | parent prompt tokens | parent context at end | parent compactions | child requests | child prompt tokens | child compactions | parent cost | child cost | total cost | rejected | wall |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    out.push(
      `| ${n(r.window)} | ${r.mode} | ${r.parentRequests} | ${n(r.parentPromptTokens)} | ${n(r.parentFinalContext)} | ${r.parentCompactions} | ${r.mode === 'subagent' ? r.childRequests : '-'} | ${r.mode === 'subagent' ? n(r.childPromptTokens) : '-'} | ${r.mode === 'subagent' ? r.childCompactions : '-'} | ${usd(r.parentCostUsd)} | ${r.mode === 'subagent' ? usd(r.childCostUsd) : '-'} | ${usd(r.parentCostUsd + r.childCostUsd)} | ${r.rejected} | ${(r.wallMs / 1000).toFixed(1)} s |`,
    );
  }
  out.push('');
  for (const window of options.windows) {
    const direct = results.find((r) => r.window === window && r.mode === 'direct');
    const sub = results.find((r) => r.window === window && r.mode === 'subagent');
    if (!direct || !sub) continue;
    out.push(
      `- ${n(window)} window: with a subagent the parent's context ends at ${n(sub.parentFinalContext)} tokens instead of ${n(direct.parentFinalContext)}, its prompts total ${n(sub.parentPromptTokens)} tokens instead of ${n(direct.parentPromptTokens)}; ` +
        `the child's ${n(sub.childPromptTokens)} prompt tokens are where the reading went; total cost ${usd(sub.parentCostUsd + sub.childCostUsd)} against ${usd(direct.parentCostUsd)} direct.`,
    );
  }
  out.push('', END);
  return out.join('\n');
}

if (require.main === module) {
  // The sessions started the OS sandbox's proxies; they would keep the process alive.
  runAsScript(() => runSubagentBench(process.argv.slice(2)), () => shutdownOsSandbox());
}

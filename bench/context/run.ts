/**
 * One replayed session: the real AgentSession loop (real tools on the generated workspace, the real
 * SDK) against the fake API, whose responder is the simulated model. Returns what the table reports.
 */
import { word } from '../../src/frontends/words';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startAgentSession } from '../../src/core/agent/factory';
import type { ContextStrategy } from '../../src/core/agent/session';
import { CONTEXT_DEFAULTS } from '../../src/core/context/defaults';
import type { ContextEngineOptions } from '../../src/core/context/engineTypes';
import { blockText, blocksOf } from '../../src/core/model/content';
import type { MessageParam } from '../../src/core/model/messages';
import { promptTokensFromUsage } from '../../src/core/model/usage';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { startFakeAnthropic, type FakeAnthropic } from '../../test/fake-anthropic/server';
import { countTextTokens } from '../../test/fake-anthropic/tokens';
import { factText, makeFacts, SimModel, type NeedStats } from './simModel';
import { makeStrategy, recordingEngine, type EstimateSample, type StrategyId } from './strategies';
import { createWorkspace, prng, type WorkspaceInfo } from './workspace';

export type Mode = 'single' | 'turns';

export interface RunSpec {
  strategy: StrategyId;
  rolling: boolean;
  mode: Mode;
  window: number;
  steps: number;
  turns: number;
}

export interface RunResult {
  spec: RunSpec;
  finished: boolean;
  stepsDone: number;
  rejectedForLength: number;
  invalid: number;
  firstError: string | undefined;
  redone: number;
  factsKept: number;
  factsFinal: boolean;
  peakUtilization: number;
  summaries: number;
  requests: number;
  prefillRequests: number;
  uncached: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
  cost: number;
  estimates: EstimateSample[];
  /** Tokens of each canonical message (the fake's BPE), for the 85% reference. */
  canonicalTokens: number[] | undefined;
  baseTokens: number;
  wallMs: number;
  /** The steps that needed an earlier output exactly, and how they got it. */
  need: NeedStats;
  /** Cost of the requests that asked for an earlier output (recall or a re-run). */
  fetchCost: number;
}

export const FACTS = 20;

export function costOf(r: Pick<RunResult, 'uncached' | 'cacheWrite' | 'cacheRead' | 'output'>): number {
  return r.uncached + 1.25 * r.cacheWrite + 0.1 * r.cacheRead + 5 * r.output;
}

function prompts(spec: RunSpec): string[] {
  const facts = makeFacts(FACTS);
  if (spec.mode === 'single') {
    return [
      `Task: do steps 1-${spec.steps} of the maintenance plan, one tool call per step, in order. ` +
        `Remember these facts; the final answer must list every codeword:\n${facts.map(factText).join('\n')}\n` +
        'When every step is done, give the final answer listing all the codewords.',
    ];
  }
  const per = Math.ceil(spec.steps / spec.turns);
  return Array.from({ length: spec.turns }, (_, t) => {
    const from = t * per + 1;
    const to = Math.min(spec.steps, (t + 1) * per);
    const last = t === spec.turns - 1;
    return (
      `Turn ${t + 1} of ${spec.turns}: do steps ${from}-${to} of the maintenance plan, one tool call per step. ` +
      `Remember this fact, the final answer needs it: ${factText(facts[t % FACTS]!)}.` +
      (last ? ' After these steps, give the final answer listing every codeword I told you in all turns.' : '')
    );
  });
}

/** Pause before turn t (20-turn mode): some short, some past the 5-minute cache TTL. */
function pauseBefore(turn: number): number {
  if (turn === 0) return 0;
  const rand = prng(777 + turn);
  if (turn % 4 === 0) return (6 + rand() * 4) * 60_000;
  if (turn % 4 === 2) return (1 + rand() * 2) * 60_000;
  return 20_000 + rand() * 40_000;
}

function messageTokens(message: MessageParam): number {
  let tokens = 3;
  for (const block of blocksOf(message)) tokens += countTextTokens(blockText(block)) + (block.type === 'text' ? 0 : 4);
  return tokens;
}

/** `template`: unused beyond its shape; every run gets a fresh copy of the workspace, since the workload changes and deletes files. */
export async function runOne(spec: RunSpec, template: WorkspaceInfo, tmp: string): Promise<RunResult> {
  const started = Date.now();
  void template;
  const workspace = createWorkspace(path.join(tmp, 'ws'));
  const model = `bench-${spec.window / 1000}k`;
  const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);
  let offset = 0;
  const fake: FakeAnthropic = await startFakeAnthropic({ now: () => T0, models: { [model]: { max_input_tokens: spec.window, max_tokens: 64_000 } } });
  const advance = (ms: number) => {
    offset += ms;
    fake.advanceClock(ms);
  };
  const now = () => T0 + offset;
  // The seeds come without recall: with them the model runs an earlier call again instead.
  const sim = new SimModel(spec.steps, makeFacts(FACTS), workspace, spec.strategy === 'evergreen');
  let rejectedForLength = 0;
  let invalid = 0;
  let firstError: string | undefined;
  // Counts the fake's 400s and forgets finished requests (their bodies are large).
  const drain = () => {
    const keep = [];
    for (const request of fake.requests) {
      if (!request.reply) {
        keep.push(request);
        continue;
      }
      if (request.path !== '/v1/messages' || request.reply.status < 400) continue;
      const message = String((request.reply.body as { error?: { message?: string } } | undefined)?.error?.message ?? '');
      if (/prompt is too long/i.test(message)) rejectedForLength++;
      else invalid++;
      firstError ??= `${request.reply.status}: ${message.slice(0, 160)}`;
    }
    fake.requests.splice(0, fake.requests.length, ...keep);
  };
  let requestIndex = 0;
  fake.setResponder((request) => {
    drain();
    advance(3000 + prng(31 + requestIndex++)() * 5000);
    return sim.respond(request);
  });

  const debug = process.env.CTX_BENCH_DEBUG === '1';
  // One line per request (index, steps done, uncached, cache write, cache read, output): where the cost goes.
  const trace = process.env.CTX_BENCH_TRACE ? `${process.env.CTX_BENCH_TRACE}-${spec.strategy}${spec.rolling ? '-rb' : ''}-${spec.window / 1000}k-${spec.mode}.tsv` : undefined;
  if (trace) fs.writeFileSync(trace, '');
  const estimates: EstimateSample[] = [];
  const seedDir = path.join(tmp, 'seed-files');
  const factory = (options: ContextEngineOptions): ContextStrategy =>
    spec.strategy === 'evergreen' ? recordingEngine(options, estimates) : makeStrategy(spec.strategy, options, { rolling: spec.rolling, dir: seedDir });
  let uncached = 0;
  let cacheWrite = 0;
  let cacheRead = 0;
  let output = 0;
  let peak = 0;
  let requests = 0;
  let fetchCost = 0;
  let turnError: string | undefined;
  const { session } = await startAgentSession({
    config: {
      apiKey: fake.apiKey,
      baseURL: fake.url,
      model,
      maxOutputTokens: CONTEXT_DEFAULTS.maxOutputTokens,
      approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] },
      trusted: true,
      ripgrepPath: undefined,
      maxRetries: 0,
      contextStrategy: factory,
      now,
      maxToolRoundsPerTurn: spec.steps * 4 + 100,
    },
    workspaceRoot: workspace.root,
    store: new FileSessionStore(path.join(tmp, 'store')),
    approver: { requestApproval: async () => ({ approved: true }) },
    onEvent: (event) => {
      if (debug && (event.type === 'compaction' || event.type === 'compaction_failed' || event.type === 'tier' || event.type === 'error' || event.type === 'turn_finished')) {
        const { summary, ...rest } = event as { summary?: string };
        console.error(`[${spec.strategy}] step ${sim.stepsDone}`, JSON.stringify(rest), summary ? `summary facts=${(summary.match(/FACT-/g) ?? []).length} ${/completed steps 1-\d+/.exec(summary)?.[0] ?? ''}` : '');
      }
      if (event.type === 'usage') {
        requests++;
        uncached += event.usage.inputTokens;
        cacheWrite += event.usage.cacheWriteTokens;
        cacheRead += event.usage.cacheReadTokens;
        output += event.usage.outputTokens;
        if (sim.fetchRequests[requests - 1]) fetchCost += costOf({ uncached: event.usage.inputTokens, cacheWrite: event.usage.cacheWriteTokens, cacheRead: event.usage.cacheReadTokens, output: event.usage.outputTokens });
        peak = Math.max(peak, promptTokensFromUsage(event.usage) / spec.window);
        if (trace) fs.appendFileSync(trace, `${requests}\t${sim.stepsDone}\t${event.usage.inputTokens}\t${event.usage.cacheWriteTokens}\t${event.usage.cacheReadTokens}\t${event.usage.outputTokens}\n`);
      } else if (event.type === 'error') {
        turnError ??= word(event.message);
      }
    },
  });
  try {
    for (const [turn, prompt] of prompts(spec).entries()) {
      if (spec.mode === 'turns') advance(pauseBefore(turn));
      const stop = await session.send(prompt);
      drain();
      if (stop !== 'end_turn' && stop !== 'error') turnError ??= `turn stopped: ${stop}`;
      // A 400 (or any error) ends the replay: the run did not finish.
      if (stop === 'error' || turnError !== undefined || sim.gaveUp) break;
    }
  } finally {
    drain();
    await fake.close();
  }
  firstError ??= turnError;
  // Not an API error: the turn ends early and, in 20-turn mode, the next prompt restates the work.
  if (sim.lostTask > 0) firstError ??= `the model saw no user request (task lost) in ${sim.lostTask} request(s) and ended the turn`;
  const allSteps = sim.stepsDone >= spec.steps;
  const canonical = spec.strategy === 'evergreen' ? session.history.map(messageTokens) : undefined;
  const base = countTextTokens(session.systemPrompt) + countTextTokens(JSON.stringify(session.toolSpecs)) + 346;
  const result: RunResult = {
    spec,
    finished: allSteps && sim.final !== undefined && rejectedForLength === 0 && invalid === 0 && turnError === undefined,
    stepsDone: sim.stepsDone,
    rejectedForLength,
    invalid,
    firstError,
    redone: sim.redone,
    factsKept: sim.final?.factsKept ?? sim.lastFactsSeen,
    factsFinal: sim.final !== undefined,
    peakUtilization: peak,
    summaries: sim.summaries,
    requests,
    prefillRequests: sim.prefillRequests,
    uncached,
    cacheWrite,
    cacheRead,
    output,
    cost: 0,
    estimates,
    canonicalTokens: canonical,
    baseTokens: base,
    wallMs: Date.now() - started,
    need: { ...sim.need },
    fetchCost,
  };
  result.cost = costOf(result);
  fs.rmSync(path.join(tmp, 'store'), { recursive: true, force: true });
  fs.rmSync(seedDir, { recursive: true, force: true });
  fs.rmSync(path.join(tmp, 'ws'), { recursive: true, force: true });
  return result;
}

/**
 * Property tests of the context engine (the invariants in docs/architecture.md, "Context engine"): random agent sessions
 * of user prompts, assistant text, assistant tool calls (1-3 per message) with results of random
 * sizes, idle gaps and windows from 20k to 200k. After every request the engine prepares — and
 * every summary request it sends — the messages satisfy the API's rules; the transcript written so
 * far folds to exactly the engine's state; and an engine resumed from that fold prepares the
 * identical next request.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { ContextEngine } from '../../src/core/context/engine';
import type { PreparedRequest } from '../../src/core/context/engineTypes';
import { foldTranscript } from '../../src/core/agent/fold';
import { buildLiveView } from '../../src/core/context/liveView';
import type { ModelRequest } from '../../src/core/model/backend';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import { assertApiValid, goodSummary, Rig, SYSTEM, tooLongError, TOOLS } from './context.harness';
import { useTempDirs } from '../support/tempDirs';

type ToolName = 'read_file' | 'grep_search' | 'list_files' | 'run_shell';
interface Call {
  name: ToolName;
  pathIndex: number;
  /** Result size as a share of the window (in tokens at 4 chars each), or an absolute huge size. */
  size: { share: number } | { chars: number };
  isError: boolean;
}
interface Step {
  reply: { kind: 'text' } | { kind: 'tools'; calls: Call[] };
  idleMs: number;
  /** Between turns: the user runs "Compact Conversation" first. */
  manualCompact: boolean;
  /** Between turns (after any manual compaction): the user runs "Undo Last Compaction" (often refused). */
  undo: boolean;
}
type SummaryKind = 'ok' | 'empty' | 'no-summary' | 'error';
/**
 * A fixed seed keeps CI deterministic (the coverage check below must not depend on luck); set
 * FC_SEED to explore other random sessions, e.g. `FC_SEED=$RANDOM npx mocha test/unit/context.properties.test.ts`.
 */
const PROPERTY_SEED = Number(process.env.FC_SEED ?? 20_261_122);

interface Scenario {
  window: number;
  /** The "real" tokenizer of this run: characters per token (the engine starts by assuming 4). */
  charsPerToken: number;
  summaryKinds: SummaryKind[];
  steps: Step[];
  /** Tier 3's early clearing threshold (1 = only on a cold cache, so tiers 1-2 get their turn). */
  clearUtilization: number;
  /** Results tiers 1-3 never touch (a huge number leaves summaries as the only way down). */
  keepRecentResults: number;
}

const PATHS = ['src/a.ts', './src/a.ts', 'src/b.ts', 'README.md', 'lib/util/c.ts', 'test/x.test.ts'];

/** A session that must reach tier 1 (big reads of distinct files, early clearing off), run before the random ones. */
const BUDGET_TRIM_SESSION: Scenario = {
  window: 60_000,
  charsPerToken: 4,
  summaryKinds: ['ok'],
  clearUtilization: 1,
  keepRecentResults: 3,
  steps: [0, 2, 3, 4, 5, 0, 2].map((pathIndex) => ({
    reply: { kind: 'tools' as const, calls: [{ name: 'read_file' as const, pathIndex, size: { chars: 35_000 }, isError: false }] },
    idleMs: 1_000,
    manualCompact: false,
    undo: false,
  })),
};

const callArb: fc.Arbitrary<Call> = fc.record({
  name: fc.constantFrom<ToolName>('read_file', 'grep_search', 'list_files', 'run_shell'),
  pathIndex: fc.nat(PATHS.length - 1),
  size: fc.oneof(
    { weight: 6, arbitrary: fc.record({ share: fc.double({ min: 0.0005, max: 0.02, noNaN: true }) }) },
    { weight: 3, arbitrary: fc.record({ share: fc.double({ min: 0.02, max: 0.08, noNaN: true }) }) },
    { weight: 1, arbitrary: fc.record({ chars: fc.integer({ min: 31 * 1024, max: 80_000 }) }) },
  ),
  isError: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
});

const stepArb: fc.Arbitrary<Step> = fc.record({
  reply: fc.oneof(
    { weight: 1, arbitrary: fc.constant({ kind: 'text' as const }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('tools' as const), calls: fc.array(callArb, { minLength: 1, maxLength: 3 }) }) },
  ),
  idleMs: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 60_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 5 * 60_000 + 1, max: 30 * 60_000 }) }),
  manualCompact: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  undo: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
});

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  window: fc.integer({ min: 20_000, max: 200_000 }),
  charsPerToken: fc.double({ min: 3, max: 5, noNaN: true }),
  summaryKinds: fc.array(fc.constantFrom<SummaryKind>('ok', 'ok', 'ok', 'ok', 'empty', 'no-summary', 'error'), { minLength: 1, maxLength: 8 }),
  steps: fc.array(stepArb, { minLength: 10, maxLength: 60, size: 'max' }),
  clearUtilization: fc.constantFrom(0.3, 0.5, 1, 1),
  keepRecentResults: fc.constantFrom(3, 3, 3, 1_000),
});

/** An independent "tokenizer": block text plus a little structure per block, at the run's ratio. */
function trueTokens(request: { system: string; tools: unknown; messages: readonly MessageParam[] }, charsPerToken: number): number {
  let chars = request.system.length + JSON.stringify(request.tools).length;
  for (const message of request.messages) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    for (const block of blocks) {
      chars += 12;
      if (block.type === 'text') chars += block.text.length;
      else if (block.type === 'tool_use') chars += block.name.length + JSON.stringify(block.input).length;
      else if (block.type === 'tool_result') chars += typeof block.content === 'string' ? block.content.length : JSON.stringify(block.content).length;
    }
  }
  return Math.ceil(chars / charsPerToken);
}

function resultText(call: Call, window: number, n: number): string {
  const chars = 'share' in call.size ? Math.max(1, Math.round(call.size.share * window * 4)) : call.size.chars;
  // read_file pages are capped at the persist threshold by the tool itself (agent/factory.ts).
  const capped = call.name === 'read_file' ? Math.min(chars, 30 * 1024) : chars;
  const line = `${call.name} ${PATHS[call.pathIndex]} result ${n} `.padEnd(79, '.') + '\n';
  return line.repeat(Math.ceil(capped / line.length)).slice(0, capped);
}

function inputOf(call: Call): Record<string, unknown> {
  const target = PATHS[call.pathIndex]!;
  switch (call.name) {
    case 'read_file':
      return { path: target };
    case 'grep_search':
      return { pattern: 'TODO', path: target };
    case 'list_files':
      return { path: path.posix.dirname(target) };
    case 'run_shell':
      return { command: `cat ${target}` };
  }
}

/** The stub summarizer: a pure function of the request, so the original and a resumed engine get the same replies. */
function summaryReply(scenario: Scenario) {
  return (request: ModelRequest): string | Error => {
    const tokens = trueTokens(request, scenario.charsPerToken);
    if (tokens > scenario.window) return tooLongError(tokens, scenario.window);
    const kind = scenario.summaryKinds[(request.messages.length + tokens) % scenario.summaryKinds.length]!;
    switch (kind) {
      case 'ok':
        return goodSummary(request.messages.length);
      case 'empty':
        return '';
      case 'no-summary':
        return 'I cannot summarize this conversation.';
      case 'error':
        return new Error('overloaded (simulated)');
    }
  };
}

function checkFold(rig: Rig, transcriptPath: string, where: string): void {
  const fold = foldTranscript(rig.entries);
  assert.deepEqual(fold.canonical, rig.history, `${where}: folded canonical history`);
  assert.deepEqual(buildLiveView(fold.canonical, fold.engine.live, transcriptPath), rig.engine.liveView(), `${where}: folded live view`);
  const snapshot = rig.engine.snapshot;
  assert.deepEqual(fold.engine.live.boundary, snapshot.live.boundary, `${where}: folded boundary`);
  assert.deepEqual(fold.engine.live.edits, snapshot.live.edits, `${where}: folded edits`);
  assert.deepEqual(fold.engine.lastRequest, snapshot.lastRequest, `${where}: folded token anchor`);
  assert.equal(fold.engine.consecutiveFailures, snapshot.consecutiveFailures, `${where}: folded failure count`);
  assert.equal(fold.engine.pendingWaste, snapshot.pendingWaste, `${where}: folded batching account`);
  assert.deepEqual(fold.engine.undoable, snapshot.undoable, `${where}: folded undo point`);
  // Every field, including those a resume once lost (the compact tool's schedule, requests since a compaction, the cache share).
  assert.deepEqual(fold.engine, snapshot, `${where}: folded engine state`);
}

async function runScenario(scenario: Scenario, dir: string): Promise<Rig> {
  const transcriptPath = path.join(dir, 'transcript.jsonl');
  const toolResultsDir = path.join(dir, 'tool-results');
  const rig = new Rig({ window: scenario.window, transcriptPath, toolResultsDir, fallbackReply: summaryReply(scenario), settings: { clearUtilization: scenario.clearUtilization, keepRecentResults: scenario.keepRecentResults } });
  const signal = new AbortController().signal;
  let summariesChecked = 0;

  const checkSummaryRequests = (where: string) => {
    for (; summariesChecked < rig.summaryRequests.length; summariesChecked++) {
      const request = rig.summaryRequests[summariesChecked]!;
      assertApiValid(request.messages, `${where}: summary request ${summariesChecked}`);
      assert.equal(request.system, SYSTEM, `${where}: the summary request keeps the system prompt`);
      assert.deepEqual(request.tools, TOOLS, `${where}: the summary request keeps the tools`);
    }
  };

  /** A resumed engine (fold of the transcript so far) must prepare exactly what the live one prepares next. */
  const resumedPrepare = async (): Promise<PreparedRequest> => {
    const fold = foldTranscript(rig.entries);
    const resumedEntries: TranscriptEntry[] = [];
    const resumed = new ContextEngine({
      ...rig.engineOptions(),
      history: () => fold.canonical,
      transcript: { append: (entry) => resumedEntries.push(entry), transcriptPath, toolResultsDir },
      emit: () => undefined,
      model: { stream: async (request) => {
        const value = summaryReply(scenario)(request);
        if (value instanceof Error) throw value;
        return { content: value ? [{ type: 'text', text: value, citations: null }] : [], stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0 };
      } },
      initial: fold.engine,
    });
    return resumed.prepareRequest(signal);
  };

  const prepareLikeTheSession = async (where: string): Promise<PreparedRequest | undefined> => {
    for (let recoveries = 0; ; recoveries++) {
      const expected = await resumedPrepare();
      const prepared = await rig.engine.prepareRequest(signal);
      checkSummaryRequests(where);
      assert.deepEqual(prepared.messages, expected.messages, `${where}: a resumed engine sends the same messages`);
      assert.deepEqual(prepared.cache, expected.cache, `${where}: a resumed engine places the same cache breakpoints`);
      assertApiValid(prepared.messages, where);
      assert.deepEqual(prepared.messages, rig.engine.liveView(), `${where}: the request is the live view`);
      assert.equal(prepared.cache.system, true);
      const indexes = prepared.cache.messageIndexes;
      assert.ok(indexes.includes(prepared.messages.length - 1), `${where}: the newest message carries a breakpoint`);
      assert.ok(indexes.length <= 3 && indexes.every((i, k) => i >= 0 && i < prepared.messages.length && (k === 0 || i > indexes[k - 1]!)), `${where}: breakpoints ${JSON.stringify(indexes)}`);
      checkFold(rig, transcriptPath, where);
      const tokens = trueTokens({ system: SYSTEM, tools: TOOLS, messages: prepared.messages }, scenario.charsPerToken);
      if (tokens <= scenario.window) return prepared;
      // The API refuses: the session asks the engine to recover (at most twice), then gives up on the turn.
      if (recoveries >= 2) return undefined;
      const error = tooLongError(tokens, scenario.window);
      await rig.engine.recoverFromTooLong(prepared, recoveries, error, signal);
      checkSummaryRequests(`${where} (recovery)`);
      checkFold(rig, transcriptPath, `${where} (after recovery)`);
    }
  };

  let results = 0;
  for (const [index, step] of scenario.steps.entries()) {
    const where = `step ${index}`;
    const last = rig.history.at(-1);
    const turnOver = !last || last.role === 'assistant' || (typeof last.content !== 'string' && !last.content.some((b) => b.type === 'tool_result'));
    if (turnOver) {
      if (step.manualCompact && rig.history.length > 0) {
        await rig.engine.compact('the parser work', 'manual', signal);
        checkSummaryRequests(`${where} manual`);
        assertApiValid(rig.engine.liveView().concat(last?.role === 'assistant' ? [{ role: 'user', content: 'next' }] : []), `${where} after manual compaction`);
        checkFold(rig, transcriptPath, `${where} after manual compaction`);
      }
      if (step.undo) {
        const outcome = await rig.engine.undoLastCompaction(signal);
        if (outcome.ok) assert.ok(rig.engine.estimateTokens(rig.engine.liveView()) <= rig.engine.budget.threshold, `${where}: an undo never brings back a view over the threshold`);
        checkFold(rig, transcriptPath, `${where} after undo (${outcome.ok ? 'done' : 'refused'})`);
      }
      if (!last || last.role === 'assistant') rig.user(`Task ${index}: please continue with ${PATHS[index % PATHS.length]}`);
    }
    rig.advance(step.idleMs);
    const prepared = await prepareLikeTheSession(where);
    if (!prepared) {
      // The turn ended with an error: nothing was appended; the user types again.
      rig.assistant('(the request failed)');
      continue;
    }
    const tokens = trueTokens({ system: SYSTEM, tools: TOOLS, messages: prepared.messages }, scenario.charsPerToken);
    rig.advance(500);
    rig.respond(prepared, tokens, 40, 0);
    checkFold(rig, transcriptPath, `${where} after the response`);
    if (step.reply.kind === 'text') {
      rig.assistant(`Done with step ${index}.`);
    } else {
      const ids = step.reply.calls.map(() => rig.nextId());
      rig.push({
        role: 'assistant',
        content: [{ type: 'text', text: `Step ${index}: calling tools.` }, ...step.reply.calls.map((call, i): ContentBlockParam => ({ type: 'tool_use', id: ids[i]!, name: call.name, input: inputOf(call) }))],
      });
      const blocks: ContentBlockParam[] = [];
      for (const [i, call] of step.reply.calls.entries()) {
        const content = await rig.engine.onToolResult({ toolUseId: ids[i]!, toolName: call.name, content: resultText(call, scenario.window, ++results) });
        assert.ok(content.length <= 50_000, `${where}: tier 0 lets at most 50,000 characters into the context (got ${content.length})`);
        blocks.push({ type: 'tool_result', tool_use_id: ids[i]!, content, ...(call.isError ? { is_error: true } : {}) });
      }
      rig.push({ role: 'user', content: blocks });
    }
    checkFold(rig, transcriptPath, `${where} after the reply`);
  }
  // One last request over the final history.
  if (rig.history.at(-1)?.role === 'assistant') rig.user('One more thing.');
  await prepareLikeTheSession('final');
  return rig;
}

describe('context engine properties (random sessions)', function () {
  const suiteTemp = useTempDirs('all');
  // Passing runs take seconds; a failure's shrinking over long sessions can take minutes.
  this.timeout(900_000);
  let root: string;
  let run = 0;
  before(() => {
    root = suiteTemp.make('evergreen-ctx-prop-');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('keeps every request API-valid, the fold equal to the engine state, and resume exact', async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const dir = path.join(root, `run-${++run}`);
        fs.mkdirSync(dir, { recursive: true });
        const rig = await runScenario(scenario, dir);
        for (const entry of rig.entries) {
          const key = entry.type === 'compaction' ? `compaction:${entry.compaction.trigger}` : entry.type === 'tier_edit' ? `tier:${entry.tier}` : entry.type === 'event' ? `event:${entry.name}` : entry.type;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      }),
      { numRuns: 40, endOnFailure: true, seed: PROPERTY_SEED, examples: [[BUDGET_TRIM_SESSION]] },
    );
    // The runs must actually reach the interesting paths, or the property proves little.
    for (const key of ['compaction:auto', 'compaction:manual', 'tier:microcompact', 'tier:snip', 'tier:budget', 'persisted_output', 'compaction_failed', 'compaction_undo']) {
      assert.ok((seen.get(key) ?? 0) > 0, `no ${key} in 40 random sessions: ${JSON.stringify([...seen])}`);
    }
  });

  it('compacts inside one long agentic turn of many tool calls and keeps every request valid', async () => {
    // One prompt driving 120 tool rounds in a 30k window: no user message ever arrives to compact at.
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 20_000, max: 40_000 }), fc.array(callArb, { minLength: 120, maxLength: 120 }), async (window, calls) => {
        const dir = path.join(root, `turn-${++run}`);
        fs.mkdirSync(dir, { recursive: true });
        const scenario: Scenario = {
          window,
          charsPerToken: 4,
          summaryKinds: ['ok'],
          // Summaries specifically: with tiers 1-3 off (every result counts as recent) only a summary can keep this turn going.
          clearUtilization: 1,
          keepRecentResults: 1_000,
          steps: calls.map((call) => ({ reply: { kind: 'tools', calls: [{ ...call, size: 'share' in call.size ? call.size : { share: 0.05 } }] }, idleMs: 1000, manualCompact: false, undo: false })),
        };
        const rig = await runScenario(scenario, dir);
        const prompts = rig.history.filter((m) => m.role === 'user' && typeof m.content !== 'string' && m.content.some((b) => b.type === 'text'));
        assert.equal(prompts.length, 1, 'one prompt drove the whole turn');
        const compactions = rig.eventsOf('compaction');
        assert.ok(compactions.length >= 1, 'compacted inside the turn');
        assert.ok(compactions.every((c) => c.trigger === 'auto'), JSON.stringify(compactions.map((c) => c.trigger)));
      }),
      { numRuns: 5, endOnFailure: true, seed: PROPERTY_SEED },
    );
  });
});

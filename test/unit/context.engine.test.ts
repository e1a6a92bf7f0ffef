/**
 * ContextEngine behaviour (docs/architecture.md, "Context engine") with a stub summary model, a fake clock and a
 * transcript sink: auto-compaction (also inside one long turn), failures and the circuit breaker,
 * manual / tool / reactive compaction, restored files, cache batching of tier edits, cache hints and
 * the context events the gauge renders.
 */
import { said } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ContextWindowTooSmallError } from '../../src/core/context/engineTypes';
import { dropOldestRounds, OMITTED_RESULT_TEXT, shrinkToolResults } from '../../src/core/context/compactionHelpers';
import { foldTranscript } from '../../src/core/agent/fold';
import { buildLiveView, CLEARED_MARK, isCleanStart } from '../../src/core/context/liveView';
import { SUMMARY_MARK } from '../../src/core/context/summary';
import type { PreparedRequest } from '../../src/core/context/engineTypes';
import { ModelError } from '../../src/core/model/errors';
import type { MessageParam } from '../../src/core/model/messages';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { assertApiValid, bulk, goodSummary, Rig, SYSTEM, textOf, tooLongError, TOOLS, type RigOptions } from './context.harness';
import { useTempDirs } from '../support/tempDirs';

const signal = () => new AbortController().signal;
/** No cost-driven clearing below the thresholds these tests steer (tier 3 then clears only on a cold cache). */
const NO_EARLY_CLEAR = { clearUtilization: 1 } as const;

function rig(options: Partial<RigOptions> & { window?: number } = {}): Rig {
  return new Rig({ window: 40_000, ...options, settings: { ...NO_EARLY_CLEAR, ...options.settings } });
}

/** Rounds of `chars`-sized run_shell results until the live view passes `tokens` (chars / 4). */
function fillTo(r: Rig, tokens: number, chars = 8_000): void {
  let n = 0;
  while (r.engine.estimateTokens(r.engine.liveView()) <= tokens) {
    r.round([{ name: 'run_shell', input: { command: `make step${++n}` }, result: bulk(chars, `out${n}`) }]);
  }
}

function compactionEntries(r: Rig) {
  return r.entries.flatMap((entry) => (entry.type === 'compaction' ? [entry.compaction] : []));
}

describe('context engine: auto-compaction', () => {
  it('compacts before the request once the context is over the threshold, keeping the newest messages verbatim', async () => {
    const r = rig();
    assert.equal(r.engine.budget.outputReserve, 8_000, '40k window: the reserve is capped at 20%');
    assert.equal(r.engine.budget.threshold, 29_200, '40k window: the margin is capped at 7%');
    r.user('Refactor the build.');
    fillTo(r, 20_000);
    let prepared = await r.prepare();
    assert.equal(r.summaryRequests.length, 0, 'under the threshold nothing is summarized');
    r.respond(prepared);
    r.assistant('Continuing.');
    r.user('Go on.');
    fillTo(r, 29_300);
    const canonicalBefore = structuredClone(r.history);
    prepared = await r.prepare();
    assert.equal(r.summaryRequests.length, 1);
    const [event] = r.eventsOf('compaction');
    assert.ok(event);
    assert.equal(event.type, 'compaction');
    assert.equal(event.trigger, 'auto');
    assert.ok(event.tokensBefore > 29_200 && event.tokensAfter < event.tokensBefore / 2, `${event.tokensBefore} -> ${event.tokensAfter}`);
    assert.ok(prepared.estimatedTokens <= r.engine.budget.threshold);
    assert.deepEqual(r.history, canonicalBefore, 'the canonical history is never edited');
    assertApiValid(prepared.messages);
    const first = prepared.messages[0]!;
    assert.equal(first.role, 'user');
    assert.ok(textOf(first).includes(SUMMARY_MARK));
    assert.ok(textOf(first).includes('summary body 2') || textOf(first).includes('summary body'), 'the summary text is in the first message');
    assert.ok(!JSON.stringify(prepared.messages).includes('Private reasoning'), 'the <analysis> part never reaches the history');
    assert.ok(!JSON.stringify(prepared.messages).includes('<analysis>'));
    // The newest round is kept verbatim.
    assert.deepEqual(prepared.messages.at(-1), r.history.at(-1));
    const [record] = compactionEntries(r);
    assert.ok(record);
    assert.equal(record.trigger, 'auto');
    assert.ok(!record.summary?.includes('Private reasoning'));
    assert.ok(isCleanStart(r.history[record.keptFrom]!), 'the kept part starts cleanly');
    assert.equal(record.stats.messagesKept, r.history.length - record.keptFrom);
    assert.equal(record.stats.messagesSummarized, record.keptFrom);
  });

  it('compacts in the middle of one long turn of many tool calls, never separating a tool_use from its result, and the turn goes on', async () => {
    const r = rig();
    r.user('Migrate every module (one prompt, hundreds of tool calls).');
    let compactions = 0;
    for (let call = 0; call < 80; call++) {
      const prepared = await r.prepare();
      assertApiValid(prepared.messages, `call ${call}`);
      assert.ok(prepared.estimatedTokens <= r.engine.budget.threshold, `call ${call}: ${prepared.estimatedTokens} tokens`);
      r.respond(prepared);
      // Two calls in one assistant message, results in the next user message: the pair must stay whole.
      r.round([
        { name: 'read_file', input: { path: `src/m${call}.ts` }, result: bulk(3_000, `m${call}`) },
        { name: 'run_shell', input: { command: `test m${call}` }, result: bulk(2_000, `t${call}`) },
      ]);
      compactions = r.eventsOf('compaction').length;
    }
    assert.ok(compactions >= 3, `compacted ${compactions} times inside the turn`);
    const prompts = r.history.filter((m) => m.role === 'user' && textOf(m).length > 0 && !JSON.stringify(m).includes('tool_result'));
    assert.equal(prompts.length, 1, 'no user message arrived during the turn');
    for (const record of compactionEntries(r)) {
      const start = r.history[record.keptFrom]!;
      assert.ok(isCleanStart(start), `kept part at ${record.keptFrom} starts with a ${start.role} message holding no tool_result`);
      assert.equal(start.role, 'assistant', 'inside a turn the kept part starts at an assistant tool call');
    }
    // Each summary saw the work up to its point: the newest summary request ends with the newest results.
    const lastSummary = r.summaryRequests.at(-1)!;
    assertApiValid(lastSummary.messages, 'summary request');
  });

  it('never starts the kept part with a tool_result whose tool_use was dropped, whatever the keep budget', async () => {
    for (const share of [0.01, 0.05, 0.1, 0.2, 0.3]) {
      const r = rig({ settings: { keepVerbatimShare: share } });
      r.user('Start.');
      fillTo(r, 29_300, 5_000);
      const prepared = await r.prepare();
      assert.equal(r.eventsOf('compaction').length, 1, `share ${share}`);
      assertApiValid(prepared.messages, `share ${share}`);
      const record = compactionEntries(r)[0]!;
      assert.ok(isCleanStart(r.history[record.keptFrom]!), `share ${share}: keptFrom ${record.keptFrom}`);
    }
  });
});

describe('context engine: compaction failures and the circuit breaker', () => {
  for (const [label, reply] of [
    ['an empty reply', ''],
    ['a reply without <summary>', '<analysis>thinking</analysis> I could not do it.'],
    ['an empty <summary>', '<analysis>x</analysis><summary>   </summary>'],
    ['a model error', new Error('overloaded')],
  ] as const) {
    it(`treats ${label} as a failure: history untouched and a compaction_failed event`, async () => {
      const r = rig();
      r.user('Start.');
      fillTo(r, 29_300);
      const before = r.engine.liveView();
      r.replies.push(reply);
      const prepared = await r.prepare();
      assert.equal(r.summaryRequests.length, 1);
      assert.deepEqual(prepared.messages, before, 'the live view is unchanged');
      assert.equal(compactionEntries(r).length, 0, 'no boundary written');
      const [failed] = r.eventsOf('compaction_failed');
      assert.ok(failed);
      assert.equal(failed.type, 'compaction_failed');
      assert.equal(failed.trigger, 'auto');
      assert.equal(failed.consecutiveFailures, 1);
      assert.equal(failed.breakerOpen, false);
      assert.ok(said(failed.message).length > 0 && said(failed.hint).includes('unchanged'));
      const recorded = r.entries.filter((entry) => entry.type === 'compaction_failed');
      assert.equal(recorded.length, 1, 'the failure is in the transcript');
      assert.equal(foldTranscript(r.entries).engine.consecutiveFailures, 1);
    });
  }

  it('opens the breaker after 3 consecutive failures; a manual compact still works and resets it', async () => {
    const r = rig({ fallbackReply: '' });
    r.user('Start.');
    fillTo(r, 29_300);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const prepared = await r.prepare();
      r.respond(prepared, prepared.estimatedTokens);
      r.round([{ name: 'run_shell', input: { command: 'ls' }, result: 'a b c' }]);
      const failed = r.eventsOf('compaction_failed').at(-1)!;
      assert.equal(failed.type, 'compaction_failed');
      assert.equal(failed.consecutiveFailures, attempt);
      assert.equal(failed.breakerOpen, attempt === 3);
    }
    assert.equal(r.engine.breakerOpen, true);
    const hint = said(r.eventsOf('compaction_failed').at(-1)!.hint);
    assert.match(hint, /-p '\/compact \[focus\]'/, 'the user is told the way forward, in the CLI its flags');
    assert.match(hint, /without --resume to start a new session/);
    assert.doesNotMatch(hint, /Compact Conversation|New Chat/, "the CLI's words name no VS Code command");
    assert.deepEqual(r.eventsOf('compaction_failed').at(-1)!.actions, ['compact', 'newChat'], 'the core chooses the buttons');
    // Auto attempts stop: no more summary requests, the request goes out as is (the API may refuse it).
    const requestsBefore = r.summaryRequests.length;
    await r.prepare();
    await r.prepare();
    assert.equal(r.summaryRequests.length, requestsBefore, 'no automatic attempt while the breaker is open');
    assert.ok(r.logs.some((line) => line.includes('paused')), 'the pause is logged');
    assert.equal(foldTranscript(r.entries).engine.consecutiveFailures, 3, 'the breaker survives a resume');
    // Manual compaction still runs, and success closes the breaker.
    r.assistant('Stopped.');
    r.replies.push(goodSummary('manual'));
    const outcome = await r.engine.compact(undefined, 'manual', signal());
    assert.equal(outcome.ok, true, said(outcome.message));
    assert.equal(r.engine.breakerOpen, false);
    assert.equal(r.engine.snapshot.consecutiveFailures, 0);
    assert.equal(foldTranscript(r.entries).engine.consecutiveFailures, 0);
    // ...and automatic compaction is armed again.
    r.user('Continue.');
    fillTo(r, 29_300);
    r.replies.push(goodSummary('auto again'));
    await r.prepare();
    assert.equal(compactionEntries(r).at(-1)!.trigger, 'auto');
  });

  it('a failed manual compaction does not count toward the breaker', async () => {
    const r = rig({ fallbackReply: '' });
    r.user('Start.');
    fillTo(r, 5_000);
    r.assistant('ok');
    for (let i = 0; i < 4; i++) {
      const outcome = await r.engine.compact(undefined, 'manual', signal());
      assert.equal(outcome.ok, false);
      assert.match(said(outcome.message), /failed/);
    }
    assert.equal(r.engine.breakerOpen, false);
    assert.equal(foldTranscript(r.entries).engine.consecutiveFailures, 0);
  });
});

describe('context engine: the summary request', () => {
  it('reuses the system prompt, tools and messages prefix and appends the instruction with the focus', async () => {
    const r = rig();
    r.user('Build the parser.');
    fillTo(r, 8_000);
    r.assistant('Parser done.');
    const live = r.engine.liveView();
    const outcome = await r.engine.compact('the auth module', 'manual', signal());
    assert.equal(outcome.ok, true, said(outcome.message));
    const request = r.summaryRequests[0]!;
    assert.equal(request.system, SYSTEM);
    assert.deepEqual(request.tools, TOOLS);
    assert.deepEqual(request.messages.slice(0, live.length), live, 'the conversation is sent as messages, unchanged (cached prefix)');
    assert.equal(request.messages.length, live.length + 1, 'after an assistant reply the instruction is a new user message');
    const instruction = textOf(request.messages.at(-1)!);
    assert.match(instruction, /<analysis>/);
    assert.match(instruction, /<summary>/);
    assert.match(instruction, /focus on: the auth module/);
    assert.deepEqual(request.cache?.messageIndexes, [request.messages.length - 1]);
    assert.equal(request.cache?.system, true);
    assert.ok(request.maxTokens <= r.engine.budget.outputReserve);
    const record = compactionEntries(r)[0]!;
    assert.equal(record.trigger, 'manual');
    assert.equal(record.focus, 'the auth module');
    assert.match(textOf(r.engine.liveView()[0]!), /summary focus: the auth module/);
  });

  it('appends the instruction after the tool_results when the conversation ends with a user message', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 29_300);
    const live = r.engine.liveView();
    await r.prepare();
    const request = r.summaryRequests[0]!;
    assert.equal(request.messages.length, live.length);
    assert.deepEqual(request.messages.slice(0, -1), live.slice(0, -1));
    const last = request.messages.at(-1)!;
    assert.ok(typeof last.content !== 'string');
    const liveLast = live.at(-1)!;
    assert.ok(typeof liveLast.content !== 'string');
    assert.deepEqual(last.content.slice(0, liveLast.content.length), liveLast.content, 'tool_results stay first');
    assert.equal(last.content.at(-1)!.type, 'text');
  });

  it('fits the summary request by dropping the oldest rounds when the live view is larger than the window', async () => {
    // No tool result may be cleared or left out here (all count as recent): only dropping rounds can make it fit.
    const r = rig({ window: 40_000, settings: { keepRecentResults: 10_000 } });
    r.user('Start.');
    // 60k tokens of history and no usage anchor yet: bigger than the whole window.
    fillTo(r, 60_000);
    await r.prepare();
    assert.equal(r.eventsOf('compaction').length, 1, r.logs.join('\n'));
    const request = r.summaryRequests[0]!;
    assert.ok(request.messages.length < r.history.length, 'older rounds were dropped from the summary request');
    assertApiValid(request.messages, 'summary request');
    assert.ok(r.engine.estimateTokens(request.messages) + request.maxTokens <= 40_000, 'it fits the window');
    assert.deepEqual(request.messages.at(-2), r.history.at(-2), 'the newest rounds are kept');
    assert.ok(r.logs.some((line) => line.includes('dropped')));
  });

  it('shrinks by leaving out old tool results first, and never drops what the user wrote', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'Start. FACT-A: the codename is HERON.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'a.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: bulk(20_000, 'a') }, { type: 'text', text: 'FACT-B: ship on Friday.' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'read_file', input: { path: 'b.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: bulk(20_000, 'b') }] },
    ];
    const shrunk = shrinkToolResults(messages, 1, 500);
    assertApiValid(shrunk, 'shrunk');
    assert.match(JSON.stringify(shrunk[2]), new RegExp(OMITTED_RESULT_TEXT.slice(1, 30).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.ok(JSON.stringify(shrunk[2]).includes('FACT-B'), 'user text next to a result stays');
    assert.ok(textOf(shrunk[4]!).length < 700, 'the newest result is trimmed');
    const chars = (list: readonly MessageParam[]) => JSON.stringify(list).length;
    const dropped = dropOldestRounds(messages, chars, 2_000);
    assertApiValid(dropped, 'dropped');
    assert.ok(dropped.length < messages.length);
    const carried = JSON.stringify(dropped[0]);
    assert.ok(carried.includes('FACT-A') && carried.includes('FACT-B'), carried.slice(0, 400));
  });

  it('retries with fewer rounds when the API still says too long, at most 3 tries, then fails cleanly', async () => {
    const r = rig({ fallbackReply: () => tooLongError(50000, 40000) });
    r.user('Start.');
    fillTo(r, 29_300, 3_000);
    const before = r.engine.liveView();
    const prepared = await r.prepare();
    assert.ok(r.summaryRequests.length >= 2 && r.summaryRequests.length <= 3, `${r.summaryRequests.length} summary requests`);
    for (let i = 1; i < r.summaryRequests.length; i++) {
      assert.ok(r.summaryRequests[i]!.messages.length < r.summaryRequests[i - 1]!.messages.length, 'each retry drops older rounds');
      assertApiValid(r.summaryRequests[i]!.messages, `retry ${i}`);
    }
    assert.deepEqual(prepared.messages, before);
    assert.equal(r.eventsOf('compaction_failed').length, 1);
  });

  it('succeeds on a retry after one too-long answer', async () => {
    const r = rig();
    r.replies.push(tooLongError(45000, 40000));
    r.user('Start.');
    fillTo(r, 29_300, 3_000);
    await r.prepare();
    assert.equal(r.summaryRequests.length, 2);
    assert.equal(compactionEntries(r)[0]!.stats.summaryRequests, 2);
  });
});

describe('context engine: prompt too long (reactive)', () => {
  it('drops rounds without letting a huge user message grow the context: carried words are bounded', async () => {
    const r = rig({ fallbackReply: () => new Error('the summarizer is down') });
    r.user(`PASTE-START ${bulk(200_000, 'paste')} PASTE-END`);
    for (let i = 0; i < 3; i++) r.round([{ name: 'read_file', input: { path: `f${i}.ts` }, result: bulk(500, `f${i}`) }]);
    const prepared = await r.prepare();
    for (let attempt = 0; attempt < 2; attempt++) {
      const ok = await r.engine.recoverFromTooLong(prepared, 1, tooLongError(70000, 40000), signal());
      assert.equal(ok, true);
    }
    const next = await r.prepare();
    assertApiValid(next.messages);
    assert.ok(r.engine.estimateTokens(next.messages) <= r.engine.budget.effective, `${r.engine.estimateTokens(next.messages)} tokens`);
    const head = textOf(next.messages[0]!);
    assert.match(head, /PASTE-START/, 'the start of what the user wrote is still there');
    assert.match(head, /PASTE-END/, 'and its end');
    assert.ok(head.length < 20_000, `carried ${head.length} characters`);
  });

  it('compacts first and reports that a retry may fit', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 25_000);
    const prepared = await r.prepare();
    assert.equal(r.summaryRequests.length, 0);
    const ok = await r.engine.recoverFromTooLong(prepared, 0, tooLongError(41000, 40000), signal());
    assert.equal(ok, true);
    assert.equal(compactionEntries(r)[0]!.trigger, 'reactive');
    const anchor = r.entries.find((entry) => entry.type === 'token_anchor');
    assert.ok(anchor, 'the API count that re-anchored the estimate is in the transcript');
    assert.deepEqual(foldTranscript(r.entries).engine.lastRequest, r.engine.snapshot.lastRequest);
    const next = await r.prepare();
    assertApiValid(next.messages);
    assert.ok(next.messages.length < prepared.messages.length);
  });

  it('re-anchors on the count the error carries, whatever words the server used', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 25_000);
    const prepared = await r.prepare();
    // An OpenAI-compatible server's own wording; the back end read the numbers into the error.
    const error = new ModelError('prompt_too_long', "This model's maximum context length is 40000 tokens. However, your messages resulted in 43210 tokens.", undefined, 400, {}, { promptTokens: 43_210, maxTokens: 40_000 });
    assert.equal(await r.engine.recoverFromTooLong(prepared, 0, error, signal()), true);
    const anchor = r.entries.find((entry) => entry.type === 'token_anchor');
    assert.ok(anchor?.type === 'token_anchor', 'no token_anchor entry');
    assert.equal(anchor.anchor.promptTokens, 43_210);
  });

  it('retries a summary request only for a too-long error, not for other text that mentions one', async () => {
    // A failure that is not the API refusing the prompt (here a plain error quoting a tool's output) is not retried smaller.
    const r = rig({ fallbackReply: () => new Error('network failed while reading "prompt is too long: 1 tokens > 0 maximum"') });
    r.user('Start.');
    fillTo(r, 29_300, 3_000);
    await r.prepare();
    assert.equal(r.summaryRequests.length, 1);
    assert.equal(r.eventsOf('compaction_failed').length, 1);
  });

  it('drops the oldest rounds deterministically (tool pairs whole) when compaction fails', async () => {
    const build = () => {
      const r = rig({ fallbackReply: '' });
      r.user('Start.');
      fillTo(r, 25_000, 4_000);
      return r;
    };
    const a = build();
    const b = build();
    const pa = await a.prepare();
    const pb = await b.prepare();
    const error = tooLongError(41000, 40000);
    assert.equal(await a.engine.recoverFromTooLong(pa, 0, error, signal()), true);
    assert.equal(await b.engine.recoverFromTooLong(pb, 0, error, signal()), true);
    const ra = compactionEntries(a);
    assert.equal(ra.length, 1);
    assert.equal(ra[0]!.trigger, 'drop');
    assert.equal(ra[0]!.summary, undefined, 'nothing was summarized');
    assert.equal(ra[0]!.keptFrom, compactionEntries(b)[0]!.keptFrom, 'deterministic');
    assert.deepEqual(a.engine.liveView(), b.engine.liveView());
    assert.ok(isCleanStart(a.history[ra[0]!.keptFrom]!));
    const live = a.engine.liveView();
    assertApiValid(live);
    assert.match(textOf(live[0]!), /dropped to fit/);
    // 41000 counted tokens re-anchor the estimate: the view now fits under the threshold.
    assert.ok(a.engine.estimateTokens(live) <= a.engine.budget.threshold);
    // A later attempt (attempt 1) drops straight away, without another summary request.
    const requests = a.summaryRequests.length;
    const p2 = await a.prepare();
    assert.equal(await a.engine.recoverFromTooLong(p2, 1, tooLongError(39000, 38000), signal()), true);
    assert.equal(a.summaryRequests.length, requests);
    assert.equal(compactionEntries(a).at(-1)!.trigger, 'drop');
  });

  it('carries an earlier summary forward when it drops rounds', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 29_300, 4_000);
    await r.prepare();
    const summary = compactionEntries(r)[0]!.summary;
    assert.ok(summary);
    fillTo(r, 27_000, 4_000);
    r.replies.push('');
    const prepared = await r.prepare();
    assert.equal(await r.engine.recoverFromTooLong(prepared, 0, tooLongError(41000, 40000), signal()), true);
    const last = compactionEntries(r).at(-1)!;
    assert.equal(last.trigger, 'drop');
    assert.equal(last.summary, summary);
    assert.ok(textOf(r.engine.liveView()[0]!).includes(summary));
    assertApiValid(r.engine.liveView());
  });
});

describe('context engine: the compact tool', () => {
  it('schedules a compaction for the next request, then refuses when called again in a loop', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 8_000);
    const first = r.engine.requestCompactFromTool('keep the API notes');
    assert.match(first, /scheduled/);
    r.round([{ name: 'compact', input: { focus: 'keep the API notes' }, result: first }]);
    const prepared = await r.prepare();
    const record = compactionEntries(r)[0]!;
    assert.equal(record.trigger, 'tool');
    assert.equal(record.focus, 'keep the API notes');
    assertApiValid(prepared.messages);
    assert.match(textOf(r.summaryRequests[0]!.messages.at(-1)!), /focus on: keep the API notes/);
    r.respond(prepared);
    const again = r.engine.requestCompactFromTool(undefined);
    assert.match(again, /Not compacted/);
    assert.match(again, /moments ago/);
    r.round([{ name: 'compact', input: {}, result: again }]);
    await r.prepare();
    assert.equal(compactionEntries(r).length, 1, 'the refused call compacts nothing');
  });

  it('refuses when the context is nearly empty', () => {
    const r = rig();
    r.user('hi');
    assert.match(r.engine.requestCompactFromTool(undefined), /Not compacted: the context holds only/);
  });
});

describe('context engine: restored files', () => {
  const temp = useTempDirs();
  let root: string;
  beforeEach(() => {
    root = temp.make('evergreen-restore-');
  });

  it('restores up to 5 of the most recently read files, newest first, each capped, deduplicated', async () => {
    for (let i = 1; i <= 7; i++) fs.writeFileSync(path.join(root, `f${i}.ts`), `export const f${i} = ${i};\n`.repeat(i === 6 ? 4_000 : 20));
    const r = rig({ window: 200_000, workspace: new NodeWorkspace(root) });
    r.user('Read everything.');
    for (let i = 1; i <= 7; i++) r.round([{ name: 'read_file', input: { path: `f${i}.ts` }, result: `contents of f${i}` }]);
    r.round([{ name: 'read_file', input: { path: 'f7.ts' }, result: 'f7 again' }]);
    r.assistant('Read them all.');
    const outcome = await r.engine.compact(undefined, 'manual', signal());
    assert.equal(outcome.ok, true, said(outcome.message));
    const record = compactionEntries(r)[0]!;
    assert.deepEqual(record.restoredFiles.map((file) => file.path), ['f7.ts', 'f6.ts', 'f5.ts', 'f4.ts', 'f3.ts']);
    const f6 = record.restoredFiles[1]!;
    const cap = 5_000 * 4;
    assert.ok(f6.content.length <= cap + 120, `f6 capped at ~${cap} chars (got ${f6.content.length})`);
    assert.match(f6.content, /file continues; read it with read_file/);
    assert.equal(record.restoredFiles[0]!.content, fs.readFileSync(path.join(root, 'f7.ts'), 'utf8'), 'small files are restored whole from disk');
    const live = r.engine.liveView();
    assert.match(textOf(live[0]!), /Contents of f7\.ts as restored after the summary/);
    assertApiValid([...live, { role: 'user', content: 'next' }]);
    assert.deepEqual(buildLiveView(foldTranscript(r.entries).canonical, foldTranscript(r.entries).engine.live), live, 'restored files are replayed from the transcript');
  });

  it('skips files that vanished and never reads outside the workspace', async () => {
    fs.writeFileSync(path.join(root, 'kept.ts'), 'ok\n');
    const r = rig({ window: 200_000, workspace: new NodeWorkspace(root) });
    r.user('Read.');
    r.round([{ name: 'read_file', input: { path: 'kept.ts' }, result: 'ok' }]);
    r.round([{ name: 'read_file', input: { path: 'gone.ts' }, result: 'was here' }]);
    r.round([{ name: 'read_file', input: { path: '/etc/passwd' }, result: 'nope' }]);
    r.assistant('ok');
    await r.engine.compact(undefined, 'manual', signal());
    assert.deepEqual(compactionEntries(r)[0]!.restoredFiles.map((file) => file.path), ['kept.ts']);
  });
});

describe('context engine: cache batching of tier edits', () => {
  /** Old search results at the start, a long cached middle, the newest results last. */
  function batchingRig(): Rig {
    const r = new Rig({ window: 200_000, settings: NO_EARLY_CLEAR });
    r.user('Explore.');
    for (let i = 0; i < 6; i++) r.round([{ name: 'grep_search', input: { pattern: `p${i}` }, result: bulk(600, `g${i}`) }]);
    for (let i = 0; i < 40; i++) r.round([{ name: 'read_file', input: { path: `src/f${i}.ts` }, result: bulk(2_500, `f${i}`) }]);
    return r;
  }

  it('defers lossy edits while they do not repay the cache rewrite, and applies them when the cache is cold', async () => {
    const r = batchingRig();
    const first = await r.prepare();
    // The API counts enough tokens to put the context at ~65% of the effective window (snip range).
    r.respond(first, Math.round(0.65 * r.engine.budget.effective));
    r.advance(60_000);
    r.round([{ name: 'list_files', input: { path: '.' }, result: 'a b c' }]);
    const warm = await r.prepare();
    assert.equal(r.entries.filter((entry) => entry.type === 'tier_edit').length, 0, 'warm cache: snips of two small results are deferred');
    assert.ok(r.logs.some((line) => line.includes('deferred')), r.logs.join('\n'));
    assert.ok(!JSON.stringify(warm.messages).includes('[Snipped'));
    r.respond(warm, Math.round(0.65 * r.engine.budget.effective));
    r.round([{ name: 'list_files', input: { path: 'src' }, result: 'd e f' }]);
    r.advance(5 * 60_000 + 1);
    const cold = await r.prepare();
    const edits = r.entries.filter((entry) => entry.type === 'tier_edit');
    assert.ok(edits.length > 0, 'cold cache: the batch is applied');
    // A cleared placeholder is shorter than a snip's note, so clearing frees more for every result here.
    assert.deepEqual(new Set(edits.map((entry) => entry.type === 'tier_edit' && entry.tier)), new Set(['microcompact']));
    assert.ok(JSON.stringify(cold.messages).includes(CLEARED_MARK));
    assertApiValid(cold.messages);
    const tierEvents = r.eventsOf('tier');
    assert.ok(tierEvents.length > 0 && tierEvents.every((event) => event.tokensAfter < event.tokensBefore));
  });

  it('applies a trim once the reads it would have saved add up to the cache rewrite (ski rental), not before', async () => {
    const r = new Rig({ window: 200_000, settings: NO_EARLY_CLEAR });
    r.user('Build.');
    r.round([{ name: 'read_file', input: { path: 'small.ts' }, result: 'tiny' }]);
    r.round([{ name: 'run_shell', input: { command: 'make' }, result: bulk(100_000, 'log') }]);
    for (let i = 0; i < 3; i++) r.round([{ name: 'read_file', input: { path: `n${i}.ts` }, result: 'newest' }]);
    let prepared = await r.prepare();
    const waste: number[] = [];
    for (let request = 0; request < 12 && r.entries.every((entry) => entry.type !== 'tier_edit'); request++) {
      r.respond(prepared, Math.round(0.55 * r.engine.budget.effective));
      waste.push(prepared.mark.pendingWaste ?? 0);
      r.advance(1_000);
      r.round([{ name: 'read_file', input: { path: `n${request + 9}.ts` }, result: 'x' }]);
      prepared = await r.prepare();
    }
    const edits = r.entries.filter((entry) => entry.type === 'tier_edit');
    assert.equal(edits.length, 1, r.logs.join('\n'));
    // Deferred at first (a rewrite of the 100k-character result costs more than it saves at once),
    // with the account of reads paid on the 70k characters it frees growing every request.
    assert.ok(waste.length >= 2, `applied after ${waste.length} request(s)`);
    for (let i = 1; i < waste.length; i++) assert.ok(waste[i]! > waste[i - 1]!, JSON.stringify(waste));
    const [entry] = edits;
    assert.ok(entry && entry.type === 'tier_edit');
    assert.equal(entry.tier, 'budget');
    assert.deepEqual(entry.edits.map((edit) => edit.action), ['trim']);
    assert.equal(prepared.mark.pendingWaste, 0, 'the account closes when the batch is applied');
    const trimmed = prepared.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).find((b) => b.type === 'tool_result' && typeof b.content === 'string' && b.content.includes('log log'));
    assert.ok(trimmed && trimmed.type === 'tool_result' && typeof trimmed.content === 'string');
    assert.ok(trimmed.content.length <= 30_000);
    // The account is part of the transcript: a fold gives the same batching state.
    assert.equal(foldTranscript(r.entries).engine.pendingWaste, r.engine.snapshot.pendingWaste);
  });

  it('clears an old result at once when clearing frees more than the rewrite costs (above 30% utilization)', async () => {
    const r = new Rig({ window: 200_000 });
    r.user('Build.');
    r.round([{ name: 'run_shell', input: { command: 'make' }, result: bulk(100_000, 'log') }]);
    for (let i = 0; i < 3; i++) r.round([{ name: 'read_file', input: { path: `n${i}.ts` }, result: 'newest' }]);
    const first = await r.prepare();
    r.respond(first, Math.round(0.4 * r.engine.budget.effective));
    r.advance(1_000);
    r.round([{ name: 'read_file', input: { path: 'n9.ts' }, result: 'x' }]);
    const prepared = await r.prepare();
    const edits = r.entries.filter((entry) => entry.type === 'tier_edit');
    assert.equal(edits.length, 1, r.logs.join('\n'));
    const [entry] = edits;
    assert.ok(entry && entry.type === 'tier_edit');
    assert.equal(entry.tier, 'microcompact');
    assert.ok(JSON.stringify(prepared.messages).includes(CLEARED_MARK));
    assert.ok(!JSON.stringify(prepared.messages).includes('log log log'));
  });
});

describe('context engine: window, cache hints and events', () => {
  it('refuses with ContextWindowTooSmallError when the window is smaller than system + tools', async () => {
    const r = new Rig({ window: 2_000, system: bulk(20_000, 'sys') });
    r.user('hi');
    await assert.rejects(r.prepare(), (error: unknown) => {
      assert.ok(error instanceof ContextWindowTooSmallError);
      assert.match(said(error.text), /Raise --context-window, or lower --max-output-tokens\./);
      assert.doesNotMatch(error.message, /evergreen\.|--/, "the log's English names no front end's setting");
      return true;
    });
  });

  it('places breakpoints on the newest message and on the previous request\'s newest message', async () => {
    const r = rig();
    r.user('Start.');
    const p1 = await r.prepare();
    assert.deepEqual(p1.cache, { system: true, messageIndexes: [0] });
    r.respond(p1);
    r.round([{ name: 'read_file', input: { path: 'a.ts' }, result: 'a' }]);
    const p2 = await r.prepare();
    assert.deepEqual(p2.cache, { system: true, messageIndexes: [0, 2] });
    r.respond(p2);
    r.round([{ name: 'read_file', input: { path: 'b.ts' }, result: 'b' }]);
    r.round([{ name: 'read_file', input: { path: 'c.ts' }, result: 'c' }]);
    const p3 = await r.prepare();
    assert.deepEqual(p3.cache, { system: true, messageIndexes: [2, 6] });
    assert.deepEqual(p3.mark, { canonicalCount: 7, liveCount: 7, liveChars: p3.mark.liveChars, pendingWaste: 0 });
  });

  it('after tier edits, reads the unchanged prefix: a breakpoint where an earlier request wrote one just before the first edit, and one on the new frontier for the next batch', async () => {
    const r = new Rig({ window: 200_000 });
    r.user('Build.');
    const sent: PreparedRequest[] = [];
    const editRequests: PreparedRequest[] = [];
    const opening = await r.prepare();
    sent.push(opening);
    r.respond(opening);
    for (let i = 0; i < 40 && editRequests.length < 3; i++) {
      r.round([{ name: 'run_shell', input: { command: `make step${i}` }, result: bulk(12_000, `out${i}`) }]);
      const edits = r.entries.filter((entry) => entry.type === 'tier_edit').length;
      const prepared = await r.prepare();
      if (r.entries.filter((entry) => entry.type === 'tier_edit').length > edits) editRequests.push(prepared);
      sent.push(prepared);
      r.respond(prepared, Math.round(0.4 * r.engine.budget.effective));
      r.advance(5_000);
    }
    assert.ok(editRequests.length >= 2, `batches applied: ${editRequests.length}`);
    for (const [n, request] of editRequests.entries()) {
      const indexes = request.cache.messageIndexes;
      assert.equal(indexes.length, 3, `batch ${n}: before the edit, the frontier, the newest: ${JSON.stringify(indexes)}`);
      assert.equal(indexes.at(-1), request.messages.length - 1);
      const before = indexes[0]!;
      // An entry exists there: an earlier request had a breakpoint on the very same prefix.
      const writer = sent.find((earlier) => earlier !== request && earlier.cache.messageIndexes.includes(before) && JSON.stringify(earlier.messages.slice(0, before + 1)) === JSON.stringify(request.messages.slice(0, before + 1)));
      assert.ok(writer, `batch ${n}: the prefix up to message ${before} was written before`);
      // The frontier: everything before it is cleared, the result after it is not.
      const frontier = indexes[1]!;
      assert.equal(request.messages[frontier]!.role, 'user');
      assert.ok(!JSON.stringify(request.messages[frontier + 2]).includes(CLEARED_MARK), `batch ${n}: the result after the frontier is not cleared`);
      assert.ok(JSON.stringify(request.messages[frontier]).includes(CLEARED_MARK), `batch ${n}: the frontier ends the cleared part`);
    }
    // From the second batch on, the read prefix reaches past the first batch's clearing.
    assert.ok(editRequests[1]!.cache.messageIndexes[0]! >= editRequests[0]!.cache.messageIndexes[1]!);
  });

  it('maps the previous breakpoint into the live view after a compaction and drops it when it was summarized', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 29_300);
    const prepared = await r.prepare();
    assert.equal(r.eventsOf('compaction').length, 1);
    assert.deepEqual(prepared.cache.messageIndexes, [prepared.messages.length - 1]);
    r.respond(prepared);
    r.round([{ name: 'read_file', input: { path: 'z.ts' }, result: 'z' }]);
    const next = await r.prepare();
    assert.deepEqual(next.cache.messageIndexes, [prepared.messages.length - 1, next.messages.length - 1]);
    assert.deepEqual(next.messages[prepared.messages.length - 1], prepared.messages.at(-1), 'the previous breakpoint is on the same message');
  });

  it('emits context events with used / window / reserve / threshold / breakdown', async () => {
    const r = rig();
    r.user('Start.');
    r.round([{ name: 'read_file', input: { path: 'a.ts' }, result: bulk(4_000) }]);
    const prepared = await r.prepare();
    const event = r.eventsOf('context').at(-1)!;
    assert.equal(event.type, 'context');
    const gauge = event.gauge;
    assert.equal(gauge.window, 40_000);
    assert.equal(gauge.outputReserve, 8_000);
    assert.equal(gauge.autoCompactThreshold, 29_200);
    assert.equal(gauge.usedTokens, prepared.estimatedTokens);
    assert.equal(gauge.estimated, true);
    assert.ok(gauge.breakdown);
    assert.ok(gauge.breakdown.system > 0 && gauge.breakdown.tools > 0 && gauge.breakdown.toolResults >= 900);
    assert.ok(Math.abs(gauge.breakdown.total - gauge.usedTokens) <= 6, `breakdown ${gauge.breakdown.total} ~ used ${gauge.usedTokens}`);
    r.respond(prepared, 1_500, 200, 1_000);
    const measured = r.eventsOf('context').at(-1)!;
    assert.equal(measured.type, 'context');
    assert.equal(measured.gauge.usedTokens, 1_700, 'after a response: prompt + output as the API counted');
    assert.equal(measured.gauge.estimated, false);
    assert.ok(Math.abs(measured.gauge.cacheReadShare - 1_000 / 1_500) < 1e-9);
  });

  it('anchors the estimate on the API count plus what was appended since', async () => {
    const r = rig();
    r.user('Start.');
    const p = await r.prepare();
    r.respond(p, 5_000);
    const ratio = 5_000 / p.mark.liveChars;
    r.round([{ name: 'read_file', input: { path: 'a.ts' }, result: bulk(8_000) }]);
    const added = r.engine.liveView().slice(p.messages.length);
    const addedChars = added.reduce((sum, m) => sum + (m.role === 'assistant' ? 'Working on it.'.length + 'read_file'.length + JSON.stringify({ path: 'a.ts' }).length : 8_000), 0);
    assert.equal(r.engine.estimateTokens(r.engine.liveView()), Math.round(5_000 + addedChars * ratio));
  });

  it('keeps system and tools out of compaction: summaries live in messages only', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 29_300);
    const prepared = await r.prepare();
    assert.ok(prepared.messages.some((m: MessageParam) => textOf(m).includes(SUMMARY_MARK)));
    for (const request of r.summaryRequests) assert.equal(request.system, SYSTEM);
  });
});

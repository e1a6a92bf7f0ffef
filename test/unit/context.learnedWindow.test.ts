/**
 * The engine learns a server's real window from a "prompt is too long" that names it (issue 9):
 * the budget shrinks (never grows), the decision is recorded so a fold rebuilds the same budget,
 * the gauge and a one-time notice show it, and the too-long recovery then fits the new window.
 */
import { said } from '../support/said';
import assert from 'node:assert/strict';
import { ContextWindowTooSmallError } from '../../src/core/context/engineTypes';
import { foldTranscript } from '../../src/core/agent/fold';
import { contextBudget } from '../../src/core/context/gauge';
import { ModelError, type TooLongCount } from '../../src/core/model/errors';
import { assertApiValid, bulk, Rig, type RigOptions } from './context.harness';

const signal = () => new AbortController().signal;

function rig(options: Partial<RigOptions> = {}): Rig {
  // Early tier clearing off: these tests look at the window split and the reactive path only.
  return new Rig({ window: 40_000, ...options, settings: { clearUtilization: 1, ...options.settings } });
}

function fillTo(r: Rig, tokens: number, chars = 8_000): void {
  let n = 0;
  while (r.engine.estimateTokens(r.engine.liveView()) <= tokens) {
    r.round([{ name: 'run_shell', input: { command: `make step${++n}` }, result: bulk(chars, `out${n}`) }]);
  }
}

function refusal(counted: TooLongCount): ModelError {
  return new ModelError('prompt_too_long', `prompt is too long: ${counted.promptTokens} tokens > ${counted.maxTokens} maximum`, undefined, 400, {}, counted);
}

describe('context engine: a window learned from the server', () => {
  it('shrinks the budget, records it, shows it on the gauge and tells the user once; a fold rebuilds the same budget', () => {
    const r = rig();
    r.user('Start.');
    assert.equal(r.engine.learnWindow(12_000), true);
    assert.deepEqual(r.engine.budget, contextBudget(12_000, 16_000));
    assert.equal(r.engine.budget.outputReserve, 2_400, 'the reply reserve still fits inside the smaller window');

    const recorded = r.entries.filter((entry) => entry.type === 'window_learned');
    assert.equal(recorded.length, 1);
    assert.ok(recorded[0]!.type === 'window_learned');
    assert.deepEqual({ window: recorded[0]!.window, assumed: recorded[0]!.assumed }, { window: 12_000, assumed: 40_000 });
    const notices = r.eventsOf('context_window_learned');
    assert.equal(notices.length, 1);
    assert.equal(
      said(notices[0]!.message),
      "The server's context window is 12,000 tokens, smaller than the 40,000 assumed; Evergreen now compacts for 12,000. Set --context-window to 12000 to skip this.",
    );
    const gauge = r.events.at(-1)!;
    assert.ok(gauge.type === 'context', 'a gauge follows the notice');
    assert.equal(gauge.gauge.window, 12_000);
    assert.equal(gauge.gauge.autoCompactThreshold, r.engine.budget.threshold);
    assert.ok(r.logs.some((line) => line.includes("The server's context window is 12,000 tokens")), 'logged');

    // Never grows, and the same window again is no news (no second notice).
    assert.equal(r.engine.learnWindow(12_000), false);
    assert.equal(r.engine.learnWindow(30_000), false);
    assert.equal(r.engine.learnWindow(Number.NaN), false);
    assert.equal(r.engine.budget.window, 12_000);
    assert.equal(r.eventsOf('context_window_learned').length, 1);
    assert.equal(r.engine.snapshot.learnedWindow, 12_000);

    // Resume: the fold carries the window; an engine built on it has the same budget and says nothing new.
    const folded = foldTranscript(r.entries);
    assert.equal(folded.engine.learnedWindow, 12_000);
    assert.equal(folded.display.filter((event) => event.type === 'context_window_learned').length, 1, 'the notice is replayed once');
    const resumed = rig({ initial: folded.engine });
    assert.deepEqual(resumed.engine.budget, r.engine.budget);
    assert.equal(resumed.engine.gauge().window, 12_000);
    // A learned window larger than the configured one (a setting lowered since) is not used.
    assert.equal(rig({ window: 10_000, initial: { live: folded.engine.live, lastRequest: undefined, consecutiveFailures: 0, learnedWindow: 12_000 } }).engine.budget.window, 10_000);
  });

  it('a smaller window learned later wins in the fold as in the engine; a larger one changes nothing', () => {
    const r = rig();
    r.engine.learnWindow(20_000);
    r.engine.learnWindow(12_000);
    r.entries.push({ type: 'window_learned', ts: r.ts, window: 30_000, assumed: 40_000 });
    assert.equal(foldTranscript(r.entries).engine.learnedWindow, 12_000);
    assert.equal(r.engine.budget.window, 12_000);
  });

  it('after learning, the too-long recovery compacts to the new window and the retry fits', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 25_000);
    const prepared = await r.prepare();
    assert.equal(prepared.maxTokens, 8_000);
    const ok = await r.engine.recoverFromTooLong(prepared, 0, refusal({ promptTokens: 25_400, maxTokens: 12_000, window: 12_000, replyCounted: false }), signal());
    assert.equal(ok, true);
    assert.equal(r.engine.budget.window, 12_000);
    assert.equal(r.eventsOf('context_window_learned').length, 1);
    assert.ok(r.engine.estimateTokens(r.engine.liveView()) <= r.engine.budget.effective);
    const next = await r.prepare();
    assertApiValid(next.messages);
    assert.equal(next.maxTokens, 2_400, 'the retry asks for the reply reserve of the learned window');
    assert.ok(next.estimatedTokens + next.maxTokens <= 12_000, `${next.estimatedTokens} + ${next.maxTokens}`);
    assert.equal(foldTranscript(r.entries).engine.learnedWindow, 12_000);
  });

  it('when only the reply reserve did not fit, the retry asks for less and nothing is compacted', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 5_000);
    const prepared = await r.prepare();
    // vLLM / OpenAI: "maximum context length is 12000 … (5200 in the messages, 8000 in the completion)".
    const ok = await r.engine.recoverFromTooLong(prepared, 0, refusal({ promptTokens: 5_200, maxTokens: 4_000, window: 12_000, replyCounted: true }), signal());
    assert.equal(ok, true);
    assert.equal(r.summaryRequests.length, 0);
    assert.equal(r.entries.filter((entry) => entry.type === 'compaction').length, 0);
    const next = await r.prepare();
    assert.equal(next.maxTokens, 2_400);
    assert.equal(next.messages.length, prepared.messages.length);
  });

  it('a learned window too small for the system prompt and tools ends in the clear too-small error', async () => {
    const r = rig();
    r.user('Start.');
    const prepared = await r.prepare();
    await assert.rejects(r.engine.recoverFromTooLong(prepared, 0, refusal({ promptTokens: 400, maxTokens: 100, window: 100 }), signal()), (error: unknown) => {
      assert.ok(error instanceof ContextWindowTooSmallError);
      assert.match(error.message, /The context window \(100 tokens, 20 reserved for the reply\) is smaller than the system prompt and tool definitions/);
      return true;
    });
  });

  it('a refusal that names no window leaves the budget alone', async () => {
    const r = rig();
    r.user('Start.');
    fillTo(r, 25_000);
    const prepared = await r.prepare();
    assert.equal(await r.engine.recoverFromTooLong(prepared, 0, new ModelError('prompt_too_long', 'the request exceeds the available context size', undefined, 400), signal()), true);
    assert.equal(r.engine.budget.window, 40_000);
    assert.equal(r.eventsOf('context_window_learned').length, 0);
  });
});

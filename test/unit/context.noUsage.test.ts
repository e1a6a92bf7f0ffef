/**
 * A server that reports no usage (an OpenAI-compatible one that refuses or ignores
 * stream_options.include_usage): the reply's counts are all 0, which is "unknown", not "an empty
 * prompt". The estimate must go on from the last real count (or the character estimate), so the
 * gauge stays honest and automatic compaction still runs; a resume folds to the same anchor.
 */
import assert from 'node:assert/strict';
import { foldTranscript } from '../../src/core/agent/fold';
import { bulk, Rig } from './context.harness';

describe('context engine: replies without usage', () => {
  it('keeps estimating the whole context, not just what changed since the last reply', async () => {
    const r = new Rig({ window: 40_000, settings: { clearUtilization: 1 } });
    r.user('Start.');
    for (let i = 0; i < 5; i++) r.round([{ name: 'read_file', input: { path: `f${i}.ts` }, result: bulk(8_000, `f${i}`) }]);
    const counted = await r.prepare();
    r.respond(counted); // A real count: chars / 4.
    r.round([{ name: 'read_file', input: { path: 'g.ts' }, result: bulk(4_000, 'g') }]);
    const uncounted = await r.prepare();
    r.respond(uncounted, 0, 0); // The server said nothing about this request.
    const estimate = r.engine.estimateTokens(r.engine.liveView());
    const byChars = Math.round(uncounted.mark.liveChars / 4);
    assert.ok(estimate >= byChars * 0.9, `estimated ${estimate} tokens for a context of ~${byChars}`);
    assert.deepEqual(foldTranscript(r.entries).engine.lastRequest, r.engine.snapshot.lastRequest, 'a resume would anchor differently');
    // The gauge after that reply says an estimate, not a counted empty context.
    const gauge = r.eventsOf('context').at(-1)!.gauge;
    assert.equal(gauge.estimated, true);
    assert.ok(gauge.usedTokens >= byChars * 0.9, `gauge shows ${gauge.usedTokens}`);
  });

  it('still compacts automatically when the context passes the threshold', async () => {
    const r = new Rig({ window: 40_000, settings: { clearUtilization: 1 } });
    r.user('Start.');
    for (let i = 0; i < 20 && r.summaryRequests.length === 0; i++) {
      r.round([{ name: 'run_shell', input: { command: `make step${i}` }, result: bulk(8_000, `out${i}`) }]);
      r.respond(await r.prepare(), 0, 0);
    }
    assert.ok(r.summaryRequests.length > 0, 'never compacted: the engine believed the context was nearly empty');
  });
});

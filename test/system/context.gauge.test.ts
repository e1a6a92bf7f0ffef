/**
 * The token gauge people read (issue 8 item 1): one whole-window percent, bar shares that add up to
 * the window, an honest over-limit state, the warning band below the auto-compact threshold, the
 * live estimate while a reply streams, and the tier preview of the breakdown document.
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/core/agent/events';
import { startAgentSession } from '../../src/core/agent/factory';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { BACKENDS, say } from '../support/backends';
import { useTempDirs } from '../support/tempDirs';

for (const backend of BACKENDS) describe(`the gauge moves while a reply streams [${backend.name}]`, function () {
  this.timeout(30_000);
  const temp = useTempDirs();

  it('emits throttled estimates between the request and its usage, growing with the streamed text', async () => {
    const fake = await backend.start();
    const workspace = temp.make('evergreen-ws-');
    const storage = temp.make('evergreen-storage-');
    try {
      let clock = Date.UTC(2025, 0, 1);
      const events: AgentEvent[] = [];
      const started = await startAgentSession({
        config: fake.config({
          // Every read of the clock is 100 ms later: the 250 ms throttle lets every third delta through.
          now: () => (clock += 100),
        }),
        workspaceRoot: workspace,
        store: new FileSessionStore(storage),
        approver: { requestApproval: async () => ({ approved: true }) },
        onEvent: (event) => events.push(event),
      });
      fake.enqueue(say.text('word '.repeat(400)));
      await started.session.send('Write a lot.');
      const start = events.findIndex((event) => event.type === 'request_started');
      const end = events.findIndex((event) => event.type === 'usage');
      const deltas = events.slice(start, end).filter((event) => event.type === 'text_delta').length;
      const gauges = events.slice(start, end).flatMap((event) => (event.type === 'context' ? [event.gauge] : []));
      // The last one is the API's own count after the reply (onResponse); the ones before it are estimates.
      assert.equal(gauges.at(-1)?.estimated, false);
      const during = gauges.slice(0, -1);
      assert.ok(deltas > 20, `${deltas} deltas`);
      assert.ok(during.length >= 2 && during.length <= Math.ceil(deltas / 2), `${during.length} estimates for ${deltas} deltas`);
      for (let i = 1; i < during.length; i++) assert.ok(during[i]!.usedTokens > during[i - 1]!.usedTokens, `each estimate is larger: ${during.map((g) => g.usedTokens).join(", ")}`);
      const prepared = events.slice(0, start).filter((event) => event.type === 'context').at(-1);
      assert.ok(prepared && prepared.type === 'context');
      assert.ok(during[0]!.usedTokens > prepared.gauge.usedTokens);
      assert.ok(during.every((gauge) => gauge.estimated === true));
      started.handle.close();
    } finally {
      await fake.close();
    }
  });
});

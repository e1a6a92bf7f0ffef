/**
 * Property test (issue 21): whatever tiers 1-3 clear, trim or snip and whatever a compaction
 * summarizes, the thinking blocks of the current turn that a request still holds are the very
 * blocks the model wrote, byte for byte and in their place (first in their reply); no completed
 * turn's thinking is ever sent; and no thinking block in any request (summary requests included)
 * differs from one the model wrote.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { currentTurnStart } from '../../src/core/context/liveView';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import { driveRandomSession, goodSummary, Rig, type RandomTurn } from './context.harness';

const turnArb: fc.Arbitrary<RandomTurn<{ results: number[]; compact: boolean }>> = fc.record({
  rounds: fc.array(
    fc.record({ results: fc.array(fc.integer({ min: 200, max: 12_000 }), { minLength: 1, maxLength: 3 }), compact: fc.integer({ min: 0, max: 7 }).map((n) => n === 0) }),
    { minLength: 1, maxLength: 6 },
  ),
  idleMs: fc.oneof(fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: 5 * 60_000 + 1, max: 20 * 60_000 })),
});

const thinkingOf = (messages: readonly MessageParam[]): ContentBlockParam[] =>
  messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content.filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking')));

describe('thinking blocks under tiers and compaction (random sessions)', function () {
  this.timeout(600_000);

  it("keeps the current turn's thinking byte-identical in every request, and sends no completed turn's", async () => {
    let compactions = 0;
    let edits = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 30_000, max: 90_000 }), fc.array(turnArb, { minLength: 2, maxLength: 6 }), async (window, turns) => {
        const rig = new Rig({ window, maxOutputTokens: 4096, fallbackReply: goodSummary('s'), settings: { clearUtilization: 0.1, keepRecentResults: 1 } });
        const written = new Set<string>();
        const check = (messages: readonly MessageParam[], where: string) => {
          for (const block of thinkingOf(messages)) assert.ok(written.has(JSON.stringify(block)), `${where}: a thinking block the model did not write: ${JSON.stringify(block).slice(0, 120)}`);
        };
        let n = 0;
        const ran = await driveRandomSession(rig, turns, {
          task: (t) => `Task ${t}: work through the files.`,
          check,
          onRequest: (prepared, t) => {
            // The current turn's replies that the request still holds (after any boundary) keep their thinking, first and unchanged.
            const canonical = rig.history;
            const keptFrom = Math.min(rig.engine.snapshot.live.boundary?.keptFrom ?? 0, canonical.length);
            const turnStart = currentTurnStart(canonical);
            const expected = thinkingOf(canonical.slice(Math.max(keptFrom, turnStart)));
            assert.deepEqual(thinkingOf(prepared.messages), expected, `turn ${t}: the request's thinking is exactly the current turn's`);
            for (const message of prepared.messages) {
              if (message.role !== 'assistant' || typeof message.content === 'string') continue;
              const at = message.content.findIndex((block) => block.type === 'thinking');
              assert.ok(at <= 0, `turn ${t}: thinking moved inside its reply`);
            }
          },
          lead: (_round, ids) => {
            const thinking: ContentBlockParam = { type: 'thinking', thinking: `Round ${++n}: I will call ${ids.join(', ')}.\n${'reasoning '.repeat(n % 7)}`, signature: `sig-${n}-${'x'.repeat(n % 5)}` };
            written.add(JSON.stringify(thinking));
            return [thinking];
          },
        });
        edits += ran.edits;
        compactions += ran.compactions;
      }),
      { numRuns: 25, seed: 2_026_1126 },
    );
    // The property is only worth something if tiers and compactions really ran.
    assert.ok(edits > 0, 'no tier edit ran in any session');
    assert.ok(compactions > 0, 'no compaction ran in any session');
  });
});

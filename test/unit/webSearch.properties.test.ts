/**
 * Property test (issue 30): whatever tiers 1-3 clear and whatever a compaction summarizes, every
 * request (summary requests included) holds web search blocks only in a form the API accepts
 * (the fake's own check: each call with its result, content and citations unedited), the current
 * turn's searches go back as the very blocks the model wrote, and no completed turn's search is
 * sent again (its note stands in).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type Anthropic from '@anthropic-ai/sdk';
import { currentTurnStart } from '../../src/core/context/liveView';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import { citation, searchBlocks, webSearchHistoryProblem } from '../fake-anthropic/webSearch';
import { driveRandomSession, goodSummary, Rig, type RandomRound } from './context.harness';

interface Round extends RandomRound {
  /** This round's reply searched the web first (how many results). */
  search: number | undefined;
}

const roundArb: fc.Arbitrary<Round> = fc.record({
  results: fc.array(fc.integer({ min: 200, max: 12_000 }), { minLength: 1, maxLength: 3 }),
  search: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  compact: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
});

const isSearchBlock = (block: ContentBlockParam) => block.type === 'server_tool_use' || block.type === 'web_search_tool_result';
const searchBlocksOf = (messages: readonly MessageParam[]) => messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content.filter((block) => isSearchBlock(block) || (block.type === 'text' && block.citations !== undefined))));

describe('web search blocks under tiers and compaction (random sessions)', function () {
  this.timeout(600_000);

  it('sends them exactly within their turn, never after it, and always in a form the API accepts', async () => {
    let searches = 0;
    let compactions = 0;
    let edits = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 30_000, max: 90_000 }), fc.array(fc.record({ rounds: fc.array(roundArb, { minLength: 1, maxLength: 5 }), idleMs: fc.integer({ min: 0, max: 20 * 60_000 }) }), { minLength: 2, maxLength: 5 }), async (window, turns) => {
        const rig = new Rig({ window, maxOutputTokens: 4096, fallbackReply: goodSummary('s'), settings: { clearUtilization: 0.1, keepRecentResults: 1 } });
        const check = (messages: readonly MessageParam[], where: string) => {
          const problem = webSearchHistoryProblem(messages as Anthropic.MessageParam[]);
          assert.equal(problem, undefined, `${where}: ${problem}`);
        };
        let n = 0;
        const ran = await driveRandomSession(rig, turns, {
          task: (t) => `Task ${t}: look things up and work through the files.`,
          check,
          onRequest: (prepared, t) => {
            const canonical = rig.history;
            const keptFrom = Math.min(rig.engine.snapshot.live.boundary?.keptFrom ?? 0, canonical.length);
            const expected = searchBlocksOf(canonical.slice(Math.max(keptFrom, currentTurnStart(canonical))));
            assert.deepEqual(searchBlocksOf(prepared.messages), expected, `turn ${t}: the request's search blocks are exactly the current turn's`);
          },
          lead: (round) => {
            if (round.search === undefined) return [];
            searches++;
            const results = Array.from({ length: round.search }, (_, i) => ({ url: `https://docs.example/${n}/${i}`, title: `Page ${i}` }));
            const [call, result] = searchBlocks(`srvtoolu_${++n}`, `query ${n}`, results);
            const cited = results[0];
            return [
              { type: 'server_tool_use', id: call.id, name: 'web_search', input: call.input as Record<string, unknown> },
              { type: 'web_search_tool_result', tool_use_id: result.tool_use_id, content: result.content as Extract<ContentBlockParam, { type: 'web_search_tool_result' }>['content'] },
              cited ? { type: 'text', text: `Found ${results.length}.`, citations: [citation(cited.url, cited.title, 'a cited line')] } : { type: 'text', text: 'Nothing found.' },
            ];
          },
        });
        edits += ran.edits;
        compactions += ran.compactions;
      }),
      { numRuns: 25, seed: 2_026_1130 },
    );
    assert.ok(searches > 0 && edits > 0 && compactions > 0, `the property ran searches (${searches}), tier edits (${edits}) and compactions (${compactions})`);
  });
});

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { TranscriptRecall } from '../../src/core/recall/recallIndex';
import { createRecallTool, type RecallInput } from '../../src/core/tools/recall';
import { RECALL_TOOL } from '../../src/core/tools/recallRef';
import { createToolRegistry } from '../../src/core/tools/registry';
import type { ToolResult } from '../../src/core/tools/types';
import type { RecallSource } from '../../src/core/tools/recallTypes';
import { useTempDirs } from '../support/tempDirs';
import { context, sessionWith, TS } from '../support/recallSessions';

describe('recall tool', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let root: string;
  let workspace: string;
  beforeEach(() => {
    root = temp.make('evergreen-recall-');
    workspace = temp.make('evergreen-recall-ws-');
  });

  async function run(recall: RecallSource | undefined, input: unknown, pageChars?: number): Promise<ToolResult> {
    const tool = createRecallTool(pageChars ? { maxPageChars: pageChars } : {});
    const parsed: RecallInput = tool.parse(input);
    return tool.run(parsed, context(recall, workspace));
  }

  it('is fast on a 50 MB transcript: the index is built once, later searches and lookups reuse it', async () => {
    const s = await sessionWith(root);
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 50 * 1024 * 1024; i++) {
      const text = Array.from({ length: 200 }, (_, j) => `src/f${i}_${j}.ts:${j}: const v${j} = compute("${i}-${j}") // "quoted" \\ text`).join('\n');
      const call = JSON.stringify({ type: 'message', ts: TS, message: { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'grep_search', input: { pattern: `v${i}` } }] } });
      const result = JSON.stringify({ type: 'message', ts: TS, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: text }] } });
      lines.push(call, result);
      size += call.length + result.length;
    }
    fs.appendFileSync(s.handle.transcriptPath, lines.join('\n') + '\n');
    const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
    let started = Date.now();
    const first = await run(recall, { query: 'compute("77-3")' });
    const building = Date.now() - started;
    assert.match(first.content, /^1 matching line in 1 place .*\n1\. toolu_77 · tool result of grep_search/);
    started = Date.now();
    const second = await run(recall, { query: '"quoted" \\ text' });
    const searching = Date.now() - started;
    assert.match(second.content, /^[\d,]{7,} matching lines/, 'text with quotes and backslashes, as the tool printed it');
    started = Date.now();
    assert.match((await run(recall, { id: 'toolu_2000' })).content, /^src\/f2000_0\.ts:0:/);
    const lookup = Date.now() - started;
    // Generous bounds for a shared test machine; typical: ~2 s to build, ~0.5 s a search, ~20 ms a lookup.
    assert.ok(building < 20_000 && searching < 5_000 && lookup < 1_000, `build ${building} ms, search ${searching} ms, lookup ${lookup} ms`);
  });

  describe('bad input', () => {
    async function viaRegistry(recall: RecallSource, input: unknown): Promise<ToolResult> {
      return createToolRegistry({ trusted: true }).executeToolCall(RECALL_TOOL, input, context(recall, workspace));
    }

    it('a catastrophic regex: stopped within its time budget with a clear error, and the tool goes on working', async () => {
      const s = await sessionWith(root);
      s.call('toolu_aaa', 'run_shell', { command: 'echo' }, `${'a'.repeat(40)}!`);
      const recall = new TranscriptRecall({ sessionDir: s.handle.dir, limits: { batchBudgetMs: 300, searchBudgetMs: 1_000 } });
      const started = Date.now();
      const result = await viaRegistry(recall, { query: '/^(a+)+$/' });
      assert.ok(Date.now() - started < 5_000, 'bounded in time');
      assert.equal(result.isError, true);
      assert.match(result.content, /The regular expression \/\^\(a\+\)\+\$\/ ran longer than 300 ms and was stopped: .*search plain text/);
      const after = await viaRegistry(recall, { query: 'aaaa!' });
      assert.match(after.content, /toolu_aaa/);
    });
  });
});

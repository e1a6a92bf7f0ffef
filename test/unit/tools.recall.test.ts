import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MessageParam } from '../../src/core/model/messages';
import { renderTranscript } from '../../src/extension/transcriptMarkdown';
import { subagentTools } from '../../src/core/agent/subagents';
import { TranscriptRecall } from '../../src/core/recall/recallIndex';
import { withRecallReferences } from '../../src/core/storage/recalledEntries';
import { FileSessionStore, readTranscript, transcriptLines, type TranscriptLine } from '../../src/core/storage/sessionStore';
import { createRecallTool, parseRecallQuery, type RecallInput } from '../../src/core/tools/recall';
import { RECALL_TOOL } from '../../src/core/tools/recallRef';
import { createToolRegistry } from '../../src/core/tools/registry';
import type { ToolResult } from '../../src/core/tools/types';
import type { RecallSource } from '../../src/core/tools/recallTypes';
import { useTempDirs } from '../support/tempDirs';
import { context, sessionWith, TS } from '../support/recallSessions';
import type { RecalledSlice } from '../../src/core/tools/recallTypes';
import { dispatchEffects, sessionEffectHandlers } from '../../src/core/agent/effects';
import { silentLogger } from '../../src/core/logger';
import { effectOf } from '../support/toolFixtures';

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

  it('is a built-in, read-only tool named by recallRef, offered in untrusted workspaces too', () => {
    const registry = createToolRegistry({ trusted: false });
    const tool = registry.get(RECALL_TOOL);
    assert.ok(tool, 'recall is registered');
    assert.equal(tool.kind, 'read');
    assert.deepEqual(tool.context, { kind: 'other', persist: 'never' });
    assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ['id', 'limit', 'offset', 'query']);
  });

  it('returns an earlier tool result exactly, by id', async () => {
    const s = await sessionWith(root);
    const output = 'PASS a.test\nFAIL b.test: expected "x"\\n to equal \'y\'\n  at line 3 — ünïcode ✓';
    s.call('toolu_test3', 'run_shell', { command: 'npm test' }, output);
    s.call('toolu_other', 'read_file', { path: 'a.txt' }, 'alpha');
    const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
    const result = await run(recall, { id: 'toolu_test3' });
    assert.equal(result.isError, undefined);
    assert.equal(result.content, output);
    const recalled = effectOf(result, 'recalled');
    assert.ok(recalled, 'the result says which text it is a slice of');
    assert.equal(recalled.content, result.content);
    assert.deepEqual(recalled.slice.source, { kind: 'message', toolUseId: 'toolu_test3' });
    // What is appended later is read on the next call (only the new bytes).
    s.call('toolu_later', 'run_shell', { command: 'date' }, 'later output');
    assert.equal((await run(recall, { id: 'toolu_later' })).content, 'later output');
    assert.match((await run(recall, { query: 'later output' })).content, /^1 matching line in 1 place/);
  });

  it('pages a large result by characters, naming the next offset, and the pages join to the whole', async () => {
    const s = await sessionWith(root);
    const output = Array.from({ length: 3000 }, (_, i) => `line ${i} ${'x'.repeat(i % 7)}`).join('\n');
    s.call('toolu_big', 'run_shell', { command: 'make' }, output);
    const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
    let offset = 0;
    let joined = '';
    for (let page = 0; page < 20 && offset < output.length; page++) {
      const result = await run(recall, { id: 'toolu_big', offset }, 10_000);
      const recalled = effectOf(result, 'recalled');
      assert.ok(recalled);
      const { start, end, head, tail } = recalled.slice;
      assert.equal(start, offset);
      assert.equal(result.content, head + output.slice(start, end) + tail);
      joined += output.slice(start, end);
      if (end < output.length) assert.match(tail, new RegExp(`"offset":${end}`));
      offset = end;
    }
    assert.equal(joined, output);
  });

  it('finds matches across messages, calls and results, with ids, times and excerpts', async () => {
    const s = await sessionWith(root);
    s.say('user', 'Please fix the flaky checkout test');
    s.call('toolu_a', 'run_shell', { command: 'npm test -- checkout' }, 'checkout.spec: TimeoutError after 5000ms');
    s.call('toolu_b', 'read_file', { path: 'src/cart.ts' }, 'export const cart = 1;');
    const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
    const result = await run(recall, { query: 'TimeoutError' });
    assert.equal(result.isError, undefined);
    assert.match(result.content, /^1 matching line in 1 place/);
    assert.match(result.content, /toolu_a · tool result of run_shell · 2026-11-25T10:00:00.000Z/);
    assert.match(result.content, /checkout\.spec: TimeoutError after 5000ms/);
    const calls = await run(recall, { query: 'checkout' });
    assert.match(calls.content, /message #1 · user/);
    assert.match(calls.content, /toolu_a · tool call of run_shell/);
    const regex = await run(recall, { query: '/Timeout\\w+ after \\d+ms/' });
    assert.match(regex.content, /toolu_a · tool result/);
  });

  it('parses queries: /pattern/flags is a regex, anything else plain text; bad input is refused with what to do', () => {
    assert.deepEqual(parseRecallQuery('a.b'), { kind: 'text', text: 'a.b' });
    assert.deepEqual(parseRecallQuery('/a.b/gi'), { kind: 'regex', pattern: 'a.b', flags: 'i' });
    assert.throws(() => parseRecallQuery('/a(/'), /Invalid regular expression/);
    assert.deepEqual(parseRecallQuery('/src/app'), { kind: 'text', text: '/src/app' }, 'a path is plain text');
    assert.deepEqual(parseRecallQuery('/src/app/'), { kind: 'regex', pattern: 'src/app', flags: '' });
    const tool = createRecallTool();
    assert.throws(() => tool.parse({}), /exactly one of "id".*or "query"/);
    assert.throws(() => tool.parse({ id: 'a', query: 'b' }), /exactly one/);
    assert.throws(() => tool.parse({ query: 'b', offset: 3 }), /"offset" pages a result recalled by id/);
    assert.throws(() => tool.parse({ query: 'b', limit: 51 }), /at most 50/);
  });

  it('says so when the session keeps no transcript', async () => {
    const result = await run(undefined, { id: 'toolu_x' });
    assert.equal(result.isError, true);
    assert.match(result.content, /keeps no transcript/);
  });

  it('reads the transcript back with a referenced recall put in place', async () => {
    const s = await sessionWith(root);
    const output = 'y'.repeat(5000);
    s.call('toolu_src', 'run_shell', { command: 'cat y' }, output);
    const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
    const result = await run(recall, { id: 'toolu_src' });
    const recalled = effectOf(result, 'recalled');
    assert.ok(recalled);
    s.handle.append({ type: 'message', ts: TS, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_r', name: RECALL_TOOL, input: { id: 'toolu_src' } }] } });
    // As the session stores it: the message the model got, with the large recall turned into a reference.
    const stored = withRecallReferences({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r', content: result.content }] }, new Map([['toolu_r', recalled.slice]]));
    assert.ok(stored.recalls, 'a 5,000-character recall is stored as a reference');
    s.handle.append({ type: 'message', ts: TS, message: stored.message, recalls: stored.recalls });
    const raw = fs.readFileSync(s.handle.transcriptPath, 'utf8');
    assert.equal(raw.split(output).length, 2, 'the transcript holds the output once');
    const loaded = await readTranscript(s.handle.transcriptPath);
    const last = loaded.entries.at(-1);
    assert.equal(last?.type, 'message');
    if (last?.type !== 'message' || typeof last.message.content === 'string') throw new Error('unreachable');
    const block = last.message.content[0];
    assert.equal(block?.type, 'tool_result');
    if (block?.type !== 'tool_result') throw new Error('unreachable');
    assert.equal(block.content, output);
    // The archived-transcript view reads the raw lines: it shows the stub naming the result it repeats.
    const lines: TranscriptLine[] = [];
    for await (const line of transcriptLines(s.handle.transcriptPath)) lines.push(line);
    const { text } = await renderTranscript(s.handle.meta, lines);
    assert.match(text, /recalled: characters 0-5000 of the result of toolu_src; the transcript keeps a reference, not a copy/);
  });

  it('stores a reference only for a large recall that is still exactly its slice', async () => {
    const slice = { source: { kind: 'message' as const, toolUseId: 'toolu_src' }, start: 0, end: 5000, head: '', tail: '' };
    const message = (content: string): MessageParam => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r', content }] });
    assert.ok(withRecallReferences(message('y'.repeat(5000)), new Map([['toolu_r', slice]])).recalls);
    assert.equal(withRecallReferences(message('y'.repeat(100)), new Map([['toolu_r', { ...slice, end: 100 }]])).recalls, undefined, 'small: copied');
    assert.equal(withRecallReferences(message('y'.repeat(4000)), new Map([['toolu_r', slice]])).recalls, undefined, 'cut since: copied');
    assert.equal(withRecallReferences(message('y'.repeat(5000)), new Map([['toolu_r', { ...slice, source: { kind: 'copy' as const } }]])).recalls, undefined, "a subagent's text: copied");
    // A recalled secret is redacted on its way to the model: that text is no longer the slice, so no reference.
    const s = await sessionWith(root);
    s.call('toolu_key', 'run_shell', { command: 'env' }, `KEY=sk-ant-secret-value-123\n${'z'.repeat(3000)}`);
    const registry = createToolRegistry({ trusted: true, secrets: [{ name: 'API key', value: 'sk-ant-secret-value-123' }] });
    // The session's own handler decides, on the result as recorded.
    const pending = new Map<string, RecalledSlice>();
    const handlers = sessionEffectHandlers({ emit: () => undefined, pendingRecalls: pending, recordWrite: undefined, logger: silentLogger });
    const recorded = async (toolUseId: string, input: Record<string, unknown>): Promise<void> => {
      const result = await registry.executeToolCall(RECALL_TOOL, input, context(new TranscriptRecall({ sessionDir: s.handle.dir }), workspace));
      assert.ok(effectOf(result, 'recalled'), 'the tool names its slice either way');
      await dispatchEffects(handlers, result.effects ?? [], { turnId: 't', toolUseId, recorded: result.content, foldersRead: [], endTurn: () => undefined });
      if (toolUseId === 'toolu_redacted') assert.doesNotMatch(result.content, /sk-ant-secret-value-123/);
    };
    await recorded('toolu_redacted', { id: 'toolu_key' });
    assert.equal(pending.has('toolu_redacted'), false, 'a redacted page is no longer its slice: copied');
    await recorded('toolu_clean', { id: 'toolu_key', offset: 100 });
    assert.ok(pending.has('toolu_clean'), 'a page without the secret keeps its reference');
  });

  it('an explore subagent gets recall (it only looks); its history is its own transcript', () => {
    const registry = createToolRegistry({ trusted: true, task: true });
    assert.ok(subagentTools(registry, 'explore').get(RECALL_TOOL));
    assert.ok(subagentTools(registry, 'general').get(RECALL_TOOL));
  });

  describe('bad input', () => {
    async function viaRegistry(recall: RecallSource, input: unknown): Promise<ToolResult> {
      return createToolRegistry({ trusted: true }).executeToolCall(RECALL_TOOL, input, context(recall, workspace));
    }

    it('an unknown id: a clear error naming the nearest ids', async () => {
      const s = await sessionWith(root);
      s.call('toolu_01AbCdEf', 'run_shell', { command: 'npm test' }, 'ok');
      s.call('toolu_01AbCdXy', 'read_file', { path: 'a' }, 'a');
      s.call('toolu_99ZZZZZZ', 'grep_search', { pattern: 'q' }, 'q');
      const result = await viaRegistry(new TranscriptRecall({ sessionDir: s.handle.dir }), { id: 'toolu_01AbCdEg' });
      assert.equal(result.isError, true);
      assert.match(result.content, /^No tool result with id "toolu_01AbCdEg" in this session's history \(3 results/);
      assert.match(result.content, /The nearest ids: toolu_01AbCdEf \(run_shell, 2026-11-25T10:00:00.000Z\), toolu_01AbCdXy \(read_file/);
      assert.match(result.content, /recall \{"query": "…"\}/);
    });

    it('an id from another session: says whose it is, and that recall reads only this one', async () => {
      const a = await sessionWith(root);
      a.call('toolu_fromA', 'run_shell', { command: 'ls' }, 'secret-ish listing');
      const b = await sessionWith(root);
      b.call('toolu_fromB', 'run_shell', { command: 'pwd' }, '/x');
      const result = await viaRegistry(new TranscriptRecall({ sessionDir: b.handle.dir }), { id: 'toolu_fromA' });
      assert.equal(result.isError, true);
      assert.match(result.content, new RegExp(`"toolu_fromA" is a tool call of another session \\(${a.handle.id}\\), not of this session`));
      assert.doesNotMatch(result.content, /secret-ish listing/, 'nothing of the other session is shown');
    });

    it('a call whose result is not in yet says so', async () => {
      const s = await sessionWith(root);
      s.handle.append({ type: 'message', ts: TS, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_pending', name: 'run_shell', input: { command: 'sleep 1' } }] } });
      const result = await viaRegistry(new TranscriptRecall({ sessionDir: s.handle.dir }), { id: 'toolu_pending' });
      assert.equal(result.isError, true);
      assert.match(result.content, /The call toolu_pending \(run_shell\) has no result yet/);
    });

    it('a query that matches 100,000 times: bounded, ranked, and says how many more', async () => {
      const s = await sessionWith(root);
      for (let i = 0; i < 2000; i++) {
        const lines = Array.from({ length: 50 }, (_, j) => `row ${j}: needle in result ${i}`);
        // One place matches on more lines than any other: it ranks first.
        if (i === 700) lines.push(...Array.from({ length: 50 }, () => 'needle needle'));
        s.call(`toolu_n${i}`, 'run_shell', { command: `gen ${i}` }, lines.join('\n'));
      }
      const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
      const started = Date.now();
      const result = await viaRegistry(recall, { query: 'NEEDLE' });
      const elapsed = Date.now() - started;
      assert.equal(result.isError, undefined);
      assert.match(result.content, /^100,050 matching lines in 2,000 places for "NEEDLE" \(plain text, case-insensitive\); the best 10, best first:/);
      assert.match(result.content, /\n1\. toolu_n700 · tool result of run_shell/);
      assert.match(result.content, /1,990 more places not shown: narrow the query, or raise "limit" \(at most 50\)\./);
      assert.ok(result.content.length < 5_000, `bounded output (${result.content.length} characters)`);
      assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
      const more = await viaRegistry(recall, { query: 'needle', limit: 50 });
      assert.equal(more.content.split('\n').filter((line) => /^\d+\. /.test(line)).length, 50);
    });

    it('a transcript with torn or invalid lines: they are skipped and reported, everything else is found', async () => {
      const s = await sessionWith(root);
      s.call('toolu_before', 'run_shell', { command: 'a' }, 'before the tear');
      fs.appendFileSync(s.handle.transcriptPath, '{"type":"message","ts":"x","mess\n');
      fs.appendFileSync(s.handle.transcriptPath, '{"type":"nonsense","ts":"x"}\n');
      s.call('toolu_after', 'run_shell', { command: 'b' }, 'after the tear');
      fs.appendFileSync(s.handle.transcriptPath, '{"type":"message","ts":"x","message":{"role":"user","content":"torn');
      const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
      assert.equal((await viaRegistry(recall, { id: 'toolu_after' })).content, 'after the tear');
      const search = await viaRegistry(recall, { query: 'the tear' });
      assert.match(search.content, /^2 matching lines in 2 places/);
      assert.match(search.content, /\[3 transcript lines could not be read and were skipped: the transcript line \d+: not valid JSON[^;]*; the transcript line \d+: unknown entry type "nonsense"; the transcript: its last line is incomplete\]/);
      const missing = await viaRegistry(recall, { id: 'toolu_lost' });
      assert.match(missing.content, /3 transcript line\(s\) could not be read .*the result may have been on one/);
      // Read in chunks smaller than a line, the same transcript gives the same answers (no line is split).
      const chunked = new TranscriptRecall({ sessionDir: s.handle.dir, limits: { readChunkBytes: 16 } });
      assert.equal((await viaRegistry(chunked, { query: 'the tear' })).content, search.content);
      assert.equal((await viaRegistry(chunked, { id: 'toolu_after' })).content, 'after the tear');
    });

    it('a saved output deleted from disk: says so and offers the transcript\'s copy (the preview)', async () => {
      const s = await sessionWith(root);
      const file = path.join(s.handle.toolResultsDir, 'toolu_saved.txt');
      const whole = Array.from({ length: 5000 }, (_, i) => `log line ${i}`).join('\n');
      fs.writeFileSync(file, whole);
      s.handle.append({ type: 'persisted_output', ts: TS, toolUseId: 'toolu_saved', toolName: 'run_shell', file, bytes: whole.length, lines: 5000 });
      const preview = '[Output too large for the context: …]\nPreview (head and tail):\nlog line 0\n…\nlog line 4999';
      s.call('toolu_saved', 'run_shell', { command: 'make logs' }, preview);
      const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
      const whole1 = await run(recall, { id: 'toolu_saved' }, 100_000);
      assert.equal(whole1.content, whole, 'the saved file, whole');
      assert.deepEqual(effectOf(whole1, 'recalled')?.slice.source, { kind: 'file', file });
      const found = await run(recall, { query: 'log line 2500' });
      assert.match(found.content, /toolu_saved · tool result of run_shell/, 'the search reads the saved output, not only the preview');
      fs.rmSync(file);
      const gone = await run(recall, { id: 'toolu_saved' });
      assert.equal(gone.isError, undefined);
      assert.ok(gone.content.startsWith(`[The saved output ${file} of this result is no longer on disk (deleted). What follows is the transcript's copy: the preview the context got (head and tail), not the whole output.]\n`), gone.content);
      assert.ok(gone.content.endsWith(preview));
    });

    it('a part of the conversation a checkpoint restore took back is left out, as the conversation leaves it out', async () => {
      const s = await sessionWith(root);
      s.call('toolu_kept', 'run_shell', { command: 'a' }, 'kept alpha'); // entries 0, 1
      s.call('toolu_gone', 'run_shell', { command: 'b' }, 'gone alpha'); // entries 2, 3
      s.handle.append({ type: 'rewind', ts: TS, checkpoint: 1, toEntry: 2, files: 'kept' }); // entry 4
      const recall = new TranscriptRecall({ sessionDir: s.handle.dir });
      assert.match((await run(recall, { id: 'toolu_gone' })).content, /restored away/);
      assert.match((await run(recall, { query: 'alpha' })).content, /^1 matching line in 1 place .*\n1\. toolu_kept/);
      // Undone right after (no message between): it is history again.
      s.handle.append({ type: 'rewind_undone', ts: TS, rewindEntry: 4 });
      assert.equal((await run(recall, { id: 'toolu_gone' })).content, 'gone alpha');
      assert.match((await run(recall, { query: 'alpha' })).content, /^2 matching lines in 2 places/);
    });

    it("a subagent's results are found from its parent, and a child recalls its own", async () => {
      const s = await sessionWith(root);
      s.call('toolu_task', 'task', { description: 'look', prompt: 'look' }, 'child report: found it');
      const child = await new FileSessionStore(root).subagentStore(s.handle.id).create({ model: 'claude-test' });
      child.append({ type: 'message', ts: TS, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_childgrep', name: 'grep_search', input: { pattern: 'zebra' } }] } });
      child.append({ type: 'message', ts: TS, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_childgrep', content: 'src/zoo.ts:3: zebra' }] } });
      const parent = new TranscriptRecall({ sessionDir: s.handle.dir });
      const byId = await run(parent, { id: 'toolu_childgrep' });
      assert.equal(byId.content, 'src/zoo.ts:3: zebra');
      assert.deepEqual(effectOf(byId, 'recalled')?.slice.source, { kind: 'copy' }, "a child's text is not in the parent's transcript: no reference to it");
      const search = await run(parent, { query: 'zebra' });
      assert.match(search.content, new RegExp(`toolu_childgrep · tool result of grep_search in subagent ${child.id}`));
      const own = await run(new TranscriptRecall({ sessionDir: child.dir }), { id: 'toolu_childgrep' });
      assert.equal(own.content, 'src/zoo.ts:3: zebra');
      const parentsId = await run(new TranscriptRecall({ sessionDir: child.dir }), { id: 'toolu_task' });
      assert.match(parentsId.content, /is a tool call of this subagent's parent session/);
    });
  });
});

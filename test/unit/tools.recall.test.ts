import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { MessageParam } from '../../src/core/model/messages';
import { TranscriptRecall } from '../../src/core/storage/recallIndex';
import { FileSessionStore, readTranscript, type SessionHandle } from '../../src/core/storage/sessionStore';
import { createRecallTool, parseRecallQuery, type RecallInput } from '../../src/core/tools/recall';
import { RECALL_TOOL } from '../../src/core/tools/recallRef';
import { createToolRegistry } from '../../src/core/tools/registry';
import type { RecallSource, ToolContext, ToolResult } from '../../src/core/tools/types';
import { NodeWorkspace } from '../../src/core/tools/workspace';

const TS = '2026-11-25T10:00:00.000Z';

/** A session folder written through the real store, with helpers to add calls and results. */
async function sessionWith(root: string): Promise<{ handle: SessionHandle; call(id: string, name: string, input: Record<string, unknown>, result: string, isError?: boolean): void; say(role: 'user' | 'assistant', text: string): void }> {
  const store = new FileSessionStore(root);
  const handle = await store.create({ model: 'claude-test' });
  const append = (message: MessageParam) => handle.append({ type: 'message', ts: TS, message });
  return {
    handle,
    call(id, name, input, result, isError) {
      append({ role: 'assistant', content: [{ type: 'tool_use', id, name, input }] });
      append({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }] });
    },
    say(role, text) {
      append({ role, content: [{ type: 'text', text }] });
    },
  };
}

function context(recall: RecallSource | undefined, workspace: string): ToolContext {
  return {
    workspace: new NodeWorkspace(workspace),
    signal: new AbortController().signal,
    onProgress: () => undefined,
    approve: async () => ({ approved: true }),
    ...(recall ? { recall } : {}),
  };
}

describe('recall tool', function () {
  this.timeout(30_000);
  let root: string;
  let workspace: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-recall-'));
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'evergreen-recall-ws-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
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
    assert.ok(result.recalled, 'the result says which text it is a slice of');
    assert.deepEqual(result.recalled.source, { kind: 'message', toolUseId: 'toolu_test3' });
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
      assert.ok(result.recalled);
      const { start, end, head, tail } = result.recalled;
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
    assert.throws(() => parseRecallQuery('/a/x'), /Unsupported regular expression flags/);
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
    assert.ok(result.recalled);
    s.handle.append({ type: 'message', ts: TS, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_r', name: RECALL_TOOL, input: { id: 'toolu_src' } }] } });
    s.handle.append({
      type: 'message',
      ts: TS,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r', content: '[stub]' }] },
      recalls: [{ toolUseId: 'toolu_r', ...result.recalled }],
    });
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
  });
});

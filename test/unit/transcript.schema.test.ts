/**
 * The transcript's schemas (storage/transcript.ts): every entry type read back as written, each kind
 * of damage reported with the field it concerns, the drifts the hand-written checks let through
 * (a compaction without id or trigger, `usage: {}` turning the totals into NaN, and the others found
 * beside them), and older transcripts upgraded to today's entries.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { foldTranscript } from '../../src/core/agent/fold';
import { readTranscript } from '../../src/core/storage/sessionStore';
import { parseTranscriptEntry, type TranscriptEntry } from '../../src/core/storage/transcript';
import { useTempDirs } from '../support/tempDirs';

const ts = '2026-01-01T00:00:00.000Z';
const mark = { canonicalCount: 4, liveCount: 3, liveChars: 9_000 };
const stats = { tokensBefore: 900, tokensAfter: 100, messagesSummarized: 2, messagesKept: 3, summaryRequests: 1 };
const compaction = { id: 'c1', trigger: 'auto', summary: 'S', keptFrom: 2, restoredFiles: [{ path: 'a.ts', content: 'x' }], stats };
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 2 };

/** One valid entry of every type, as the current version writes them. */
const GOOD: TranscriptEntry[] = [
  { type: 'message', ts, message: { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } }] }, checkpoint: 1 },
  { type: 'message', ts, provider: 'anthropic', model: 'claude-sonnet-4-6', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'redacted_thinking', data: 'r' }, { type: 'tool_use', id: 'toolu_1', name: 'recall', input: { id: 'toolu_0' } }] } },
  {
    type: 'message',
    ts,
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'stub' }], is_error: false }] },
    recalls: [{ toolUseId: 'toolu_1', source: { kind: 'message', toolUseId: 'toolu_0' }, start: 0, end: 2_500, head: '', tail: '' }],
  },
  { type: 'usage', ts, model: 'm', usage, costUsd: 0.01, request: { ...mark, pendingWaste: 3 } },
  { type: 'usage', ts, model: 'local', usage, costUsd: 0, priceUnknown: true, childId: 'child-1' },
  { type: 'compaction', ts, compaction: { ...compaction, trigger: 'drop', userMessages: ['do it'], todos: [{ id: '1', text: 'Read', status: 'done' }], droppedCalls: { calls: [{ id: 'toolu_9', name: 'run_shell' }], omitted: 2 } } },
  { type: 'compaction_undo', ts, compactionId: 'c1', tokensBefore: 100, tokensAfter: 900 },
  { type: 'tier_edit', ts, tier: 'microcompact', edits: [{ toolUseId: 'a', action: 'trim', maxChars: 10 }, { toolUseId: 'b', action: 'snip', reason: 'old' }, { toolUseId: 'c', action: 'clear' }], tokensBefore: 2, tokensAfter: 1 },
  { type: 'persisted_output', ts, toolUseId: 'toolu_1', toolName: 'run_shell', file: '/s/tool-results/a.txt', bytes: 40_000, lines: 900, tokensBefore: 10_000, tokensAfter: 500 },
  { type: 'repair', ts, repairs: 1, reason: 'an unanswered tool call' },
  { type: 'system_prompt', ts, text: 'SYSTEM' },
  { type: 'token_anchor', ts, anchor: { mark, promptTokens: 4_000, atMs: 12 } },
  { type: 'compaction_failed', ts, trigger: 'tool', reason: 'empty reply', counts: false },
  { type: 'window_learned', ts, window: 12_000, assumed: 200_000 },
  { type: 'compact_scheduled', ts, focus: 'the parser' },
  { type: 'compact_scheduled', ts },
  { type: 'rewind', ts, checkpoint: 2, toEntry: 5, files: 'restored' },
  { type: 'rewind_undone', ts, rewindEntry: 7 },
  { type: 'event', ts, name: 'subagent_started', data: { childId: 'c' } },
];

function problemOf(value: unknown): string {
  const parsed = parseTranscriptEntry(value);
  assert.ok('problem' in parsed, `accepted: ${JSON.stringify(value)}`);
  return parsed.problem;
}

function entryOf(value: unknown): TranscriptEntry {
  const parsed = parseTranscriptEntry(value);
  assert.ok('entry' in parsed, 'problem' in parsed ? parsed.problem : '');
  return parsed.entry;
}

describe('transcript schemas', () => {
  const temp = useTempDirs();
  it('reads every entry type back exactly as the current version writes it', () => {
    const types = new Set(GOOD.map((entry) => entry.type));
    assert.equal(types.size, 15, 'one of every entry type');
    for (const entry of GOOD) assert.deepEqual(entryOf(JSON.parse(JSON.stringify(entry))), entry);
  });

  it('names what is not an entry at all', () => {
    assert.equal(problemOf([1, 2]), 'not a JSON object');
    assert.equal(problemOf('message'), 'not a JSON object');
    assert.equal(problemOf({ type: 'mystery', ts }), 'unknown entry type "mystery"');
    assert.equal(problemOf({ ts }), 'unknown entry type undefined');
    assert.equal(problemOf({ type: 'toString', ts }), 'unknown entry type "toString"', 'an inherited property is no entry type');
    assert.match(problemOf({ type: 'system_prompt', text: 'x' }), /^a malformed system-prompt entry: ts: .*expected string, received undefined$/);
  });

  describe('the drifts the hand-written checks let through', () => {
    it('a compaction without its id or its trigger', () => {
      const { id: _id, ...withoutId } = compaction;
      const { trigger: _trigger, ...withoutTrigger } = compaction;
      assert.match(problemOf({ type: 'compaction', ts, compaction: withoutId }), /^a malformed compaction entry: compaction\.id: .*expected string, received undefined$/);
      assert.match(problemOf({ type: 'compaction', ts, compaction: withoutTrigger }), /^a malformed compaction entry: compaction\.trigger: /);
      assert.match(problemOf({ type: 'compaction', ts, compaction: { ...compaction, trigger: 'whenever' } }), /compaction\.trigger: Invalid option/);
    });

    it('a usage entry without its counts, which turned the totals into NaN: reported and skipped, the totals stay numbers', async () => {
      assert.match(problemOf({ type: 'usage', ts, model: 'm', usage: {}, costUsd: 0.5 }), /^a malformed usage entry: usage\.inputTokens: .*expected number, received undefined$/);
      assert.match(problemOf({ type: 'usage', ts, model: 'm', usage: { ...usage, outputTokens: '5' }, costUsd: 0.5 }), /usage\.outputTokens/);
      assert.match(problemOf({ type: 'usage', ts, model: 'm', usage, costUsd: -1 }), /costUsd: Too small/);
      const root = temp.make('evergreen-schema-');
      const file = path.join(root, 'transcript.jsonl');
      const lines = [{ type: 'usage', ts, model: 'm', usage, costUsd: 0.25 }, { type: 'usage', ts, model: 'm', usage: {}, costUsd: 0.5 }];
      fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
      const loaded = await readTranscript(file);
      assert.deepEqual(loaded.problems.map((problem) => problem.line), [2]);
      const { totals } = foldTranscript(loaded.entries);
      assert.deepEqual({ input: totals.inputTokens, output: totals.outputTokens, cost: totals.costUsd, requests: totals.requests }, { input: 10, output: 5, cost: 0.25, requests: 1 });
    });

    it('a usage entry whose request mark is not one (it becomes the token anchor)', () => {
      assert.match(problemOf({ type: 'usage', ts, model: 'm', usage, costUsd: 0, request: {} }), /request\.canonicalCount/);
      assert.match(problemOf({ type: 'usage', ts, model: 7, usage, costUsd: 0 }), /: model: /);
    });

    it('a compaction whose stats, restored files, carried prompts or dropped calls are of the wrong shape', () => {
      const bad = (patch: Record<string, unknown>) => problemOf({ type: 'compaction', ts, compaction: { ...compaction, ...patch } });
      assert.match(bad({ stats: {} }), /compaction\.stats\.tokensBefore/);
      assert.match(bad({ restoredFiles: [{ path: 'a.ts' }] }), /compaction\.restoredFiles\[0\]\.content/);
      assert.match(bad({ keptFrom: 1.5 }), /compaction\.keptFrom: .*expected int/);
      assert.match(bad({ summary: 42 }), /compaction\.summary/);
      assert.match(bad({ userMessages: [1] }), /compaction\.userMessages\[0\]/);
      assert.match(bad({ droppedCalls: { calls: [{ id: 'x' }], omitted: 0 } }), /compaction\.droppedCalls\.calls\[0\]\.name/);
    });

    it('a tier edit, a persisted output or a repair without the figures the chat shows', () => {
      assert.match(problemOf({ type: 'tier_edit', ts, tier: 'snip', edits: [] }), /^a malformed tier-edit entry: tokensBefore: /);
      assert.match(problemOf({ type: 'tier_edit', ts, tier: 'shred', edits: [], tokensBefore: 1, tokensAfter: 0 }), /tier: Invalid option: expected one of "budget"\|"snip"\|"microcompact"/);
      assert.match(problemOf({ type: 'persisted_output', ts, toolUseId: 'a', file: 'f' }), /^a malformed persisted-output entry: toolName: /);
      assert.match(problemOf({ type: 'persisted_output', ts, toolUseId: 'a', toolName: 'run_shell', file: 'f', lines: 1 }), /: bytes: /);
      assert.match(problemOf({ type: 'persisted_output', ts, toolUseId: 'a', toolName: 'run_shell', file: 'f', bytes: 1, lines: 1, tokensBefore: 'many' }), /: tokensBefore: /);
      assert.match(problemOf({ type: 'repair', ts, repairs: 1 }), /^a malformed repair entry: reason: /);
    });

    it('a user message whose checkpoint is not a checkpoint number', () => {
      const message = { role: 'user', content: 'hi' };
      assert.match(problemOf({ type: 'message', ts, message, checkpoint: '3' }), /^a malformed message entry: checkpoint: /);
      assert.match(problemOf({ type: 'message', ts, message, checkpoint: -1 }), /checkpoint: Too small/);
    });

    it('a token anchor with a mark of the wrong shape is refused whole (a part of it was dropped silently)', () => {
      assert.match(problemOf({ type: 'token_anchor', ts, anchor: { mark: { ...mark, pendingWaste: 'x' }, promptTokens: 5, atMs: 1 } }), /anchor\.mark\.pendingWaste/);
      assert.match(problemOf({ type: 'token_anchor', ts, anchor: { promptTokens: 5 } }), /anchor\.mark: /);
    });
  });

  describe('messages, block by block', () => {
    const message = (role: string, content: unknown) => ({ type: 'message', ts, message: { role, content } });

    it('takes the blocks each role may hold, and refuses one in the wrong role by its path', () => {
      assert.match(problemOf(message('assistant', [{ type: 'image', source: { type: 'url', url: 'https://x' } }])), /^a malformed message entry: message\.content\[0\]\.type: "image" is not a known type here$/);
      assert.match(problemOf(message('user', [{ type: 'tool_use', id: 'a', name: 'n', input: {} }])), /message\.content\[0\]\.type: "tool_use" is not a known type here/);
      assert.match(problemOf(message('system', 'x')), /message\.role: "system" is not a known role here/);
      assert.match(problemOf(message('user', [{ text: 'no type' }])), /message\.content\[0\]\.type: is missing/);
    });

    it('names the field of a block that is wrong', () => {
      assert.match(problemOf(message('assistant', [{ type: 'text', text: 5 }])), /message\.content\[0\]\.text: .*expected string, received number/);
      assert.match(problemOf(message('assistant', [{ type: 'tool_use', id: 'bad id!', name: 'n', input: {} }])), /message\.content\[0\]\.id: is not a tool-use id/);
      assert.match(problemOf(message('assistant', [{ type: 'tool_use', id: 'a', name: 'n', input: 'x' }])), /message\.content\[0\]\.input: /);
      assert.match(problemOf(message('user', [{ type: 'tool_result', tool_use_id: 'a', content: 42 }])), /message\.content\[0\]\.content: /);
      assert.match(problemOf(message('user', [{ type: 'image', source: { type: 'base64', media_type: 'image/tiff', data: '' } }])), /message\.content\[0\]\.source\.media_type: Invalid option/);
      assert.match(problemOf(message('assistant', [{ type: 'thinking', thinking: 't' }])), /message\.content\[0\]\.signature/);
    });

    it('refuses a recall reference that cannot be resolved', () => {
      const ref = { toolUseId: 'a', source: { kind: 'message', toolUseId: 'b' }, start: 10, end: 5, head: '', tail: '' };
      assert.match(problemOf({ ...message('user', 'x'), recalls: [ref] }), /recalls\[0\]\.end: ends before it starts/);
      assert.match(problemOf({ ...message('user', 'x'), recalls: [{ ...ref, end: 20, source: { kind: 'copy' } }] }), /recalls\[0\]\.source\.kind: "copy" is not a known kind here/);
    });
  });

  describe('older transcripts', () => {
    it('upgrades the legacy `event` records to their typed entries', () => {
      const anchor = { mark, promptTokens: 41_000, atMs: 123 };
      assert.deepEqual(entryOf({ type: 'event', ts, name: 'system_prompt', data: { text: 'SYSTEM' } }), { type: 'system_prompt', ts, text: 'SYSTEM' });
      assert.deepEqual(entryOf({ type: 'event', ts, name: 'token_anchor', data: anchor }), { type: 'token_anchor', ts, anchor });
      assert.deepEqual(entryOf({ type: 'event', ts, name: 'context_window_learned', data: { window: 12_000, assumed: 200_000 } }), { type: 'window_learned', ts, window: 12_000, assumed: 200_000 });
      assert.deepEqual(entryOf({ type: 'event', ts, name: 'compaction_failed', data: { trigger: 'tool', reason: 'r', counts: true } }), { type: 'compaction_failed', ts, trigger: 'tool', reason: 'r', counts: true });
    });

    it('reads a legacy compaction failure as leniently as it was written', () => {
      assert.deepEqual(entryOf({ type: 'event', ts, name: 'compaction_failed', data: { trigger: 'sometimes' } }), { type: 'compaction_failed', ts, trigger: 'auto', reason: 'unknown', counts: false });
      assert.deepEqual(entryOf({ type: 'event', ts, name: 'compaction_failed', data: { counts: 'yes' } }), { type: 'compaction_failed', ts, trigger: 'auto', reason: 'unknown', counts: false });
    });

    it('reads the first transcripts\' `proactive` compactions as automatic ones', () => {
      const entry = entryOf({ type: 'compaction', ts, compaction: { ...compaction, trigger: 'proactive' } });
      assert.ok(entry.type === 'compaction');
      assert.equal(entry.compaction.trigger, 'auto');
      const failed = entryOf({ type: 'compaction_failed', ts, trigger: 'proactive', reason: 'r', counts: true });
      assert.ok(failed.type === 'compaction_failed');
      assert.equal(failed.trigger, 'auto');
    });

    it('reads message entries without provider and model, and boundaries without a task list', () => {
      assert.deepEqual(entryOf({ type: 'message', ts, message: { role: 'assistant', content: 'hi' } }), { type: 'message', ts, message: { role: 'assistant', content: 'hi' } });
      const entry = entryOf({ type: 'compaction', ts, compaction });
      assert.ok(entry.type === 'compaction');
      assert.equal('todos' in entry.compaction, false);
    });

    it('a damaged task list in a boundary is read as none: the boundary still loads', () => {
      for (const todos of [[{ id: 1 }], 'x', { a: 1 }]) {
        const entry = entryOf({ type: 'compaction', ts, compaction: { ...compaction, todos } });
        assert.ok(entry.type === 'compaction');
        assert.equal(entry.compaction.todos, undefined, JSON.stringify(todos));
      }
    });

    it('refuses legacy records of the wrong shape and event names it never wrote', () => {
      assert.match(problemOf({ type: 'event', ts, name: 'token_anchor', data: { promptTokens: 'many' } }), /^a malformed event entry: data\.mark: /);
      assert.match(problemOf({ type: 'event', ts, name: 'context_window_learned', data: { window: -1, assumed: 10 } }), /data\.window: Too small/);
      assert.match(problemOf({ type: 'event', ts, name: 'made_up', data: {} }), /^a malformed event entry: name: "made_up" is not a known name here$/);
      assert.match(problemOf({ type: 'event', ts, name: 'subagent_started', data: [] }), /data: /);
    });
  });
});

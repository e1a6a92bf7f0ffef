/**
 * The transcript on disk and its fold (docs/architecture.md, "Storage layout", "Life of a request" step 8): foldTranscript over compactions, tier
 * edits, drops and failures; readTranscript reporting bad lines with their numbers; a torn tail;
 * appends that fail (disk full, read-only) without throwing; and the one-writer session lock.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { foldTranscript } from '../../src/core/agent/fold';
import { parseTranscriptEntry } from '../../src/core/storage/transcript';
import { buildLiveView, clearedText } from '../../src/core/context/liveView';
import type { MessageParam } from '../../src/core/model/messages';
import { FileSessionStore, readTranscript } from '../../src/core/storage/sessionStore';
import type { CompactionRecord, TranscriptEntry } from '../../src/core/storage/transcript';
import { useTempDirs } from '../support/tempDirs';
import { said } from '../support/said';

const ts = (second: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString();
const msg = (message: MessageParam, second = 0): TranscriptEntry => ({ type: 'message', ts: ts(second), message });
const user = (text: string) => msg({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string, name = 'run_shell') => msg({ role: 'assistant', content: [{ type: 'text', text: `calling ${id}` }, { type: 'tool_use', id, name, input: { command: id } }] });
const result = (id: string, text = `result of ${id} `.repeat(20)) => msg({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] });
const failed = (counts: boolean): TranscriptEntry => ({ type: 'compaction_failed', ts: ts(1), trigger: 'auto', reason: 'empty reply', counts });
function boundary(trigger: CompactionRecord['trigger'], keptFrom: number, summary?: string): TranscriptEntry {
  return {
    type: 'compaction',
    ts: ts(2),
    compaction: {
      id: `c-${trigger}-${keptFrom}`,
      trigger,
      ...(summary !== undefined ? { summary } : {}),
      keptFrom,
      restoredFiles: [],
      stats: { tokensBefore: 900, tokensAfter: 100, messagesSummarized: keptFrom, messagesKept: 3, summaryRequests: summary ? 1 : 0 },
    },
  };
}

describe('foldTranscript', () => {
  it('rebuilds canonical history, boundary, edits, failures, token anchor, totals and display from the entries', () => {
    const entries: TranscriptEntry[] = [
      { type: 'system_prompt', ts: ts(0), text: 'SYSTEM' },
      user('start'), // 0
      call('a'), // 1
      result('a'), // 2
      { type: 'usage', ts: ts(10), model: 'm', usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 300, cacheWriteTokens: 50 }, costUsd: 0.5, request: { canonicalCount: 3, liveCount: 3, liveChars: 1_800 } },
      call('b'), // 3
      result('b'), // 4
      { type: 'tier_edit', ts: ts(11), tier: 'microcompact', edits: [{ toolUseId: 'a', action: 'clear' }], tokensBefore: 500, tokensAfter: 400 },
      failed(true),
      failed(true),
      failed(false), // a manual failure does not count
      { type: 'persisted_output', ts: ts(12), toolUseId: 'b', toolName: 'run_shell', file: '/s/tool-results/b.txt', bytes: 40_000, lines: 800 },
    ];
    let fold = foldTranscript(entries);
    assert.equal(fold.systemPrompt, 'SYSTEM');
    assert.equal(fold.canonical.length, 5);
    assert.equal(fold.engine.consecutiveFailures, 2);
    assert.deepEqual(fold.engine.live.edits.get('a'), { toolUseId: 'a', action: 'clear' });
    assert.equal(fold.engine.live.boundary, undefined);
    assert.deepEqual(fold.engine.lastRequest, { mark: { canonicalCount: 3, liveCount: 3, liveChars: 1_800 }, promptTokens: 450, atMs: Date.parse(ts(10)) });
    assert.deepEqual(fold.totals, { inputTokens: 100, outputTokens: 20, cacheReadTokens: 300, cacheWriteTokens: 50, costUsd: 0.5, requests: 1, subagentCostUsd: 0 });
    assert.deepEqual(fold.persistedOutputs, [{ toolUseId: 'b', file: '/s/tool-results/b.txt' }]);
    const view = buildLiveView(fold.canonical, fold.engine.live);
    assert.equal(view.length, 5);
    assert.deepEqual(view[2], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: clearedText('a') }] });

    // A drop keeps the failure count (it is no successful summary); a summary resets it.
    entries.push(boundary('drop', 3));
    fold = foldTranscript(entries);
    assert.equal(fold.engine.consecutiveFailures, 2, 'a drop does not reset the breaker');
    assert.equal(fold.compactions, 0, 'a drop is not counted as a compaction');
    assert.equal(fold.engine.live.boundary?.trigger, 'drop');
    assert.deepEqual(buildLiveView(fold.canonical, fold.engine.live)[0], { role: 'user', content: [{ type: 'text', text: '[Older messages were dropped to fit the context window; recall {"query":"…"} searches them.]' }] });

    entries.push(call('c'), result('c'), boundary('auto', 5, 'the summary'));
    fold = foldTranscript(entries);
    assert.equal(fold.engine.consecutiveFailures, 0);
    assert.equal(fold.compactions, 1);
    const live = buildLiveView(fold.canonical, fold.engine.live, '/s/transcript.jsonl');
    assert.equal(live.length, 3);
    assert.equal(live[0]!.role, 'user');
    const head = live[0]!.content;
    assert.ok(Array.isArray(head) && head[0]!.type === 'text');
    assert.ok(head[0]!.type === 'text' && head[0]!.text.includes('the summary') && head[0]!.text.includes('/s/transcript.jsonl'));
    // The edits of older tool results survive a boundary (they still apply if the results are kept).
    assert.ok(fold.engine.live.edits.has('a'));

    // The chat as it was shown: turns, tool cards, the tier note and both dividers.
    const types = fold.display.map((event) => event.type);
    assert.equal(types[0], 'turn_started');
    assert.equal(types.filter((type) => type === 'compaction').length, 2);
    assert.equal(types.filter((type) => type === 'tier').length, 1);
    assert.equal(types.filter((type) => type === 'tool_call_finished').length, 3);
    assert.equal(types.at(-1), 'turn_finished');
  });

  it('re-anchors the token estimate on a recorded count', () => {
    const anchor = { mark: { canonicalCount: 9, liveCount: 5, liveChars: 90_000 }, promptTokens: 41_000, atMs: 123 };
    const fold = foldTranscript([user('x'), { type: 'token_anchor', ts: ts(3), anchor }]);
    assert.deepEqual(fold.engine.lastRequest, anchor);
  });

  it('reads the state-changing records of older transcripts (written as `event` entries) as their typed entries', () => {
    const anchor = { mark: { canonicalCount: 9, liveCount: 5, liveChars: 90_000 }, promptTokens: 41_000, atMs: 123 };
    const legacy = [
      { type: 'event', ts: ts(0), name: 'system_prompt', data: { text: 'SYSTEM' } },
      { type: 'event', ts: ts(1), name: 'token_anchor', data: anchor },
      { type: 'event', ts: ts(2), name: 'compaction_failed', data: { trigger: 'auto', reason: 'empty reply', counts: true } },
      { type: 'event', ts: ts(3), name: 'context_window_learned', data: { window: 12_000, assumed: 200_000 } },
    ].map((line) => parseTranscriptEntry(line));
    assert.deepEqual(legacy.map((parsed) => ('entry' in parsed ? parsed.entry.type : parsed.problem)), ['system_prompt', 'token_anchor', 'compaction_failed', 'window_learned']);
    const fold = foldTranscript([user('x'), ...legacy.flatMap((parsed) => ('entry' in parsed ? [parsed.entry] : []))]);
    assert.equal(fold.systemPrompt, 'SYSTEM');
    assert.deepEqual(fold.engine.lastRequest, anchor);
    assert.equal(fold.engine.consecutiveFailures, 1);
    assert.equal(fold.engine.learnedWindow, 12_000);
    // Malformed records are reported and skipped, as any bad line is; an unknown event name too.
    const bad = [
      { type: 'event', ts: ts(3), name: 'token_anchor', data: { promptTokens: 'many' } },
      { type: 'token_anchor', ts: ts(3), anchor: { promptTokens: 5 } },
      { type: 'compaction_failed', ts: ts(3), trigger: 'sometimes', reason: 'x', counts: true },
      { type: 'window_learned', ts: ts(3), window: -1, assumed: 10 },
      { type: 'event', ts: ts(3), name: 'made_up', data: {} },
    ].map((line) => parseTranscriptEntry(line));
    for (const parsed of bad) assert.ok('problem' in parsed, JSON.stringify(parsed));
  });

  it('is pure: folding twice gives equal results and never mutates the entries', () => {
    const entries: TranscriptEntry[] = [user('a'), call('x'), result('x'), { type: 'tier_edit', ts: ts(1), tier: 'snip', edits: [{ toolUseId: 'x', action: 'snip', reason: 'old' }], tokensBefore: 2, tokensAfter: 1 }];
    const copy = structuredClone(entries);
    const first = foldTranscript(entries);
    const second = foldTranscript(entries);
    assert.deepEqual(first, second);
    assert.deepEqual(entries, copy);
  });
});

describe('transcript files', () => {
  const temp = useTempDirs();
  let root: string;
  beforeEach(() => {
    root = temp.make('evergreen-fold-');
  });

  it('reports bad lines with their numbers and reasons and keeps every good entry', async () => {
    const file = path.join(root, 'transcript.jsonl');
    const lines = [
      JSON.stringify(user('one')),
      JSON.stringify(call('a')),
      '{"type":"message","ts":"t","mess', // 3: cut off
      '',
      JSON.stringify({ type: 'mystery', ts: 't' }), // 5: unknown type
      JSON.stringify({ type: 'tier_edit', ts: 't', tier: 'snip', edits: [{ toolUseId: 'a', action: 'explode' }] }), // 6
      JSON.stringify(result('a')), // 7
      '[1,2,3]', // 8
      JSON.stringify({ type: 'message', ts: 't', message: { role: 'system', content: 'x' } }), // 9
    ];
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const loaded = await readTranscript(file);
    assert.equal(loaded.entries.length, 3);
    assert.equal(loaded.tornTail, false);
    assert.deepEqual(loaded.problems.map((problem) => problem.line), [3, 5, 6, 8, 9]);
    assert.match(loaded.problems[0]!.reason, /not valid JSON/);
    assert.match(loaded.problems[1]!.reason, /unknown entry type "mystery"/);
    assert.match(loaded.problems[2]!.reason, /malformed tier-edit entry: edits\[0\]\.action: "explode" is not a known action/);
    assert.match(loaded.problems[3]!.reason, /not a JSON object/);
    assert.match(loaded.problems[4]!.reason, /message/);
    assert.equal(loaded.skippedLines, 5);
    assert.equal(foldTranscript(loaded.entries).canonical.length, 3);
  });

  it('after a torn tail, the next append starts on a new line and the old torn line stays the only problem', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    handle.append(user('first'));
    fs.appendFileSync(handle.transcriptPath, '{"type":"message","ts":"t","message":{"role":"assi'); // crash mid-write
    handle.close();
    const { handle: reopened, transcript } = await store.open(handle.id);
    assert.equal(transcript.tornTail, true);
    assert.equal(transcript.entries.length, 1);
    assert.deepEqual(transcript.problems.map((problem) => problem.line), [2]);
    reopened.append(user('second'));
    reopened.append(user('third'));
    const again = await readTranscript(reopened.transcriptPath);
    assert.equal(again.tornTail, false);
    assert.deepEqual(again.problems.map((problem) => problem.line), [2]);
    assert.deepEqual(
      foldTranscript(again.entries).canonical.map((m) => (typeof m.content === 'string' ? m.content : m.content[0]!.type === 'text' ? m.content[0]!.text : '')),
      ['first', 'second', 'third'],
    );
    reopened.close();
  });

  it('a full disk never throws: the failure is reported once with a clear ENOSPC message', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    handle.append(user('saved'));
    // /dev/full answers every write with ENOSPC.
    fs.renameSync(handle.transcriptPath, path.join(root, 'saved.jsonl'));
    fs.symlinkSync('/dev/full', handle.transcriptPath);
    const reports: string[] = [];
    const kinds: string[] = [];
    handle.onWriteError((message) => {
      kinds.push(message.kind);
      reports.push(said(message));
    });
    assert.doesNotThrow(() => {
      handle.append(user('lost 1'));
      handle.append(call('x'));
      handle.append(result('x'));
    });
    assert.equal(reports.length, 1, 'told once');
    assert.deepEqual(kinds, ['start.storageDiskFull']);
    assert.match(reports[0]!, /^The disk is full: Evergreen cannot write the transcript .*\. The conversation goes on, but it is not being saved/);
    assert.equal(said(handle.transcriptWriteError), reports[0]);
    assert.equal(handle.meta.messageCount, 4, 'the conversation goes on in memory');
    // A listener that subscribes later still hears about it.
    const late: string[] = [];
    handle.onWriteError((message) => late.push(said(message)));
    assert.equal(late.length, 1);
    // Space is back, but nothing more is written: a transcript with a hole would resume into a
    // different context, a complete prefix resumes exactly (the user was told to start a New Chat).
    fs.rmSync(handle.transcriptPath);
    fs.renameSync(path.join(root, 'saved.jsonl'), handle.transcriptPath);
    handle.append(user('after'));
    const loaded = await readTranscript(handle.transcriptPath);
    assert.deepEqual(loaded.entries.map((entry) => entry.type === 'message' && JSON.stringify(entry.message.content)), [JSON.stringify([{ type: 'text', text: 'saved' }])]);
    assert.deepEqual(loaded.problems, []);
    handle.close();
  });

  it('a read-only session folder never throws: reported once as not writable', async () => {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    const reports: string[] = [];
    handle.onWriteError((message) => reports.push(said(message)));
    // A read-only mount cannot be made here (tests run as root): the module the store calls answers EROFS.
    const original = nodeFs.appendFileSync;
    const erofs = Object.assign(new Error('EROFS: read-only file system, open'), { code: 'EROFS' });
    nodeFs.appendFileSync = () => {
      throw erofs;
    };
    try {
      assert.doesNotThrow(() => {
        handle.append(user('a'));
        handle.append(user('b'));
      });
    } finally {
      nodeFs.appendFileSync = original;
    }
    assert.equal(reports.length, 1);
    assert.match(reports[0]!, /not writable \(EROFS\)/);
    assert.ok(reports[0]!.includes(handle.transcriptPath));
    handle.close();
  });
});

describe('session lock', () => {
  const temp = useTempDirs();
  let root: string;
  beforeEach(() => {
    root = temp.make('evergreen-lock-');
  });

  async function sessionWithLock(pid: number): Promise<{ store: FileSessionStore; id: string; lock: string }> {
    const store = new FileSessionStore(root);
    const handle = await store.create({ model: 'm' });
    handle.close();
    const lock = path.join(store.sessionDir(handle.id), 'owner.lock');
    assert.equal(fs.existsSync(lock), false, 'close releases the lock');
    fs.writeFileSync(lock, JSON.stringify({ pid, host: os.hostname(), since: new Date().toISOString() }));
    return { store, id: handle.id, lock };
  }

  it('treats a fresh unreadable lock as held (its writer is mid-write) and takes over an old one', async () => {
    const { store, id, lock } = await sessionWithLock(1);
    fs.writeFileSync(lock, '');
    await assert.rejects(store.open(id), /open in another Evergreen window or process\./);
    fs.writeFileSync(lock, 'garbage');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    const { handle } = await store.open(id);
    assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).pid, process.pid);
    handle.close();
  });
});

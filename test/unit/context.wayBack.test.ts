/**
 * Every place that removes something from the live context names how to get it back (issue 20):
 * a cleared, trimmed or snipped result's placeholder names `recall {"id":…}` with its own id; a
 * persisted output's preview and chat note name its id and its file; a summary ends with the line
 * that the full history is searchable; a drop after "prompt is too long" keeps its tool calls' ids.
 * And the placeholders stay tiny: they are re-read on every request.
 */
import { said } from '../support/said';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { droppedCallsOf, DROPPED_CALLS_LISTED } from '../../src/core/context/compactionPlanning';
import { buildLiveView, CLEARED_MARK, clearedText, editedResultText, RECALL_LINE, SNIP_PREFIX } from '../../src/core/context/liveView';
import { persistNote } from '../../src/core/context/persistNote';
import { applyTier0, TIER0_DEFAULTS } from '../../src/core/context/tier0';
import { silentLogger } from '../../src/core/logger';
import { blocksOf } from '../../src/core/model/content';
import type { MessageParam } from '../../src/core/model/messages';
import type { CompactionRecord } from '../../src/core/storage/transcript';
import { recallCall } from '../../src/core/tools/recallRef';
import { countTextTokens } from '../fake-anthropic/tokens';
import { bulk, Rig, textOf, tooLongError } from './context.harness';
import { useTempDirs } from '../support/tempDirs';

const ID = 'toolu_01A09q90qw90lq917835lq9';
const signal = () => new AbortController().signal;

describe('context engine: every removal names the way back', () => {
  const temp = useTempDirs();

  it('a cleared result says recall with its own id, in fewer tokens than the old "run the tool again" note despite a real-length id', () => {
    const text = editedResultText(bulk(5_000), { toolUseId: ID, action: 'clear' });
    assert.equal(text, clearedText(ID));
    assert.ok(text.startsWith(CLEARED_MARK));
    assert.ok(text.includes(recallCall(ID)), text);
    assert.deepEqual(JSON.parse(/recall (\{.*\})/.exec(text)![1]!), { id: ID }, 'the call is valid JSON input for the tool');
    const old = '[Old tool result cleared to save context. The full output is kept in the session transcript; run the tool again if you need it.]';
    assert.ok(countTextTokens(text) < countTextTokens(old), `${countTextTokens(text)} tokens vs ${countTextTokens(old)}`);
  });

  it('a trimmed result keeps its head and tail and names the call that returns all of it', () => {
    const text = editedResultText(bulk(20_000, 'log'), { toolUseId: ID, action: 'trim', maxChars: 2_000 });
    assert.ok(text.length <= 2_000);
    assert.ok(text.startsWith('log log'));
    assert.ok(text.includes(`${recallCall(ID)} returns all of it`), text.slice(900, 1_200));
  });

  it('a snipped result names its reason and the recall call', () => {
    const text = editedResultText('old read', { toolUseId: ID, action: 'snip', reason: 'an older read of a.ts, superseded by a later read of the same file' });
    assert.ok(text.startsWith(SNIP_PREFIX));
    assert.ok(text.includes('superseded') && text.includes(recallCall(ID)), text);
  });

  it('a persisted output names its id and its file, in the context and in the chat note', async () => {
    const dir = temp.make('evergreen-wayback-');
    const outcome = await applyTier0({ toolUseId: ID, toolName: 'run_shell', content: bulk(40_000, 'out') }, dir, TIER0_DEFAULTS, silentLogger);
    assert.ok(outcome.persisted, 'persisted');
    assert.ok(outcome.content.includes(outcome.persisted.file), 'the path');
    assert.ok(outcome.content.includes(recallCall(ID)), 'the id');
    assert.equal(fs.readFileSync(outcome.persisted.file, 'utf8').length, 40_000);
    const note = persistNote({ toolName: 'run_shell', toolUseId: ID, file: outcome.persisted.file, tokensBefore: 10_000, tokensAfter: 1_000 });
    assert.ok(said(note.detail).includes(ID) && said(note.detail).includes(outcome.persisted.file), said(note.detail));
  });

  it('a summary ends with one line saying the full history is searchable with recall', async () => {
    const r = new Rig({ window: 40_000, settings: { clearUtilization: 1 } });
    r.user('Start.');
    let n = 0;
    while (r.engine.estimateTokens(r.engine.liveView()) <= 29_300) r.round([{ name: 'run_shell', input: { command: `make ${++n}` }, result: bulk(8_000, `o${n}`) }]);
    await r.prepare();
    const [entry] = r.entries.filter((e) => e.type === 'compaction');
    assert.ok(entry && entry.type === 'compaction' && entry.compaction.trigger === 'auto');
    const head = textOf(r.engine.liveView()[0]!);
    const summaryEnd = head.indexOf('</summary>');
    assert.ok(summaryEnd > 0);
    const after = head.slice(summaryEnd + '</summary>'.length).trim().split('\n')[0];
    assert.equal(after, RECALL_LINE);
    assert.match(RECALL_LINE, /recall \{"query"/);
  });

  it('a drop after "prompt is too long" keeps the ids of the dropped tool calls in the view', async () => {
    const r = new Rig({ window: 40_000, settings: { clearUtilization: 1 }, fallbackReply: '' });
    r.user('Start.');
    const ids: string[] = [];
    while (r.engine.estimateTokens(r.engine.liveView()) <= 25_000) ids.push(...r.round([{ name: 'run_shell', input: { command: `make ${ids.length}` }, result: bulk(4_000, `o${ids.length}`) }]));
    const prepared = await r.prepare();
    assert.equal(await r.engine.recoverFromTooLong(prepared, 0, tooLongError(41_000, 40_000), signal()), true);
    const record = r.entries.flatMap((e) => (e.type === 'compaction' ? [e.compaction] : [])).at(-1)!;
    assert.equal(record.trigger, 'drop');
    const live = r.engine.liveView();
    const shown = new Set(live.flatMap((m) => blocksOf(m).flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))));
    const dropped = ids.filter((id) => !shown.has(id));
    assert.ok(dropped.length > 0, 'some rounds were dropped');
    const head = textOf(live[0]!);
    for (const id of dropped) assert.ok(head.includes(id), `dropped call ${id} is named`);
    assert.ok(head.includes('run_shell') && head.includes(recallCall('<id>')), head.slice(0, 300));
  });

  it('a drop lists at most the newest calls and counts the rest; a second drop carries the first one\'s list', () => {
    const round = (i: number): MessageParam[] => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: i % 2 ? 'read_file' : 'grep_search', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'x' }] },
    ];
    const first = droppedCallsOf(undefined, Array.from({ length: 150 }, (_, i) => round(i)).flat());
    assert.deepEqual(first, { calls: Array.from({ length: 150 }, (_, i) => ({ id: `t${i}`, name: i % 2 ? 'read_file' : 'grep_search' })), omitted: 0 });
    const second = droppedCallsOf(first, Array.from({ length: 100 }, (_, i) => round(150 + i)).flat());
    assert.equal(second.calls.length, DROPPED_CALLS_LISTED);
    assert.equal(second.omitted, 250 - DROPPED_CALLS_LISTED);
    assert.equal(second.calls.at(-1)!.id, 't249', 'the newest are kept');
    const record: CompactionRecord = { id: 'd', trigger: 'drop', keptFrom: 1, restoredFiles: [], droppedCalls: second, stats: { tokensBefore: 0, tokensAfter: 0, messagesSummarized: 0, messagesKept: 0, summaryRequests: 0 } };
    const view = buildLiveView([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], { boundary: record, edits: new Map() });
    const text = textOf(view[0]!);
    assert.match(text, /and 50 older ones: recall \{"query"/);
    assert.ok(text.includes('t249') && !text.includes('t49,'), 'listed: the newest only');
  });
});

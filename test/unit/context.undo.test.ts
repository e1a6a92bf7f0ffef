/**
 * The compaction preview and "Undo Last Compaction" (issue 8 item 2): the preview says what a
 * manual compaction keeps, summarizes and restores without sending anything; an undo brings back
 * exactly the view before the newest compaction, is recorded so a fold (resume) agrees, and is
 * refused when that view would no longer fit, when there is nothing to undo, or twice in a row.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ContextEngine } from '../../src/core/context/engine';
import { foldTranscript } from '../../src/core/agent/fold';
import { buildLiveView } from '../../src/core/context/liveView';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import { NodeWorkspace } from '../../src/core/workspace/workspace';
import { assertApiValid, bulk, Rig, tooLongError, type RigOptions } from './context.harness';
import { useTempDirs } from '../support/tempDirs';
import { said } from '../support/said';

const signal = () => new AbortController().signal;

function rig(options: Partial<RigOptions> = {}): Rig {
  // No cost-driven clearing: the views compared here change only by compaction and undo.
  return new Rig({ window: 200_000, ...options, settings: { clearUtilization: 1, ...options.settings } });
}

/** A short session: a prompt, a big search result, two file reads, an answer. */
function session(r: Rig): void {
  r.user('Find where the parser fails and fix it.');
  r.round([{ name: 'grep_search', input: { pattern: 'parse', path: 'src' }, result: bulk(40_000, 'match') }], 'Searching.');
  r.round([{ name: 'read_file', input: { path: 'a.ts' }, result: bulk(3_000, 'a') }], 'Reading a.ts.');
  r.round([{ name: 'read_file', input: { path: 'b.ts' }, result: bulk(2_000, 'b') }], 'Reading b.ts.');
  r.assistant('The parser fails on empty input; fixed in a.ts.');
}

/** A request was sent and answered, as the session does before a compaction can happen. */
async function exchange(r: Rig): Promise<void> {
  const prepared = await r.prepare();
  r.respond(prepared);
}

function checkFold(r: Rig, where: string): void {
  const fold = foldTranscript(r.entries);
  const snapshot = r.engine.snapshot;
  assert.deepEqual(fold.engine.live.boundary, snapshot.live.boundary, `${where}: folded boundary`);
  assert.deepEqual(fold.engine.live.edits, snapshot.live.edits, `${where}: folded edits`);
  assert.deepEqual(fold.engine.undoable, snapshot.undoable, `${where}: folded undo point`);
  assert.deepEqual(fold.engine.lastRequest, snapshot.lastRequest, `${where}: folded token anchor`);
  assert.equal(fold.engine.consecutiveFailures, snapshot.consecutiveFailures, `${where}: folded failure count`);
  assert.deepEqual(buildLiveView(fold.canonical, fold.engine.live), r.engine.liveView(), `${where}: folded live view`);
}

describe('context engine: compaction preview', () => {
  const suiteTemp = useTempDirs('all');
  let root: string;
  before(() => {
    root = suiteTemp.make('evergreen-preview-');
    fs.writeFileSync(path.join(root, 'a.ts'), bulk(3_000, 'a'));
    fs.writeFileSync(path.join(root, 'b.ts'), bulk(2_000, 'b'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('says what a manual compaction keeps, summarizes and restores, and sends and records nothing', async () => {
    const r = rig({ workspace: new NodeWorkspace(root) });
    session(r);
    await exchange(r);
    r.user('Now also handle whitespace-only input.');
    const entries = r.entries.length;
    const preview = r.engine.previewCompaction('the parser');
    assert.equal(preview.ok, true, said(preview.message));
    assert.equal(r.entries.length, entries, 'the preview records nothing');
    assert.equal(r.summaryRequests.length, 0, 'the preview sends nothing');
    assert.equal(preview.focus, 'the parser');
    assert.deepEqual(preview.restoredFiles.map((file) => file.path), ['b.ts', 'a.ts'], 'newest read first');
    assert.ok(preview.restoredFiles.every((file) => file.tokens > 0 && file.tokens <= 5_000));
    assert.ok(preview.tokensAfter < preview.tokensBefore / 3, `${preview.tokensBefore} -> ${preview.tokensAfter}`);
    assert.ok(preview.summarized.tokens > 10_000, 'the big search result is among what is summarized');

    const outcome = await r.engine.compact('the parser', 'manual', signal());
    assert.equal(outcome.ok, true, said(outcome.message));
    const record = outcome.record!;
    assert.equal(preview.summarized.messages, record.stats.messagesSummarized);
    assert.equal(preview.kept.messages, record.stats.messagesKept);
    assert.deepEqual(preview.restoredFiles.map((file) => file.path), record.restoredFiles.map((file) => file.path));
    // After = the preview's estimate plus the summary it could not know.
    const summaryTokens = Math.ceil(record.summary!.length / 4);
    assert.ok(Math.abs(record.stats.tokensAfter - (preview.tokensAfter + summaryTokens)) < 300, `${record.stats.tokensAfter} vs ${preview.tokensAfter} + ${summaryTokens}`);
  });

  it('says why when there is nothing to compact', () => {
    const r = rig();
    const empty = r.engine.previewCompaction();
    assert.equal(empty.ok, false);
    assert.equal(empty.blocker, 'empty', 'the kind, for front ends to word');
    assert.match(said(empty.message), /empty/);
    r.user('hi');
    const single = r.engine.previewCompaction();
    assert.equal(single.ok, false);
    assert.equal(single.blocker, 'nothing');
    assert.match(said(single.message), /Nothing to compact/);
  });
});

describe('context engine: undo last compaction', () => {
  it('restores exactly the request the conversation would have sent without the compaction', async () => {
    const r = rig();
    session(r);
    await exchange(r);
    const beforeView = r.engine.liveView();
    const beforeTokens = r.engine.estimateTokens(beforeView);
    // The engine as it stood before the compaction, resumed from the transcript so far: the control.
    const foldBefore = foldTranscript(r.entries);
    const control = new ContextEngine({
      ...r.engineOptions(),
      transcript: { append: () => undefined },
      emit: () => undefined,
      initial: { live: foldBefore.engine.live, lastRequest: foldBefore.engine.lastRequest, consecutiveFailures: foldBefore.engine.consecutiveFailures, pendingWaste: foldBefore.engine.pendingWaste },
    });

    const compacted = await r.engine.compact(undefined, 'manual', signal());
    assert.equal(compacted.ok, true, said(compacted.message));
    assert.ok(r.engine.estimateTokens(r.engine.liveView()) < beforeTokens / 3, 'the compaction shrank the view');

    const undone = await r.engine.undoLastCompaction(signal());
    assert.equal(undone.ok, true, said(undone.message));
    assert.deepEqual(r.engine.liveView(), beforeView, 'the live view is the one before the compaction');
    const entry = r.entries.at(-1);
    assert.equal(entry?.type, 'compaction_undo');
    assert.ok(entry?.type === 'compaction_undo');
    assert.equal(entry.compactionId, compacted.record!.id);
    assert.ok(Math.abs(entry.tokensAfter - beforeTokens) / beforeTokens < 0.05, `restored ~${entry.tokensAfter}, was ~${beforeTokens}`);
    const event = r.eventsOf('compaction_undone').at(-1);
    assert.equal(event?.type, 'compaction_undone');
    assert.equal(event?.compactionId, compacted.record!.id);

    // The next request: the old messages (the big search result) go out verbatim again.
    r.user('Thanks. Anything else?');
    const prepared = await r.prepare();
    const expected = await control.prepareRequest(signal());
    assertApiValid(prepared.messages);
    assert.deepEqual(prepared.messages, expected.messages, 'the request body is the uncompacted one');
    assert.ok(JSON.stringify(prepared.messages).includes('match match'), 'the big search result is sent again');
    checkFold(r, 'after the undo and a request');
  });

  it('keeps what was added after the compaction, and a resumed session agrees', async () => {
    const r = rig();
    session(r);
    await exchange(r);
    const compacted = await r.engine.compact('focus', 'manual', signal());
    assert.equal(compacted.ok, true);
    r.user('Next: the lexer.');
    await exchange(r);
    r.round([{ name: 'run_shell', input: { command: 'npm test' }, result: 'all green' }], 'Testing.');
    r.assistant('Done.');
    checkFold(r, 'before the undo');
    const undone = await r.engine.undoLastCompaction(signal());
    assert.equal(undone.ok, true, said(undone.message));
    const view = r.engine.liveView();
    assert.deepEqual(view, r.history, 'no boundary is left: the whole history is the view again');
    checkFold(r, 'after the undo');
    const fold = foldTranscript(r.entries);
    assert.equal(fold.engine.undoable, undefined);
    const display = fold.display.filter((event) => event.type === 'compaction' || event.type === 'compaction_undone');
    assert.deepEqual(
      display.map((event) => [event.type, event.type === 'compaction' || event.type === 'compaction_undone' ? event.compactionId : '']),
      [
        ['compaction', compacted.record!.id],
        ['compaction_undone', compacted.record!.id],
      ],
      'resume shows the divider and the undo note',
    );
  });

  it('undoes only the newest compaction, once: the one before it stays', async () => {
    const r = rig();
    session(r);
    await exchange(r);
    const first = await r.engine.compact(undefined, 'manual', signal());
    assert.equal(first.ok, true);
    r.user('More work.');
    await exchange(r);
    r.round([{ name: 'run_shell', input: { command: 'make' }, result: bulk(8_000, 'make') }]);
    r.assistant('Built.');
    const second = await r.engine.compact(undefined, 'manual', signal());
    assert.equal(second.ok, true, said(second.message));
    const undone = await r.engine.undoLastCompaction(signal());
    assert.equal(undone.ok, true, said(undone.message));
    assert.equal(r.engine.snapshot.live.boundary?.id, first.record!.id, 'back to the first compaction, not before it');
    const again = await r.engine.undoLastCompaction(signal());
    assert.equal(again.ok, false);
    assert.match(said(again.message), /Nothing to undo: only the most recent compaction can be undone, once/);
    assert.equal(r.entries.filter((entry) => entry.type === 'compaction_undo').length, 1);
    checkFold(r, 'after a refused second undo');
  });

  it('refuses when there is nothing to undo', async () => {
    const r = rig();
    session(r);
    const outcome = await r.engine.undoLastCompaction(signal());
    assert.equal(outcome.ok, false);
    assert.match(said(outcome.message), /Nothing to undo/);
    assert.ok(!r.entries.some((entry) => entry.type === 'compaction_undo'));
  });

  it('refuses when the view before the compaction plus what came since would not fit, and changes nothing', async () => {
    // 40k window: threshold ~29.2k. ~17k tokens compacted, then ~14k tokens more arrive.
    const r = rig({ window: 40_000 });
    r.user('Start.');
    for (let n = 0; n < 4; n++) r.round([{ name: 'run_shell', input: { command: `step ${n}` }, result: bulk(17_000, `s${n}`) }]);
    r.assistant('Ok.');
    await exchange(r);
    const compacted = await r.engine.compact(undefined, 'manual', signal());
    assert.equal(compacted.ok, true, said(compacted.message));
    assert.ok(compacted.record!.stats.tokensBefore < r.engine.budget.threshold, 'undo right away would fit');
    r.user('Go on.');
    r.round([{ name: 'run_shell', input: { command: 'big' }, result: bulk(56_000, 'big') }]);
    r.assistant('Ok.');
    const entries = r.entries.length;
    const view = r.engine.liveView();
    const outcome = await r.engine.undoLastCompaction(signal());
    assert.equal(outcome.ok, false);
    assert.match(said(outcome.message), /Cannot undo the last compaction: .* over the auto-compact threshold/);
    assert.match(said(outcome.message), /The full conversation stays in the transcript\.$/, 'the CLI has no Open Archived Transcript command');
    assert.equal(r.entries.length, entries, 'nothing recorded');
    assert.deepEqual(r.engine.liveView(), view, 'the view is unchanged');
    checkFold(r, 'after a refused undo');
  });

  it('cannot undo a drop of old rounds (the API refused that view)', async () => {
    const r = rig({ window: 40_000 });
    r.user('Start.');
    for (let n = 0; n < 6; n++) r.round([{ name: 'run_shell', input: { command: `step ${n}` }, result: bulk(20_000, `s${n}`) }]);
    r.user('Next.');
    const prepared = await r.prepare(); // auto-compacts: that one could be undone...
    const dropped = await r.engine.recoverFromTooLong(prepared, 1, tooLongError(45000, 40000), signal());
    assert.equal(dropped, true);
    const outcome = await r.engine.undoLastCompaction(signal());
    assert.equal(outcome.ok, false, '...but not once a drop followed it');
    assert.match(said(outcome.message), /Nothing to undo/);
    checkFold(r, 'after a drop');
  });

  it('leaves the circuit breaker count alone and is folded the same', async () => {
    const r = rig();
    session(r);
    await exchange(r);
    const ok = await r.engine.compact(undefined, 'manual', signal());
    assert.equal(ok.ok, true);
    r.user('More.');
    r.replies.push(new Error('overloaded'));
    const failed = await r.engine.compact(undefined, 'auto', signal());
    assert.equal(failed.ok, false);
    assert.equal(r.engine.snapshot.consecutiveFailures, 1);
    const undone = await r.engine.undoLastCompaction(signal());
    assert.equal(undone.ok, true, said(undone.message));
    assert.equal(r.engine.snapshot.consecutiveFailures, 1, 'an undo is no failure and no success of a compaction');
    checkFold(r, 'after failure and undo');
  });

  it('ignores an undo entry that does not name the newest compaction (a hand-edited transcript)', () => {
    const r = rig();
    session(r);
    const stray: TranscriptEntry = { type: 'compaction_undo', ts: r.ts, compactionId: 'nope', tokensBefore: 1, tokensAfter: 2 };
    const fold = foldTranscript([...r.entries, stray]);
    assert.equal(fold.engine.live.boundary, undefined);
    assert.ok(!fold.display.some((event) => event.type === 'compaction_undone'));
  });
});

/**
 * Accepting and rejecting a background chat's changes hunk by hunk (src/frontends/hunkReview.ts):
 * which decisions Apply Accepted brings home, decisions kept by content (a hunk the chat changed
 * again is undecided again), and the rows' and results' words, with the model's text escaped.
 */
import assert from 'node:assert/strict';
import type { WorktreeRecord } from '../../src/core/worktrees/manager';
import { userText } from '../../src/core/texts/userText';
import type { Hunk } from '../../src/core/worktrees/review';
import { applyAcceptedText, CHANGE_ITEM_CONTEXT, ChangeDecisions, changeKey, fileKeys, fileRow, hunkLines, hunkRow, type ReviewFile } from '../../src/frontends/hunkReview';

const record: WorktreeRecord = {
  version: 1,
  name: 'tidy',
  branch: 'evergreen/tidy',
  folder: '/storage/worktrees/repo-1234/tidy',
  checkout: '/home/me/repo',
  commonDir: '/home/me/repo/.git',
  adminDir: '/home/me/repo/.git/worktrees/tidy',
  base: 'b'.repeat(40),
  createdAt: '2026-11-27T03:00:00.000Z',
};
const other: WorktreeRecord = { ...record, name: 'other', branch: 'evergreen/other' };

const first: Hunk = { header: '@@ -1,3 +1,3 @@', lines: [' a', '-b', '+B', ' c'] };
const second: Hunk = { header: '@@ -20,3 +20,4 @@ function x()', lines: [' t', '+u', '+v', '-w', ' y'] };
const text: ReviewFile = { path: 'src/a.ts', status: 'modified', hunks: [first, second] };
const image: ReviewFile = { path: 'logo.png', status: 'modified', hunks: undefined };

describe('front ends: per-hunk review of a background chat', () => {
  it('applies nothing until something is accepted, and counts what is left out', () => {
    const decisions = new ChangeDecisions();
    const plan = decisions.plan(record, [text, image]);
    assert.deepEqual(plan.choices, []);
    assert.deepEqual(plan.counts, { accepted: 0, rejected: 0, applied: 0, undecided: 3 });
  });

  it('brings home only the accepted hunks of a file, a whole file when all of it is accepted, and nothing rejected', () => {
    const decisions = new ChangeDecisions();
    decisions.decide(record, [changeKey(text.path, second)], 'accepted');
    decisions.decide(record, [changeKey(text.path, first)], 'rejected');
    decisions.decide(record, fileKeys(image), 'accepted');
    const plan = decisions.plan(record, [text, image]);
    assert.deepEqual(plan.choices, [
      { path: 'src/a.ts', hunks: [1] },
      { path: 'logo.png', hunks: 'all' },
    ]);
    assert.deepEqual(plan.counts, { accepted: 2, rejected: 1, applied: 0, undecided: 0 });
    assert.deepEqual(plan.keys, [changeKey(text.path, second), changeKey(image.path, undefined)]);

    decisions.decide(record, fileKeys(text), 'accepted');
    assert.deepEqual(decisions.plan(record, [text]).choices, [{ path: 'src/a.ts', hunks: 'all' }], 'every hunk accepted: the file comes whole');
  });

  it('keeps each chat’s decisions apart, counts what is accepted and not applied yet, and forgets a discarded chat’s', () => {
    const decisions = new ChangeDecisions();
    decisions.decide(record, fileKeys(text), 'accepted');
    assert.deepEqual(decisions.plan(other, [text]).choices, []);
    assert.equal(decisions.acceptedNotApplied(record), 2);
    assert.equal(decisions.acceptedNotApplied(other), 0);
    decisions.markApplied(record, [changeKey(text.path, first)]);
    assert.equal(decisions.acceptedNotApplied(record), 1, 'an applied change is not lost by a discard');
    decisions.forget(record);
    assert.deepEqual(decisions.plan(record, [text]).choices, []);
    assert.equal(decisions.acceptedNotApplied(record), 0);
  });

  it('does not apply an applied hunk again, and a decision cannot undo it', () => {
    const decisions = new ChangeDecisions();
    decisions.decide(record, fileKeys(text), 'accepted');
    decisions.markApplied(record, [changeKey(text.path, first)]);
    decisions.decide(record, fileKeys(text), 'rejected');
    assert.equal(decisions.decision(record, changeKey(text.path, first)), 'applied');
    decisions.decide(record, [changeKey(text.path, second)], 'accepted');
    const plan = decisions.plan(record, [text]);
    assert.deepEqual(plan.choices, [{ path: 'src/a.ts', hunks: [1] }]);
    assert.deepEqual(plan.counts, { accepted: 1, rejected: 0, applied: 1, undecided: 0 });
  });

  it('keeps a decision with the hunk’s content: a hunk the chat changed again is undecided again', () => {
    const decisions = new ChangeDecisions();
    decisions.decide(record, [changeKey(text.path, first)], 'accepted');
    const rewritten: ReviewFile = { ...text, hunks: [{ ...first, lines: [' a', '-b', '+BB', ' c'] }, second] };
    assert.deepEqual(decisions.plan(record, [rewritten]).choices, []);
    // Moved by an edit above it (another @@ line): also another hunk, never applied blindly.
    const moved: ReviewFile = { ...text, hunks: [{ ...first, header: '@@ -5,3 +5,3 @@' }, second] };
    assert.deepEqual(decisions.plan(record, [moved]).choices, []);
    assert.notEqual(changeKey('a.ts', first), changeKey('b.ts', first), 'the same lines in another file are another change');
  });

  it('names a hunk by the lines of the chat’s version it covers, with its decision and the model’s text escaped', () => {
    assert.deepEqual(hunkLines(second), { start: 20, count: 4 });
    assert.deepEqual(hunkLines({ header: '@@ -7 +7 @@', lines: [] }), { start: 7, count: 1 });
    const row = hunkRow(second, undefined);
    assert.equal(row.label, 'Lines 20–23');
    assert.equal(row.description, '+2 −1 · not decided');
    assert.equal(hunkRow(first, 'accepted').description, '+1 −1 · accepted');
    assert.equal(hunkRow({ header: '@@ -4,2 +3,0 @@', lines: ['-x', '-y'] }, 'rejected').label, 'Removed after line 3');
    assert.equal(hunkRow({ header: '@@ -4 +4 @@', lines: ['-x', '+y'] }, undefined).label, 'Line 4');
    const hostile = hunkRow({ header: '@@ -1 +1 @@', lines: ['+\u001b[31mred\u202e'] }, undefined);
    assert.ok(!hostile.tooltip.includes('\u001b') && !hostile.tooltip.includes('\u202e'), 'control and bidi characters are shown, not obeyed');
    assert.equal(CHANGE_ITEM_CONTEXT.hunk(undefined), 'backgroundHunk.undecided');
    assert.equal(CHANGE_ITEM_CONTEXT.hunk('rejected'), 'backgroundHunk.rejected');
  });

  it('says how much of a file is accepted, and that a binary file comes whole', () => {
    assert.equal(fileRow(text, ['accepted', undefined]).description, 'modified · 1 of 2 accepted');
    assert.equal(fileRow(text, ['applied', 'accepted']).description, 'modified · 2 of 2 accepted');
    assert.equal(fileRow(image, [undefined]).description, 'modified (whole file) · 0 of 1 accepted');
  });

  it('reports an apply, nothing accepted, and a conflict naming each hunk in the way and why', () => {
    const decisions = new ChangeDecisions();
    decisions.decide(record, [changeKey(text.path, second)], 'accepted');
    decisions.decide(record, [changeKey(text.path, first)], 'rejected');
    const plan = decisions.plan(record, [text, image]);
    const applied = applyAcceptedText(record, plan, { kind: 'applied', files: ['src/a.ts'] });
    assert.equal(applied.level, 'info');
    assert.match(applied.message, /^Applied 1 accepted change\(s\) in 1 file\(s\) of evergreen\/tidy to your checkout as uncommitted changes\. 2 change\(s\) rejected or not decided were left out\./);
    const nothing = applyAcceptedText(record, new ChangeDecisions().plan(record, [text]), { kind: 'nothing' });
    assert.equal(nothing.level, 'info');
    assert.match(nothing.message, /Nothing is accepted in tidy yet/);
    const conflict = applyAcceptedText(record, plan, {
      kind: 'conflict',
      files: ['src/a.ts'],
      reason: userText('worktree.acceptedDoNotApply', { git: 'error: patch failed' }),
      hunks: [{ path: 'src/a.ts', hunk: { index: 1, header: second.header }, reason: 'error: patch failed: src/a.ts:20' }, { path: 'logo\u001b.png', reason: 'error: logo.png: patch does not apply' }],
    });
    assert.equal(conflict.level, 'error');
    assert.match(conflict.message, /nothing was changed\. In the way: src\/a\.ts lines 20–23 \(error: patch failed: src\/a\.ts:20\); logo.+\.png \(error: logo\.png: patch does not apply\)\. Reject those/);
    assert.ok(!conflict.message.includes('\u001b'));
  });
});

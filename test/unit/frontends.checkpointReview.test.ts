/**
 * Rejecting hunks of what the panel's chat changed since a checkpoint (src/frontends/checkpointReview.ts):
 * only the chosen lines go back, the other changes stay, a file changed again meanwhile is not forced,
 * and a file the chat created goes away when all of it is rejected.
 */
import assert from 'node:assert/strict';
import { asHunk, checkpointFileChanges, isReviewableText, revertHunks } from '../../src/frontends/checkpointReview';

const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
const before = `${lines.join('\n')}\n`;
const now = `${lines.map((line, index) => (index === 1 ? 'line 2 by the chat' : index === 27 ? 'line 28 by the chat' : line)).join('\n')}\n`;

describe('front ends: per-hunk review since a checkpoint', () => {
  it('splits a file’s changes into hunks, shown as the Changes rows show them', () => {
    const file = checkpointFileChanges('long.txt', before, now);
    assert.equal(file.hunks.length, 2);
    assert.deepEqual(asHunk(file.hunks[1]!), { header: '@@ -25,6 +25,6 @@', lines: [' line 25', ' line 26', ' line 27', '-line 28', '+line 28 by the chat', ' line 29', ' line 30'] });
    assert.deepEqual(checkpointFileChanges('same.txt', before, before).hunks, []);
  });

  it('puts back only the rejected hunk, keeping the other change', () => {
    const file = checkpointFileChanges('long.txt', before, now);
    const result = revertHunks(file, [1], now);
    assert.equal(result.kind, 'reverted');
    if (result.kind !== 'reverted') return;
    const text = result.text.split('\n');
    assert.equal(text[1], 'line 2 by the chat');
    assert.equal(text[27], 'line 28');
    assert.equal(result.delete, false);
    const both = revertHunks(file, [0, 1], now);
    assert.deepEqual(both, { kind: 'reverted', text: before, delete: false });
  });

  it('does not force a hunk whose lines changed again since the review was read, and refuses a hunk that is not there', () => {
    const file = checkpointFileChanges('long.txt', before, now);
    const editedSince = now.replace('line 28 by the chat', 'line 28 by the user');
    assert.deepEqual(revertHunks(file, [1], editedSince), { kind: 'conflict' });
    assert.equal(revertHunks(file, [0], editedSince).kind, 'reverted', 'the other hunk is untouched by that edit');
    assert.throws(() => revertHunks(file, [2], now), /has 2 hunk\(s\); there is no hunk 2/);
  });

  it('deletes a file the chat created when all of it is rejected, and recreates one it deleted', () => {
    const created = checkpointFileChanges('new.txt', undefined, 'new\n');
    assert.deepEqual(revertHunks(created, [0], 'new\n'), { kind: 'reverted', text: '', delete: true });
    const deleted = checkpointFileChanges('gone.txt', 'was here\n', undefined);
    assert.deepEqual(revertHunks(deleted, [0], undefined), { kind: 'reverted', text: 'was here\n', delete: false });
  });

  it('leaves binary files out of the hunk review', () => {
    assert.equal(isReviewableText(Buffer.from('text\n')), true);
    assert.equal(isReviewableText(Buffer.from([1, 0, 2])), false);
    assert.equal(isReviewableText(undefined), true);
  });
});

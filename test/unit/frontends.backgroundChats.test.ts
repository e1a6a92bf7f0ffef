/**
 * The Background Chats view's words (src/frontends/backgroundChats.ts): a row per worktree chat,
 * the discard modal's list of what is lost, and what bringing changes home did, with the model's
 * file names and commit subjects shown, never obeyed.
 */
import assert from 'node:assert/strict';
import type { ApprovalRequest } from '../../src/core/approvals/approval';
import type { DiscardPlan } from '../../src/core/worktrees/discard';
import type { WorktreeRecord } from '../../src/core/worktrees/manager';
import { userText } from '../../src/core/texts/userText';
import { bringHomeText, CHAT_ITEM_CONTEXT, chatRow, describeRequest, discardWarning, MAX_LISTED_FILES, outcomeText, protectedWarning } from '../../src/frontends/backgroundChats';

const record: WorktreeRecord = {
  version: 1,
  name: 'fix-login',
  branch: 'evergreen/fix-login',
  folder: '/storage/worktrees/repo-1234/fix-login',
  checkout: '/home/me/repo',
  commonDir: '/home/me/repo/.git',
  adminDir: '/home/me/repo/.git/worktrees/fix-login',
  base: 'a'.repeat(40),
  baseBranch: 'main',
  createdAt: '2026-11-27T03:00:00.000Z',
  task: 'Fix the login form',
};

function plan(overrides: Partial<DiscardPlan>): DiscardPlan {
  return { record, uncommitted: [], commits: [], commitCount: 0, folderExists: true, ...overrides };
}

describe('front ends: the Background Chats view', () => {
  it('shows a chat as its name, then branch, state and the files it changed', () => {
    const row = chatRow(record, { kind: 'ready' }, { kind: 'count', files: 3, commits: 1 });
    assert.equal(row.label, 'fix-login');
    assert.equal(row.description, 'evergreen/fix-login · ready · 3 files changed');
    assert.equal(row.contextValue, CHAT_ITEM_CONTEXT.ready);
    assert.match(row.tooltip, /Task: Fix the login form/);
    assert.match(row.tooltip, /From: main at aaaaaaaaaaaa/);
    assert.equal(chatRow(record, { kind: 'ready' }, { kind: 'count', files: 1, commits: 0 }).description, 'evergreen/fix-login · ready · 1 file changed');
    assert.equal(chatRow(record, { kind: 'ready' }, { kind: 'count', files: 0, commits: 0 }, true).description, 'evergreen/fix-login · working · 0 files changed');
  });

  it('marks a chat whose folder is gone so only Discard is offered, and says why', () => {
    const row = chatRow(record, { kind: 'folder-missing', reason: userText('worktree.folderDeleted', { folder: '/w/fix-login', branch: 'evergreen/fix-login' }) }, { kind: 'not-read' });
    assert.equal(row.contextValue, CHAT_ITEM_CONTEXT.gone);
    assert.equal(row.description, 'evergreen/fix-login · folder deleted');
    assert.match(row.tooltip, /The worktree's folder \/w\/fix-login was deleted; its branch evergreen\/fix-login is still in the repository\. Discard it to clean it up\./);
    const unreadable = chatRow(record, { kind: 'ready' }, { kind: 'unreadable', reason: 'git said no' });
    assert.equal(unreadable.description, 'evergreen/fix-login · ready · changes unreadable');
    assert.match(unreadable.tooltip, /cannot be read: git said no/);
  });

  it('shows control and bidi characters of a task, file or commit instead of letting them act', () => {
    const row = chatRow({ ...record, task: 'a\u001b[2Jb\u202ec' }, { kind: 'ready' }, { kind: 'not-read' });
    assert.ok(!row.tooltip.includes('\u001b') && !row.tooltip.includes('\u202e'), 'no escape or bidi override reaches the tooltip');
    const warning = discardWarning(plan({ uncommitted: ['evil\u202etxt.exe'], commits: [{ sha: 'b'.repeat(40), subject: 'line\nbreak' }], commitCount: 1 }));
    assert.doesNotMatch(warning.detail, /\u202e/);
    assert.equal(warning.detail.split('\n').length, 4, 'the subject stays on its own line');
  });

  it('lists everything a discard loses: uncommitted files, then the commits only the branch holds', () => {
    const files = Array.from({ length: MAX_LISTED_FILES + 5 }, (_, index) => `src/file${index}.ts`);
    const { message, detail } = discardWarning(plan({ uncommitted: files, commits: [{ sha: 'c'.repeat(40), subject: 'Add the form' }], commitCount: 3 }));
    assert.match(message, /Discard the background chat fix-login\? Its worktree and the branch evergreen\/fix-login are removed\./);
    const lines = detail.split('\n');
    assert.equal(lines[0], `${files.length} uncommitted file(s) are lost:`);
    assert.equal(lines[1], '  src/file0.ts');
    assert.ok(lines.includes('  … and 5 more'));
    assert.ok(!lines.includes(`  src/file${MAX_LISTED_FILES}.ts`));
    assert.ok(lines.includes('3 commit(s) that only this branch holds are lost:'));
    assert.ok(lines.includes('  cccccccccccc Add the form'));
    assert.equal(lines.at(-1), '  … and 2 more');
  });

  it('says when a discard loses nothing, and when the folder was deleted already', () => {
    assert.match(discardWarning(plan({})).detail, /^Nothing is lost that is not also elsewhere/);
    assert.match(discardWarning(plan({ folderExists: false })).detail, /was deleted already; nothing else is lost/);
    assert.match(discardWarning(plan({ folderExists: false, commitCount: 1, commits: [{ sha: 'd'.repeat(40), subject: 'kept' }] })).detail, /1 commit\(s\) that only this branch holds are lost/);
  });

  it('words what bringing changes home did, a conflict as an error naming the files in the way', () => {
    const applied = bringHomeText(record, { kind: 'applied', files: ['a.ts', 'b.ts'] });
    assert.equal(applied.level, 'info');
    assert.match(applied.message, /Applied 2 file\(s\) of evergreen\/fix-login to your checkout as uncommitted changes/);
    const merged = bringHomeText(record, { kind: 'merged', commit: 'e'.repeat(40) });
    assert.equal(merged.message, 'Merged evergreen/fix-login into your branch as eeeeeeeeeeee.');
    assert.equal(bringHomeText(record, { kind: 'nothing' }).message, 'evergreen/fix-login has nothing to bring home.');
    const conflict = bringHomeText(record, { kind: 'conflict', files: ['a.ts'], reason: userText('worktree.mergeRefused', { branch: 'evergreen/fix-login', git: 'no.' }) });
    assert.equal(conflict.level, 'error');
    assert.equal(conflict.message, 'Git did not merge evergreen/fix-login, and nothing changed: no. In the way: a.ts.');
  });

  it('names each protected file and why before it comes home', () => {
    const { message, detail } = protectedWarning(record, [{ path: '.vscode/tasks.json', reason: 'it defines tasks' }]);
    assert.match(message, /changed 1 file\(s\) that run commands or configure your tools/);
    assert.equal(detail, '.vscode/tasks.json: it defines tasks');
  });

  it("tells how a background chat's turn ended, naming what it was refused", () => {
    assert.deepEqual(outcomeText({ name: 'fix-login', stop: 'end_turn', error: undefined, refused: [] }), { message: 'Evergreen: the background chat fix-login finished.', failed: false });
    const refused = outcomeText({ name: 'fix-login', stop: 'end_turn', error: undefined, refused: ['write a.ts', 'run make', 'fetch from example.com', 'run rm -rf x'] });
    assert.equal(refused.failed, false);
    assert.match(refused.message, /It was refused 4 action\(s\) that need your approval \(write a\.ts; run make; fetch from example\.com; …\); do that part in the panel's chat\.$/);
    const failed = outcomeText({ name: 'fix-login', stop: 'failed', error: 'No API key.', refused: [] });
    assert.equal(failed.failed, true);
    assert.equal(failed.message, 'Evergreen: the background chat fix-login stopped with an error: No API key..');
    assert.equal(outcomeText({ name: 'x', stop: 'cancelled', error: undefined, refused: [] }).message, 'Evergreen: the background chat x stopped (cancelled).');
  });

  it('words a refused request by what it would have done, the model\'s words escaped', () => {
    // Only the fields describeRequest reads: a real request carries more.
    assert.equal(describeRequest({ kind: 'shell', command: 'echo \u001b[31mred' } as ApprovalRequest), 'run echo \\x1b[31mred');
    assert.equal(describeRequest({ kind: 'write', path: 'src/a.ts' } as ApprovalRequest), 'write src/a.ts');
  });
});

import assert from 'node:assert/strict';
import { parseCliArgs, UsageError } from '../../src/cli/args';

// --worktree takes an optional name (issue 31); the worktree commands take one name each and run no chat.
describe('CLI arguments: worktrees', () => {
  const parse = (...argv: string[]) => parseCliArgs(argv, '/work/ws');

  it('reads --worktree bare (before another option or last) as "a name from the prompt", and with a name as that name', () => {
    assert.equal(parse('--worktree', '-p', 'Fix it').worktree, '');
    assert.equal(parse('-p', 'Fix it', '--worktree').worktree, '');
    assert.equal(parse('--worktree', 'fix-a', '-p', 'Fix it').worktree, 'fix-a');
    assert.equal(parse('--worktree=fix-b').worktree, 'fix-b');
    assert.equal(parse('-p', 'Fix it').worktree, undefined);
  });

  it('reads one worktree command with its name', () => {
    assert.deepEqual(parse('--list-worktrees').worktreeCommand, { kind: 'list' });
    assert.deepEqual(parse('--worktree-changes', 'a').worktreeCommand, { kind: 'changes', name: 'a' });
    assert.deepEqual(parse('--apply-worktree', 'a').worktreeCommand, { kind: 'apply', name: 'a' });
    assert.deepEqual(parse('--merge-worktree', 'a').worktreeCommand, { kind: 'merge', name: 'a' });
    assert.deepEqual(parse('--discard-worktree', 'a', '--yes').worktreeCommand, { kind: 'discard', name: 'a' });
    assert.equal(parse('-p', 'x').worktreeCommand, undefined);
  });

  it('refuses two commands, a command with a chat, --worktree with --resume, and an empty name', () => {
    const refused = (argv: string[], message: RegExp) => assert.throws(() => parse(...argv), (error: unknown) => error instanceof UsageError && message.test(error.message));
    refused(['--list-worktrees', '--apply-worktree', 'a'], /one worktree command at a time/);
    refused(['--apply-worktree', 'a', '--worktree', 'b'], /runs no chat/);
    refused(['--worktree', 'a', '--resume', 'id'], /--resume finds the session's worktree by itself/);
    refused(['--discard-worktree', ' '], /needs a worktree's name/);
  });
});

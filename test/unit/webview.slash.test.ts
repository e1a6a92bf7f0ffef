/**
 * The composer's `/` picker as data (src/webview/slashModel.ts) and a memory card's title
 * (memoryCardView.ts): when a message is a command being typed, the rows the host's commands make,
 * and the message once one is chosen.
 */
import assert from 'node:assert/strict';
import { completeSlash, slashQueryAt, slashRows } from '../../src/webview/slashModel';
import { memoryCardTitle } from '../../src/webview/memoryCardView';
import { applyEvent, emptyChat } from '../../src/webview/chatModel';

describe('webview: the / picker', () => {
  it('opens while the caret is in the first word of a message that starts with /', () => {
    assert.deepEqual(slashQueryAt('/', 1), { query: '', end: 1 });
    assert.deepEqual(slashQueryAt('/rev', 4), { query: 'rev', end: 4 });
    assert.deepEqual(slashQueryAt('/frontend:comp', 14), { query: 'frontend:comp', end: 14 });
    // The caret back inside the name of a command with arguments after it.
    assert.deepEqual(slashQueryAt('/review main.ts', 3), { query: 'review', end: 7 });
  });

  it('stays closed for text that only looks like a command', () => {
    assert.equal(slashQueryAt('review /rev', 11), undefined, 'a slash after the start');
    assert.equal(slashQueryAt('//tmp is full', 5), undefined, '// sends text that starts with /');
    assert.equal(slashQueryAt('/usr/bin/env is missing', 4), undefined, 'a path, not a name');
    assert.equal(slashQueryAt('/review main.ts', 12), undefined, 'the caret in the arguments');
    assert.equal(slashQueryAt('/review', 0), undefined, 'the caret before the slash');
    assert.equal(slashQueryAt('', 0), undefined);
  });

  it('makes a row per command: its name, what it takes and does, and where a file or skill comes from', () => {
    const rows = slashRows([
      { name: 'compact', description: 'Compact the conversation now', argumentHint: '[focus]', source: 'built-in' },
      { name: 'review-pr', description: 'Review a pull request', argumentHint: '[pr-number]', source: '.claude/commands/review-pr.md' },
      { name: 'pdf-processing', description: 'Work with PDFs', source: '.claude/skills/pdf-processing/SKILL.md', skill: true },
    ]);
    assert.deepEqual(
      rows.map((row) => [row.name, row.label, row.detail]),
      [
        ['compact', '/compact', '[focus] · Compact the conversation now'],
        ['review-pr', '/review-pr', '[pr-number] · Review a pull request (.claude/commands/review-pr.md)'],
        ['pdf-processing', '/pdf-processing', 'skill · Work with PDFs (.claude/skills/pdf-processing/SKILL.md)'],
      ],
    );
  });

  it('writes the chosen name over the typed one with one space after it, the caret after the space, the arguments kept', () => {
    assert.deepEqual(completeSlash('/rev', 4, 'review-pr'), { text: '/review-pr ', caret: 11 });
    assert.deepEqual(completeSlash('/rev 42', 4, 'review-pr'), { text: '/review-pr 42', caret: 11 });
    assert.deepEqual(completeSlash('/', 1, 'compact'), { text: '/compact ', caret: 9 });
  });
});

describe('webview: a memory card', () => {
  it('says what the write did and where, in words', () => {
    assert.equal(memoryCardTitle({ kind: 'memory', command: 'create', path: '/memories/build.md' }), 'Memory saved /memories/build.md');
    assert.equal(memoryCardTitle({ kind: 'memory', command: 'str_replace', path: '/memories/build.md' }), 'Memory updated /memories/build.md');
    assert.equal(memoryCardTitle({ kind: 'memory', command: 'rename', path: '/memories/a.md', newPath: '/memories/b.md' }), 'Memory moved /memories/a.md → /memories/b.md');
    assert.equal(memoryCardTitle({ kind: 'memory', command: 'delete', path: '/memories/old.md' }), 'Memory deleted /memories/old.md');
  });

  it("keeps the tool's card on the chat item, and a call without one gets none", () => {
    const model = emptyChat();
    applyEvent(model, { type: 'turn_started', turnId: 't1', userText: 'remember the build command' });
    applyEvent(model, { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu1', name: 'memory', input: {}, card: { kind: 'memory', command: 'create', path: '/memories/build.md', preview: 'npm run build' } });
    applyEvent(model, { type: 'tool_call_started', turnId: 't1', toolUseId: 'tu2', name: 'read_file', input: { path: 'a.ts' } });
    const [memory, read] = model.items.filter((item) => item.kind === 'tool');
    assert.equal(memory?.kind, 'tool');
    assert.deepEqual(memory?.kind === 'tool' && memory.card, { kind: 'memory', command: 'create', path: '/memories/build.md', preview: 'npm run build' });
    assert.equal(read?.kind === 'tool' && 'card' in read, false);
  });
});

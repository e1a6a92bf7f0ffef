import assert from 'node:assert/strict';
import { markdownBlocks } from '../../src/webview/markdownBlocks';

describe('webview markdownBlocks (streaming replies render block by block)', () => {
  it('cuts at a blank line followed by a line in column 0, and the blocks join back to the text', () => {
    const text = '# Title\n\nFirst paragraph\nstill first.\n\n- a\n- b\n\nLast, still stream';
    const blocks = markdownBlocks(text);
    assert.ok(Array.isArray(blocks));
    assert.deepEqual(blocks, ['# Title\n\n', 'First paragraph\nstill first.\n\n', '- a\n- b\n\n', 'Last, still stream']);
    assert.equal(blocks.join(''), text);
  });

  it('never cuts inside a code fence, even at blank lines', () => {
    const text = 'Intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter';
    assert.deepEqual(markdownBlocks(text), ['Intro\n\n', '```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n', 'After']);
  });

  it('an unclosed fence keeps everything after it in the open block', () => {
    const text = 'Intro\n\n~~~\ncode\n\nmore code\n';
    assert.deepEqual(markdownBlocks(text), ['Intro\n\n', '~~~\ncode\n\nmore code\n']);
  });

  it('a shorter or different marker does not close a fence', () => {
    const text = '````md\n```\n\nstill inside\n~~~~\n````\n\nout';
    assert.deepEqual(markdownBlocks(text), ['````md\n```\n\nstill inside\n~~~~\n````\n\n', 'out']);
  });

  it('keeps an indented continuation after a blank line in the same block (a list item goes on)', () => {
    const text = '1. Step one\n\n   More about step one\n\n2. Step two';
    assert.deepEqual(markdownBlocks(text), ['1. Step one\n\n   More about step one\n\n', '2. Step two']);
  });

  it('earlier blocks do not change as the text grows one character at a time', () => {
    const text = '## A\n\nSome `code` and text.\n\n```\nx\n\ny\n```\n\n- item\n\n  continued\n\nEnd.';
    let stable: string[] = [];
    for (let length = 1; length <= text.length; length++) {
      const blocks = markdownBlocks(text.slice(0, length));
      // All blocks but the last (still being written) must be blocks of the final text.
      const finished = blocks.slice(0, -1);
      assert.deepEqual(finished, markdownBlocks(text).slice(0, finished.length), `at ${length} characters`);
      assert.ok(finished.length >= stable.length, 'a finished block never reopens');
      stable = finished;
    }
  });

  it('returns no blocks for empty text', () => {
    assert.deepEqual(markdownBlocks(''), []);
  });
});

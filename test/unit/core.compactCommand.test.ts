/**
 * "/compact [focus]" has one parser (src/core/agent/compactCommand.ts), used by the chat and the CLI.
 */
import assert from 'node:assert/strict';
import { parseCompactCommand } from '../../src/core/agent/compactCommand';

describe('/compact [focus] parsing', () => {
  it('reads a bare /compact as a compaction without focus', () => {
    assert.deepEqual(parseCompactCommand('/compact'), { focus: undefined });
    assert.deepEqual(parseCompactCommand('  /compact  '), { focus: undefined });
  });

  it('reads the words after /compact as the focus, trimmed', () => {
    assert.deepEqual(parseCompactCommand('/compact   the API decisions  '), { focus: 'the API decisions' });
  });

  it('leaves every other prompt alone, including words that only start like the command', () => {
    assert.equal(parseCompactCommand('/compacted'), undefined);
    assert.equal(parseCompactCommand('please /compact'), undefined);
    assert.equal(parseCompactCommand('/Compact'), undefined);
    assert.equal(parseCompactCommand(''), undefined);
  });
});

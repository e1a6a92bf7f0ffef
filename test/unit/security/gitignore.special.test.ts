// A workspace is not trusted, and list_files / grep_search read every .gitignore in it. A FIFO
// named .gitignore blocked a plain readFileSync (and with it the whole event loop) forever; a
// symlink .gitignore -> /dev/zero grew memory without bound. The FIFO and /dev/zero case runs the
// tools in a child process with a hard timeout (test/system/security/gitignore.special.test.ts);
// these are the cases that cannot hang.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GitignoreFilter, MAX_GITIGNORE_BYTES } from '../../../src/core/workspace/gitignore';
import { lineLogger } from '../../../src/core/logger';
import { useTempDirs } from '../../support/tempDirs';

describe('security: special files named .gitignore do not hang list_files or grep_search', function () {
  const temp = useTempDirs();
  let root: string;

  before(function () {
    if (process.platform === 'win32') this.skip();
  });
  beforeEach(() => {
    root = temp.make('evergreen-gitignore-');
  });

  it('says why it skipped a special file, when it has a logger', () => {
    // A directory, not a device or FIFO: in-process, a regression must fail fast rather than hang.
    fs.mkdirSync(path.join(root, '.gitignore'));
    fs.writeFileSync(path.join(root, 'a.txt'), '');
    const lines: string[] = [];
    const filter = new GitignoreFilter(root, lineLogger((line) => lines.push(line)));
    assert.equal(filter.isIgnored('a.txt', false), false);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] as string, /^\[warn\] Ignoring .*\.gitignore: not a regular file$/);
  });

  it('reads at most MAX_GITIGNORE_BYTES of a huge .gitignore, cut at its last whole line', () => {
    // `straddle.txt.bak` crosses the limit: cut mid-line it would become `straddle.txt` and ignore that file.
    const head = 'first.txt\n';
    const padding = '#'.repeat(99) + '\n';
    let text = head;
    while (text.length + padding.length <= MAX_GITIGNORE_BYTES - 'straddle.txt'.length) text += padding;
    text += '#'.repeat(MAX_GITIGNORE_BYTES - 'straddle.txt'.length - text.length - 1) + '\n';
    text += 'straddle.txt.bak\nlast.txt\n';
    assert.equal(text.indexOf('straddle.txt'), MAX_GITIGNORE_BYTES - 'straddle.txt'.length, 'the fixture must straddle the limit');
    fs.writeFileSync(path.join(root, '.gitignore'), text);
    const filter = new GitignoreFilter(root);
    assert.equal(filter.isIgnored('first.txt', false), true, 'the beginning applies');
    assert.equal(filter.isIgnored('straddle.txt', false), false, 'a line cut by the limit must not apply');
    assert.equal(filter.isIgnored('last.txt', false), false, 'past the limit nothing is read');
  });
});

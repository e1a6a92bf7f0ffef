// A workspace is not trusted, and list_files / grep_search read every .gitignore in it. A FIFO
// named .gitignore blocked a plain readFileSync (and with it the whole event loop) forever; a
// symlink .gitignore -> /dev/zero grew memory without bound. The tools run in a child process
// with a hard timeout: a blocked event loop cannot time out by itself, so a regression fails in
// ~10 s instead of hanging the suite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { useTempDirs } from '../../support/tempDirs';

const REPO = path.resolve(__dirname, '../../..');
const CHILD_TIMEOUT_MS = 10_000;

// Runs list_files and grep_search (JS path: no ripgrepPath) on the workspace in GITIGNORE_TEST_ROOT.
const CHILD = `
const { createToolRegistry } = require('./src/core/tools/registry');
const { NodeWorkspace } = require('./src/core/workspace/workspace');
const { makeContext } = require('./test/support/toolFixtures');
(async () => {
  const tools = createToolRegistry({ trusted: false });
  const context = () => makeContext(new NodeWorkspace(process.env.GITIGNORE_TEST_ROOT));
  const list = await tools.executeToolCall('list_files', { path: '.', recursive: true }, context());
  const grep = await tools.executeToolCall('grep_search', { pattern: 'needle' }, context());
  process.stdout.write(JSON.stringify({ list, grep }));
})().catch((error) => { console.error(error); process.exit(2); });
`;

interface ToolOutcome {
  isError?: boolean;
  content: string;
}

describe('security: special files named .gitignore do not hang list_files or grep_search', function () {
  this.timeout(CHILD_TIMEOUT_MS + 10_000);
  const temp = useTempDirs();
  let root: string;

  before(function () {
    if (process.platform === 'win32') this.skip();
  });
  beforeEach(() => {
    root = temp.make('evergreen-gitignore-');
  });

  it('skips a FIFO and a symlink to /dev/zero, and still lists and searches the other files', () => {
    for (const dir of ['fifo', 'zero', 'plain']) fs.mkdirSync(path.join(root, dir));
    const mkfifo = spawnSync('mkfifo', [path.join(root, 'fifo', '.gitignore')]);
    assert.equal(mkfifo.status, 0, `mkfifo failed: ${String(mkfifo.stderr)}`);
    assert.ok(fs.statSync(path.join(root, 'fifo', '.gitignore')).isFIFO());
    fs.symlinkSync('/dev/zero', path.join(root, 'zero', '.gitignore'));
    fs.writeFileSync(path.join(root, '.gitignore'), 'ignored.txt\n');
    fs.writeFileSync(path.join(root, 'plain', '.gitignore'), 'secret.txt\n');
    for (const file of ['fifo/keep.txt', 'zero/keep.txt', 'plain/keep.txt', 'root.txt', 'ignored.txt', 'plain/secret.txt']) fs.writeFileSync(path.join(root, file), 'a needle here\n');

    const started = Date.now();
    const child = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', CHILD], {
      cwd: REPO,
      env: { ...process.env, GITIGNORE_TEST_ROOT: root },
      timeout: CHILD_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.equal(child.signal, null, `list_files / grep_search did not finish within ${CHILD_TIMEOUT_MS} ms (${Date.now() - started} ms): a special .gitignore blocked them`);
    assert.equal(child.status, 0, child.stderr);
    const { list, grep } = JSON.parse(child.stdout) as { list: ToolOutcome; grep: ToolOutcome };
    assert.equal(typeof list, 'object');
    assert.notEqual(list.isError, true, list.content);
    for (const file of ['fifo/keep.txt', 'zero/keep.txt', 'plain/keep.txt', 'root.txt']) assert.ok(list.content.includes(file), `list_files lost ${file}:\n${list.content}`);
    // The regular .gitignore files still apply.
    assert.ok(!list.content.includes('ignored.txt') && !list.content.includes('secret.txt'), list.content);
    assert.equal(typeof grep, 'object');
    assert.notEqual(grep.isError, true, grep.content);
    for (const file of ['fifo/keep.txt', 'zero/keep.txt', 'plain/keep.txt', 'root.txt']) assert.ok(grep.content.includes(file), `grep_search lost ${file}:\n${grep.content}`);
    assert.ok(!grep.content.includes('ignored.txt') && !grep.content.includes('secret.txt'), grep.content);
  });
});

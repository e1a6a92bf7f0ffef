import assert from 'node:assert/strict';
import { createToolRegistry } from '../../src/core/tools/registry';
import { makeContext, makeSearchTree, makeTempDirs, type TempDirs } from '../support/toolFixtures';

describe('tools list_files', () => {
  let dirs: TempDirs;
  const registry = createToolRegistry({ trusted: false });
  beforeEach(async () => {
    dirs = makeTempDirs();
    await makeSearchTree(dirs);
  });
  afterEach(() => dirs.cleanup());
  const list = (input: unknown) => registry.executeToolCall('list_files', input, makeContext(dirs.workspace));

  it('lists everything not ignored, sorted; honours root and nested .gitignore; skips .git and node_modules', async () => {
    const result = await list({});
    assert.equal(result.isError, undefined, result.content);
    assert.deepEqual(result.content.split('\n'), [
      '.github/workflows/ci.yml',
      '.gitignore',
      'a/z.ts',
      'a.ts',
      'img.bin',
      'src/.gitignore',
      'src/app.ts',
      'src/keep.log',
      'src/sub/deep.ts',
    ]);
  });

  it('filters by glob and subdirectory, paths stay workspace-relative', async () => {
    assert.deepEqual((await list({ pattern: '**/*.ts' })).content.split('\n'), ['a/z.ts', 'a.ts', 'src/app.ts', 'src/sub/deep.ts']);
    assert.deepEqual((await list({ pattern: '*.ts' })).content.split('\n'), ['a.ts']);
    assert.deepEqual((await list({ pattern: '**/*.{log,yml}' })).content.split('\n'), ['.github/workflows/ci.yml', 'src/keep.log']);
    assert.deepEqual((await list({ path: 'src', pattern: '**/*.ts' })).content.split('\n'), ['src/app.ts', 'src/sub/deep.ts']);
    assert.match((await list({ pattern: '**/*.rs' })).content, /No files match/);
  });

  it('caps the listing and says how many more', async () => {
    const small = createToolRegistry({ trusted: false, listFiles: { maxEntries: 3 } });
    const result = await small.executeToolCall('list_files', {}, makeContext(dirs.workspace));
    const lines = result.content.split('\n');
    assert.deepEqual(lines.slice(0, 3), ['.github/workflows/ci.yml', '.gitignore', 'a/z.ts']);
    assert.match(lines[3] ?? '', /6 more files.*9 in total/);
  });

  it('refuses paths and patterns that leave the workspace', async () => {
    for (const input of [{ path: '..' }, { path: dirs.outside }, { path: 'link-out' }, { pattern: '../**' }, { pattern: '/etc/*' }]) {
      const result = await list(input);
      assert.equal(result.isError, true, JSON.stringify(input));
      assert.match(result.content, /outside the workspace root|must not contain "\.\."|must be relative/, JSON.stringify(input));
    }
    const file = await list({ path: 'a.ts' });
    assert.match(file.content, /is a file/);
  });
});

describe('tools grep_search', () => {
  let dirs: TempDirs;
  const js = createToolRegistry({ trusted: false });
  beforeEach(async () => {
    dirs = makeTempDirs();
    await makeSearchTree(dirs);
  });
  afterEach(() => dirs.cleanup());

  it('JS fallback: path:line:text, .gitignore honoured, binary/.git/node_modules/symlinks skipped', async () => {
    const result = await js.executeToolCall('grep_search', { pattern: 'needle' }, makeContext(dirs.workspace));
    assert.equal(result.isError, undefined, result.content);
    assert.deepEqual(result.content.split('\n'), [
      '.github/workflows/ci.yml:1:needle hidden',
      'a/z.ts:1:needle in a dir',
      'a.ts:1:export const needle = 1;',
      'src/app.ts:2:const needle = 2;',
      'src/keep.log:1:needle kept',
      'src/sub/deep.ts:1:needle deep',
    ]);
    const capped = await js.executeToolCall('grep_search', { pattern: 'needle', max_results: 2 }, makeContext(dirs.workspace));
    assert.equal(capped.content.split('\n').length, 3);
    assert.match(capped.content, /there are more/);
    const globbed = await js.executeToolCall('grep_search', { pattern: 'needle', glob: '*.ts' }, makeContext(dirs.workspace));
    assert.doesNotMatch(globbed.content, /secret/, 'a matching glob must not re-include a .gitignored file');
  });

  it('invalid regex is a clear error (JS)', async () => {
    const result = await js.executeToolCall('grep_search', { pattern: '(unclosed' }, makeContext(dirs.workspace));
    assert.equal(result.isError, true);
    assert.match(result.content, /Invalid regular expression "\(unclosed"/);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileSessionStore } from '../../src/core/storage/sessionStore';
import { useTempDirs } from '../support/tempDirs';

// The archive commands from the built bundle (what the action and users run): the zip libraries
// resolve differently when bundled (an ESM build's exports once left a checksum function undefined
// there while the TypeScript sources worked). `npm test` builds before this suite.
describe('session archives from dist/cli.js', function () {
  const temp = useTempDirs();
  this.timeout(60_000);
  let base: string;
  beforeEach(() => (base = temp.make('evergreen-archive-bundle-')));

  it('exports a session to a .zip and imports it into other storage', async () => {
    assert.ok(fs.existsSync('dist/cli.js'), 'dist/cli.js is missing: run `npm run build` first');
    const source = new FileSessionStore(path.join(base, 'a'));
    const handle = await source.create({ model: 'claude-sonnet-4-6' });
    handle.append({ type: 'message', ts: new Date().toISOString(), message: { role: 'user', content: 'hello from the bundle' } });
    await handle.flushMeta();
    handle.close();
    fs.writeFileSync(path.join(source.toolResultsDir(handle.id), 'toolu_1.txt'), 'saved output '.repeat(10_000));
    const zip = path.join(base, 'run.zip');
    const cli = (...args: string[]) => spawnSync(process.execPath, ['dist/cli.js', '--workspace', base, ...args], { encoding: 'utf8' });
    const exported = cli('--storage-dir', path.join(base, 'a'), '--export-session', handle.id, zip);
    assert.equal(exported.status, 0, exported.stderr);
    const imported = cli('--storage-dir', path.join(base, 'b'), '--import-session', zip);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, new RegExp(`Imported session ${handle.id}`));
    const target = new FileSessionStore(path.join(base, 'b'));
    assert.equal(fs.readFileSync(target.transcriptPath(handle.id), 'utf8'), fs.readFileSync(source.transcriptPath(handle.id), 'utf8'));
    assert.equal(fs.readFileSync(path.join(target.toolResultsDir(handle.id), 'toolu_1.txt'), 'utf8'), 'saved output '.repeat(10_000));
  });
});

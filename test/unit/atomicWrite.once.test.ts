import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileOnceAtomic } from '../../src/core/workspace/atomicWrite';

describe('writeFileOnceAtomic (content-addressed files: checkpoint blobs, session images)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'evergreen-once-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file and its folders, leaving no temporary file behind', async () => {
    const file = path.join(dir, 'blobs', 'abc');
    await writeFileOnceAtomic(file, Buffer.from([0, 255, 10]));
    assert.deepEqual(readFileSync(file), Buffer.from([0, 255, 10]));
    assert.deepEqual(readdirSync(path.dirname(file)), ['abc']);
  });

  it('never writes a file that is there already (its name is its content)', async () => {
    const file = path.join(dir, 'abc');
    writeFileSync(file, 'kept');
    await writeFileOnceAtomic(file, Buffer.from('other'));
    assert.equal(readFileSync(file, 'utf8'), 'kept');
  });
});

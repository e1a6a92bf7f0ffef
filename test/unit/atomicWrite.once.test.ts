import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { writeFileOnceAtomic } from '../../src/core/workspace/atomicWrite';
import { useTempDirs } from '../support/tempDirs';

describe('writeFileOnceAtomic (content-addressed files: checkpoint blobs, session images)', () => {
  const temp = useTempDirs();
  let dir: string;
  beforeEach(() => (dir = temp.make('evergreen-once-')));

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

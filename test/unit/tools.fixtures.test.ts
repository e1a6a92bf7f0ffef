import assert from 'node:assert/strict';
import * as path from 'node:path';
import { makeTempDirs } from '../support/toolFixtures';

describe('tools test fixtures', () => {
  it('creates a real workspace root with an outside sibling and a read-only root', () => {
    const dirs = makeTempDirs();
    try {
      assert.equal(dirs.workspace.root, dirs.root);
      assert.notEqual(path.dirname(dirs.outside), dirs.root);
      assert.deepEqual(dirs.workspace.readOnlyRoots, [dirs.readOnly]);
    } finally {
      dirs.cleanup();
    }
  });
});

/**
 * Instruction files as read from disk (src/core/instructions/instructionFiles.ts): the order and headings,
 * `@path` imports, and every kind of bad input: binary, huge, a link out of the workspace, a FIFO,
 * an import cycle, non-UTF-8. Each bad file gives a notice and the rest is still read.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadSessionInstructions, type LoadedInstructions } from '../../src/core/instructions/instructionFiles';
import { said } from '../support/said';
import { useTempDirs } from '../support/tempDirs';

const BUDGET = 20_000;

describe('instruction files', function () {
  this.timeout(30_000);
  const temp = useTempDirs();
  let workspace: string;
  let home: string;

  beforeEach(() => {
    workspace = temp.make('evergreen-instr-ws-');
    home = temp.make('evergreen-instr-home-');
  });

  const write = (root: string, file: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  };
  const load = (options: { userFile?: string; includeWorkspace?: boolean; maxFileChars?: number } = {}): Promise<LoadedInstructions> =>
    loadSessionInstructions({ workspaceRoot: workspace, home, includeWorkspace: options.includeWorkspace ?? true, maxFileChars: options.maxFileChars ?? BUDGET, userFile: options.userFile });

  describe('bad input: a notice, and the other files are still read', () => {
    it('refuses a FIFO at once instead of waiting for a writer', async function () {
      if (process.platform === 'win32') this.skip();
      execFileSync('mkfifo', [path.join(workspace, 'AGENTS.md')]);
      write(workspace, 'CLAUDE.md', 'STILL READ');
      const loaded = await load();
      assert.deepEqual(loaded.files.map((file) => file.text), ['STILL READ']);
      assert.match(loaded.notices.map(said).join('\n'), /AGENTS\.md is not a regular file \(a named pipe\); it was not read/);
    });
  });
});

/**
 * Temporary folders for tests, removed after the test that made them: one place that makes them
 * (real paths, so a test comparing paths is not fooled by a symlinked /tmp) and one that cleans up.
 *
 *   const temp = useTempDirs();              // in a describe (or at a file's top level); 'all' for a before hook's
 *   it('…', () => { const workspace = temp.make('evergreen-ws-'); … });
 *
 * Set KEEP_TEST_TMP=1 to keep them for a look after a failure.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TempDirs {
  /** A new empty folder (its real path), removed after the running test. */
  make(prefix?: string): string;
  /** A new folder holding `files` (relative paths; folders are made as needed). */
  withFiles(files: Record<string, string | Buffer>, prefix?: string): string;
  /** The folders made since the last clean, oldest first. */
  all(): string[];
  /** Removes every folder made so far (afterEach does this by itself). */
  clean(): void;
}

/** Makes `root` and `files` below it, creating their folders. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/** Folders made through it are removed by `clean()`; for code outside mocha's hooks. */
export function tempDirs(): TempDirs {
  const made: string[] = [];
  const dirs: TempDirs = {
    make(prefix = 'evergreen-test-') {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
      made.push(dir);
      return dir;
    },
    withFiles(files, prefix) {
      const dir = dirs.make(prefix);
      writeTree(dir, files);
      return dir;
    },
    all: () => [...made],
    clean() {
      if (process.env.KEEP_TEST_TMP) return void made.splice(0);
      for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return dirs;
}

/**
 * Temp folders removed after each test of the enclosing describe, or with `'all'` after its last
 * test (for folders a `before` hook makes once for every test).
 */
export function useTempDirs(lifetime: 'each' | 'all' = 'each'): TempDirs {
  const dirs = tempDirs();
  if (lifetime === 'each') afterEach(() => dirs.clean());
  else after(() => dirs.clean());
  return dirs;
}

// File enumeration for list_files and the JS grep fallback: tinyglobby for glob matching, with a
// filesystem adapter that drops .gitignored entries as directories are read, so ignored trees
// (dist/, .venv/, ...) are never even walked.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { glob } from 'tinyglobby';
import { GitignoreFilter } from './gitignore';
import { ToolInputError } from '../errors';
import { isInside } from './workspace';

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: fs.Dirent[]) => void;

function filteringReaddir(filter: GitignoreFilter): typeof fs.readdir {
  const readdir = (dirPath: fs.PathLike, optionsOrCallback: unknown, maybeCallback?: ReaddirCallback): void => {
    const callback = (typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback) as ReaddirCallback;
    const dir = path.resolve(String(dirPath));
    fs.readdir(dir, { withFileTypes: true }, (error, entries) => {
      if (error) {
        callback(error, []);
        return;
      }
      callback(
        null,
        // Pipes, sockets and devices are never listed or searched: opening one can block forever.
        entries.filter((entry) => (entry.isFile() || entry.isDirectory() || entry.isSymbolicLink()) && !filter.isIgnoredAbsolute(path.join(dir, entry.name), entry.isDirectory())),
      );
    });
  };
  // fdir only calls readdir(path, { withFileTypes: true }, callback); the cast bridges node's overloads.
  return readdir as unknown as typeof fs.readdir;
}

/** Rejects glob patterns that could walk outside the search directory. */
export function checkGlobPattern(pattern: string, parameter: string): void {
  if (pattern.trim() === '') throw new ToolInputError(`Parameter "${parameter}" must not be empty.`);
  if (path.isAbsolute(pattern) || pattern.startsWith('~')) {
    throw new ToolInputError(`Parameter "${parameter}" must be relative to the search directory (use "path" to pick the directory), got "${pattern}".`);
  }
  if (pattern.split(/[\\/]/).includes('..')) {
    throw new ToolInputError(`Parameter "${parameter}" must not contain ".." segments, got "${pattern}".`);
  }
}

/** Component-wise path order, the same order as `rg --sort path` (a/b.ts before a.ts). */
export function comparePaths(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  const n = Math.min(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i] as string;
    const y = pb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

export interface FindFilesOptions {
  /** Real absolute workspace root: .gitignore files from here down apply. */
  root: string;
  /** Real absolute directory to search. */
  dir: string;
  /** Glob relative to `dir` (tinyglobby / picomatch syntax). */
  pattern: string;
  signal?: AbortSignal;
}

/** Files (not directories, not symlinks) under `dir` matching `pattern`, absolute, sorted. */
export async function findFiles(options: FindFilesOptions): Promise<string[]> {
  const { dir, pattern, signal } = options;
  // Outside the workspace (a read-only root) the search directory is its own .gitignore root.
  const filter = new GitignoreFilter(isInside(dir, options.root) ? options.root : dir);
  const found = await glob(pattern, {
    cwd: dir,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: ['**/.git/**', '**/node_modules/**'],
    fs: { readdir: filteringReaddir(filter) },
    ...(signal ? { signal } : {}),
  });
  const files: string[] = [];
  for (const rel of found) {
    const absolute = path.resolve(dir, rel);
    // Belt and braces: the adapter already pruned ignored entries, but a changed crawler must not leak them.
    if (!isInside(absolute, dir) || filter.isIgnoredAbsolute(absolute, false)) continue;
    files.push(absolute);
  }
  const key = (p: string): string => path.relative(dir, p).split(path.sep).join('/');
  return files.sort((a, b) => comparePaths(key(a), key(b)));
}

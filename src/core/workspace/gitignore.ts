// .gitignore semantics for list_files and the JS grep fallback: root and nested .gitignore files,
// deeper files override shallower ones, and nothing inside an ignored directory can be re-included
// (as in git). .git and node_modules are always skipped.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import * as path from 'node:path';
import ignore from 'ignore';
import { errorMessage, silentLogger, type Logger } from '../logger';

type Ignore = ignore.Ignore;

export const ALWAYS_SKIPPED_DIRS: readonly string[] = ['.git', 'node_modules'];

/** Real .gitignore files are a few KB; a bigger one is cut at its last whole line. */
export const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * The text of a .gitignore, or undefined when there is none or it is not a regular file. The
 * workspace is not trusted: a FIFO named .gitignore would block a plain read (and with it the
 * whole event loop) until a writer appears, and a symlink to /dev/zero would never end. So it is
 * opened non-blocking, checked with fstat on the open descriptor (no swap between check and
 * read), and read up to MAX_GITIGNORE_BYTES.
 */
function readGitignore(file: string, logger: Logger): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined; // No (readable) .gitignore here.
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      logger.warn(`Ignoring ${file}: not a regular file`);
      return undefined;
    }
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_GITIGNORE_BYTES));
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (stat.size > MAX_GITIGNORE_BYTES) {
      logger.warn(`${file} is larger than ${MAX_GITIGNORE_BYTES} bytes: only its first lines apply`);
      length = Math.max(0, buffer.lastIndexOf(0x0a, length - 1) + 1); // a cut pattern could ignore the wrong files
    }
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    logger.warn(`Ignoring ${file}: ${errorMessage(error)}`);
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export class GitignoreFilter {
  /** Parsed .gitignore per directory (root-relative, '' for the root); null = none. */
  private readonly rules = new Map<string, Ignore | null>();
  private readonly dirVerdicts = new Map<string, boolean>();

  /**
   * `root` is the directory whose .gitignore applies to everything below it (the workspace root).
   * The tools have no logger in their context today, so skipped special files are silent there.
   */
  constructor(
    readonly root: string,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** Root-relative path with '/' separators, or undefined if outside the root. */
  relative(absolutePath: string): string | undefined {
    const rel = path.relative(this.root, absolutePath);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  }

  isIgnoredAbsolute(absolutePath: string, isDirectory: boolean): boolean {
    const rel = this.relative(absolutePath);
    return rel === undefined || rel === '' ? false : this.isIgnored(rel, isDirectory);
  }

  /** `rel` is root-relative with '/' separators. */
  isIgnored(rel: string, isDirectory: boolean): boolean {
    const segments = rel.split('/').filter((s) => s !== '');
    let prefix = '';
    for (let i = 0; i < segments.length - 1; i++) {
      prefix = prefix === '' ? (segments[i] as string) : `${prefix}/${segments[i] as string}`;
      if (this.isDirIgnored(prefix)) return true;
    }
    return this.matches(segments, isDirectory);
  }

  private isDirIgnored(rel: string): boolean {
    let verdict = this.dirVerdicts.get(rel);
    if (verdict === undefined) {
      verdict = this.matches(rel.split('/'), true);
      this.dirVerdicts.set(rel, verdict);
    }
    return verdict;
  }

  /** Applies the .gitignore of every ancestor directory, shallowest first; the last verdict wins. */
  private matches(segments: string[], isDirectory: boolean): boolean {
    const name = segments[segments.length - 1];
    if (name === undefined) return false;
    if (ALWAYS_SKIPPED_DIRS.includes(name) && isDirectory) return true;
    let ignored = false;
    for (let depth = 0; depth < segments.length; depth++) {
      const dir = segments.slice(0, depth).join('/');
      const rules = this.rulesFor(dir);
      if (!rules) continue;
      const sub = segments.slice(depth).join('/') + (isDirectory ? '/' : '');
      const result = rules.test(sub);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  private rulesFor(dir: string): Ignore | null {
    let rules = this.rules.get(dir);
    if (rules === undefined) {
      // Sync on purpose: .gitignore files are small (and bounded), read once and cached per directory.
      const text = readGitignore(path.join(this.root, ...dir.split('/'), '.gitignore'), this.logger);
      try {
        rules = text === undefined ? null : ignore({ ignorecase: false }).add(text); // case-sensitive like git on Linux and ripgrep
      } catch (error) {
        this.logger.warn(`Ignoring the .gitignore in '${dir}': ${errorMessage(error)}`);
        rules = null;
      }
      this.rules.set(dir, rules);
    }
    return rules;
  }
}

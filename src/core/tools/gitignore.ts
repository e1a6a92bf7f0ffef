// .gitignore semantics for list_files and the JS grep fallback: root and nested .gitignore files,
// deeper files override shallower ones, and nothing inside an ignored directory can be re-included
// (as in git). .git and node_modules are always skipped.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import ignore from 'ignore';

type Ignore = ignore.Ignore;

export const ALWAYS_SKIPPED_DIRS: readonly string[] = ['.git', 'node_modules'];

export class GitignoreFilter {
  /** Parsed .gitignore per directory (root-relative, '' for the root); null = none. */
  private readonly rules = new Map<string, Ignore | null>();
  private readonly dirVerdicts = new Map<string, boolean>();

  /** `root` is the directory whose .gitignore applies to everything below it (the workspace root). */
  constructor(readonly root: string) {}

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
      rules = null;
      try {
        // Sync on purpose: .gitignore files are tiny, read once and cached per directory.
        const text = readFileSync(path.join(this.root, ...dir.split('/'), '.gitignore'), 'utf8');
        rules = ignore({ ignorecase: false }).add(text); // case-sensitive like git on Linux and ripgrep
      } catch {
        // No (readable) .gitignore here.
      }
      this.rules.set(dir, rules);
    }
    return rules;
  }
}

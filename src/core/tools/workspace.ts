// Confined file access: every path a tool touches goes through Workspace.resolve, which refuses
// anything that lands outside the workspace root (or a read-only root, for reads) after symlinks
// are resolved.
import { promises as fsp, realpathSync } from 'node:fs';
import * as path from 'node:path';

export interface ResolveOptions {
  /** Writes are only allowed inside the workspace root, never in read-only roots. */
  write?: boolean;
}

export interface Workspace {
  /** Absolute real path of the workspace root. */
  readonly root: string;
  /** Extra roots readable by tools (e.g. the session's persisted tool outputs). */
  readonly readOnlyRoots: readonly string[];
  /**
   * Resolves a tool-supplied path to an absolute real path (symlinks resolved, also for
   * not-yet-existing files) and throws WorkspaceAccessError if it is outside the allowed roots.
   */
  resolve(path: string, options?: ResolveOptions): Promise<string>;
  /** How to show an absolute path to the model: root-relative with '/', else absolute. */
  displayPath(absolutePath: string): string;
}

export class WorkspaceAccessError extends Error {
  override name = 'WorkspaceAccessError';
}

const MAX_SYMLINK_HOPS = 40;

/** Like realpath, but also for paths that do not exist yet: resolves the nearest existing parent. */
export async function realpathLoose(target: string, hops = 0): Promise<string> {
  try {
    return await fsp.realpath(target);
  } catch (error) {
    if (!isNodeError(error) || (error.code !== 'ENOENT' && error.code !== 'ENOTDIR')) throw error;
  }
  // A dangling symlink must be followed by hand: writing through it would create its target.
  const stat = await fsp.lstat(target).catch(() => undefined);
  if (stat?.isSymbolicLink()) {
    if (hops >= MAX_SYMLINK_HOPS) throw new WorkspaceAccessError(`Too many levels of symbolic links: ${target}`);
    const link = await fsp.readlink(target);
    return realpathLoose(path.resolve(path.dirname(target), link), hops + 1);
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  return path.join(await realpathLoose(parent, hops), path.basename(target));
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

export function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

interface Root {
  given: string;
  real: string | undefined; // undefined until the folder exists (persisted-outputs folder may be created later)
}

export class NodeWorkspace implements Workspace {
  readonly root: string;
  private readonly givenRoot: string;
  private readonly extraRoots: Root[];

  constructor(root: string, readOnlyRoots: readonly string[] = []) {
    this.givenRoot = path.resolve(root);
    // The root must exist: a workspace without a folder has no tools to confine.
    this.root = realpathSync(this.givenRoot);
    this.extraRoots = readOnlyRoots.map((r) => ({ given: path.resolve(r), real: undefined }));
  }

  get readOnlyRoots(): readonly string[] {
    return this.extraRoots.map((r) => r.real ?? r.given);
  }

  async resolve(input: string, options: ResolveOptions = {}): Promise<string> {
    if (typeof input !== 'string' || input.trim() === '') throw new WorkspaceAccessError('The path is empty.');
    if (input.includes('\0')) throw new WorkspaceAccessError('The path contains a NUL byte.');
    const write = options.write === true;
    const lexical = path.isAbsolute(input) ? path.resolve(input) : path.resolve(this.root, input);

    // Relative paths are relative to the root and must stay there: `..` never escapes it.
    if (!path.isAbsolute(input) && !isInside(lexical, this.root)) {
      throw new WorkspaceAccessError(`Access denied: "${input}" is outside the workspace root "${this.root}" (".." cannot leave the workspace).`);
    }
    const readOnly = write ? [] : await this.realExtraRoots();
    const lexicallyAllowed =
      isInside(lexical, this.root) ||
      isInside(lexical, this.givenRoot) ||
      readOnly.some((r) => isInside(lexical, r.real) || isInside(lexical, r.given));
    if (!lexicallyAllowed) {
      const inReadOnly = write && this.extraRoots.some((r) => isInside(lexical, r.given) || (r.real !== undefined && isInside(lexical, r.real)));
      if (inReadOnly) throw new WorkspaceAccessError(`Cannot write "${input}": it is in a read-only location; only files inside the workspace root "${this.root}" can be written.`);
      throw new WorkspaceAccessError(`Access denied: "${input}" is outside the workspace root "${this.root}".`);
    }

    const real = await realpathLoose(lexical);
    if (isInside(real, this.root)) return real;
    if (!write && readOnly.some((r) => isInside(real, r.real))) return real;
    if (write && this.extraRoots.some((r) => r.real !== undefined && isInside(real, r.real))) {
      throw new WorkspaceAccessError(`Cannot write "${input}": it resolves to "${real}", a read-only location; only files inside the workspace root "${this.root}" can be written.`);
    }
    throw new WorkspaceAccessError(
      `Access denied: "${input}" resolves (through a symbolic link) to "${real}", which is outside the workspace root "${this.root}".`,
    );
  }

  displayPath(absolutePath: string): string {
    for (const base of [this.root, this.givenRoot]) {
      if (isInside(absolutePath, base)) {
        const rel = path.relative(base, absolutePath);
        return rel === '' ? '.' : rel.split(path.sep).join('/');
      }
    }
    return absolutePath;
  }

  private async realExtraRoots(): Promise<{ given: string; real: string }[]> {
    const out: { given: string; real: string }[] = [];
    for (const r of this.extraRoots) {
      if (r.real === undefined) {
        try {
          r.real = await fsp.realpath(r.given);
        } catch {
          // Not created yet: nothing in it to read, but keep the lexical match so errors say "not found".
          out.push({ given: r.given, real: r.given });
          continue;
        }
      }
      out.push({ given: r.given, real: r.real });
    }
    return out;
  }
}

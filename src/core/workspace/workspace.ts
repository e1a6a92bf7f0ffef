// Confined file access: every path a tool touches goes through Workspace.resolve, which refuses
// anything that lands outside the workspace root (or a read-only root, for reads) after symlinks
// are resolved; the tools then open what resolve approved with openConfinedFile / openConfinedDir,
// which cannot be raced by swapping a directory for a symbolic link in between (see there).
import { constants as fsc, promises as fsp, realpathSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as os from 'node:os';
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
  /** The user's home folder, for the protected files there (approvals/protectedPaths.ts). */
  readonly home: string;
  /** Evergreen's session storage root (all sessions), whose files a write never changes unasked. */
  readonly sessionStorage: string | undefined;
  /** The root is a Git worktree Evergreen made for this chat (issue 31): the storage or user folder around it does not protect it. */
  readonly worktree?: true;
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

  readonly home: string;
  readonly sessionStorage: string | undefined;
  readonly worktree?: true;

  constructor(root: string, readOnlyRoots: readonly string[] = [], protection: { home?: string; sessionStorage?: string | undefined; worktree?: boolean } = {}) {
    this.home = path.resolve(protection.home ?? os.homedir());
    this.sessionStorage = protection.sessionStorage === undefined ? undefined : path.resolve(protection.sessionStorage);
    if (protection.worktree === true) this.worktree = true;
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

// ---------------------------------------------------------------------------------------------
// Race-free opening (time of check vs time of use).
//
// resolve() checks a path at one instant; the tool opens it a moment later. A directory on the way
// that is swapped for a symbolic link in between (by a background process the model started, say)
// would make a plain open follow it out of the workspace. So the tools never open a resolved path
// directly:
// - Linux: walk from the root one component at a time, each opened with O_NOFOLLOW relative to
//   the previous directory's descriptor (`/proc/self/fd/N/name` is openat(N, name) for Node, which
//   has no openat), and check the descriptor's path in /proc/self/fd. Nothing outside the root is
//   ever opened, and a later swap of the path cannot move an open descriptor.
// - Elsewhere (no /proc/self/fd): open, then verify the handle — the path must still resolve to
//   itself and name the very inode the handle holds (dev + ino); anything else is refused before a
//   byte is read or written. The open itself may have touched the outside target (e.g. opened a
//   device), and a missing parent folder may be created outside for an instant (removed again).
// Writes (atomicWrite.ts) create their temp file and rename inside the opened directory, with the
// same checks on the temp file's descriptor before writing and after the rename.
// Limits no user-space tool can lift: a hard link inside the workspace to an outside file IS that
// file (same inode), so reading it reads the outside file (writes replace the link by rename and
// never modify that inode); a descriptor that passed the check stays bound to the verified inode,
// so a swap after the check affects paths only, never what is read or written through it; and a
// folder moved out of the workspace as a whole while a tool works in it takes that work along
// (the post-rename check reports it, and deletes a written file that ended up outside).

const O_NOFOLLOW = fsc.O_NOFOLLOW ?? 0; // undefined on Windows
const O_DIRECTORY = fsc.O_DIRECTORY ?? 0;
const O_NONBLOCK = fsc.O_NONBLOCK ?? 0;

/** Flags for reading a file that may be swapped: never follow a final symlink, never block on a FIFO. */
export const CONFINED_READ_FLAGS = fsc.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/** Test seam: lets the tests run the portable open-then-verify path on Linux too. */
export const confinementInternals = { useProcFd: process.platform === 'linux' };

const PROC_FD = '/proc/self/fd';

/** The path the kernel has for an open descriptor (Linux); undefined where that is not available. */
export async function handlePath(handle: FileHandle): Promise<string | undefined> {
  if (!confinementInternals.useProcFd) return undefined;
  try {
    return await fsp.readlink(`${PROC_FD}/${handle.fd}`);
  } catch {
    return undefined; // no procfs mounted
  }
}

export function swappedError(target: string): WorkspaceAccessError {
  return new WorkspaceAccessError(
    `Access denied: "${target}" changed while it was being opened (a folder on its path was replaced, e.g. by a symbolic link, or moved), ` +
      `so it may no longer be inside the workspace. Nothing was read or written through it; check the path and try again.`,
  );
}

/**
 * Verifies that an open handle is the file at `expected` (a real path that resolve() approved):
 * everything read from or written to the handle then happens to that approved file.
 */
export async function verifyHandleAt(handle: FileHandle, expected: string): Promise<void> {
  const seen = await handlePath(handle);
  if (seen !== undefined) {
    if (seen !== expected) throw swappedError(expected); // also "(deleted)" paths
    return;
  }
  const [real, byPath, held] = await Promise.all([
    fsp.realpath(expected).catch(() => undefined),
    fsp.stat(expected, { bigint: true }).catch(() => undefined),
    handle.stat({ bigint: true }),
  ]);
  if (real !== expected || byPath === undefined || byPath.dev !== held.dev || byPath.ino !== held.ino) throw swappedError(expected);
}

/** An opened, verified directory; entry(name) keeps pointing into it even if its path is swapped. */
export interface ConfinedDir {
  /** Real path the directory had when it was opened and verified. */
  readonly real: string;
  entry(name: string): string;
  /** Rewrites an fs error about entry(...) paths to name the real path (the model never sees /proc/self/fd). */
  relabel(error: unknown): unknown;
  close(): Promise<void>;
}

/** Node errors name the path they were given; for a descriptor-anchored path, show the folder it stands for. */
function relabel(error: unknown, anchor: string, real: string): unknown {
  if (!isNodeError(error)) return error;
  const fix = (p: string): string => (p === anchor || p.startsWith(`${anchor}/`) ? real + p.slice(anchor.length) : p);
  if (typeof error.path === 'string') error.path = fix(error.path);
  const withDest = error as NodeJS.ErrnoException & { dest?: unknown };
  if (typeof withDest.dest === 'string') withDest.dest = fix(withDest.dest);
  error.message = error.message.split(`${anchor}/`).join(`${real}${path.sep}`);
  return error;
}

function entryName(name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(path.sep) || name.includes('\0')) {
    throw new WorkspaceAccessError(`Invalid file name: "${name}".`);
  }
  return name;
}

function components(root: string, target: string): string[] {
  if (!isInside(target, root)) throw new WorkspaceAccessError(`Access denied: "${target}" is outside "${root}".`);
  const rel = path.relative(root, target);
  return rel === '' ? [] : rel.split(path.sep).map(entryName);
}

const isCode = (error: unknown, ...codes: string[]): boolean => isNodeError(error) && codes.includes(error.code ?? '');

/**
 * Opens directory `dir` (a real path inside the real path `root`) without following any symbolic
 * link below the root; with `create`, missing folders are created on the way (mkdir -p).
 */
export async function openConfinedDir(root: string, dir: string, options: { create?: boolean } = {}): Promise<ConfinedDir> {
  const parts = components(root, dir);
  // Windows cannot open a folder as a file at all; there the portable variant is the only one.
  if (!confinementInternals.useProcFd) return openDirByPath(root, dir, parts, options.create === true);
  let handle = await fsp.open(root, fsc.O_RDONLY | O_DIRECTORY);
  try {
    const rootSeen = await handlePath(handle);
    if (rootSeen === undefined) {
      await handle.close();
      return await openDirByPath(root, dir, parts, options.create === true);
    }
    if (rootSeen !== root) throw swappedError(root);
    let current = root;
    for (const part of parts) {
      const anchor = `${PROC_FD}/${handle.fd}`;
      const at = `${anchor}/${part}`;
      if (options.create) {
        await fsp.mkdir(at).catch((error: unknown) => (isCode(error, 'EEXIST') ? undefined : Promise.reject(relabel(error, anchor, current))));
      }
      const next = await fsp.open(at, fsc.O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch(async (error: unknown) => {
        // O_NOFOLLOW | O_DIRECTORY on a symlink fails with ENOTDIR (or ELOOP); a real file there is just "not a folder".
        const symlink = isCode(error, 'ELOOP') || (isCode(error, 'ENOTDIR') && (await fsp.lstat(at).catch(() => undefined))?.isSymbolicLink());
        throw symlink ? swappedError(dir) : relabel(error, anchor, current);
      });
      const previous = handle;
      handle = next;
      current = path.join(current, part);
      await previous.close();
    }
    if ((await handlePath(handle)) !== dir) throw swappedError(dir);
    const held = handle;
    const anchor = `${PROC_FD}/${held.fd}`;
    return {
      real: dir,
      entry: (name) => `${anchor}/${entryName(name)}`,
      relabel: (error) => relabel(error, anchor, dir),
      close: () => held.close(),
    };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** The portable variant: lstat each component (never a symlink), then check the whole path resolves to itself. */
async function openDirByPath(root: string, dir: string, parts: string[], create: boolean): Promise<ConfinedDir> {
  if ((await fsp.realpath(root)) !== root) throw swappedError(root);
  let current = root;
  for (const part of parts) {
    current = path.join(current, part);
    if (create) {
      const made = await fsp.mkdir(current).then(
        () => true,
        (error: unknown) => (isCode(error, 'EEXIST') ? false : Promise.reject(error)),
      );
      // A folder swapped just before the mkdir would put the new (empty) folder outside: take it back.
      if (made && (await fsp.realpath(current).catch(() => undefined)) !== current) {
        await fsp.rmdir(current).catch(() => undefined);
        throw swappedError(dir);
      }
    }
    const stat = await fsp.lstat(current);
    if (stat.isSymbolicLink()) throw swappedError(dir);
    if (!stat.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, '${current}'`), { code: 'ENOTDIR', path: current });
  }
  if ((await fsp.realpath(dir)) !== dir) throw swappedError(dir);
  return { real: dir, entry: (name) => path.join(dir, entryName(name)), relabel: (error) => error, close: async () => undefined };
}

/**
 * Opens the file `file` (a real path inside the real path `root`, as resolve() returns it) so the
 * handle is verified to be that file: see the section comment. Errors: ENOENT / ENOTDIR as usual,
 * WorkspaceAccessError if something on the path was swapped.
 */
export async function openConfinedFile(root: string, file: string, flags: number = CONFINED_READ_FLAGS, mode?: number): Promise<FileHandle> {
  if (file === root) return fsp.open(file, flags & ~O_NOFOLLOW, mode); // the root itself (a folder: callers refuse it)
  const dir = await openConfinedDir(root, path.dirname(file));
  try {
    const handle = await fsp.open(dir.entry(path.basename(file)), flags | O_NOFOLLOW, mode).catch((error: unknown) => {
      throw isCode(error, 'ELOOP') ? swappedError(file) : dir.relabel(error);
    });
    try {
      await verifyHandleAt(handle, file);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  } finally {
    await dir.close();
  }
}

/** The root a resolved path belongs to: the workspace root or one of the read-only roots. */
export function rootOf(workspace: Workspace, real: string): string {
  const candidates = [workspace.root, ...workspace.readOnlyRoots].filter((r) => isInside(real, r));
  const root = candidates.sort((a, b) => b.length - a.length)[0];
  if (root === undefined) throw new WorkspaceAccessError(`Access denied: "${real}" is outside the workspace root "${workspace.root}".`);
  return root;
}

/** Opens a path that workspace.resolve() returned, for reading, race-free. */
export function openForRead(workspace: Workspace, real: string): Promise<FileHandle> {
  return openConfinedFile(rootOf(workspace, real), real, CONFINED_READ_FLAGS);
}

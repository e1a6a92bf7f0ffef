// What a command wrote into its overlay, as a list of changes to the workspace, and applying them.
//
// Paths are byte strings: each character is one byte of the name (latin1), so a file name that
// is not UTF-8 is compared and applied exactly, and a real file is never taken for deleted because
// its name decoded differently. `bytes()` turns one into the Buffer path fs takes.
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../logger';

export type OverlayChange =
  | { kind: 'delete'; path: string }
  /** `replace`: something that is not a folder stands there now and goes first. */
  | { kind: 'directory'; path: string; mode: number; replace: boolean }
  | { kind: 'file'; path: string; mode: number }
  | { kind: 'symlink'; path: string; target: string }
  /** A FIFO, socket or device the command made: never applied. */
  | { kind: 'unsupported'; path: string; what: string };

/** A string of the workspace's byte strings as a path fs takes. */
export function bytes(byteString: string): Buffer {
  return Buffer.from(byteString, 'latin1');
}

/** A normal (UTF-8) path as a byte string. */
export function toByteString(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** A byte string as text for people (not valid UTF-8 shows as U+FFFD). */
export function displayPath(byteString: string): string {
  return Buffer.from(byteString, 'latin1').toString('utf8');
}

function lstatOrUndefined(byteString: string): Stats | undefined {
  try {
    return lstatSync(bytes(byteString));
  } catch {
    return undefined;
  }
}

function listNames(byteString: string): string[] {
  return readdirSync(bytes(byteString), { encoding: 'buffer' }).map((name) => name.toString('latin1'));
}

/** overlayfs records a deletion as a character device 0:0 in the upper folder. */
function isWhiteout(stat: Stats): boolean {
  return stat.isCharacterDevice() && stat.rdev === 0;
}

/** Only the permission bits are applied: a command cannot leave a setuid or setgid file behind. */
const PERMISSION_BITS = 0o777;

/**
 * The changes that make the workspace what the command's merged view was, in an order that can
 * be applied one by one: a folder before what is in it, deletions in a folder before its new
 * entries. `listings` is the merged view's content of each folder the command wrote to (from the
 * wrapper); a folder without one is merged as overlayfs would without an opaque mark.
 */
export function collectOverlayChanges(upperRoot: string, workspaceRoot: string, listings: ReadonlyMap<string, ReadonlySet<string>>, logger: Logger): OverlayChange[] {
  const upper = toByteString(upperRoot);
  const workspace = toByteString(workspaceRoot);
  const changes: OverlayChange[] = [];
  const walk = (relative: string): void => {
    const upperDir = relative === '' ? upper : path.join(upper, relative);
    const realDir = relative === '' ? workspace : path.join(workspace, relative);
    let upperNames: string[];
    try {
      upperNames = listNames(upperDir).sort();
    } catch (error) {
      logger.error(`sandbox: could not read what the command wrote in ${displayPath(relative) || 'the workspace root'}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const realStat = lstatOrUndefined(realDir);
    const realNames = realStat?.isDirectory() ? safeList(realDir, logger) : [];
    const merged = listings.get(relative);
    const upperStats = new Map(upperNames.map((name) => [name, lstatOrUndefined(path.join(upperDir, name))]));
    // Deleted: what the real folder holds and the merged view did not (an emptied and remade
    // folder included); without a listing, what overlayfs marked with a whiteout.
    for (const name of realNames.sort()) {
      const gone = merged !== undefined ? !merged.has(name) : upperStats.get(name) !== undefined && isWhiteout(upperStats.get(name) as Stats);
      if (gone) changes.push({ kind: 'delete', path: join(relative, name) });
    }
    for (const name of upperNames) {
      const stat = upperStats.get(name);
      const child = join(relative, name);
      if (stat === undefined || isWhiteout(stat)) continue;
      const real = lstatOrUndefined(path.join(realDir, name));
      if (stat.isDirectory()) {
        changes.push({ kind: 'directory', path: child, mode: stat.mode & PERMISSION_BITS, replace: real !== undefined && !real.isDirectory() });
        walk(child);
      } else if (stat.isFile()) {
        changes.push({ kind: 'file', path: child, mode: stat.mode & PERMISSION_BITS });
      } else if (stat.isSymbolicLink()) {
        changes.push({ kind: 'symlink', path: child, target: readlinkSync(bytes(path.join(upperDir, name)), { encoding: 'buffer' }).toString('latin1') });
      } else {
        changes.push({ kind: 'unsupported', path: child, what: stat.isFIFO() ? 'a named pipe' : stat.isSocket() ? 'a socket' : 'a device file' });
      }
    }
  };
  walk('');
  return changes;
}

function safeList(dir: string, logger: Logger): string[] {
  try {
    return listNames(dir);
  } catch (error) {
    logger.warn(`sandbox: could not list ${displayPath(dir)}: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}

function join(relative: string, name: string): string {
  return relative === '' ? name : `${relative}/${name}`;
}

/** Whether `candidate` is `root` or lies below it (workspace-relative byte strings). */
export function isAtOrBelow(candidate: string, root: string): boolean {
  return candidate === root || candidate.startsWith(`${root}/`);
}

export interface ApplyOutcome {
  applied: number;
  /** Each change that could not be applied, in words. */
  failures: string[];
}

/**
 * Applies `changes` from `upperRoot` onto `targetRoot` (the workspace, or the folder where
 * declined changes are kept), skipping every change at or below a path in `skip`. Files are moved
 * from the upper folder when it shares the target's device, else copied; nothing follows a link
 * in the target: what stands in the way is removed first.
 */
export function applyOverlayChanges(changes: readonly OverlayChange[], upperRoot: string, targetRoot: string, skip: readonly string[], logger: Logger): ApplyOutcome {
  const upper = toByteString(upperRoot);
  const target = toByteString(targetRoot);
  const outcome: ApplyOutcome = { applied: 0, failures: [] };
  for (const change of changes) {
    if (skip.some((root) => isAtOrBelow(change.path, root))) continue;
    if (change.kind === 'unsupported') {
      outcome.failures.push(`${displayPath(change.path)}: ${change.what} is not copied out of the sandbox`);
      continue;
    }
    try {
      applyOne(change, path.join(upper, change.path), path.join(target, change.path));
      outcome.applied++;
    } catch (error) {
      const message = `${displayPath(change.path)}: ${error instanceof Error ? error.message : String(error)}`;
      logger.error(`sandbox: could not apply a change: ${message}`);
      outcome.failures.push(message);
    }
  }
  return outcome;
}

function applyOne(change: Exclude<OverlayChange, { kind: 'unsupported' }>, source: string, destination: string): void {
  const existing = lstatOrUndefined(destination);
  switch (change.kind) {
    case 'delete':
      rmSync(bytes(destination), { recursive: true, force: true });
      return;
    case 'directory':
      if (existing !== undefined && (change.replace || !existing.isDirectory())) rmSync(bytes(destination), { recursive: true, force: true });
      if (existing === undefined || !existing.isDirectory()) mkdirSync(bytes(destination), { recursive: true, mode: change.mode });
      chmodSync(bytes(destination), change.mode);
      return;
    case 'file':
      if (existing?.isDirectory()) rmSync(bytes(destination), { recursive: true, force: true });
      mkdirSync(bytes(path.dirname(destination)), { recursive: true });
      moveFile(source, destination);
      chmodSync(bytes(destination), change.mode);
      return;
    case 'symlink':
      if (existing?.isDirectory()) rmSync(bytes(destination), { recursive: true, force: true });
      else if (existing !== undefined) unlinkSync(bytes(destination));
      mkdirSync(bytes(path.dirname(destination)), { recursive: true });
      symlinkSync(bytes(change.target), bytes(destination));
      return;
  }
}

/** rename() where it can (same device: instant, atomic), else a copy beside the target renamed over it. */
function moveFile(source: string, destination: string): void {
  try {
    renameSync(bytes(source), bytes(destination));
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const temporary = `${destination}.evergreen-${process.pid}-${Date.now()}`;
  try {
    copyFileSync(bytes(source), bytes(temporary));
    renameSync(bytes(temporary), bytes(destination));
  } catch (error) {
    rmSync(bytes(temporary), { force: true });
    throw error;
  }
}

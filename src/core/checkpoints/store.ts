/**
 * Checkpoints of the workspace, one per user message (issue 17). Two records make one checkpoint:
 * - the exact prior bytes of every file Evergreen's own tools change in that turn (recorded just
 *   before the write: exact, and independent of Git and of .gitignore);
 * - a shadow-Git snapshot before the turn and after it (shadowGit.ts), for what shell commands
 *   changed. The gap between one turn's "after" and the next turn's "before" (and between the
 *   last "after" and now) is what changed outside Evergreen: such files are reported and kept
 *   unless the caller says otherwise.
 *
 * Layout: <session>/checkpoints/index.json (replaced atomically), blobs/<sha256> (prior bytes),
 * shadow.git/. Without Git the tool records alone are used, and each checkpoint says why.
 */
import { createHash } from 'node:crypto';
import { constants as fsc, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { errorMessage, silentLogger, type Logger } from '../logger';
import { writeFileAtomic, writeFileAtomicConfined, writeFileOnceAtomic } from '../workspace/atomicWrite';
import { isInside, isNodeError, openConfinedDir, openConfinedFile } from '../workspace/workspace';
import { ShadowGit, type Snapshot } from './shadowGit';
import type { CheckpointRecord, IndexFile, PlannedFile, RestorePlan, RestoreResult, SnapshotRecord, UndoRecord } from './records';

export type { CheckpointRecord, PlannedFile, RestorePlan, RestoreResult, SnapshotRecord, ToolWriteRecord } from './records';

export class CheckpointError extends Error {}

const PREVIEW_WORDS = 12;

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Whether a file that only the tools' records cover was changed by someone else from the
 * checkpoint on: between two turns (a turn found other bytes than the one before left) or since
 * the last turn or restore (the file is not what Evergreen left).
 */
function changedByOthers(records: readonly CheckpointRecord[], index: IndexFile, file: string, current: string | null | undefined): boolean {
  let left: string | null | undefined;
  for (const record of records) {
    const write = record.toolWrites.find((candidate) => candidate.path === file);
    if (!write) continue;
    if (left !== undefined && write.prior !== left) return true;
    left = write.after;
  }
  if (index.restoredHashes && file in index.restoredHashes) left = index.restoredHashes[file];
  return left !== undefined && current !== undefined && current !== left;
}

function preview(text: string): string {
  const words = text.trim().split(/\s+/);
  return words.slice(0, PREVIEW_WORDS).join(' ') + (words.length > PREVIEW_WORDS ? ' …' : '');
}

export class CheckpointStore {
  private readonly dir: string;
  private readonly blobs: string;
  private readonly git: ShadowGit | undefined;
  private index: IndexFile | undefined;
  /** Serializes every change to the index (a tool write during a snapshot must not be lost). */
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * @param sessionDir the session's folder in storage
   * @param workspaceRoot the workspace's real path
   * @param git false when Git is known to be missing (ShadowGit.available)
   */
  constructor(
    sessionDir: string,
    readonly workspaceRoot: string,
    git: boolean,
    private readonly logger: Logger = silentLogger,
  ) {
    this.dir = path.join(sessionDir, 'checkpoints');
    this.blobs = path.join(this.dir, 'blobs');
    this.git = git ? new ShadowGit(path.join(this.dir, 'shadow.git'), workspaceRoot) : undefined;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async load(): Promise<IndexFile> {
    if (this.index) return this.index;
    const file = path.join(this.dir, 'index.json');
    let text: string | undefined;
    try {
      text = await fsp.readFile(file, 'utf8');
    } catch (error) {
      if (!(isNodeError(error) && error.code === 'ENOENT')) throw error;
    }
    if (text === undefined) {
      this.index = { version: 1, checkpoints: [] };
    } else {
      let parsed: IndexFile;
      try {
        parsed = JSON.parse(text) as IndexFile;
      } catch (error) {
        throw new CheckpointError(`${file} is not valid JSON (${errorMessage(error)}); this session's checkpoints cannot be read, and nothing was restored`);
      }
      if (parsed?.version !== 1 || !Array.isArray(parsed.checkpoints)) throw new CheckpointError(`${file} is not a checkpoint index this version of Evergreen can read`);
      this.index = parsed;
    }
    return this.index;
  }

  private async save(): Promise<void> {
    await writeFileAtomic(path.join(this.dir, 'index.json'), JSON.stringify(this.index));
  }

  private async snapshot(name: string): Promise<SnapshotRecord> {
    if (!this.git) return { kind: 'unavailable', reason: 'Git is not installed: only the files changed by Evergreen’s own tools can be restored' };
    try {
      return { kind: 'snapshot', ...(await this.git.snapshot(name)) };
    } catch (error) {
      this.logger.warn(`checkpoint snapshot ${name}: ${errorMessage(error)}`);
      return { kind: 'unavailable', reason: errorMessage(error) };
    }
  }

  /** Records a checkpoint before a user message; returns its number. */
  begin(message: string, transcriptEntries: number): Promise<CheckpointRecord> {
    return this.serial(async () => {
      const index = await this.load();
      const number = (index.checkpoints.at(-1)?.number ?? 0) + 1;
      const record: CheckpointRecord = { number, createdAt: new Date().toISOString(), preview: preview(message), transcriptEntries, before: await this.snapshot(`${number}-before`), toolWrites: [] };
      index.checkpoints.push(record);
      await this.save();
      return record;
    });
  }

  /** Records the workspace after the turn of the newest checkpoint. */
  end(): Promise<void> {
    return this.serial(async () => {
      const index = await this.load();
      const last = index.checkpoints.at(-1);
      if (!last || last.after) return;
      last.after = await this.snapshot(`${last.number}-after`);
      // What the tools left, so a later change to a file no snapshot holds (ignored, or no Git) is still seen as someone else's.
      for (const write of last.toolWrites) {
        const after = await this.currentHash(write.path);
        if (after !== undefined) write.after = after;
        delete index.restoredHashes?.[write.path]; // this turn's bytes are the newer word
      }
      await this.save();
    });
  }

  /**
   * Called by the write tools just before they replace `absolutePath` (a real path in the
   * workspace) whose current bytes are `prior` (undefined: absent). Only the first write to a file
   * in a turn is kept: that is the file as the turn found it.
   */
  beforeWrite(absolutePath: string, prior: Buffer | undefined): Promise<void> {
    return this.serial(async () => {
      const index = await this.load();
      const last = index.checkpoints.at(-1);
      if (!last || last.after || !isInside(absolutePath, this.workspaceRoot)) return;
      const relative = path.relative(this.workspaceRoot, absolutePath).split(path.sep).join('/');
      if (last.toolWrites.some((write) => write.path === relative)) return;
      let hash: string | null = null;
      if (prior !== undefined) hash = await this.saveBlob(prior);
      last.toolWrites.push({ path: relative, prior: hash });
      await this.save();
    });
  }

  async list(): Promise<readonly CheckpointRecord[]> {
    return (await this.load()).checkpoints;
  }

  /** The files checkpoint `number`'s turn changed: the tools' writes and what its snapshots differ in. */
  async filesChanged(number: number): Promise<string[]> {
    const record = (await this.load()).checkpoints.find((candidate) => candidate.number === number);
    if (!record) return [];
    const files = new Set(record.toolWrites.map((write) => write.path));
    if (this.git && record.before.kind === 'snapshot' && record.after?.kind === 'snapshot') {
      for (const change of await this.git.diff(record.before.tree, record.after.tree)) files.add(change.path);
    }
    return [...files].sort();
  }

  /** Files Evergreen changed from checkpoint `number` on, and files changed outside it meanwhile. */
  private async changes(records: CheckpointRecord[], now: SnapshotRecord, index: IndexFile): Promise<{ byEvergreen: Set<string>; outside: Set<string>; trees: Snapshot[] }> {
    const byEvergreen = new Set<string>();
    const outside = new Set<string>();
    const trees: Snapshot[] = [];
    const diff = async (from: SnapshotRecord | undefined, to: SnapshotRecord | undefined, into: Set<string>) => {
      if (from?.kind !== 'snapshot' || to?.kind !== 'snapshot' || !this.git) return;
      for (const change of await this.git.diff(from.tree, to.tree)) into.add(change.path);
    };
    for (const [at, record] of records.entries()) {
      for (const write of record.toolWrites) byEvergreen.add(write.path);
      await diff(record.before, record.after, byEvergreen);
      const next = records[at + 1];
      // After the last turn, a restore's own writes are Evergreen's: the gap starts after it.
      await diff(next ? record.after : (record.afterRestore ?? record.after), next?.before ?? now, outside);
      for (const snapshot of [record.before, record.after, record.afterRestore]) if (snapshot?.kind === 'snapshot') trees.push(snapshot);
    }
    for (const file of index.outsideKept ?? []) outside.add(file);
    if (now.kind === 'snapshot') trees.push(now);
    return { byEvergreen, outside, trees };
  }

  /** What restoring the workspace to checkpoint `number` would change. Refused while that checkpoint's or a later turn runs. */
  planRestore(number: number): Promise<RestorePlan> {
    return this.serial(() => this.plan(number));
  }

  private async plan(number: number): Promise<RestorePlan> {
    const index = await this.load();
    const at = index.checkpoints.findIndex((record) => record.number === number);
    if (at < 0) throw new CheckpointError(`there is no checkpoint ${number}; this session has ${index.checkpoints.length} (see the list of checkpoints)`);
    const records = index.checkpoints.slice(at);
    if (records.some((record) => !record.after)) throw new CheckpointError('the agent is still working on a turn; stop it or wait for it to finish, then restore');
    const first = records[0]!;
    const start = first.before.kind === 'snapshot' ? first.before : undefined;
    // Checked before the probe below, which could write an identical tree back.
    if (start && this.git && !(await this.git.hasTree(start.tree))) {
      throw new CheckpointError(`checkpoint ${number}'s snapshot is missing from the session's storage (${path.join(this.dir, 'shadow.git')}); it cannot be restored`);
    }
    const now = await this.snapshot('restore-probe');
    const { byEvergreen, outside, trees } = await this.changes(records, now, index);
    const skippedSomewhere = new Set(trees.flatMap((tree) => tree.skipped.map((file) => file.path)));
    const files: PlannedFile[] = [];
    const unrestorable: RestorePlan['unrestorable'] = [];
    for (const file of [...byEvergreen].sort()) {
      const firstWrite = records.flatMap((record) => record.toolWrites).find((write) => write.path === file);
      let planned: PlannedFile | undefined;
      if (start && now.kind === 'snapshot' && !skippedSomewhere.has(file) && (await this.inAnyTree(trees, file))) {
        const then = await this.git!.entry(start.tree, file);
        const current = await this.git!.entry(now.tree, file);
        if (then?.blob === current?.blob && then?.mode === current?.mode) continue; // already as it was
        planned = { path: file, action: then ? 'write' : 'delete', source: 'snapshot', changedOutside: outside.has(file) };
      } else if (firstWrite) {
        const current = await this.currentHash(file);
        if (current === firstWrite.prior) continue;
        planned = { path: file, action: firstWrite.prior === null ? 'delete' : 'write', source: 'tool-record', changedOutside: outside.has(file) || changedByOthers(records, index, file, current) };
      }
      if (planned) files.push(planned);
      else unrestorable.push({ path: file, reason: skippedSomewhere.has(file) ? 'larger than the snapshot limit, and changed by a command' : 'not in the snapshots (ignored, or Git unavailable), and changed by a command' });
    }
    return { checkpoint: number, files, unrestorable };
  }

  /** sha256 of a workspace file's bytes now, null when absent, undefined when it is not a readable file. */
  private async currentHash(relative: string): Promise<string | null | undefined> {
    try {
      const handle = await openConfinedFile(this.workspaceRoot, path.join(this.workspaceRoot, relative));
      try {
        return (await handle.stat()).isFile() ? sha256(await handle.readFile()) : undefined;
      } finally {
        await handle.close();
      }
    } catch (error) {
      return isNodeError(error) && error.code === 'ENOENT' ? null : undefined;
    }
  }

  private async inAnyTree(trees: Snapshot[], file: string): Promise<boolean> {
    for (const tree of trees) if (await this.git!.entry(tree.tree, file)) return true;
    return false;
  }

  /** What a planned file would be after the restore (undefined: deleted), for a diff view. */
  async plannedContent(plan: RestorePlan, relative: string): Promise<Buffer | undefined> {
    const file = plan.files.find((candidate) => candidate.path === relative);
    if (!file) throw new CheckpointError(`${relative} is not part of this restore`);
    return this.serial(async () => (await this.target(plan.checkpoint, file))?.bytes);
  }

  /** The bytes and mode a planned file goes back to. */
  private async target(number: number, file: PlannedFile): Promise<{ bytes: Buffer; mode: number; symlink: boolean } | undefined> {
    if (file.action === 'delete') return undefined;
    const index = await this.load();
    const records = index.checkpoints.filter((record) => record.number >= number);
    if (file.source === 'snapshot') {
      const start = records[0]!.before;
      if (start.kind !== 'snapshot') throw new CheckpointError('the snapshot is gone');
      const entry = await this.git!.entry(start.tree, file.path);
      if (!entry) throw new CheckpointError(`${file.path} is not in the snapshot`);
      return { bytes: await this.git!.blob(entry.blob), mode: entry.mode === '100755' ? 0o755 : 0o644, symlink: entry.mode === '120000' };
    }
    const write = records.flatMap((record) => record.toolWrites).find((candidate) => candidate.path === file.path);
    if (!write?.prior) throw new CheckpointError(`${file.path} has no recorded bytes`);
    try {
      const bytes = await fsp.readFile(path.join(this.blobs, write.prior));
      if (sha256(bytes) !== write.prior) throw new CheckpointError(`the saved copy of ${file.path} is damaged`);
      return { bytes, mode: -1, symlink: false };
    } catch (error) {
      if (isNodeError(error) && error.code === 'ENOENT') throw new CheckpointError(`the saved copy of ${file.path} was deleted from the session's storage`);
      throw error;
    }
  }

  /**
   * Puts the files of `plan` back as they were at its checkpoint. Files changed outside Evergreen
   * are kept unless `overwriteOutsideChanges`. What each file was just before is saved first, so
   * `undoRestore` can put it back (one level).
   */
  restore(plan: RestorePlan, options: { overwriteOutsideChanges?: boolean } = {}): Promise<RestoreResult> {
    return this.serial(async () => {
      const fresh = await this.plan(plan.checkpoint);
      const planned = new Set(plan.files.map((file) => file.path));
      const result: RestoreResult = { restored: [], keptOutsideChanges: [], failed: [] };
      const chosen = fresh.files.filter((file) => {
        if (!planned.has(file.path)) return false;
        if (file.changedOutside && !options.overwriteOutsideChanges) {
          result.keptOutsideChanges.push(file.path);
          return false;
        }
        return true;
      });
      const undo: UndoRecord = { files: [], restoredTo: plan.checkpoint, overwrittenOutside: chosen.filter((file) => file.changedOutside).map((file) => file.path) };
      const writable: PlannedFile[] = [];
      for (const file of chosen) {
        try {
          undo.files.push({ path: file.path, ...(await this.currentState(file.path)) });
          writable.push(file);
        } catch (error) {
          result.failed.push({ path: file.path, reason: `its current content could not be saved for undo, so it was left alone: ${errorMessage(error)}` });
        }
      }
      const index = await this.load();
      index.undo = undo;
      await this.save();
      for (const file of writable) {
        try {
          const target = await this.target(plan.checkpoint, file);
          await this.put(file.path, target);
          result.restored.push(file.path);
        } catch (error) {
          result.failed.push({ path: file.path, reason: errorMessage(error) });
        }
      }
      const kept = new Set([...(index.outsideKept ?? []), ...result.keptOutsideChanges]);
      for (const file of result.restored) kept.delete(file);
      index.outsideKept = [...kept].sort();
      await this.afterRestore(index, result.restored);
      return result;
    });
  }

  /** Records the workspace as a restore or undo left it, so its writes do not count as changes made outside Evergreen. */
  private async afterRestore(index: IndexFile, written: readonly string[]): Promise<void> {
    const last = index.checkpoints.at(-1);
    if (last) last.afterRestore = await this.snapshot(`${last.number}-restored`);
    const hashes = { ...index.restoredHashes };
    for (const file of written) {
      const now = await this.currentHash(file);
      if (now !== undefined) hashes[file] = now;
    }
    index.restoredHashes = hashes;
    await this.save();
  }

  /** Undoes the last restore; throws when there is none. */
  undoRestore(): Promise<RestoreResult> {
    return this.serial(async () => {
      const index = await this.load();
      const undo = index.undo;
      if (!undo) throw new CheckpointError('there is no restore to undo');
      const result: RestoreResult = { restored: [], keptOutsideChanges: [], failed: [] };
      for (const file of undo.files) {
        try {
          const bytes = file.bytes === null ? undefined : await fsp.readFile(path.join(this.blobs, file.bytes));
          await this.put(file.path, bytes === undefined ? undefined : { bytes, mode: file.mode ?? -1, symlink: false });
          result.restored.push(file.path);
        } catch (error) {
          result.failed.push({ path: file.path, reason: errorMessage(error) });
        }
      }
      delete index.undo;
      index.outsideKept = [...new Set([...(index.outsideKept ?? []), ...(undo.overwrittenOutside ?? [])])].sort();
      await this.afterRestore(index, result.restored);
      return result;
    });
  }

  /** Saves bytes under their sha256 (content-addressed: an existing copy is the same bytes) and returns the hash. */
  private async saveBlob(bytes: Buffer): Promise<string> {
    const hash = sha256(bytes);
    await writeFileOnceAtomic(path.join(this.blobs, hash), bytes);
    return hash;
  }

  /** A file's bytes now (saved to blobs/) and mode, or nulls when absent. */
  private async currentState(relative: string): Promise<{ bytes: string | null; mode: number | null }> {
    const absolute = path.join(this.workspaceRoot, relative);
    let handle;
    try {
      handle = await openConfinedFile(this.workspaceRoot, absolute);
    } catch (error) {
      if (isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ELOOP')) return { bytes: null, mode: null };
      throw error;
    }
    try {
      if (!(await handle.stat()).isFile()) throw new CheckpointError(`${relative} is not a regular file now`);
      const hash = await this.saveBlob(await handle.readFile());
      return { bytes: hash, mode: (await handle.stat()).mode & 0o7777 };
    } finally {
      await handle.close();
    }
  }

  /** Writes (or deletes, for undefined) one workspace file without following a symlink out of the workspace. */
  private async put(relative: string, target: { bytes: Buffer; mode: number; symlink: boolean } | undefined): Promise<void> {
    const absolute = path.join(this.workspaceRoot, ...relative.split('/'));
    if (!isInside(absolute, this.workspaceRoot) || absolute === this.workspaceRoot) throw new CheckpointError(`${relative} is outside the workspace`);
    const dir = await openConfinedDir(this.workspaceRoot, path.dirname(absolute), { create: target !== undefined });
    try {
      const entry = dir.entry(path.basename(absolute));
      const existing = await fsp.lstat(entry).catch(() => undefined);
      if (target === undefined || target.symlink || existing?.isSymbolicLink()) {
        if (existing) await fsp.rm(entry, { force: true }).catch((error: unknown) => Promise.reject(dir.relabel(error)));
      }
      if (target === undefined) return;
      if (target.symlink) {
        await fsp.symlink(target.bytes.toString('utf8'), entry);
        return;
      }
    } finally {
      await dir.close();
    }
    await writeFileAtomicConfined(this.workspaceRoot, absolute, target.bytes);
    if (target.mode >= 0) {
      const handle = await openConfinedFile(this.workspaceRoot, absolute, fsc.O_RDONLY);
      try {
        await handle.chmod(target.mode);
      } finally {
        await handle.close();
      }
    }
  }
}

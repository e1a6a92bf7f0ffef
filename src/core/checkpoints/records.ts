/** The checkpoint store's records (store.ts): what index.json holds, and what a restore plans and does. */
import type { Snapshot } from './shadowGit';

/** A snapshot as recorded, or why there is none. */
export type SnapshotRecord = ({ kind: 'snapshot' } & Snapshot) | { kind: 'unavailable'; reason: string };

export interface ToolWriteRecord {
  /** Workspace-relative, '/'-separated. */
  path: string;
  /** sha256 of the bytes before the first write this turn (in blobs/), or null: the file did not exist. */
  prior: string | null;
  /** sha256 of the bytes the turn left (null: deleted), taken when it ended; absent for older records. */
  after?: string | null;
}

export interface CheckpointRecord {
  number: number;
  createdAt: string;
  /** The first words of the user message it precedes. */
  preview: string;
  /** How many transcript entries there were before the user message (where a rewind cuts). */
  transcriptEntries: number;
  before: SnapshotRecord;
  /** Absent while the turn runs (and after a crash in it). */
  after?: SnapshotRecord;
  /** The workspace after the newest restore or undo made after this (the last) turn. */
  afterRestore?: SnapshotRecord;
  toolWrites: ToolWriteRecord[];
}

/** The undo of the last restore: the bytes each file had before it (null: absent). */
export interface UndoRecord {
  files: { path: string; bytes: string | null; mode: number | null }[];
  restoredTo: number;
  /** Files changed outside Evergreen that the restore overwrote on request: an undo brings their bytes back, and their mark. */
  overwrittenOutside?: string[];
}

export interface IndexFile {
  version: 1;
  checkpoints: CheckpointRecord[];
  undo?: UndoRecord;
  /** Files changed outside Evergreen that a restore kept: they stay marked until overwritten on purpose. */
  outsideKept?: string[];
  /** sha256 (null: absent) of what the newest restore or undo put in each file it wrote. */
  restoredHashes?: Record<string, string | null>;
}

/** What a restore would do to one file. */
export interface PlannedFile {
  path: string;
  /** The state it goes back to. */
  action: 'write' | 'delete';
  /** Where the old state comes from. */
  source: 'tool-record' | 'snapshot';
  /** Changed outside Evergreen since the checkpoint: kept unless overwriteOutsideChanges. */
  changedOutside: boolean;
}

export interface RestorePlan {
  checkpoint: number;
  files: PlannedFile[];
  /** Files Evergreen changed that cannot be brought back, with why (ignored and only changed by a shell command, over the size limit). */
  unrestorable: { path: string; reason: string }[];
}

export interface RestoreResult {
  restored: string[];
  keptOutsideChanges: string[];
  failed: { path: string; reason: string }[];
}

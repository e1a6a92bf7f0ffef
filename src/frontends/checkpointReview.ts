/**
 * Reviewing what the panel's chat changed since a checkpoint, hunk by hunk (issue 31), without
 * `vscode`: each file's text then and now as hunks (the `diff` library), and rejecting some of them
 * by putting back those lines only, in the file as it is now. A hunk that no longer matches the
 * file (changed again meanwhile) is not put back: the caller names it, nothing is forced.
 */
import * as l10n from '@vscode/l10n';
import { applyPatch, reversePatch, structuredPatch, type StructuredPatchHunk } from 'diff';
import type { Hunk } from '../core/worktrees/review';

/** A file's changes since the checkpoint; `hunks` empty when its text did not change. */
export interface CheckpointFileChanges {
  path: string;
  /** The file's text at the checkpoint (undefined: it did not exist). */
  before: string | undefined;
  /** The file's text now (undefined: it does not exist). */
  now: string | undefined;
  hunks: StructuredPatchHunk[];
}

/** Whether bytes are text the review can split into hunks (a NUL says binary, as Git decides). */
export function isReviewableText(bytes: Buffer | undefined): boolean {
  return bytes === undefined || !bytes.includes(0);
}

export function checkpointFileChanges(path: string, before: string | undefined, now: string | undefined): CheckpointFileChanges {
  const patch = structuredPatch(path, path, before ?? '', now ?? '', undefined, undefined, { context: 3 });
  return { path, before, now, hunks: patch.hunks };
}

/** A hunk in the form the Changes rows show (`@@` line and lines). */
export function asHunk(hunk: StructuredPatchHunk): Hunk {
  return { header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, lines: hunk.lines };
}

export type RevertResult =
  /** The file's new text; `delete` when it did not exist at the checkpoint and nothing of it is left. */
  | { kind: 'reverted'; text: string; delete: boolean }
  /** The chosen hunks do not match the file as it is now (it changed since the review was read). */
  | { kind: 'conflict' };

/** The file with the chosen hunks (indexes into `hunks`) put back as they were at the checkpoint; the others stay. */
export function revertHunks(file: CheckpointFileChanges, chosen: readonly number[], current: string | undefined): RevertResult {
  const bad = chosen.filter((index) => !Number.isInteger(index) || index < 0 || index >= file.hunks.length);
  if (bad.length > 0) throw new Error(l10n.t('{0} has {1} hunk(s); there is no hunk {2}.', file.path, file.hunks.length, bad.join(', ')));
  const picked = [...new Set(chosen)].sort((a, b) => a - b).map((index) => file.hunks[index]!);
  // The hunks' new-side positions are the file as it is now: reversed, they apply there exactly, or not at all (no fuzz).
  const reverted = applyPatch(current ?? '', reversePatch({ oldFileName: file.path, newFileName: file.path, oldHeader: undefined, newHeader: undefined, hunks: picked }));
  if (reverted === false) return { kind: 'conflict' };
  return { kind: 'reverted', text: reverted, delete: file.before === undefined && reverted === '' };
}

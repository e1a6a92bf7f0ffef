/**
 * Restoring a checkpoint (issue 17), for every front end: the workspace's files, the conversation,
 * or both. The conversation goes back by a `rewind` transcript entry (the fold drops what came
 * after the checkpoint; the entries stay on disk), so the session must be rebuilt on its
 * transcript afterwards, as a resume does.
 */
import { CheckpointError, type CheckpointStore, type RestorePlan, type RestoreResult } from '../checkpoints/store';
import type { SessionHandle } from '../storage/sessionStore';

export type RestoreScope = 'files-and-conversation' | 'files' | 'conversation';

export interface CheckpointRestoreOutcome {
  plan: RestorePlan | undefined;
  files: RestoreResult | undefined;
  conversationRewound: boolean;
  /** The rewind entry's index in the transcript (what an undo names). */
  rewindEntry: number | undefined;
}

export async function restoreCheckpoint(
  checkpoints: CheckpointStore,
  handle: SessionHandle,
  number: number,
  scope: RestoreScope,
  options: { overwriteOutsideChanges?: boolean; now?: () => Date } = {},
): Promise<CheckpointRestoreOutcome> {
  const record = (await checkpoints.list()).find((candidate) => candidate.number === number);
  if (!record) throw new CheckpointError(`there is no checkpoint ${number}; this session has ${(await checkpoints.list()).length}`);
  let plan: RestorePlan | undefined;
  let files: RestoreResult | undefined;
  if (scope !== 'conversation') {
    plan = await checkpoints.planRestore(number);
    files = await checkpoints.restore(plan, options);
  }
  let rewindEntry: number | undefined;
  if (scope !== 'files') {
    rewindEntry = handle.entryCount;
    handle.append({ type: 'rewind', ts: (options.now?.() ?? new Date()).toISOString(), checkpoint: number, toEntry: record.transcriptEntries, files: scope === 'conversation' ? 'kept' : 'restored' });
  }
  return { plan, files, conversationRewound: scope !== 'files', rewindEntry };
}

/**
 * Undoes a restore right after it: the files as they were before it, and the conversation (the
 * rewind no longer applies). The session must be rebuilt on its transcript afterwards when the
 * conversation had been rewound.
 */
export async function undoCheckpointRestore(checkpoints: CheckpointStore, handle: SessionHandle, outcome: CheckpointRestoreOutcome, now: () => Date = () => new Date()): Promise<RestoreResult | undefined> {
  const files = outcome.files ? await checkpoints.undoRestore() : undefined;
  if (outcome.rewindEntry !== undefined) handle.append({ type: 'rewind_undone', ts: now().toISOString(), rewindEntry: outcome.rewindEntry });
  return files;
}

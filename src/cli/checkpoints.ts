/**
 * `--resume ID --list-checkpoints` and `--resume ID --restore-checkpoint N` (issue 17). Neither
 * talks to a model: the session's transcript and checkpoints are read from storage directly.
 */
import { realpathSync } from 'node:fs';
import { restoreCheckpoint } from '../core/agent/checkpointRestore';
import { ShadowGit } from '../core/checkpoints/shadowGit';
import { CheckpointError, CheckpointStore } from '../core/checkpoints/store';
import type { Logger } from '../core/logger';
import type { FileSessionStore } from '../core/storage/sessionStore';
import type { CheckpointCommand } from './args';
import { escapeLine } from '../core/visibleText';

export async function runCheckpointCommand(
  command: CheckpointCommand,
  sessionId: string,
  store: FileSessionStore,
  workspace: string,
  out: (line: string) => void,
  logger: Logger,
): Promise<void> {
  const { handle } = await store.open(sessionId);
  try {
    const checkpoints = new CheckpointStore(handle.dir, realpathSync(workspace), await ShadowGit.available(), logger);
    const records = await checkpoints.list();
    if (command.kind === 'list') {
      if (records.length === 0) out(`Session ${sessionId} has no checkpoints (they are taken before each message in a trusted workspace).`);
      for (const record of records) {
        const files = await checkpoints.filesChanged(record.number);
        const snapshot = record.before.kind === 'snapshot' ? '' : ` (no snapshot: ${record.before.reason})`;
        out(`${record.number}\t${record.createdAt}\t${escapeLine(record.preview)}\t${files.length === 0 ? 'no files changed' : `${files.length} file(s) changed: ${files.map(escapeLine).join(', ')}`}${record.after ? '' : '\t(turn did not finish)'}${snapshot}`);
      }
      return;
    }
    if (!records.some((record) => record.number === command.number)) throw new CheckpointError(`there is no checkpoint ${command.number} in session ${sessionId}; run with --list-checkpoints to see them`);
    const outcome = await restoreCheckpoint(checkpoints, handle, command.number, command.scope);
    if (outcome.files) {
      for (const file of outcome.files.restored) out(`restored\t${escapeLine(file)}`);
      for (const file of outcome.files.keptOutsideChanges) out(`kept\t${escapeLine(file)}\t(changed outside Evergreen since the checkpoint)`);
      for (const failure of outcome.files.failed) out(`failed\t${escapeLine(failure.path)}\t${escapeLine(failure.reason)}`);
      for (const file of outcome.plan?.unrestorable ?? []) out(`not restorable\t${escapeLine(file.path)}\t${file.reason}`);
      if (outcome.files.restored.length === 0 && outcome.files.failed.length === 0) out('No file needed restoring.');
    }
    if (outcome.conversationRewound) out(`The conversation is back at checkpoint ${command.number}: continue with --resume ${sessionId} -p "…" (the later messages stay in the transcript file).`);
  } finally {
    await handle.flushMeta().catch((error: unknown) => logger.error('could not write meta.json', error));
    handle.close();
  }
}

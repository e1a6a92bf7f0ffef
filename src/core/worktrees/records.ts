/**
 * What Evergreen remembers of each worktree it made, one JSON file per worktree in its storage
 * (`<storage>/worktrees/<repository key>/<name>.json`), beside the default folders and never in the
 * worktree itself (the chat's tools write there). Read through a zod schema: a damaged record is a
 * problem named with its file, and the others are still found.
 */
import { errorMessage } from '../logger';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../workspace/atomicWrite';
import { isNodeError } from '../workspace/workspace';
import * as z from '../zod';
import { userText, verbatim, type UserText } from '../texts/userText';

export const WorktreeRecordSchema = z.object({
  version: z.literal(1),
  name: z.string().min(1),
  /** `evergreen/<name>`. */
  branch: z.string().min(1),
  /** The worktree's folder (real path): the chat's workspace. */
  folder: z.string().min(1),
  /** The user's checkout it was made from (its top folder): where changes are brought home. */
  checkout: z.string().min(1),
  /** The main repository's Git directory. */
  commonDir: z.string().min(1),
  /** The worktree's own folder in it (`.git/worktrees/<id>`). */
  adminDir: z.string().min(1),
  /** The commit the branch started from: what the chat changed is measured against it. */
  base: z.string().regex(/^[0-9a-f]{40,64}$/),
  /** The checkout's branch when the worktree was made (undefined: a detached HEAD). */
  baseBranch: z.string().optional(),
  createdAt: z.string(),
  /** The task the chat was started with, as the user wrote it. */
  task: z.string().optional(),
  /** The chat's session, once it has one: `--resume` finds the worktree by it. */
  sessionId: z.string().optional(),
});

export type WorktreeRecord = z.infer<typeof WorktreeRecordSchema>;

export const RECORD_SUFFIX = '.json';

/** Writes a record atomically (a crash leaves the old one or the new one, never half of either). */
export async function writeRecord(file: string, record: WorktreeRecord): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(WorktreeRecordSchema.parse(record), null, 2)}\n`);
}

/** A record that cannot be used says why (`problem`, worded by the front end: the part after "the record FILE is skipped:"). */
export type RecordRead = { kind: 'record'; file: string; record: WorktreeRecord } | { kind: 'problem'; file: string; problem: UserText };

/** One record file, checked. */
export async function readRecord(file: string): Promise<RecordRead | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') return undefined;
    return { kind: 'problem', file, problem: userText('worktree.recordUnreadable', { error: errorMessage(error) }) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'problem', file, problem: userText('worktree.recordNotJson', { error: errorMessage(error) }) };
  }
  const parsed = WorktreeRecordSchema.safeParse(json);
  // The schema's own words (the field and what is wrong with it): not ours to word.
  if (!parsed.success) return { kind: 'problem', file, problem: verbatim(z.zodIssueText(parsed.error, json)) };
  return { kind: 'record', file, record: parsed.data };
}

/** Every record below `root` (one folder per repository), each checked. */
export async function readAllRecords(root: string): Promise<RecordRead[]> {
  const folders = await fsp.readdir(root, { withFileTypes: true }).catch(() => []);
  const reads: RecordRead[] = [];
  for (const folder of folders.filter((entry) => entry.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(root, folder.name);
    const files = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const file of files.filter((entry) => entry.isFile() && entry.name.endsWith(RECORD_SUFFIX)).sort((a, b) => a.name.localeCompare(b.name))) {
      const read = await readRecord(path.join(dir, file.name));
      if (read) reads.push(read);
    }
  }
  return reads;
}

// The approve-then-write step shared by write_file and edit_file.
import { promises as fsp } from 'node:fs';
import { diffStats, isBinaryFile, unifiedDiff, writeFileAtomic } from './fileio';
import { plural } from './text';
import { ToolExecutionError, throwIfAborted, type ToolContext, type ToolResult } from './types';
import { isNodeError } from './workspace';

/** Files larger than this are not loaded for editing / diffing (the model cannot use them anyway). */
export const MAX_EDITABLE_BYTES = 10 * 1024 * 1024;

export interface ExistingFile {
  content: string | undefined; // undefined = does not exist yet
}

/** Reads the current text of a write target; refuses directories, binaries and huge files. */
export async function readForChange(file: string, shown: string): Promise<ExistingFile> {
  let stat;
  try {
    stat = await fsp.stat(file);
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') return { content: undefined };
    throw error;
  }
  if (stat.isDirectory()) throw new ToolExecutionError(`${shown} is a directory; give a file path.`);
  if (!stat.isFile()) throw new ToolExecutionError(`${shown} is not a regular file.`);
  if (stat.size > MAX_EDITABLE_BYTES) {
    throw new ToolExecutionError(`${shown} is too large to edit with this tool (${stat.size} bytes, limit ${MAX_EDITABLE_BYTES}). Use run_shell (e.g. sed) instead.`);
  }
  if (stat.size > 0 && (await isBinaryFile(file))) throw new ToolExecutionError(`${shown} is a binary file; it cannot be edited as text.`);
  return { content: await fsp.readFile(file, 'utf8') };
}

export interface ChangeOptions {
  file: string;
  shown: string;
  before: string | undefined;
  after: string;
  /** What happened, for the result ("Replaced 1 occurrence in ..."). */
  summary: string;
  /** Extra text appended to the success result (e.g. a snippet of the edited region). */
  details?: string;
}

export async function approveAndWrite(ctx: ToolContext, change: ChangeOptions): Promise<ToolResult> {
  const { file, shown, before, after } = change;
  const isNew = before === undefined;
  const diff = unifiedDiff(shown, before, after);
  throwIfAborted(ctx.signal);
  const decision = await ctx.approve({ kind: 'write', path: shown, diff, isNew, absolutePath: file, newContent: after });
  throwIfAborted(ctx.signal);
  if (!decision.approved) {
    const reason = decision.reason ? ` Reason: ${decision.reason}` : '';
    return { content: `The user declined the change to ${shown}; nothing was written.${reason}` };
  }
  // The user may have edited the file while the approval prompt was open: never clobber that.
  const current = await fsp.readFile(file, 'utf8').catch((error: unknown) => {
    if (isNodeError(error) && error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (current !== before) {
    throw new ToolExecutionError(`${shown} changed on disk while waiting for approval; nothing was written. Read it again and redo the change.`);
  }
  await writeFileAtomic(file, after);
  const { added, removed } = diffStats(diff);
  const stats = isNew ? `created, ${plural(added, 'line')}` : `+${added} -${removed} lines`;
  return { content: `${change.summary} (${stats}).${change.details ? `\n${change.details}` : ''}` };
}

// The approve-then-write step shared by write_file and edit_file.
//
// Byte fidelity: a file is edited in its own encoding (workspace/fileio.ts: UTF-8 with or without BOM, else
// Windows-1252 where every byte is one character), and written back in that same encoding, so
// every byte the change does not touch is written back unchanged. Text the encoding cannot store
// is refused, never replaced. The approval diff compares the decoded texts, which map 1:1 to the
// bytes written; a non-UTF-8 encoding is named in the diff headers and the result.
import type { FileHandle } from 'node:fs/promises';
import { MAX_TEXT_SCAN_BYTES, UTF8, decodeFileBytes, describeChars, diffStats, encodeText, encodingLabel, isPlainUtf8, unifiedDiff, type TextEncoding } from '../workspace/fileio';
import { writeFileAtomicConfined } from '../workspace/atomicWrite';
import { protectedWriteReasonAt } from '../approvals/protectedPaths';
import { protectedWhyText } from '../approvals/texts';
import { plural } from '../text';
import type { ToolContext, ToolResult } from './types';
import { ToolExecutionError, throwIfAborted } from '../errors';
import { isNodeError, openConfinedFile, type Workspace } from '../workspace/workspace';

/** Files larger than this are not loaded for editing / diffing (the model cannot use them anyway). */
export const MAX_EDITABLE_BYTES = MAX_TEXT_SCAN_BYTES;

export interface ExistingFile {
  /** Decoded text (without a UTF-8 BOM); undefined = does not exist yet. */
  content: string | undefined;
  /** The exact bytes read: the file must still have them when the approved change is written. */
  bytes: Buffer | undefined;
  /** The file's encoding, which the change keeps; UTF-8 for a new file. */
  encoding: TextEncoding;
}

/**
 * Reads the current text of a write target (a path Workspace.resolve approved for writing),
 * race-free; refuses directories, binaries (a NUL byte anywhere) and huge files.
 */
export async function readForChange(workspace: Workspace, file: string, shown: string): Promise<ExistingFile> {
  const bytes = await readBytes(workspace, file, shown);
  if (bytes === undefined) return { content: undefined, bytes: undefined, encoding: UTF8 };
  const decoded = decodeFileBytes(bytes);
  if (decoded.kind === 'binary') {
    throw new ToolExecutionError(`${shown} is a binary file (it contains NUL bytes); it cannot be edited as text.`);
  }
  return { content: decoded.text, bytes, encoding: decoded.encoding };
}

/** The file's bytes, or undefined if it does not exist. */
async function readBytes(workspace: Workspace, file: string, shown: string): Promise<Buffer | undefined> {
  let handle: FileHandle;
  try {
    handle = await openConfinedFile(workspace.root, file);
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') return undefined;
    if (isNodeError(error) && error.code === 'EISDIR') throw new ToolExecutionError(`${shown} is a directory; give a file path.`);
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new ToolExecutionError(`${shown} is a directory; give a file path.`);
    if (!stat.isFile()) throw new ToolExecutionError(`${shown} is not a regular file.`);
    const tooLarge = (size: number): ToolExecutionError =>
      new ToolExecutionError(`${shown} is too large to edit with this tool (${size} bytes, limit ${MAX_EDITABLE_BYTES}). Use run_shell (e.g. sed) instead.`);
    if (stat.size > MAX_EDITABLE_BYTES) throw tooLarge(stat.size);
    // Read to EOF rather than trusting the size: the file may grow meanwhile, and must stay bounded.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.max(64 * 1024, stat.size - total + 1));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > MAX_EDITABLE_BYTES) throw tooLarge(total);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

export interface ChangeOptions {
  file: string;
  shown: string;
  /** What readForChange returned before the change was computed. */
  existing: ExistingFile;
  /** The new text, in the same form as existing.content (no BOM). */
  after: string;
  /** What happened, for the result ("Replaced 1 occurrence in ..."). */
  summary: string;
  /** Extra text appended to the success result (e.g. a snippet of the edited region). */
  details?: string;
}

export function unencodableMessage(shown: string, encoding: TextEncoding, chars: readonly string[]): string {
  if (encoding.kind === 'windows-1252') {
    return (
      `${shown} is not UTF-8 (it looks like Windows-1252/Latin-1, one byte per character), and the new text contains characters ` +
      `that encoding cannot store: ${describeChars(chars)}. Nothing was written. Use only characters the file can store, ` +
      `or convert the file to UTF-8 first with run_shell (e.g. iconv -f WINDOWS-1252 -t UTF-8).`
    );
  }
  return `The new text for ${shown} contains unpaired UTF-16 surrogates (${describeChars(chars)}), which UTF-8 cannot store. Nothing was written.`;
}

export async function approveAndWrite(ctx: ToolContext, change: ChangeOptions): Promise<ToolResult> {
  const { file, shown, existing, after } = change;
  const before = existing.content;
  const isNew = before === undefined;
  const encoded = encodeText(after, existing.encoding);
  if (!encoded.ok) throw new ToolExecutionError(unencodableMessage(shown, existing.encoding, encoded.unencodable));
  const label = isPlainUtf8(existing.encoding) ? undefined : encodingLabel(existing.encoding);
  const diff = unifiedDiff(shown, before, after, label ? { old: label, new: label } : {});
  throwIfAborted(ctx.signal);
  // Judged where the write really lands (approvals/protectedPaths.ts): the policy asks whenever a reason is set.
  const { root, home, sessionStorage, worktree } = ctx.workspace;
  const protectedReason = await protectedWriteReasonAt(file, { workspaceRoot: root, home, sessionStorage, ...(worktree ? { worktree: root } : {}) });
  const decision = await ctx.approve({ kind: 'write', path: shown, diff, isNew, absolutePath: file, newContent: after, ...(protectedReason ? { protectedReason: protectedWhyText(protectedReason) } : {}) });
  throwIfAborted(ctx.signal);
  if (!decision.approved) {
    const reason = decision.reason ? ` Reason: ${decision.reason}` : '';
    return { content: `The user declined the change to ${shown}; nothing was written.${reason}` };
  }
  // The user may have edited the file while the approval prompt was open: never clobber that.
  // Bytes, not decoded text: two different byte strings can decode alike.
  const current = await readBytes(ctx.workspace, file, shown);
  const unchanged = current === undefined || existing.bytes === undefined ? current === existing.bytes : current.equals(existing.bytes);
  if (!unchanged) {
    throw new ToolExecutionError(`${shown} changed on disk while waiting for approval; nothing was written. Read it again and redo the change.`);
  }
  // Before the write, and waited for: the turn's checkpoint keeps these bytes before they are gone.
  await ctx.report?.({ kind: 'file_will_change', path: file, prior: current });
  await writeFileAtomicConfined(ctx.workspace.root, file, encoded.bytes);
  const { added, removed } = diffStats(diff);
  const stats = isNew ? `created, ${plural(added, 'line')}` : `+${added} -${removed} lines`;
  const kept = label ? `; kept its ${label} encoding` : '';
  return { content: `${change.summary} (${stats}${kept}).${change.details ? `\n${change.details}` : ''}` };
}

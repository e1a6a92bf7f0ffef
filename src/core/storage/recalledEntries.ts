/**
 * A `recall` result in the transcript is a reference, not a second copy (issue 20): the message
 * entry's tool_result holds a short stub and the entry's `recalls` says which slice of which text
 * the result was. Reading the transcript (`readTranscript`) puts the text back, so the fold, the
 * resume and the chat replay see exactly what the model saw; the archived-transcript view, which
 * reads the raw lines, shows the stub (the recalled text is the earlier result it names).
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { toolResultText, toolResultsOf } from '../model/content';
import type { MessageParam } from '../model/messages';
import type { RecalledSlice } from '../tools/recallTypes';
import type { RecallReference, TranscriptEntry } from './transcript';

/** A recalled slice shorter than this is copied: a reference would save less than it costs to resolve. */
export const RECALL_REFERENCE_MIN_CHARS = 2_000;

/** What the transcript's tool_result holds in place of a referenced recall. */
export function recallStub(ref: RecallReference): string {
  const what = ref.source.kind === 'message' ? `the result of ${ref.source.toolUseId}` : ref.source.kind === 'file' ? `the saved output ${path.basename(ref.source.file)}` : 'an earlier result';
  return `[recalled: characters ${ref.start}-${ref.end} of ${what}; the transcript keeps a reference, not a copy]`;
}

/**
 * A saved output's file inside `sessionDir`, whatever path was recorded: only its base name is used, so a
 * recorded path cannot lead out of the session's tool-results folder, and a moved storage folder still works.
 */
export function savedOutputIn(sessionDir: string, recordedFile: string): string {
  return path.join(sessionDir, 'tool-results', path.basename(recordedFile));
}

/**
 * The message as the transcript stores it: each tool_result with a pending large recall gets its stub, and the
 * references go alongside. `pending`: recall results not yet stored, by tool-use id; this message's are taken
 * out of it. The message itself (what the model sees) is not changed.
 */
export function withRecallReferences(message: MessageParam, pending: Map<string, RecalledSlice>): { message: MessageParam; recalls?: RecallReference[] } {
  if (pending.size === 0 || typeof message.content === 'string') return { message };
  const recalls: RecallReference[] = [];
  const content = message.content.map((block) => {
    if (block.type !== 'tool_result') return block;
    const slice = pending.get(block.tool_use_id);
    pending.delete(block.tool_use_id);
    if (!slice || slice.source.kind === 'copy' || slice.end - slice.start < RECALL_REFERENCE_MIN_CHARS) return block;
    // Only a result that is still exactly the slice (nothing cut or redacted it since) may become a reference.
    if (typeof block.content !== 'string' || block.content.length !== slice.head.length + slice.end - slice.start + slice.tail.length || !block.content.startsWith(slice.head) || !block.content.endsWith(slice.tail)) return block;
    const ref: RecallReference = { toolUseId: block.tool_use_id, ...slice };
    recalls.push(ref);
    return { ...block, content: recallStub(ref) };
  });
  return recalls.length === 0 ? { message } : { message: { ...message, content }, recalls };
}

/** The text a reference names, or why it is gone. `earlier`: the tool results read so far, by id. */
export async function recalledText(ref: RecallReference, earlier: ReadonlyMap<string, string>, sessionDir: string): Promise<string> {
  let source: string | undefined;
  if (ref.source.kind === 'message') source = earlier.get(ref.source.toolUseId);
  else if (ref.source.kind === 'file') source = await fsp.readFile(savedOutputIn(sessionDir, ref.source.file), 'utf8').catch(() => undefined);
  if (source === undefined || source.length < ref.end) {
    const where = ref.source.kind === 'message' ? `the result of ${ref.source.toolUseId} is not in the transcript` : `its saved output file is no longer on disk`;
    return `[This recalled content is no longer available (${where}). Call recall again for what is left.]`;
  }
  return ref.head + source.slice(ref.start, ref.end) + ref.tail;
}

/** Puts every referenced recall back in place (see the header); entries without references are returned as they are. */
export async function resolveRecalls(entries: TranscriptEntry[], sessionDir: string): Promise<TranscriptEntry[]> {
  if (!entries.some((entry) => entry.type === 'message' && entry.recalls !== undefined)) return entries;
  const results = new Map<string, string>();
  const out: TranscriptEntry[] = [];
  for (const entry of entries) {
    if (entry.type !== 'message') {
      out.push(entry);
      continue;
    }
    let resolved: TranscriptEntry = entry;
    if (entry.recalls && typeof entry.message.content !== 'string') {
      const byId = new Map(entry.recalls.map((ref) => [ref.toolUseId, ref]));
      const content = await Promise.all(
        entry.message.content.map(async (block) => {
          const ref = block.type === 'tool_result' ? byId.get(block.tool_use_id) : undefined;
          return ref && block.type === 'tool_result' ? { ...block, content: await recalledText(ref, results, sessionDir) } : block;
        }),
      );
      const { recalls: _recalls, ...rest } = entry;
      resolved = { ...rest, message: { ...entry.message, content } };
    }
    for (const block of toolResultsOf(resolved.type === 'message' ? resolved.message : entry.message)) results.set(block.tool_use_id, toolResultText(block));
    out.push(resolved);
  }
  return out;
}

// File primitives for the tools: binary sniffing, bounded line streaming, atomic writes, diffs.
import { promises as fsp } from 'node:fs';
import { createTwoFilesPatch } from 'diff';
import { abortError } from './types';

export const BINARY_SNIFF_BYTES = 8192;

/** Git's heuristic: a NUL byte in the first 8 KB means binary. */
export async function isBinaryFile(file: string): Promise<boolean> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

export interface ReadLinesOptions {
  /** 1-based first line to return. */
  offset: number;
  /** Maximum number of lines to return. */
  limit: number;
  /** Longer lines are cut (only this many bytes of a line are ever held in memory). */
  maxLineChars: number;
  /** Stop before the output would exceed this many characters. */
  maxTotalChars: number;
  signal?: AbortSignal;
}

export interface ReadLinesResult {
  lines: { lineNumber: number; text: string; cut: boolean }[];
  /** True if the file has content after the last returned line. */
  more: boolean;
  /** True if reading stopped because of maxTotalChars (before `limit`). */
  stoppedBySize: boolean;
  /** Number of lines in the file, when the whole file was scanned. */
  totalLines: number | undefined;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Streams a file chunk by chunk and returns lines [offset, offset + limit). Memory stays bounded
 * by the chunk size plus the capped lines, whatever the file or line sizes (a 1 GB file with no
 * newline is fine), and reading stops as soon as the requested lines are collected.
 */
export async function readLines(file: string, options: ReadLinesOptions): Promise<ReadLinesResult> {
  const { offset, limit, maxLineChars, maxTotalChars, signal } = options;
  const maxLineBytes = maxLineChars * 4 + 4; // UTF-8 is at most 4 bytes per char
  const handle = await fsp.open(file, 'r');
  const lines: ReadLinesResult['lines'] = [];
  let lineNumber = 1;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let cut = false;
  let pending = false; // bytes seen on the current line
  let totalChars = 0;
  let position = 0;
  const buffer = Buffer.alloc(CHUNK_BYTES);

  const finishLine = (): 'continue' | 'size' => {
    let text = Buffer.concat(parts, partBytes).toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    let lineCut = cut;
    if (text.length > maxLineChars) {
      text = text.slice(0, maxLineChars);
      lineCut = true;
    }
    parts = [];
    partBytes = 0;
    cut = false;
    const cost = text.length + 8;
    if (lines.length > 0 && totalChars + cost > maxTotalChars) return 'size';
    totalChars += cost;
    lines.push({ lineNumber, text, cut: lineCut });
    return 'continue';
  };

  try {
    for (;;) {
      if (signal?.aborted) throw abortError();
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let start = 0;
      while (start < bytesRead) {
        const newline = buffer.indexOf(10, start);
        const end = newline < 0 || newline >= bytesRead ? bytesRead : newline;
        if (lineNumber >= offset && partBytes < maxLineBytes && end > start) {
          const take = Math.min(end - start, maxLineBytes - partBytes);
          parts.push(Buffer.from(buffer.subarray(start, start + take))); // copy: the buffer is reused
          partBytes += take;
          if (take < end - start) cut = true;
        } else if (lineNumber >= offset && end > start) {
          cut = true;
        }
        if (end > start) pending = true;
        if (end === bytesRead) break; // line continues in the next chunk
        // A complete line.
        if (lineNumber >= offset) {
          if (finishLine() === 'size') {
            return { lines, more: true, stoppedBySize: true, totalLines: undefined };
          }
          if (lines.length >= limit) {
            const more = newline + 1 < bytesRead || (await hasBytesAt(handle, position));
            return { lines, more, stoppedBySize: false, totalLines: more ? undefined : lineNumber };
          }
        }
        pending = false;
        lineNumber++;
        start = newline + 1;
      }
    }
    // EOF: a last line without a trailing newline still counts.
    if (pending) {
      if (lineNumber >= offset && finishLine() === 'size') {
        return { lines, more: true, stoppedBySize: true, totalLines: undefined };
      }
      return { lines, more: false, stoppedBySize: false, totalLines: lineNumber };
    }
    return { lines, more: false, stoppedBySize: false, totalLines: lineNumber - 1 };
  } finally {
    await handle.close();
  }
}

async function hasBytesAt(handle: fsp.FileHandle, position: number): Promise<boolean> {
  const probe = Buffer.alloc(1);
  const { bytesRead } = await handle.read(probe, 0, 1, position);
  return bytesRead > 0;
}

export { writeFileAtomic } from '../atomicWrite';

/** Unified diff for approvals; falls back to a whole-file hunk if the diff takes too long. */
export function unifiedDiff(displayPath: string, oldContent: string | undefined, newContent: string): string {
  const oldName = oldContent === undefined ? '/dev/null' : `a/${displayPath}`;
  const newName = `b/${displayPath}`;
  const patch = createTwoFilesPatch(oldName, newName, oldContent ?? '', newContent, undefined, undefined, {
    context: 3,
    timeout: 2000,
  });
  if (patch !== undefined) return patch;
  const oldLines = splitLines(oldContent ?? '');
  const newLines = splitLines(newContent);
  return [
    `--- ${oldName}`,
    `+++ ${newName}`,
    `@@ -${oldLines.length > 0 ? 1 : 0},${oldLines.length} +${newLines.length > 0 ? 1 : 0},${newLines.length} @@`,
    ...oldLines.map((l) => `-${l}`),
    ...newLines.map((l) => `+${l}`),
    '',
  ].join('\n');
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Counts added / removed lines of a unified diff (for result summaries). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunks = false; // file headers (--- / +++) only come before the first hunk
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) inHunks = true;
    if (!inHunks) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

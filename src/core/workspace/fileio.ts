// File primitives for the tools: binary sniffing, text encodings, bounded line streaming, atomic writes, diffs.
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createTwoFilesPatch } from 'diff';
import { abortError } from '../errors';

export const BINARY_SNIFF_BYTES = 8192;

/** Files up to this size are scanned whole for their encoding; larger ones cannot be edited anyway. */
export const MAX_TEXT_SCAN_BYTES = 10 * 1024 * 1024;

/** Git's heuristic: a NUL byte in the first 8 KB means binary. */
export async function isBinaryFile(file: string): Promise<boolean> {
  const handle = await fsp.open(file, 'r');
  try {
    return await sniffBinary(handle);
  } finally {
    await handle.close();
  }
}

async function sniffBinary(handle: FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return buffer.subarray(0, bytesRead).includes(0);
}

// ---------------------------------------------------------------------------------------------
// Encodings. The tools edit text, but must give back every byte they did not change. A file is
// UTF-8 if it decodes without error (an optional BOM is kept); otherwise, without NUL bytes, it is
// read as Windows-1252 (what "Latin-1" files are in practice): every byte is exactly one
// character and back, so decoding and encoding round-trip losslessly, also for mixed files
// (UTF-8 with a few stray bytes), whose UTF-8 sequences then show as two or three characters.
// A NUL anywhere means binary: refused.

export type TextEncoding = { kind: 'utf-8'; bom: boolean } | { kind: 'windows-1252' };

export const UTF8: TextEncoding = { kind: 'utf-8', bom: false };

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Bytes 0x80-0x9F in Windows-1252 (WHATWG index; the five unassigned bytes map to C1 controls, so all
 * 256 bytes round-trip). Spelled out because Node's TextDecoder('windows-1252') decodes as latin1.
 */
const CP1252_80_9F =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const CP1252_ENCODE = new Map<string, number>([...CP1252_80_9F].map((char, i) => [char, 0x80 + i]));

export function decodeWindows1252(bytes: Buffer): string {
  // latin1 maps each byte to U+0000-U+00FF; only 0x80-0x9F differ in Windows-1252.
  return bytes.toString('latin1').replace(/[\x80-\x9f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80] ?? c);
}

export function encodingLabel(encoding: TextEncoding): string {
  if (encoding.kind === 'windows-1252') return 'Windows-1252 (Latin-1)';
  return encoding.bom ? 'UTF-8 with BOM' : 'UTF-8';
}

export const isPlainUtf8 = (encoding: TextEncoding): boolean => encoding.kind === 'utf-8' && !encoding.bom;

export type DecodedFile = { kind: 'binary' } | { kind: 'text'; text: string; encoding: TextEncoding };

/** Decodes a whole file (see the section comment); the text excludes a UTF-8 BOM. */
export function decodeFileBytes(bytes: Buffer): DecodedFile {
  if (bytes.includes(0)) return { kind: 'binary' };
  const bom = bytes.subarray(0, 3).equals(UTF8_BOM);
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes);
    return { kind: 'text', text, encoding: { kind: 'utf-8', bom } };
  } catch {
    return { kind: 'text', text: decodeWindows1252(bytes), encoding: { kind: 'windows-1252' } };
  }
}

/** Unpaired UTF-16 surrogates: JSON can carry them, UTF-8 cannot store them (Buffer would write U+FFFD). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export type EncodedText = { ok: true; bytes: Buffer } | { ok: false; unencodable: string[] };

/** Encodes text in a file's encoding; never replaces a character: what cannot be stored is reported. */
export function encodeText(text: string, encoding: TextEncoding): EncodedText {
  if (encoding.kind === 'utf-8') {
    const lone = text.match(LONE_SURROGATE);
    if (lone) return { ok: false, unencodable: [...new Set(lone)].slice(0, 5) };
    const body = Buffer.from(text, 'utf8');
    return { ok: true, bytes: encoding.bom ? Buffer.concat([UTF8_BOM, body]) : body };
  }
  // Fast path: only U+0000-U+00FF outside 0x80-0x9F, where Windows-1252 and latin1 agree.
  const fast = Buffer.from(text, 'latin1');
  if (fast.length === text.length && fast.toString('latin1') === text && !/[\x80-\x9f]/.test(text)) return { ok: true, bytes: fast };
  const bytes = Buffer.alloc(text.length);
  const unencodable = new Set<string>();
  let n = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const byte = code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : CP1252_ENCODE.get(char);
    if (byte === undefined) unencodable.add(char);
    else bytes[n++] = byte;
  }
  if (unencodable.size > 0) return { ok: false, unencodable: [...unencodable].slice(0, 5) };
  return { ok: true, bytes: bytes.subarray(0, n) };
}

/** "é" (U+00E9) — for error messages about characters. */
export function describeChars(chars: readonly string[]): string {
  return chars.map((c) => `"${c}" (U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')})`).join(', ');
}

/** How read_file decodes lines: a known whole-file encoding, or (huge files) UTF-8 per line with a Windows-1252 fallback. */
export type LineEncoding = TextEncoding | { kind: 'per-line' };

export type SniffedFile = { kind: 'binary' } | { kind: 'text'; encoding: LineEncoding };

/**
 * The encoding read_file shows a file in. Up to MAX_TEXT_SCAN_BYTES the whole file is scanned, so
 * read_file and edit_file always agree (a NUL anywhere = binary); larger files keep git's 8 KB
 * sniff and are decoded line by line.
 */
export async function detectEncoding(handle: FileHandle, size: number, signal?: AbortSignal): Promise<SniffedFile> {
  if (size > MAX_TEXT_SCAN_BYTES) return (await sniffBinary(handle)) ? { kind: 'binary' } : { kind: 'text', encoding: { kind: 'per-line' } };
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let utf8 = true;
  let bom = false;
  let position = 0;
  for (;;) {
    if (signal?.aborted) throw abortError();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    let chunk = buffer.subarray(0, bytesRead);
    if (chunk.includes(0)) return { kind: 'binary' };
    if (position === 0 && chunk.subarray(0, 3).equals(UTF8_BOM)) {
      bom = true;
      chunk = chunk.subarray(3);
    }
    position += bytesRead;
    if (utf8) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        utf8 = false;
      }
    }
  }
  if (utf8) {
    try {
      decoder.decode(); // a sequence cut off at the end of the file
    } catch {
      utf8 = false;
    }
  }
  return { kind: 'text', encoding: utf8 ? { kind: 'utf-8', bom } : { kind: 'windows-1252' } };
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
  /** How to decode lines (default: UTF-8 per line with a Windows-1252 fallback). */
  encoding?: LineEncoding;
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
  /** Per-line decoding only: some returned lines were not UTF-8 and are shown as Windows-1252. */
  nonUtf8Lines: boolean;
}

const CHUNK_BYTES = 64 * 1024;

/** Decodes one line's bytes; a `cut` line may end inside a UTF-8 sequence, which is dropped, not shown as U+FFFD. */
function lineDecoder(encoding: LineEncoding): { decode(bytes: Buffer, cut: boolean): string; fellBack: boolean } {
  const state = {
    fellBack: false,
    decode(bytes: Buffer, cut: boolean): string {
      if (encoding.kind === 'windows-1252') return decodeWindows1252(bytes);
      // Fresh decoders: a streamed (cut) decode leaves state behind.
      if (encoding.kind === 'utf-8') return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes, { stream: cut });
      try {
        return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: cut });
      } catch {
        state.fellBack = true;
        return decodeWindows1252(bytes);
      }
    },
  };
  return state;
}

/**
 * Streams a file chunk by chunk and returns lines [offset, offset + limit). Memory stays bounded
 * by the chunk size plus the capped lines, whatever the file or line sizes (a 1 GB file with no
 * newline is fine), and reading stops as soon as the requested lines are collected. A handle is
 * read as given (and left open); a path is opened and closed here.
 */
export async function readLines(source: string | FileHandle, options: ReadLinesOptions): Promise<ReadLinesResult> {
  if (typeof source === 'string') {
    const handle = await fsp.open(source, 'r');
    try {
      return await readLines(handle, options);
    } finally {
      await handle.close();
    }
  }
  const handle = source;
  const { offset, limit, maxLineChars, maxTotalChars, signal } = options;
  const encoding = options.encoding ?? { kind: 'per-line' };
  const decoder = lineDecoder(encoding);
  const maxLineBytes = maxLineChars * 4 + 4; // UTF-8 is at most 4 bytes per char
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
    let bytes = Buffer.concat(parts, partBytes);
    // The BOM is not part of the text (edit_file keeps it on its own).
    if (lineNumber === 1 && encoding.kind !== 'windows-1252' && bytes.subarray(0, 3).equals(UTF8_BOM)) bytes = bytes.subarray(3);
    let text = decoder.decode(bytes, cut);
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

  const done = (result: Omit<ReadLinesResult, 'nonUtf8Lines'>): ReadLinesResult => ({ ...result, nonUtf8Lines: decoder.fellBack });

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
          return done({ lines, more: true, stoppedBySize: true, totalLines: undefined });
        }
        if (lines.length >= limit) {
          const more = newline + 1 < bytesRead || (await hasBytesAt(handle, position));
          return done({ lines, more, stoppedBySize: false, totalLines: more ? undefined : lineNumber });
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
      return done({ lines, more: true, stoppedBySize: true, totalLines: undefined });
    }
    return done({ lines, more: false, stoppedBySize: false, totalLines: lineNumber });
  }
  return done({ lines, more: false, stoppedBySize: false, totalLines: lineNumber - 1 });
}

/** Up to `length` bytes at `position` (fewer at the end of the file): a read loops until it has them. */
export async function readBytesAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, length));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

async function hasBytesAt(handle: FileHandle, position: number): Promise<boolean> {
  const probe = Buffer.alloc(1);
  const { bytesRead } = await handle.read(probe, 0, 1, position);
  return bytesRead > 0;
}


/**
 * Unified diff for approvals; falls back to a whole-file hunk if the diff takes too long. Headers
 * (e.g. a non-UTF-8 encoding) follow the file names after a tab, as in `diff -u`.
 */
export function unifiedDiff(
  displayPath: string,
  oldContent: string | undefined,
  newContent: string,
  headers: { old?: string; new?: string } = {},
): string {
  const oldName = oldContent === undefined ? '/dev/null' : `a/${displayPath}`;
  const newName = `b/${displayPath}`;
  const patch = createTwoFilesPatch(oldName, newName, oldContent ?? '', newContent, headers.old, headers.new, {
    context: 3,
    timeout: 2000,
  });
  if (patch !== undefined) return patch;
  const oldLines = splitLines(oldContent ?? '');
  const newLines = splitLines(newContent);
  const header = (text: string | undefined): string => (text ? `\t${text}` : '');
  return [
    `--- ${oldName}${header(headers.old)}`,
    `+++ ${newName}${header(headers.new)}`,
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

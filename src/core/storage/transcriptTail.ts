/**
 * A transcript read from where the last read stopped: `recall`'s index (recall/recallIndex.ts) reads only what
 * was appended since its last call, in bounded chunks, never splitting a line.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/** One transcript file, read incrementally: only whole lines, each once. */
export class TranscriptFile {
  offset = 0;
  lineNumber = 0;
  /** Valid entries read so far: the next one's index, as readTranscript and a rewind count them. */
  entries = 0;
  /** A subagent's: the parent's task call that started it (its `subagent_of` record). */
  parentCall: string | undefined;
  messages = 0;
  compactions = 0;
  /** tool_use id -> saved output, from persisted_output entries (they precede the result's message). */
  readonly saved = new Map<string, string>();
  /** An incomplete last line (a write in progress, or cut by a crash), not yet read. */
  tornTail = false;

  constructor(
    readonly file: string,
    readonly subagent: string | undefined,
  ) {}

  get dir(): string {
    return path.dirname(this.file);
  }

  /**
   * Whole lines appended since the last call, about `chunkBytes` at a time (a longer line is read whole); `more`:
   * the file has more to read. A missing file has none.
   */
  async newLines(chunkBytes: number): Promise<{ lines: Array<{ line: number; text: string }>; more: boolean }> {
    let handle;
    try {
      handle = await fsp.open(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], more: false };
      throw error;
    }
    try {
      const { size } = await handle.stat();
      let chunk = Buffer.alloc(0);
      let lastNewline = -1;
      // Grows the read until it holds a newline or reaches the end: a line is never split.
      for (let want = chunkBytes; this.offset + chunk.length < size && lastNewline < 0; want *= 2) {
        const buffer = Buffer.alloc(Math.min(want, size - this.offset));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        chunk = buffer.subarray(0, bytesRead);
        lastNewline = chunk.lastIndexOf(0x0a);
        if (bytesRead < buffer.length) break;
      }
      const end = this.offset + chunk.length;
      this.tornTail = end >= size && lastNewline < chunk.length - 1;
      if (lastNewline < 0) return { lines: [], more: false };
      const lines: Array<{ line: number; text: string }> = [];
      // Split at newline bytes before decoding: a UTF-8 sequence never contains 0x0a.
      for (let start = 0; start <= lastNewline; ) {
        const stop = chunk.indexOf(0x0a, start);
        this.lineNumber++;
        lines.push({ line: this.lineNumber, text: chunk.toString('utf8', start, stop) });
        start = stop + 1;
      }
      this.offset += lastNewline + 1;
      return { lines, more: this.offset < size && end < size };
    } finally {
      await handle.close();
    }
  }
}

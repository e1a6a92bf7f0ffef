// Small text helpers shared by the tools, the instruction files and the context engine: bounded
// output buffers and formatting.

/**
 * Keeps the first and last `maxChars / 2` characters of a stream of text in bounded memory,
 * so a command printing gigabytes still yields a useful head + tail.
 */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly half: number;

  constructor(readonly maxChars: number) {
    this.half = Math.max(1, Math.floor(maxChars / 2));
  }

  append(chunk: string): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest.length === 0) return;
    this.tail += rest;
    // Trim lazily (at 2x) so appending many small chunks stays linear.
    if (this.tail.length > 2 * this.half) this.tail = this.tail.slice(-this.half);
  }

  get totalChars(): number {
    return this.total;
  }

  toString(): string {
    const kept = this.head.length + this.tail.length;
    if (this.total <= this.maxChars && kept === this.total) return this.head + this.tail;
    const tail = this.tail.slice(-this.half);
    const omitted = this.total - this.head.length - tail.length;
    return `${this.head}\n\n[... ${omitted} characters omitted from the middle of the output ...]\n\n${tail}`;
  }
}

export function truncateHeadTail(text: string, maxChars: number): string {
  const buffer = new HeadTailBuffer(maxChars);
  buffer.append(text);
  return buffer.toString();
}

/** `cat -n` style line prefix. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, ' ')}\t${text}`;
}

export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

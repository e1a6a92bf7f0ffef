// The JS grep fallback's regex runs in a worker thread with a time budget. A JS RegExp backtracks:
// `^(a+)+$` against a line of 40 a's and a '!' takes longer than the universe has existed, and on
// the main thread it would freeze the extension host or the CLI with it — no Ctrl-C, no timer, no
// UI. In a worker the main thread stays free: a batch that outlives its budget, or a cancel, ends
// the worker with terminate(), which interrupts a running match.
//
// Why a worker and not a linear-time engine (re2): re2 is a native addon, so the extension's
// single esbuild bundle and its .vsix would have to carry a prebuilt binary per platform and
// Electron ABI (and build one offline with node-gyp where none fits); a worker is plain Node,
// works the same in the extension host and the bundled CLI, and keeps the JS RegExp syntax the
// fallback has always used.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { abortError } from './errors';

/**
 * Plain JavaScript (no bundler helpers can leak in): compiles the pattern once, answers which lines of each batch
 * match (an array of lines), or where in texts of whole lines the first match of each line is (\`{ find: texts }\`:
 * text index, the line's start in it, the match's start in the line, its length), or the same in files it reads
 * itself (\`{ files: paths }\`: per file its hits, line start, match start and length each, and its first matching
 * line; or why it could not be read). A text is split at each newline here, so the caller sends a few long strings
 * instead of a string per line; a file is read and decoded here, off the caller's thread (ASCII as Latin-1: the
 * same string, decoded faster).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.pattern, workerData.flags);
function eachLineMatch(text, onMatch) {
  for (let start = 0; ; ) {
    const end = text.indexOf('\\n', start);
    regex.lastIndex = 0;
    const line = end < 0 ? text.slice(start) : text.slice(start, end);
    const match = regex.exec(line);
    if (match) onMatch(start, match.index, match[0].length, line);
    if (end < 0) break;
    start = end + 1;
  }
}
function readText(file) {
  const bytes = require('node:fs').readFileSync(file);
  return require('node:buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
parentPort.on('message', (message) => {
  if (Array.isArray(message)) {
    const hits = [];
    for (let i = 0; i < message.length; i++) if (regex.test(message[i])) hits.push(i);
    parentPort.postMessage(hits);
  } else if (message.find) {
    const hits = [];
    message.find.forEach((text, t) => eachLineMatch(text, (lineStart, start, length) => hits.push(t, lineStart, start, length)));
    parentPort.postMessage(hits);
  } else {
    parentPort.postMessage(message.files.map((file) => {
      let text;
      try {
        text = readText(file);
      } catch (error) {
        return { error: error.code === 'ENOENT' ? 'ENOENT' : String(error.message) };
      }
      const hits = [];
      let first;
      eachLineMatch(text, (lineStart, start, length, line) => {
        if (first === undefined) first = line;
        hits.push(lineStart, start, length);
      });
      return first === undefined ? { hits } : { hits, first };
    }));
  }
});
`;

/** What the worker found in one file: its matching lines (line start, match start, match length, flat) and the first of them; or why it was not read. */
export type FileMatches = { hits: number[]; first?: string } | { error: string };

/** A batch of lines took longer than the budget: the pattern backtracks catastrophically (or the input is huge). */
export class RegexTimeoutError extends Error {
  override name = 'RegexTimeoutError';
  constructor(readonly budgetMs: number) {
    super(`the regular expression ran longer than ${budgetMs} ms on one batch of lines`);
  }
}

export class RegexWorker {
  private ended = false;

  private constructor(private readonly worker: Worker) {}

  /**
   * Starts a worker for `pattern` (already known to compile: compile it on the caller's side first
   * for the error message). Resolves once the worker runs, so its start-up is not charged to a budget.
   */
  static async start(pattern: string, flags: string, signal: AbortSignal): Promise<RegexWorker> {
    if (signal.aborted) throw abortError();
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pattern, flags } });
    const runner = new RegexWorker(worker);
    const onAbort = (): void => runner.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([once(worker, 'online'), once(worker, 'exit').then(() => Promise.reject(new Error('the regex worker did not start')))]);
    } catch (error) {
      runner.close();
      throw signal.aborted ? abortError() : error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    return runner;
  }

  /** Indices of the lines that match. Rejects with RegexTimeoutError past `budgetMs`, with an abort error on cancel; either ends the worker. */
  test(lines: readonly string[], budgetMs: number, signal: AbortSignal): Promise<number[]> {
    return this.ask(lines, budgetMs, signal);
  }

  /**
   * The first match of each line of `texts` (each one or more whole lines, joined by newlines) that matches,
   * flat: text index, line start in the text, match start in the line, match length, for each. Bounded like
   * `test`. (recall's search: one pass finds the lines and the excerpts' places.)
   */
  find(texts: readonly string[], budgetMs: number, signal: AbortSignal): Promise<number[]> {
    return this.ask<number[]>({ find: texts }, budgetMs, signal);
  }

  /** `find` in files the worker reads itself (an error of `ENOENT` means the file is gone). Bounded like `test`. */
  findInFiles(files: readonly string[], budgetMs: number, signal: AbortSignal): Promise<FileMatches[]> {
    return this.ask<FileMatches[]>({ files }, budgetMs, signal);
  }

  private ask<Answer = number[]>(message: readonly string[] | { find: readonly string[] } | { files: readonly string[] }, budgetMs: number, signal: AbortSignal): Promise<Answer> {
    if (signal.aborted) {
      this.close();
      return Promise.reject(abortError());
    }
    if (this.ended) return Promise.reject(new Error('the regex worker has ended'));
    return new Promise<Answer>((resolve, reject) => {
      const settle = (finish: () => void): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
        this.worker.off('exit', onExit);
        finish();
      };
      const onMessage = (answer: Answer): void => settle(() => resolve(answer));
      const onError = (error: Error): void => settle(() => reject(error));
      const onExit = (code: number): void => settle(() => reject(new Error(`the regex worker stopped (exit code ${code})`)));
      const onAbort = (): void =>
        settle(() => {
          this.close();
          reject(abortError());
        });
      const timer = setTimeout(
        () =>
          settle(() => {
            this.close();
            reject(new RegexTimeoutError(budgetMs));
          }),
        budgetMs,
      );
      signal.addEventListener('abort', onAbort, { once: true });
      this.worker.on('message', onMessage);
      this.worker.once('error', onError);
      this.worker.once('exit', onExit);
      this.worker.postMessage(message);
    });
  }

  /** Ends the worker, also in the middle of a match. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    void this.worker.terminate();
  }
}

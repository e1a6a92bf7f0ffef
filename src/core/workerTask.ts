// One task run in a worker thread of its own, for pure JavaScript work that takes seconds (turning
// a 3 MB web page into markdown, resizing a 12-megapixel photo): on the extension host's thread it
// would freeze every extension for that long, and on the CLI's it would stop Ctrl-C and timers. The
// worker starts for one task and ends with its answer, on cancel, past its time budget, or when it
// fails — never a hang.
//
// The worker's code is a file of its own (esbuild.mjs bundles each entry beside the main bundle),
// not an eval'd string like the regex worker's: it needs libraries, which only the bundler joins.
import * as path from 'node:path';
import { parentPort, Worker } from 'node:worker_threads';
import { abortError } from './errors';

/** Where a worker's code is: its TypeScript entry (run from the sources) and the bundle esbuild makes of it. */
export interface WorkerScript {
  /** The entry's path under src/core (e.g. `web/htmlWorker.ts`). */
  readonly source: string;
  /** The bundle's file name beside the bundle that holds this code (e.g. `htmlWorker.js`, in dist/). */
  readonly bundle: string;
}

export type WorkerTaskFailure = 'timeout' | 'failed';

/** The task gave no answer: it outlived its budget, or the worker failed (threw, crashed, could not start). */
export class WorkerTaskError extends Error {
  override name = 'WorkerTaskError';
  constructor(
    readonly kind: WorkerTaskFailure,
    message: string,
  ) {
    super(message);
  }
}

/** What a worker posts back: its value, or why it has none. */
type Answer<Out> = { ok: true; value: Out } | { ok: false; error: string };

/**
 * The file to start: run from the sources (tests and benchmarks under tsx), the TypeScript entry
 * through tsx's require hook; bundled, the worker's bundle beside this one.
 */
function workerFile(script: WorkerScript): { file: string; execArgv: string[] } {
  if (__filename.endsWith('.ts')) return { file: path.join(__dirname, script.source), execArgv: ['--require', require.resolve('tsx/cjs')] };
  return { file: path.join(__dirname, script.bundle), execArgv: [] };
}

/**
 * Runs `input` through the worker `script` and resolves to its answer. Rejects with an abort error
 * on cancel, and with WorkerTaskError past `budgetMs` (when given) or when the worker fails; either
 * way the worker is ended (terminate() interrupts even a running loop).
 */
export function runWorkerTask<In, Out>(script: WorkerScript, input: In, options: { signal: AbortSignal; budgetMs?: number }): Promise<Out> {
  const { signal, budgetMs } = options;
  if (signal.aborted) return Promise.reject(abortError());
  const entry = workerFile(script);
  const worker = new Worker(entry.file, { execArgv: entry.execArgv });
  return new Promise<Out>((resolve, reject) => {
    let settled = false;
    // The first of answer, error, exit, timeout or cancel settles; whatever the ending worker reports after is dropped.
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      settle();
    };
    const onAbort = (): void => finish(() => reject(abortError()));
    const timer = budgetMs === undefined ? undefined : setTimeout(() => finish(() => reject(new WorkerTaskError('timeout', `it ran longer than ${budgetMs / 1000} s`))), budgetMs);
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (answer: Answer<Out>) => finish(() => (answer.ok ? resolve(answer.value) : reject(new WorkerTaskError('failed', answer.error)))));
    worker.on('error', (error: Error) => finish(() => reject(new WorkerTaskError('failed', `its worker failed: ${error.message}`))));
    worker.on('exit', (code) => finish(() => reject(new WorkerTaskError('failed', `its worker stopped without an answer (exit code ${code})`))));
    worker.postMessage(input);
  });
}

/**
 * The worker's side: answers the one task it is sent with `task`'s value, or with the message of
 * what it threw (a clear failure on the calling side, not a crash).
 */
export function serveWorkerTask<In, Out>(task: (input: In) => Out): void {
  const port = parentPort;
  if (!port) throw new Error('a worker task runs in a worker thread (see core/workerTask.ts)');
  port.once('message', (input: In) => {
    let answer: Answer<Out>;
    try {
      answer = { ok: true, value: task(input) };
    } catch (error) {
      answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer);
  });
}

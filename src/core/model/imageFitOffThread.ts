/**
 * An image read and made fit for the models (images.ts, imageResize.ts) in a worker thread: the
 * decoders are pure JavaScript and a 12-megapixel photo takes seconds, which on the extension
 * host's thread would freeze every extension (bench/images.ts measures the event loop meanwhile).
 * A small image that fits is answered here at once; anything else starts a worker (a large one is
 * even checked there: reading 15 MB of base64 takes the thread tens of milliseconds), which ends
 * with its answer, on cancel, or when it fails (a clear problem, never a hang).
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { abortError } from '../errors';
import { imageLimitProblem, readImage } from './images';
import type { FittedImage } from './imageResize';

/**
 * The worker's file: dist/imageWorker.js beside the bundle that holds this code; run from the
 * sources (tests, benchmarks under tsx), the TypeScript entry, loaded through tsx's require hook.
 */
function workerEntry(): { file: string; execArgv: string[] } {
  if (__filename.endsWith('.ts')) return { file: path.join(__dirname, 'imageResizeWorker.ts'), execArgv: ['--require', require.resolve('tsx/cjs')] };
  return { file: path.join(__dirname, 'imageWorker.js'), execArgv: [] };
}

/** Base64 characters of an image checked on this thread (about 1 ms); a larger one is checked in the worker. */
const CHECK_HERE_CHARS = 1024 * 1024;

/** The image as the models may take it, or why it cannot be made so (readImage's or fitImageToLimits's problem), computed off this thread. */
export async function fitImageOffThread(base64: string, signal: AbortSignal): Promise<FittedImage | { problem: string }> {
  if (base64.length <= CHECK_HERE_CHARS) {
    const facts = readImage(base64);
    if ('problem' in facts) return facts;
    if (!imageLimitProblem(facts, base64.length)) return { mediaType: facts.mediaType, data: base64, width: facts.width, height: facts.height };
  }
  if (signal.aborted) throw abortError();
  const entry = workerEntry();
  const worker = new Worker(entry.file, { execArgv: entry.execArgv });
  return new Promise<FittedImage | { problem: string }>((resolve, reject) => {
    let settled = false;
    // The first of answer, error, exit or cancel settles; what the ending worker reports after is dropped.
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      settle();
    };
    const onAbort = (): void => finish(() => reject(abortError()));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (fitted: FittedImage | { problem: string }) => finish(() => resolve(fitted)));
    worker.on('error', (error: Error) => finish(() => resolve({ problem: `resizing it failed (${error.message}): resize it, or save it again, first` })));
    worker.on('exit', (code) => finish(() => resolve({ problem: `resizing it stopped the image worker (exit code ${code}): resize it first` })));
    worker.postMessage(base64);
  });
}

/**
 * An image read and made fit for the models (images.ts, imageResize.ts) in a worker thread: the
 * decoders are pure JavaScript and a 12-megapixel photo takes seconds, which on the extension
 * host's thread would freeze every extension (bench/images.ts measures the event loop meanwhile).
 * A small image that fits is answered here at once; anything else starts a worker (a large one is
 * even checked there: reading 15 MB of base64 takes the thread tens of milliseconds), which ends
 * with its answer, on cancel, or when it fails (a clear problem, never a hang).
 */
import { abortError } from '../errors';
import { runWorkerTask, WorkerTaskError, type WorkerScript } from '../workerTask';
import { imageLimitProblem, readImage } from './images';
import type { FittedImage } from './imageResize';

/** The worker: dist/imageWorker.js beside the bundle that holds this code (esbuild.mjs). */
const IMAGE_WORKER: WorkerScript = { source: 'model/imageResizeWorker.ts', bundle: 'imageWorker.js' };

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
  try {
    return await runWorkerTask<string, FittedImage | { problem: string }>(IMAGE_WORKER, base64, { signal });
  } catch (error) {
    if (error instanceof WorkerTaskError) return { problem: `resizing it failed (${error.message}): resize it, or save it again, first` };
    throw error;
  }
}

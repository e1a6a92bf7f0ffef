/**
 * The worker thread that makes an image fit (images.ts reads it, imageResize.ts resizes it), so
 * checking and decoding a 12-megapixel photo in pure JavaScript (seconds) never blocks the extension
 * host or the CLI: imageFitOffThread.ts starts it for one image and ends it after. Bundled as its
 * own file (dist/imageWorker.js, esbuild.mjs), with the decoders; the main bundles do not carry them.
 */
import { serveWorkerTask } from '../workerTask';
import { readImage } from './images';
import { fitImageToLimits } from './imageResize';

/** Sent: the image as base64. Answered: what fitImageToLimits answers, or why the bytes are no image. */
serveWorkerTask((base64: string) => {
  const facts = readImage(base64);
  return 'problem' in facts ? facts : fitImageToLimits(base64, facts);
});

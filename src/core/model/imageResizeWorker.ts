/**
 * The worker thread that makes an image fit (images.ts reads it, imageResize.ts resizes it), so
 * checking and decoding a 12-megapixel photo in pure JavaScript (seconds) never blocks the extension
 * host or the CLI: imageFitOffThread.ts starts it for one image and ends it after. Bundled as its
 * own file (dist/imageWorker.js, esbuild.mjs), with the decoders; the main bundles do not carry them.
 */
import { parentPort } from 'node:worker_threads';
import { readImage } from './images';
import { fitImageToLimits } from './imageResize';

if (!parentPort) throw new Error('imageResizeWorker runs in a worker thread (see imageFitOffThread.ts)');
const port = parentPort;
/** Sent: the image as base64. Answered: what fitImageToLimits answers, or why the bytes are no image. */
port.once('message', (base64: string) => {
  const facts = readImage(base64);
  port.postMessage('problem' in facts ? facts : fitImageToLimits(base64, facts));
});

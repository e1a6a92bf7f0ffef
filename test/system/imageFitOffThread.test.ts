/**
 * An image over the models' limits is made fit in a worker thread (src/core/model/imageFitOffThread.ts):
 * the same answer as on the calling thread, while that thread's event loop keeps answering; a
 * cancel ends the work; a large file that is no image, or whose data is broken, is refused with the
 * same words as before.
 */
import assert from 'node:assert/strict';
import { encode as encodeJpeg } from 'jpeg-js';
import { abortError } from '../../src/core/errors';
import { readImage } from '../../src/core/model/images';
import { fitImageOffThread } from '../../src/core/model/imageFitOffThread';
import { fitImageToLimits } from '../../src/core/model/imageResize';
import { whileTicking } from '../support/eventLoop';
import { pngBase64 } from '../support/images';

/** A 3000x2000 JPEG of seeded noise: over the 5 MB limit, and about a second of work to resize. */
function noisyJpeg(): string {
  const width = 3000;
  const height = 2000;
  const data = Buffer.alloc(width * height * 4, 255);
  let seed = 7;
  for (let at = 0; at < data.length; at += 4) {
    for (let c = 0; c < 3; c++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      data[at + c] = seed >>> 24;
    }
  }
  return Buffer.from(encodeJpeg({ width, height, data }, 95).data).toString('base64');
}

function onThisThread(base64: string): ReturnType<typeof fitImageToLimits> {
  const facts = readImage(base64);
  return 'problem' in facts ? facts : fitImageToLimits(base64, facts);
}

describe('images made fit off the calling thread', function () {
  this.timeout(120_000);
  let photo: string;
  before(() => {
    photo = noisyJpeg();
    assert.ok(photo.length > 5 * 1024 * 1024, 'the photo is over the limit');
  });
  const signal = () => new AbortController().signal;

  it('answers what fitImageToLimits answers, byte for byte, while this thread keeps answering pings', async () => {
    const { value: fitted, worstGapMs: worst, ticks: pings, tookMs: took } = await whileTicking(() => fitImageOffThread(photo, signal()));
    assert.deepEqual(fitted, onThisThread(photo));
    assert.ok(!('problem' in fitted) && fitted.width === 1568 && fitted.original?.width === 3000);
    // On this thread the resize would be one task as long as `took`: no ping at all meanwhile. (Loose
    // bounds: this tier runs in parallel on a shared machine; bench/images.ts measures the stall.)
    assert.ok(pings >= took / 10 / 8, `${pings} pings in ${took.toFixed(0)} ms`);
    assert.ok(worst < Math.max(250, took / 2), `the event loop stalled ${worst.toFixed(0)} ms of ${took.toFixed(0)} ms`);
  });

  it('answers an image that fits at once, as it is, and a wide one resized', async () => {
    const small = pngBase64(40, 30);
    assert.deepEqual(await fitImageOffThread(small, signal()), { mediaType: 'image/png', data: small, width: 40, height: 30 });
    const wide = pngBase64(9000, 60);
    assert.deepEqual(await fitImageOffThread(wide, signal()), onThisThread(wide));
  });

  it('refuses a large file that is no image, or whose data is broken, with the words it always had', async () => {
    const notAnImage = Buffer.alloc(3 * 1024 * 1024, 0x41).toString('base64');
    const refused = await fitImageOffThread(notAnImage, signal());
    assert.deepEqual(refused, onThisThread(notAnImage));
    assert.ok('problem' in refused && /not an image Evergreen can read/.test(refused.problem), JSON.stringify(refused).slice(0, 200));
    const bytes = Buffer.from(photo, 'base64');
    bytes.fill(0xff, 2_000, bytes.length - 2); // The header stays; the scan data is markers the decoder refuses.
    const broken = await fitImageOffThread(bytes.toString('base64'), signal());
    assert.ok('problem' in broken && /its JPEG data cannot be decoded to resize it/.test(broken.problem), JSON.stringify(broken).slice(0, 300));
  });

  it('a cancel ends the resize at once', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const fitting = fitImageOffThread(photo, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(fitting, (error: Error) => error.name === abortError().name);
    assert.ok(performance.now() - started < 1_000, 'not after the whole resize');
    await assert.rejects(fitImageOffThread(photo, controller.signal), (error: Error) => error.name === abortError().name, 'an aborted signal starts nothing');
  });
});

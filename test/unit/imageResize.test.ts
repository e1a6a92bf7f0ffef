/**
 * Image files over the models' limits are resized on the host (issue 17): a PNG or JPEG attached by
 * its path is decoded, scaled to 1568 px on its long edge and encoded again; one that fits goes as
 * it is; a GIF or WebP over the limits, a corrupt file and a header that claims too many pixels are
 * refused naming the file, before anything is sent.
 */
import assert from 'node:assert/strict';
import { decode as decodeJpeg, encode as encodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { readImage, type ImageFacts } from '../../src/core/model/images';
import { fitImageToLimits, MAX_DECODE_PIXELS } from '../../src/core/model/imageResize';
import { pngBytes } from '../support/images';
import { pixels, png, pngClaiming } from '../support/images';

/** A JPEG with an EXIF block that says how it is shown (orientation 1-8). */
function withOrientation(jpeg: Buffer, orientation: number): Buffer {
  const tiff = Buffer.from([0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0, 0, 0]);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'binary'), tiff]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(body.length + 2);
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xe1]), length, body, jpeg.subarray(2)]);
}

/** A JPEG whose frame header claims `width` x `height` (its data is of an 8x8 image). */
function jpegClaiming(width: number, height: number): Buffer {
  const bytes = Buffer.from(encodeJpeg({ width: 8, height: 8, data: Buffer.alloc(8 * 8 * 4, 200) }, 90).data);
  const frame = bytes.indexOf(Buffer.from([0xff, 0xc0]));
  bytes.writeUInt16BE(height, frame + 5);
  bytes.writeUInt16BE(width, frame + 7);
  return bytes;
}

function facts(bytes: Buffer): ImageFacts {
  const read = readImage(bytes.toString('base64'));
  if ('problem' in read) throw new Error(read.problem);
  return read;
}

function fit(bytes: Buffer) {
  return fitImageToLimits(bytes.toString('base64'), facts(bytes));
}

function decoded(data: string, mediaType: string): { width: number; height: number; data: Uint8Array } {
  const bytes = Buffer.from(data, 'base64');
  return mediaType === 'image/png' ? PNG.sync.read(bytes) : decodeJpeg(bytes, { useTArray: true, formatAsRGBA: true });
}

describe('fitImageToLimits', () => {
  it('leaves an image that fits as it is, whatever its size under the limits', () => {
    const bytes = pngBytes(8000, 10);
    const fitted = fit(bytes);
    assert.ok(!('problem' in fitted));
    assert.equal(fitted.data, bytes.toString('base64'));
    assert.equal(fitted.original, undefined);
  });

  it('a PNG still over 5 MB as PNG after resizing becomes a JPEG', function () {
    this.timeout(60_000);
    const noisy = png(1600, 1200, pixels(1600, 1200, 256));
    assert.ok(noisy.toString('base64').length > 5 * 1024 * 1024);
    const fitted = fit(noisy);
    assert.ok(!('problem' in fitted), 'problem' in fitted ? fitted.problem : '');
    assert.deepEqual([fitted.mediaType, fitted.width, fitted.height, fitted.original], ['image/jpeg', 1568, 1176, { mediaType: 'image/png', width: 1600, height: 1200 }]);
    const read = readImage(fitted.data);
    assert.ok(!('problem' in read) && read.mediaType === 'image/jpeg' && read.width === 1568);
  });

  it('averages the pixels each new pixel covers, so fine detail turns grey instead of vanishing', () => {
    // Black and white columns, 9408 px wide: a sixth of that is 1568, so every new pixel covers three of each.
    const width = 9408;
    const data = Buffer.alloc(width * 6 * 4, 255);
    for (let at = 0; at < data.length; at += 8) data.fill(0, at, at + 3);
    const fitted = fit(png(width, 6, data));
    assert.ok(!('problem' in fitted), 'problem' in fitted ? fitted.problem : '');
    assert.deepEqual([fitted.mediaType, fitted.width, fitted.height], ['image/png', 1568, 1]);
    const out = decoded(fitted.data, fitted.mediaType);
    for (const x of [0, 700, 1567]) assert.deepEqual([...out.data.subarray(x * 4, x * 4 + 4)], [128, 128, 128, 255], `pixel ${x}`);
  });

  it('keeps transparency, and transparent pixels lend no colour to their neighbours', () => {
    // Clear black, then opaque red from x = 4707: a sixth of 9408 is 1568, so new pixel 784 covers 3 px of each.
    const width = 9408;
    const data = Buffer.alloc(width * 4 * 4, 0);
    for (let y = 0; y < 4; y++) for (let x = 4707; x < width; x++) data.set([255, 0, 0, 255], (y * width + x) * 4);
    const fitted = fit(png(width, 4, data, 6));
    assert.ok(!('problem' in fitted), 'problem' in fitted ? fitted.problem : '');
    assert.deepEqual([fitted.mediaType, fitted.width, fitted.height], ['image/png', 1568, 1]);
    const out = decoded(fitted.data, fitted.mediaType);
    const pixel = (x: number) => [...out.data.subarray(x * 4, x * 4 + 4)];
    assert.deepEqual(pixel(0), [0, 0, 0, 0]);
    assert.deepEqual(pixel(1567), [255, 0, 0, 255]);
    const seam = pixel(784);
    assert.equal(seam[3], 128, `the seam is half clear (${seam})`);
    assert.deepEqual(seam.slice(0, 3), [255, 0, 0], 'and still red, not darkened by the clear black');
  });

  it("turns a photo as its EXIF orientation says, since the new file has no EXIF", () => {
    // Stored 9000x100, left half red and right half blue; orientation 6 shows it turned a quarter clockwise: red on top.
    const width = 9000;
    const data = Buffer.alloc(width * 100 * 4);
    for (let at = 0; at < data.length; at += 4) data.set((at / 4) % width < width / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], at);
    const fitted = fit(withOrientation(Buffer.from(encodeJpeg({ width, height: 100, data }, 90).data), 6));
    assert.ok(!('problem' in fitted), 'problem' in fitted ? fitted.problem : '');
    assert.deepEqual([fitted.mediaType, fitted.width, fitted.height, fitted.original], ['image/jpeg', 17, 1568, { mediaType: 'image/jpeg', width: 100, height: 9000 }]);
    const out = decoded(fitted.data, fitted.mediaType);
    const pixel = (x: number, y: number) => [...out.data.subarray((y * out.width + x) * 4, (y * out.width + x) * 4 + 3)];
    const near = (got: number[], want: number[]) => got.every((value, index) => Math.abs(value - want[index]!) < 40);
    assert.ok(near(pixel(8, 10), [255, 0, 0]), `red on top (${pixel(8, 10)})`);
    assert.ok(near(pixel(8, 1550), [0, 0, 255]), `blue below (${pixel(8, 1550)})`);
  });

  it(`refuses a PNG or JPEG whose header claims more than ${MAX_DECODE_PIXELS / 1e6} megapixels before decoding it`, () => {
    for (const bytes of [pngClaiming(10_000, 6_000), jpegClaiming(10_000, 6_000)]) {
      const fitted = fit(bytes);
      assert.ok('problem' in fitted);
      assert.match(fitted.problem, /it is 10000x6000 px \(60 megapixels\); Evergreen resizes images of at most 50 megapixels: make it smaller first/);
    }
  });

  it('refuses a WebP over the limits with the limit and what to do', () => {
    // A lossy WebP header (VP8) claiming 9000x10.
    const vp8 = Buffer.alloc(30);
    vp8.write('RIFF', 0, 'ascii');
    vp8.writeUInt32LE(22, 4);
    vp8.write('WEBPVP8 ', 8, 'ascii');
    vp8.writeUInt32LE(10, 16);
    vp8.set([0x9d, 0x01, 0x2a], 23);
    vp8.writeUInt16LE(9000, 26);
    vp8.writeUInt16LE(10, 28);
    const fitted = fit(vp8);
    assert.ok('problem' in fitted);
    assert.match(fitted.problem, /9000x10 px; the models take at most 8000 px a side, and Evergreen resizes only PNG and JPEG images: convert it to PNG or JPEG/);
  });
});

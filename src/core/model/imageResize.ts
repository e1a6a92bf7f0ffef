/**
 * An image file made fit for the models on the host (issue 17), as the chat panel does for a pasted
 * one with a canvas (webview/imageFit.ts): an image that fits is sent as it is, byte for byte; a
 * PNG or JPEG over the limits (images.ts) is decoded, scaled to at most NATIVE_LONG_EDGE px on its
 * long edge (the models see no more), and encoded again: a PNG as PNG, or as JPEG when that is still
 * too large. The host has no canvas and the extension no native modules, so the decoders are pure
 * JavaScript (pngjs, jpeg-js). GIF and WebP over the limits are refused: decoders for them would
 * cost the package more than such files are worth.
 *
 * The bytes are untrusted (any file of the workspace, which the model may have written): an image
 * whose header claims more than MAX_DECODE_PIXELS is refused before anything is decoded, and the
 * decoders keep their own limits (pngjs inflates no more than the header's size; jpeg-js counts its
 * memory).
 */
import { decode as decodeJpeg, encode as encodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { imageSize } from 'image-size';
import type { ImageMediaType } from './messages';
import { IMAGE_LIMITS, NATIVE_LONG_EDGE } from './imageLimits';
import { imageLimitProblem, type ImageFacts } from './images';

/** Pixels decoded at most (a 50 MP phone photo fits; 4 bytes a pixel, so about 200 MB). */
export const MAX_DECODE_PIXELS = 50_000_000;
/** jpeg-js's own count of what it allocates (its blocks and the pixels); a 50 MP 4:2:0 photo needs about 500 MB. */
const JPEG_MAX_MEMORY_MB = 512;
/** JPEG qualities tried in turn (the first is near-lossless to the eye; the second only when the first is still too large). */
const JPEG_QUALITIES = [85, 70] as const;

export interface FittedImage {
  mediaType: ImageMediaType;
  /** Base64. */
  data: string;
  width: number;
  height: number;
  /** What the image was when it was decoded and encoded again (sides as shown, EXIF orientation applied); absent when it is sent as it is. */
  original?: { mediaType: ImageMediaType; width: number; height: number };
}

interface Pixels {
  width: number;
  height: number;
  /** RGBA, 8 bits a channel. */
  data: Uint8Array;
}

const megabytes = (chars: number) => `${(chars / (1024 * 1024)).toFixed(1)} MB`;

/**
 * The image as the models may take it, or why it cannot be made so. `facts` are readImage's for
 * `base64` (the type read from the bytes). The work is synchronous: a 12 MP photo takes a second or more.
 */
export function fitImageToLimits(base64: string, facts: ImageFacts): FittedImage | { problem: string } {
  const overLimit = imageLimitProblem(facts, base64.length);
  if (!overLimit) return { mediaType: facts.mediaType, data: base64, width: facts.width, height: facts.height };
  if (facts.mediaType !== 'image/png' && facts.mediaType !== 'image/jpeg') {
    return { problem: `${overLimit}, and Evergreen resizes only PNG and JPEG images: convert it to PNG or JPEG, or make it smaller, first` };
  }
  if (facts.width * facts.height > MAX_DECODE_PIXELS) {
    return { problem: `it is ${facts.width}x${facts.height} px (${Math.round((facts.width * facts.height) / 1e6)} megapixels); Evergreen resizes images of at most ${MAX_DECODE_PIXELS / 1e6} megapixels: make it smaller first` };
  }
  const bytes = Buffer.from(base64, 'base64');
  let pixels: Pixels;
  try {
    pixels = facts.mediaType === 'image/png' ? decodePng(bytes) : decodeJpg(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { problem: `it is too large for the models (${overLimit}) and its ${facts.mediaType === 'image/png' ? 'PNG' : 'JPEG'} data cannot be decoded to resize it (${reason}): resize it, or save it again, first` };
  }
  const scale = Math.min(1, NATIVE_LONG_EDGE / Math.max(pixels.width, pixels.height));
  const resized = scale < 1 ? resizeArea(pixels, Math.max(1, Math.round(pixels.width * scale)), Math.max(1, Math.round(pixels.height * scale))) : pixels;
  const orientation = facts.mediaType === 'image/jpeg' ? jpegOrientation(bytes) : 1;
  // The new file carries no EXIF, so the rotation it asked for is done here (the panel's canvas does the same).
  const shown = orient(resized, orientation);
  const original = { mediaType: facts.mediaType, ...(orientation >= 5 ? { width: pixels.height, height: pixels.width } : { width: pixels.width, height: pixels.height }) };
  const encodings: { mediaType: ImageMediaType; encode: () => Buffer }[] = [
    ...(facts.mediaType === 'image/png' ? [{ mediaType: 'image/png' as const, encode: () => encodePng(shown) }] : []),
    ...JPEG_QUALITIES.map((quality) => ({ mediaType: 'image/jpeg' as const, encode: () => encodeJpg(shown, quality) })),
  ];
  for (const { mediaType, encode } of encodings) {
    const data = encode().toString('base64');
    if (data.length <= IMAGE_LIMITS.maxBase64Chars) return { mediaType, data, width: shown.width, height: shown.height, original };
  }
  return { problem: `it stays over ${megabytes(IMAGE_LIMITS.maxBase64Chars)} as base64 even at ${shown.width}x${shown.height} px as JPEG: make it smaller first` };
}

function decodePng(bytes: Buffer): Pixels {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: png.data };
}

function decodeJpg(bytes: Buffer): Pixels {
  const jpeg = decodeJpeg(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_DECODE_PIXELS / 1e6, maxMemoryUsageInMB: JPEG_MAX_MEMORY_MB });
  return { width: jpeg.width, height: jpeg.height, data: jpeg.data };
}

function encodePng(image: Pixels): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  // An opaque image is written without its alpha channel: a quarter smaller.
  let opaque = true;
  for (let i = 3; i < image.data.length && opaque; i += 4) opaque = image.data[i] === 255;
  return PNG.sync.write(png, { colorType: opaque ? 2 : 6 });
}

function encodeJpg(image: Pixels, quality: number): Buffer {
  // JPEG has no transparency: what shows through is white, as on a page (jpeg-js would drop alpha and leave the colours of transparent pixels, often black).
  const flat = new Uint8Array(image.data.length);
  for (let i = 0; i < image.data.length; i += 4) {
    const alpha = image.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) flat[i + c] = Math.round(image.data[i + c]! * alpha + 255 * (1 - alpha));
    flat[i + 3] = 255;
  }
  return encodeJpeg({ width: image.width, height: image.height, data: flat }, quality).data;
}

/** For each pixel of a line of `to` pixels, the first pixel of the line of `from` it covers and how much of each. */
function coverage(from: number, to: number): { first: number; weights: number[] }[] {
  const scale = from / to;
  return Array.from({ length: to }, (_, index) => {
    const start = index * scale;
    const end = Math.min(from, (index + 1) * scale);
    const first = Math.floor(start);
    const weights: number[] = [];
    for (let source = first; source < end; source++) weights.push((Math.min(end, source + 1) - Math.max(start, source)) / scale);
    return { first, weights };
  });
}

/**
 * Scaled down by area averaging (each new pixel the mean of the pixels it covers): the filter for
 * shrinking, which keeps thin lines and text legible where sampling would drop them. Colours are
 * weighted by their alpha, so transparent pixels lend no colour to the edges. One row of
 * accumulators, whatever the image's size. (No small pure-JS resizer does this: pica is built for
 * browsers and workers; resize-image-data only samples.)
 */
function resizeArea(image: Pixels, width: number, height: number): Pixels {
  const columns = coverage(image.width, width);
  const rows = coverage(image.height, height);
  const out = new Uint8Array(width * height * 4);
  const line = new Float64Array(width * 4);
  const sum = new Float64Array(width * 4);
  for (let y = 0; y < height; y++) {
    sum.fill(0);
    const { first: firstRow, weights: rowWeights } = rows[y]!;
    for (let r = 0; r < rowWeights.length; r++) {
      const rowStart = (firstRow + r) * image.width * 4;
      line.fill(0);
      for (let x = 0; x < width; x++) {
        const { first, weights } = columns[x]!;
        let red = 0, green = 0, blue = 0, alpha = 0;
        for (let k = 0; k < weights.length; k++) {
          const at = rowStart + (first + k) * 4;
          const weight = weights[k]! * image.data[at + 3]!;
          red += image.data[at]! * weight;
          green += image.data[at + 1]! * weight;
          blue += image.data[at + 2]! * weight;
          alpha += weight;
        }
        line[x * 4] = red;
        line[x * 4 + 1] = green;
        line[x * 4 + 2] = blue;
        line[x * 4 + 3] = alpha;
      }
      const rowWeight = rowWeights[r]!;
      for (let i = 0; i < line.length; i++) sum[i] = sum[i]! + line[i]! * rowWeight;
    }
    for (let x = 0; x < width; x++) {
      const alpha = sum[x * 4 + 3]!;
      const at = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) out[at + c] = alpha > 0 ? Math.round(sum[x * 4 + c]! / alpha) : 0;
      out[at + 3] = Math.round(alpha);
    }
  }
  return { width, height, data: out };
}

/** The EXIF orientation of a JPEG (1-8; 1 when it has none or it cannot be read). */
function jpegOrientation(bytes: Buffer): number {
  try {
    const orientation = imageSize(bytes).orientation;
    return orientation !== undefined && orientation >= 1 && orientation <= 8 ? orientation : 1;
  } catch {
    return 1; // The size was read from these bytes already; only the orientation is missing, and upright is the default.
  }
}

/** The image turned as EXIF orientation `orientation` says it is shown (2-8 mirror and rotate it; 5-8 swap its sides). */
function orient(image: Pixels, orientation: number): Pixels {
  if (orientation === 1) return image;
  const { width, height } = image;
  const swapped = orientation >= 5;
  const outWidth = swapped ? height : width;
  const outHeight = swapped ? width : height;
  const out = new Uint8Array(image.data.length);
  // For each shown pixel (x, y), the stored pixel it comes from.
  const source: (x: number, y: number) => [number, number] = {
    2: (x: number, y: number): [number, number] => [width - 1 - x, y],
    3: (x: number, y: number): [number, number] => [width - 1 - x, height - 1 - y],
    4: (x: number, y: number): [number, number] => [x, height - 1 - y],
    5: (x: number, y: number): [number, number] => [y, x],
    6: (x: number, y: number): [number, number] => [y, height - 1 - x],
    7: (x: number, y: number): [number, number] => [width - 1 - y, height - 1 - x],
    8: (x: number, y: number): [number, number] => [width - 1 - y, x],
  }[orientation]!;
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      const [sx, sy] = source(x, y);
      const from = (sy * width + sx) * 4;
      const to = (y * outWidth + x) * 4;
      for (let c = 0; c < 4; c++) out[to + c] = image.data[from + c]!;
    }
  }
  return { width: outWidth, height: outHeight, data: out };
}

/**
 * Real image bytes of any size, made here (no binary fixtures): a PNG is a valid, all-black
 * 1-bit grayscale image whose rows deflate to almost nothing, so even 9000x9000 is a few KB.
 */
import { deflateSync, crc32 } from 'node:zlib';
import { PNG } from 'pngjs';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG of `width` x `height` pixels. */
export function pngBytes(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // grayscale
  const row = 1 + Math.ceil(width / 8);
  const pixels = deflateSync(Buffer.alloc(row * height));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

export function pngBase64(width: number, height: number): string {
  return pngBytes(width, height).toString('base64');
}

/** A GIF header of `width` x `height` (enough for anything that reads an image's type and size). */
export function gifBase64(width: number, height: number): string {
  const bytes = Buffer.from('GIF89a\0\0\0\0\0\0\0;', 'binary');
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes.toString('base64');
}

/**
 * RGBA pixels: a diagonal gradient with `noise` levels of seeded noise on top (noise keeps the files
 * large, as photos are), in the first `noisyRows` rows; flat grey below (as most of a screenshot is).
 */
export function pixels(width: number, height: number, noise: number, noisyRows = height): Buffer {
  const data = Buffer.alloc(width * height * 4, 128);
  let seed = 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      for (let c = 0; c < 3 && y < noisyRows; c++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        data[at + c] = ((x * 7 + y * 3 + c * 50) / 20 + ((seed >>> 24) % noise)) & 255;
      }
      data[at + 3] = 255;
    }
  }
  return data;
}

/** A PNG of these RGBA pixels (colour type 2 drops the alpha). */
export function png(width: number, height: number, data: Buffer, colorType: 2 | 6 = 2): Buffer {
  const image = new PNG({ width, height });
  image.data = data;
  return PNG.sync.write(image, { colorType });
}

/** A valid PNG whose header claims `width` x `height` (its pixel data is of a 1x1 image). */
export function pngClaiming(width: number, height: number): Buffer {
  const bytes = Buffer.from(pngBytes(1, 1));
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes.writeUInt32BE(crc32(bytes.subarray(12, 29)), 29);
  return bytes;
}

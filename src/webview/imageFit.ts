/**
 * A pasted or dropped image made fit for the models before it leaves the panel (issue 17): one of a
 * type they take, at most 5 MB as base64 and 8000 px a side (model/imageLimits.ts). An image that
 * already fits is sent as it is; any other is drawn on a canvas at most NATIVE_LONG_EDGE px long
 * (the models see no more than that) and encoded as PNG, or JPEG when PNG is too large.
 */
import { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, NATIVE_LONG_EDGE } from '../protocol';
import { t } from './strings';

export interface FittedImage {
  /** Base64, without the data-URL prefix. */
  data: string;
  /** Set when the image was converted: what it was and what it became, for the chip. */
  resized?: string;
}

function readBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^;]*;base64,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error(t('image.unreadable')));
    reader.readAsDataURL(file);
  });
}

export async function fitImage(file: File): Promise<FittedImage> {
  const bitmap = await createImageBitmap(file);
  const { width, height } = bitmap;
  const takenAsIs = (IMAGE_MEDIA_TYPES as readonly string[]).includes(file.type) && width <= IMAGE_LIMITS.maxSide && height <= IMAGE_LIMITS.maxSide;
  if (takenAsIs) {
    const data = await readBase64(file);
    if (data.length <= IMAGE_LIMITS.maxBase64Chars) return { data };
  }
  const scale = Math.min(1, NATIVE_LONG_EDGE / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext('2d');
  if (!context) throw new Error(t('image.noCanvas'));
  context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  for (const [type, quality] of [['image/png', undefined], ['image/jpeg', 0.9], ['image/jpeg', 0.75]] as const) {
    const data = canvas.toDataURL(type, quality).replace(/^data:[^;]*;base64,/, '');
    if (data.length <= IMAGE_LIMITS.maxBase64Chars) return { data, resized: `${width}x${height} → ${canvas.width}x${canvas.height} ${type.slice(6).toUpperCase()}` };
  }
  throw new Error(t('image.tooLarge', IMAGE_LIMITS.maxBase64Chars / (1024 * 1024), canvas.width, canvas.height));
}

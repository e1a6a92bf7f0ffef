/**
 * The numbers of images.ts that the chat panel needs too (it resizes a pasted screenshot before it
 * is sent), apart so the panel's bundle takes no image decoder with them. Sources: images.ts.
 */
import type { ImageMediaType } from './messages';

export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/** The file name extension of each image type, for images saved to the session folder. */
export const IMAGE_EXTENSIONS: Readonly<Record<ImageMediaType, string>> = { 'image/jpeg': '.jpg', 'image/png': '.png', 'image/gif': '.gif', 'image/webp': '.webp' };

/** What one image may be to be sent at all (the strictest provider's: a session may change provider). */
export const IMAGE_LIMITS = {
  /** Base64 characters of one image (Anthropic's 5 MB). */
  maxBase64Chars: 5 * 1024 * 1024,
  /** Pixels on either side (Anthropic's 8000). */
  maxSide: 8000,
} as const;

/** Anthropic's scaling before it counts (long edge 1568 px, about 1.15 megapixels): a larger image shows the model nothing more. */
export const NATIVE_LONG_EDGE = 1568;

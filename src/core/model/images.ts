/**
 * Images in the conversation: what an image is (its real type and size, read from its bytes),
 * what it costs in tokens, how it is named in text, and what each provider accepts. One
 * definition for the tools that return images, the context engine's estimates, the transcript and
 * both back ends.
 *
 * The providers' limits (checked 2026-11):
 * - Anthropic, https://platform.claude.com/docs/en/build-with-claude/vision ("General limits"):
 *   JPEG, PNG, GIF and WebP; an image at most 8000x8000 px, and at most 2000x2000 px once a
 *   request holds more than 20 images; an image at most 5 MB (the API measures the base64 text:
 *   "image exceeds 5 MB maximum: N bytes > 5242880 bytes"); a request at most 32 MB. The page now
 *   says up to 600 images a request, but requests with more than 100 have been refused ("Too much
 *   media: 0 document pages + 103 images > 100", anthropics/claude-code#3397), so 100 is kept.
 *   An image costs about width*height/750 tokens after it is scaled to fit 1568 px on its long
 *   edge and about 1.15 megapixels (the same page, "Evaluate image size").
 * - OpenAI (Chat Completions): PNG, JPEG, WebP and non-animated GIF; up to 500 images and 50 MB a
 *   request. Compatible servers vary (some take a handful of images, some none).
 * An image outside these limits is never sent: it would fail every later request of the session.
 */
import { imageSize } from 'image-size';
import type { ImageBlockParam, ImageMediaType, MessageParam, ContentBlockParam, TextBlockParam } from './messages';
import type { ProviderId } from './providers';

import { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, NATIVE_LONG_EDGE } from './imageLimits';

export { IMAGE_LIMITS, IMAGE_MEDIA_TYPES } from './imageLimits';

/** What one request may hold, by provider. */
export interface RequestImageLimits {
  maxImages: number;
  /** Above `count` images in a request, every image must fit `maxSide` on both sides. */
  manyImages?: { count: number; maxSide: number };
  /** Base64 characters of all images together, below the request size limit with room for the rest. */
  maxTotalBase64Chars: number;
}

export const REQUEST_IMAGE_LIMITS: Readonly<Record<ProviderId, RequestImageLimits>> = {
  anthropic: { maxImages: 100, manyImages: { count: 20, maxSide: 2000 }, maxTotalBase64Chars: 24 * 1024 * 1024 },
  openai: { maxImages: 500, maxTotalBase64Chars: 40 * 1024 * 1024 },
};

/** An image's facts, read from its bytes. */
export interface ImageFacts {
  mediaType: ImageMediaType;
  width: number;
  height: number;
  /** Decoded bytes. */
  bytes: number;
}

const TYPE_BY_DETECTED: Readonly<Record<string, ImageMediaType>> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The facts of a base64 image, or why it cannot be read: not base64, not an image, or of a type no
 * provider takes. The type comes from the bytes, never from what the sender claimed.
 */
export function readImage(base64: string): ImageFacts | { problem: string } {
  if (base64.length === 0) return { problem: 'it is empty' };
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) return { problem: 'its data is not valid base64' };
  const bytes = Buffer.from(base64, 'base64');
  let detected: ReturnType<typeof imageSize>;
  try {
    detected = imageSize(bytes);
  } catch (error) {
    return { problem: `its bytes are not an image Evergreen can read (${error instanceof Error ? error.message : String(error)})` };
  }
  const mediaType = TYPE_BY_DETECTED[detected.type ?? ''];
  if (!mediaType) return { problem: `it is a ${detected.type ?? 'unknown'} image; the models take ${IMAGE_MEDIA_TYPES.join(', ')}` };
  if (!detected.width || !detected.height) return { problem: 'its size cannot be read from its bytes' };
  return { mediaType, width: detected.width, height: detected.height, bytes: bytes.length };
}

/** Why an image of these facts may not be sent at all, or undefined when it may. */
export function imageLimitProblem(facts: ImageFacts, base64Chars: number): string | undefined {
  if (base64Chars > IMAGE_LIMITS.maxBase64Chars) return `it is ${(base64Chars / (1024 * 1024)).toFixed(1)} MB as base64; the models take at most ${IMAGE_LIMITS.maxBase64Chars / (1024 * 1024)} MB an image`;
  if (facts.width > IMAGE_LIMITS.maxSide || facts.height > IMAGE_LIMITS.maxSide) return `it is ${facts.width}x${facts.height} px; the models take at most ${IMAGE_LIMITS.maxSide} px a side`;
  return undefined;
}

const NATIVE_PIXELS = 1_150_000;
const PIXELS_PER_TOKEN = 750;
/** What an image that cannot be read is assumed to cost (the cost of a full-size one). */
const UNKNOWN_IMAGE_TOKENS = Math.ceil(NATIVE_PIXELS / PIXELS_PER_TOKEN);

/** Tokens an image of this size costs (Anthropic's formula; OpenAI's tiles come out in the same range). */
export function imageTokens(width: number, height: number): number {
  const scale = Math.min(1, NATIVE_LONG_EDGE / Math.max(width, height), Math.sqrt(NATIVE_PIXELS / (width * height)));
  return Math.max(1, Math.ceil((width * scale * (height * scale)) / PIXELS_PER_TOKEN));
}

// Blocks are never mutated: their facts are read once.
const factsCache = new WeakMap<ImageBlockParam, ImageFacts | undefined>();

/** The facts of an image block (undefined for a URL image or bytes that cannot be read). */
export function imageBlockFacts(block: ImageBlockParam): ImageFacts | undefined {
  if (factsCache.has(block)) return factsCache.get(block);
  const read = block.source.type === 'base64' ? readImage(block.source.data) : undefined;
  const facts = read && !('problem' in read) ? read : undefined;
  factsCache.set(block, facts);
  return facts;
}

/** Tokens an image block costs in a prompt. */
export function imageBlockTokens(block: ImageBlockParam): number {
  const facts = imageBlockFacts(block);
  return facts ? imageTokens(facts.width, facts.height) : UNKNOWN_IMAGE_TOKENS;
}

/** An image named in text, never its bytes: "[image: image/png, 120x80]". */
export function imageText(block: ImageBlockParam): string {
  if (block.source.type === 'url') return `[image: ${block.source.url}]`;
  const facts = imageBlockFacts(block);
  return facts ? `[image: ${block.source.media_type}, ${facts.width}x${facts.height}]` : `[image: ${block.source.media_type}, unreadable]`;
}

type ResultPart = TextBlockParam | ImageBlockParam;

/**
 * The messages with every image a provider would refuse in this request replaced by its text and
 * why: beyond the image count or total size (the oldest go first, the newest are what the model
 * needs), and over the many-image side limit. Pure and deterministic, so the same history gives
 * the same request; the same messages come back when nothing applies.
 */
export function fitImagesToRequest(messages: readonly MessageParam[], limits: RequestImageLimits): readonly MessageParam[] {
  const images: ImageBlockParam[] = [];
  const collect = (block: ContentBlockParam | ResultPart) => {
    if (block.type === 'image') images.push(block);
    else if (block.type === 'tool_result' && Array.isArray(block.content)) for (const part of block.content) collect(part);
  };
  for (const message of messages) if (typeof message.content !== 'string') for (const block of message.content) collect(block);
  if (images.length === 0) return messages;
  const dropped = new Map<ImageBlockParam, string>();
  let kept = 0;
  let total = 0;
  for (let index = images.length - 1; index >= 0; index--) {
    const image = images[index]!;
    const chars = image.source.type === 'base64' ? image.source.data.length : 0;
    if (kept >= limits.maxImages) dropped.set(image, `not sent: the request holds more than ${limits.maxImages} images`);
    else if (total + chars > limits.maxTotalBase64Chars) dropped.set(image, 'not sent: the images of the request would exceed its size limit');
    else {
      kept++;
      total += chars;
    }
  }
  const many = limits.manyImages;
  if (many && kept > many.count) {
    for (const image of images) {
      const facts = imageBlockFacts(image);
      if (!dropped.has(image) && facts && (facts.width > many.maxSide || facts.height > many.maxSide)) dropped.set(image, `not sent: over ${many.maxSide} px a side, too large for a request of more than ${many.count} images`);
    }
  }
  if (dropped.size === 0) return messages;
  const replace = <T extends ContentBlockParam | ResultPart>(block: T): T | TextBlockParam => {
    if (block.type === 'image') {
      const why = dropped.get(block);
      return why === undefined ? block : { type: 'text', text: `${imageText(block)} (${why})` };
    }
    if (block.type === 'tool_result' && Array.isArray(block.content)) return { ...block, content: block.content.map((part) => replace(part)) };
    return block;
  };
  return messages.map((message) => (typeof message.content === 'string' ? message : ({ ...message, content: message.content.map((block) => replace(block)) } as MessageParam)));
}

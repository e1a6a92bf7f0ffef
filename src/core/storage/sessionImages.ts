/**
 * Images of a session's messages as files of its folder (`images/<sha256>.<ext>`), so the archived
 * transcript tab can link each one and VS Code opens it in its image viewer. Content-addressed:
 * the same picture is one file however often it is attached or the tab is drawn.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { ImageMediaType } from '../model/messages';
import { IMAGE_EXTENSIONS } from '../model/imageLimits';
import { writeFileOnceAtomic } from '../workspace/atomicWrite';

export interface SessionImage {
  mediaType: ImageMediaType;
  /** Base64, as the message holds it. */
  data: string;
}

/** Where the image is (or will be) saved in the session folder. */
export function sessionImagePath(sessionDir: string, image: SessionImage): string {
  const digest = createHash('sha256').update(image.data).digest('hex').slice(0, 32);
  return path.join(sessionDir, 'images', `${digest}${IMAGE_EXTENSIONS[image.mediaType]}`);
}

/** Saves the image at its path unless it is there already; returns the path. */
export async function saveSessionImage(sessionDir: string, image: SessionImage): Promise<string> {
  const file = sessionImagePath(sessionDir, image);
  await writeFileOnceAtomic(file, Buffer.from(image.data, 'base64'));
  return file;
}

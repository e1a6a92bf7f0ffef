/**
 * Context the user attaches to a message (issue 17): a file or part of one, a folder's listing,
 * or text a front end gathered (the editor's selection, the problems, a terminal's last command,
 * the working tree's diff). Snapshotted at send time into the user message, so the transcript,
 * a resume and the model all see the same bytes.
 *
 * Files and folders are read by the read_file and list_files tools themselves (one definition of
 * confinement, binary and FIFO refusal, encodings and paging), then every attachment goes through
 * tier 0 like a tool result: a huge one is saved whole and the message carries its head, tail and
 * path, never refused for size.
 */
import { promises as fsp } from 'node:fs';
import { splitLineRange } from './lineRange';
import type { ContentBlockParam, TextBlockParam } from '../model/messages';
import { ATTACHMENT_CLOSE, ATTACHMENT_OPEN, attachmentOfText } from '../model/content';
import type { ToolRegistry } from '../tools/registry';
import type { ToolContext, ToolImage } from '../tools/types';
import { openForRead } from '../workspace/workspace';
import { fitImageOffThread } from '../model/imageFitOffThread';

/** What a front end asks to attach. Lines are 1-based and inclusive. */
export type AttachmentSpec =
  | { kind: 'file'; path: string; fromLine?: number; toLine?: number }
  | { kind: 'folder'; path: string }
  /** Gathered by the front end: `label` names it on the chip ("selection: src/a.ts:3-9"). */
  | { kind: 'selection' | 'problems' | 'terminal' | 'git-changes'; label: string; text: string }
  /** A pasted or dropped image (`data`: base64), or an image file of the workspace (`path`). */
  | { kind: 'image'; name: string; data: string }
  | { kind: 'image'; path: string };

export type AttachmentKind = AttachmentSpec['kind'];

/** An attachment read and ready for the message (before tier 0). */
export interface ResolvedAttachment {
  kind: AttachmentKind;
  label: string;
  text: string;
  /** An image attachment's image (checked against the providers' limits); `text` names it. */
  image?: ToolImage;
}

/** Image files by name: `@shot.png` and `--image` attach them as images, not as text. */
const IMAGE_FILE = /\.(png|jpe?g|gif|webp)$/i;
/** An image file is read whole only up to this size (one over the models' limits is resized: model/imageResize.ts). */
const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;

/** An attachment that cannot be used: the message is not sent, and nothing is lost. */
export class AttachmentError extends Error {}

/** Files in a folder's listing, at most (the rest are counted). */
const FOLDER_LISTING_MAX = 500;

const OPEN = ATTACHMENT_OPEN;
const CLOSE = ATTACHMENT_CLOSE;

/** `path`, `path:12` or `path:10-40` (the CLI's --attach and the composer's @file). */
export function parseFileAttachment(value: string): Extract<AttachmentSpec, { kind: 'file' }> {
  const { path, range } = splitLineRange(value);
  if (!range) {
    if (value.trim() === '') throw new AttachmentError('an attachment needs a path');
    return { kind: 'file', path };
  }
  if (!range.valid) throw new AttachmentError(`"${value}": lines go from 1 up, and the range must not run backwards (e.g. src/app.ts:10-40)`);
  return { kind: 'file', path, fromLine: range.fromLine, toLine: range.toLine };
}

function labelOf(spec: AttachmentSpec): string {
  if (spec.kind === 'file') return spec.fromLine === undefined ? spec.path : `${spec.path}:${spec.fromLine}${spec.toLine !== spec.fromLine ? `-${spec.toLine}` : ''}`;
  if (spec.kind === 'folder') return `${spec.path.replace(/\/+$/, '') || '.'}/`;
  if (spec.kind === 'image') return 'path' in spec ? spec.path : spec.name;
  return spec.label;
}

/** Reads each attachment now; throws AttachmentError naming the first one that cannot be used. */
export async function resolveAttachments(specs: readonly AttachmentSpec[], tools: ToolRegistry, ctx: ToolContext): Promise<ResolvedAttachment[]> {
  const resolved: ResolvedAttachment[] = [];
  for (const given of specs) {
    const spec = await folderIfDirectory(given, ctx);
    const label = labelOf(spec);
    if (spec.kind === 'image' || (spec.kind === 'file' && spec.fromLine === undefined && IMAGE_FILE.test(spec.path))) {
      const data = spec.kind === 'image' && 'data' in spec ? spec.data : await readImageFile(spec.path, label, ctx);
      resolved.push(await imageAttachment(label, data, ctx.signal));
      continue;
    }
    if (spec.kind !== 'file' && spec.kind !== 'folder') {
      if (spec.text.trim() === '') throw new AttachmentError(`${label} is empty; nothing to attach`);
      resolved.push({ kind: spec.kind, label, text: spec.text });
      continue;
    }
    const input =
      spec.kind === 'file'
        ? { path: spec.path, ...(spec.fromLine !== undefined ? { offset: spec.fromLine, limit: (spec.toLine ?? spec.fromLine) - spec.fromLine + 1 } : {}) }
        : { path: spec.path, pattern: '**/*' };
    const result = await tools.executeToolCall(spec.kind === 'file' ? 'read_file' : 'list_files', input, ctx);
    if (result.isError) throw new AttachmentError(`cannot attach ${label}: ${result.content}`);
    const text = spec.kind === 'folder' ? capListing(result.content) : result.content;
    resolved.push({ kind: spec.kind, label, text });
  }
  return resolved;
}

/** A path without a line range that names a folder is that folder's listing. */
async function folderIfDirectory(spec: AttachmentSpec, ctx: ToolContext): Promise<AttachmentSpec> {
  if (spec.kind !== 'file' || spec.fromLine !== undefined) return spec;
  const real = await ctx.workspace.resolve(spec.path).catch(() => undefined);
  const stat = real === undefined ? undefined : await fsp.stat(real).catch(() => undefined);
  return stat?.isDirectory() ? { kind: 'folder', path: spec.path } : spec;
}

async function readImageFile(file: string, label: string, ctx: ToolContext): Promise<string> {
  try {
    const real = await ctx.workspace.resolve(file);
    const handle = await openForRead(ctx.workspace, real);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new AttachmentError(`cannot attach ${label}: it is not a regular file`);
      if (stat.size > MAX_IMAGE_FILE_BYTES) throw new AttachmentError(`cannot attach ${label}: the image is ${(stat.size / (1024 * 1024)).toFixed(1)} MB; Evergreen resizes image files of at most ${MAX_IMAGE_FILE_BYTES / (1024 * 1024)} MB. Resize or recompress it first`);
      return (await handle.readFile()).toString('base64');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof AttachmentError) throw error;
    throw new AttachmentError(`cannot attach ${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** An image the models can take (resized off this thread when it is over their limits), named in words; anything else is refused with why and what to do. */
async function imageAttachment(label: string, data: string, signal: AbortSignal): Promise<ResolvedAttachment> {
  const fitted = await fitImageOffThread(data, signal);
  if ('problem' in fitted) throw new AttachmentError(`cannot attach ${label}: ${fitted.problem}`);
  const { original } = fitted;
  const was = !original ? '' : original.width !== fitted.width || original.height !== fitted.height ? `, resized from ${original.width}x${original.height}` : `, recompressed from ${original.mediaType}`;
  return { kind: 'image', label, text: `[image: ${fitted.mediaType}, ${fitted.width}x${fitted.height} px${was}]`, image: { mediaType: fitted.mediaType, data: fitted.data } };
}

function capListing(listing: string): string {
  const lines = listing.split('\n');
  if (lines.length <= FOLDER_LISTING_MAX) return listing;
  return [...lines.slice(0, FOLDER_LISTING_MAX), `[… ${lines.length - FOLDER_LISTING_MAX} more lines of the listing not attached]`].join('\n');
}

/** The user message's block for one attachment (its text may be tier 0's preview). */
export function attachmentBlock(attachment: { kind: AttachmentKind; label: string }, text: string): TextBlockParam {
  return { type: 'text', text: `${OPEN}kind="${attachment.kind}" label=${JSON.stringify(attachment.label)}>\n${text}\n${CLOSE}` };
}

/** The user message: each attachment (as tier 0 left it) before the user's own words. */
export async function userMessageContent(text: string, attachments: readonly ResolvedAttachment[], persist: (attachment: ResolvedAttachment, index: number) => Promise<string>): Promise<ContentBlockParam[]> {
  const blocks: ContentBlockParam[] = [];
  for (const [index, attachment] of attachments.entries()) {
    if (attachment.image) {
      // An image is not text for tier 0: named in a block of its own, then the image itself.
      blocks.push(attachmentBlock(attachment, attachment.text), { type: 'image', source: { type: 'base64', media_type: attachment.image.mediaType, data: attachment.image.data } });
      continue;
    }
    blocks.push(attachmentBlock(attachment, await persist(attachment, index)));
  }
  return [...blocks, { type: 'text', text }];
}

/** What an attachment block is (for the chat's chips and the transcript), or undefined for the user's own text. */
export function attachmentOfBlock(block: ContentBlockParam): { kind: string; label: string } | undefined {
  return block.type === 'text' ? attachmentOfText(block.text) : undefined;
}

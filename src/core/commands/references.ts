/**
 * Files a command's prompt points at, turned into attachment requests (the session reads them with
 * its attachments, agent/attachments.ts, so a command's `@src/a.ts` is attached exactly as the
 * composer's is). Claude Code's and Evergreen's files write `@path` (relative to the workspace
 * root, `@path:10-40` for lines); Copilot's prompt files link with Markdown (`[form](../docs/Form.md)`,
 * relative to the prompt file). Code blocks and code spans are skipped. Every path goes through the
 * workspace's confinement: one outside it, or one that does not exist, stays text and is reported.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { proseLines } from '../instructions/instructionFiles';
import { errorMessage } from '../logger';
import { userText, type UserText } from '../texts/userText';
import type { Workspace } from '../workspace/workspace';

/** Where a reference's path is relative to. */
export type ReferenceBase = 'workspace' | 'file';

export interface CommandReference {
  /** As written (`src/a.ts:10-40`, `../docs/Form.md`). */
  written: string;
  base: ReferenceBase;
}

/** An attachment to add to the message: the shape of agent/attachments.ts's file and folder specs (paths workspace-relative). */
export type AttachmentRequest = { kind: 'file'; path: string; fromLine?: number; toLine?: number } | { kind: 'folder'; path: string };

/** `@path` words of a prompt, in order, once each (an e-mail address or `a@b` is not one: the `@` must start a word). */
export function findAtReferences(text: string): string[] {
  const found: string[] = [];
  for (const line of proseLines(text)) {
    for (const match of line.matchAll(/(?:^|[\s(])@([^\s`@()<>"']+)/g)) {
      const written = match[1]!.replace(/[.,;!?\]]+$/, '').replace(/:$/, '');
      if (written !== '' && !found.includes(written)) found.push(written);
    }
  }
  return found;
}

function safeDecode(target: string): string {
  try {
    return decodeURI(target);
  } catch {
    return target; // a stray "%": the path as written
  }
}

/** Markdown links to relative paths (not URLs, not anchors), in order, once each. */
export function findMarkdownLinks(text: string): string[] {
  const found: string[] = [];
  for (const line of proseLines(text)) {
    for (const match of line.matchAll(/(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = safeDecode(match[1]!).replace(/#.*$/, '');
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
      if (!found.includes(target)) found.push(target);
    }
  }
  return found;
}

/** `path:12` or `path:10-40` (1-based, inclusive), as the composer writes a file's lines. */
function splitRange(written: string): { file: string; fromLine?: number; toLine?: number } | { problem: UserText } {
  const match = /^(.*):(\d+)(?:-(\d+))?$/.exec(written);
  if (!match) return { file: written };
  const fromLine = Number(match[2]);
  const toLine = match[3] === undefined ? fromLine : Number(match[3]);
  if (fromLine < 1 || toLine < fromLine) return { problem: userText('customization.referenceBadRange', { reference: written }) };
  return { file: match[1]!, fromLine, toLine };
}

const looksLikePath = (written: string): boolean => /[/.]/.test(written);

/**
 * The references that name files or folders in the workspace, as attachment requests; the others
 * are reported (`commandFile`: the real path of the command's file, for Markdown links).
 */
export async function referencesToAttachments(references: readonly CommandReference[], workspace: Workspace, commandFile: string): Promise<{ attachments: AttachmentRequest[]; notices: UserText[] }> {
  const attachments: AttachmentRequest[] = [];
  const notices: UserText[] = [];
  const seen = new Set<string>();
  for (const reference of references) {
    const shown = reference.base === 'workspace' ? `@${reference.written}` : reference.written;
    const split = reference.base === 'workspace' ? splitRange(reference.written) : { file: reference.written };
    if ('problem' in split) {
      notices.push(split.problem);
      continue;
    }
    const absolute = reference.base === 'workspace' ? path.resolve(workspace.root, split.file) : path.resolve(path.dirname(commandFile), split.file);
    let real: string;
    try {
      real = await workspace.resolve(absolute);
    } catch (error) {
      notices.push(userText('customization.referenceRefused', { reference: shown, error: errorMessage(error) }));
      continue;
    }
    const stat = await fsp.stat(real).catch(() => undefined);
    if (!stat) {
      if (looksLikePath(reference.written)) notices.push(userText('customization.referenceMissing', { reference: shown }));
      continue;
    }
    const shownPath = workspace.displayPath(real);
    const key = `${shownPath}:${'fromLine' in split ? `${split.fromLine}-${split.toLine}` : ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (stat.isDirectory()) {
      if ('fromLine' in split && split.fromLine !== undefined) notices.push(userText('customization.referenceFolderRange', { reference: shown }));
      attachments.push({ kind: 'folder', path: shownPath });
    } else {
      attachments.push({ kind: 'file', path: shownPath, ...('fromLine' in split && split.fromLine !== undefined ? { fromLine: split.fromLine, toLine: split.toLine! } : {}) });
    }
  }
  return { attachments, notices };
}

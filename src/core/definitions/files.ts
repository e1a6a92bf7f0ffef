/**
 * Reading definition folders and files with the tools' confinement (tools/workspace.ts): a
 * workspace folder is resolved inside the workspace root (a link out of it is refused), the user's
 * own folder is followed to where it really lives (a dotfiles repository) and confined there; every
 * file is opened race-free without following a final link or waiting on a FIFO, read up to a cap,
 * and decoded as the tools decode (non-UTF-8 as Windows-1252, NUL bytes as binary). Nothing here
 * throws for a bad file: it becomes a notice.
 */
import { promises as fsp, type Dirent } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { errorMessage } from '../logger';
import { decodeFileBytes, readBytesAt } from '../workspace/fileio';
import { isNodeError, NodeWorkspace, openForRead, type Workspace } from '../workspace/workspace';
import { userText, type UserText } from '../texts/userText';
import type { DefinitionKind, DefinitionSource } from './sources';
import { notice, type DefinitionNotice } from './types';

/** Limits of one load, so a hostile or huge folder costs a bounded amount of work. */
export const DEFINITION_LIMITS = {
  /** A definition file is read up to this many bytes (a skill's body is cut further: SKILL_LIMITS). */
  fileBytes: 256 * 1024,
  /** Files taken from one folder (the rest are skipped, with a notice). */
  filesPerFolder: 200,
  /** Subfolder levels walked below a folder (a command's namespace, a skill's files). */
  depth: 4,
} as const;

/** A folder opened for reading definitions: its real path and the confinement its files are read under. */
export interface DefinitionFolder {
  source: DefinitionSource;
  /** Real path of the folder. */
  real: string;
  /** Confines reads: the workspace root for the workspace's folders, the folder itself for the user's. */
  workspace: Workspace;
  /** A real path below the folder as shown to the user. */
  shown(real: string): string;
}

const missing = (error: unknown): boolean => isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR');

/** Opens a source's folder; undefined when it does not exist (the common case, no notice). */
export async function openDefinitionFolder(source: DefinitionSource): Promise<{ folder?: DefinitionFolder; notices: DefinitionNotice[] }> {
  try {
    if (source.scope === 'workspace') {
      const workspace = new NodeWorkspace(source.base);
      const real = await workspace.resolve(source.absolute);
      const stat = await fsp.stat(real);
      if (!stat.isDirectory()) return { notices: [notice('unreadable', source.label, userText('customization.notAFolder', { folder: source.label }))] };
      return { folder: { source, real, workspace, shown: (file) => workspace.displayPath(file) }, notices: [] };
    }
    const real = await fsp.realpath(source.absolute);
    if (!(await fsp.stat(real)).isDirectory()) return { notices: [notice('unreadable', source.label, userText('customization.notAFolder', { folder: source.label }))] };
    const workspace = new NodeWorkspace(real);
    const shown = (file: string) => (file === real ? source.label : `${source.label}/${path.relative(real, file).split(path.sep).join('/')}`);
    return { folder: { source, real, workspace, shown }, notices: [] };
  } catch (error) {
    if (missing(error)) return { notices: [] };
    return { notices: [notice('unreadable', source.label, userText('customization.notRead', { path: source.label, error: errorMessage(error) }))] };
  }
}

/** A candidate file: its path as found (maybe a link), shown, and relative to the folder ('/'-separated). */
export interface FoundEntry {
  absolute: string;
  shown: string;
  relative: string;
}

/** Entries of one folder, sorted (deterministic order), hidden ones (`.name`) left out. */
async function entriesOf(dir: string): Promise<Dirent[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true });
  return entries.filter((entry) => !entry.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The files below `dir` (a real path inside the folder) whose names end in one of `suffixes` (all
 * files when empty), walking real subfolders (never a linked one) up to the depth limit.
 */
export async function findEntries(folder: DefinitionFolder, dir: string, options: { suffixes: readonly string[]; recursive: boolean }): Promise<{ entries: FoundEntry[]; notices: DefinitionNotice[] }> {
  const found: FoundEntry[] = [];
  const notices: DefinitionNotice[] = [];
  const limits = { files: false, depth: false };
  const walk = async (current: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await entriesOf(current);
    } catch (error) {
      notices.push(notice('unreadable', folder.shown(current), userText('customization.folderNotListed', { folder: folder.shown(current), error: errorMessage(error) })));
      return;
    }
    for (const entry of entries) {
      const absolute = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!options.recursive) continue;
        if (depth >= DEFINITION_LIMITS.depth) limits.depth = true;
        else await walk(absolute, depth + 1);
        continue;
      }
      if (options.suffixes.length > 0 && !options.suffixes.some((suffix) => entry.name.endsWith(suffix) && entry.name.length > suffix.length)) continue;
      if (found.length >= DEFINITION_LIMITS.filesPerFolder) {
        limits.files = true;
        return;
      }
      found.push({ absolute, shown: folder.shown(absolute), relative: path.relative(folder.real, absolute).split(path.sep).join('/') });
    }
  };
  await walk(dir, 0);
  const shownDir = folder.shown(dir);
  if (limits.files) notices.push(notice('limit', shownDir, userText('customization.tooManyFiles', { folder: shownDir, limit: DEFINITION_LIMITS.filesPerFolder })));
  if (limits.depth) notices.push(notice('limit', shownDir, userText('customization.tooDeep', { folder: shownDir, depth: DEFINITION_LIMITS.depth })));
  return { entries: found, notices };
}

export type DefinitionText =
  | { kind: 'text'; text: string; real: string; truncated: boolean; notices: DefinitionNotice[] }
  /** `reason`: why, in a few English words for the model and the log (the skill tool reads a skill again when it is used). */
  | { kind: 'refused'; notice: DefinitionNotice; reason: string };

/** Reads one entry as text: resolved under the folder's confinement, a regular file, at most `maxBytes`. */
export async function readDefinitionText(folder: DefinitionFolder, entry: Pick<FoundEntry, 'absolute' | 'shown'>, maxBytes: number = DEFINITION_LIMITS.fileBytes): Promise<DefinitionText> {
  const file = entry.shown;
  const refused = (message: UserText, reason: string): DefinitionText => ({ kind: 'refused', notice: notice('unreadable', file, message), reason });
  let real: string;
  try {
    real = await folder.workspace.resolve(entry.absolute);
  } catch (error) {
    return refused(userText('customization.notRead', { path: file, error: errorMessage(error) }), errorMessage(error));
  }
  let handle: FileHandle;
  try {
    handle = await openForRead(folder.workspace, real);
  } catch (error) {
    return refused(userText('customization.notOpened', { file, error: errorMessage(error) }), errorMessage(error));
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      const what = stat.isFIFO() ? ('namedPipe' as const) : stat.isDirectory() ? ('folderNotFile' as const) : ('specialFile' as const);
      return refused(userText(`customization.${what}`, { file }), 'it is not a regular file');
    }
    const truncated = stat.size > maxBytes;
    let bytes = await readBytesAt(handle, 0, Math.min(stat.size, maxBytes));
    // A cut head ends at its last line break, so a character split by the cut cannot pass for Latin-1.
    if (truncated && bytes.lastIndexOf(10) > 0) bytes = bytes.subarray(0, bytes.lastIndexOf(10) + 1);
    const decoded = decodeFileBytes(bytes);
    if (decoded.kind === 'binary') return refused(userText('customization.binary', { file }), 'it looks like a binary file (it contains NUL bytes)');
    const notices = decoded.encoding.kind === 'windows-1252' ? [notice('not-utf8', file, userText('customization.notUtf8', { file }))] : [];
    return { kind: 'text', text: decoded.text.replace(/\r\n/g, '\n'), real, truncated, notices };
  } catch (error) {
    return refused(userText('customization.unreadable', { file, error: errorMessage(error) }), errorMessage(error));
  } finally {
    await handle.close().catch(() => undefined);
  }
}

const UNTRUSTED = { command: 'customization.untrustedCommands', mode: 'customization.untrustedModes', skill: 'customization.untrustedSkills' } as const;

/** The one notice for an untrusted workspace's folders that exist: what was skipped and why. */
export async function untrustedNotices(sources: readonly DefinitionSource[], what: DefinitionKind): Promise<DefinitionNotice[]> {
  const present: string[] = [];
  for (const source of sources) if (await fsp.lstat(source.absolute).then(() => true, () => false)) present.push(source.label);
  if (present.length === 0) return [];
  const folders = present.join(', ');
  return [notice('untrusted', folders, userText(UNTRUSTED[what], { folders }))];
}

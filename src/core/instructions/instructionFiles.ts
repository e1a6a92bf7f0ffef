// Project instruction files (AGENTS.md, CLAUDE.md, .github/copilot-instructions.md and the user's
// own ~/.evergreen/AGENTS.md): read once at session start into the system prompt, and a subfolder's
// AGENTS.md / CLAUDE.md as a note the first time the agent works in that folder. Every file is
// read through the workspace's confinement, as the tools are (workspace/workspace.ts: resolve, then a race-free open that never
// follows a final symlink and never blocks on a FIFO) and its decoding (workspace/fileio.ts), and
// never more of it than is used: a 50 MB file costs two small reads. Nothing here throws for a bad
// file: each problem becomes a notice for the user and the session goes on without that file.
import { lstat, realpath, type FileHandle } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorMessage } from '../logger';
import { decodeFileBytes, readBytesAt, type DecodedFile } from '../workspace/fileio';
import { plural } from '../text';
import { settingRef, userText, userTextForLog, type UserText } from '../texts/userText';
import { isInside, isNodeError, NodeWorkspace, openForRead, WorkspaceAccessError, type Workspace } from '../workspace/workspace';

/** Opens the instructions section of a system prompt; the breakdown counts from here to the end. */
export const INSTRUCTIONS_MARK = '# Project instructions\n';
/** Opens a subfolder's note (a text block of a user turn); the first line names the file. */
export const NESTED_INSTRUCTIONS_MARK = 'Project instructions from ';

/** The workspace root's files, read in this order after the user's own. */
export const ROOT_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'] as const;
/** The names a subfolder's instructions go by. */
export const NESTED_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;
/** The user's own file when the setting names none. */
export const DEFAULT_USER_INSTRUCTIONS = path.join('.evergreen', 'AGENTS.md');

/** A file over this share of the context window is cut to its head and tail. */
export const INSTRUCTIONS_MAX_WINDOW_SHARE = 0.1;
/** `@path` imports are followed this many levels deep. */
export const MAX_IMPORT_DEPTH = 5;
/** At most this many files (imports included) per section or note: a fan of imports cannot fill the window. */
export const MAX_INSTRUCTION_FILES = 32;

export interface InstructionFile {
  /** How the file is named to the model and the user: root-relative, or ~/… for the user's own. */
  shown: string;
  text: string;
  /** The file whose `@` import brought it in. */
  importedBy?: string;
}

export interface LoadedInstructions {
  files: InstructionFile[];
  /** One line per problem (a file refused, cut, decoded as Latin-1, an import skipped), each saying what happened. */
  notices: UserText[];
}

type Read = { kind: 'text'; text: string; notices: UserText[] } | { kind: 'refused'; message: UserText };



const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

/** A head cut at its last line break (or, on one long line, before a split UTF-8 sequence). */
function cutHead(bytes: Buffer): Buffer {
  const newline = bytes.lastIndexOf(10);
  if (newline >= bytes.length / 2) return bytes.subarray(0, newline + 1);
  let end = bytes.length;
  // Back up over a sequence the cut split: its continuation bytes and its lead byte.
  while (end > 0 && isContinuation(bytes[end - 1])) end--;
  if (end > 0 && bytes[end - 1]! >= 0xc0) end--;
  return bytes.subarray(0, end);
}

/** A tail started after its first line break (or after the continuation bytes of a split sequence). */
function cutTail(bytes: Buffer): Buffer {
  const newline = bytes.indexOf(10);
  if (newline >= 0 && newline < bytes.length / 2) return bytes.subarray(newline + 1);
  let start = 0;
  while (start < bytes.length && isContinuation(bytes[start])) start++;
  return bytes.subarray(start);
}

/**
 * Reads one resolved, confined file as instruction text: a regular text file, cut to head and tail
 * over `maxChars`. Refusals say why in words the user can act on.
 */
async function readResolved(workspace: Workspace, real: string, shown: string, maxChars: number): Promise<Read | { kind: 'missing' }> {
  let handle: FileHandle;
  try {
    handle = await openForRead(workspace, real);
  } catch (error) {
    if (isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return { kind: 'missing' };
    if (isNodeError(error) && error.code === 'EISDIR') return { kind: 'refused', message: userText('instructions.isFolder', { file: shown }) };
    return { kind: 'refused', message: userText('instructions.couldNotOpen', { file: shown, error: errorMessage(error) }) };
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) return { kind: 'refused', message: userText('instructions.isFolder', { file: shown }) };
    // O_NONBLOCK let a FIFO, socket or device open without waiting for a writer; none is read.
    if (!stat.isFile()) return { kind: 'refused', message: userText('instructions.notRegularFile', { file: shown, fileType: specialKind(stat) }) };
    const maxBytes = Math.max(2, Math.floor(maxChars));
    const notices: UserText[] = [];
    let parts: Buffer[];
    let omitted = 0;
    if (stat.size <= maxBytes) {
      parts = [await readBytesAt(handle, 0, stat.size)];
    } else {
      const half = Math.floor(maxBytes / 2);
      const head = cutHead(await readBytesAt(handle, 0, half));
      const tail = cutTail(await readBytesAt(handle, stat.size - half, half));
      parts = [head, tail];
      omitted = stat.size - head.length - tail.length;
      notices.push(userText('instructions.cut', { file: shown, size: sizeText(stat.size), share: Math.round(INSTRUCTIONS_MAX_WINDOW_SHARE * 100), kept: sizeText(half) }));
    }
    const decoded: DecodedFile[] = parts.map((bytes) => decodeFileBytes(bytes));
    const texts: string[] = [];
    for (const part of decoded) {
      if (part.kind === 'binary') return { kind: 'refused', message: userText('instructions.binary', { file: shown }) };
      texts.push(part.text);
    }
    if (decoded.some((part) => part.kind === 'text' && part.encoding.kind === 'windows-1252')) {
      notices.push(userText('instructions.latin1', { file: shown }));
    }
    const text = texts.length === 1 ? texts[0]! : `${texts[0]!.trimEnd()}\n\n[... ${formatBytes(omitted)} cut from the middle: this file is over ${Math.round(INSTRUCTIONS_MAX_WINDOW_SHARE * 100)}% of the context window ...]\n\n${texts[1]!.trimStart()}`;
    return { kind: 'text', text: text.trim(), notices };
  } catch (error) {
    return { kind: 'refused', message: userText('instructions.couldNotRead', { file: shown, error: errorMessage(error) }) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function specialKind(stat: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): UserText {
  if (stat.isFIFO()) return userText('instructions.namedPipe', {});
  if (stat.isSocket()) return userText('instructions.socket', {});
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return userText('instructions.device', {});
  return userText('instructions.notPlainFile', {});
}

/** A size as the user reads it (formatBytes, which the model reads, in the user's words). */
function sizeText(bytes: number): UserText {
  if (bytes >= 1024 * 1024) return userText('instructions.megabytes', { amount: (bytes / (1024 * 1024)).toFixed(1) });
  if (bytes >= 1024) return userText('instructions.kilobytes', { amount: String(Math.round(bytes / 1024)) });
  return userText('instructions.bytes', { count: bytes });
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return plural(bytes, 'byte');
}

/**
 * A Markdown text's lines as prose: a fenced code block's lines (and its fences) become empty, code
 * spans become a space, so what looks like a reference inside code is never taken for one.
 */
export function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const opener = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (opener) {
      if (fence === undefined) fence = opener[0];
      else if (opener[0] === fence) fence = undefined;
      lines.push('');
      continue;
    }
    lines.push(fence === undefined ? line.replace(/`+[^`]*`+/g, ' ') : '');
  }
  return lines;
}

/**
 * The `@path` imports of an instruction file, in order: a word that starts with `@` and ends in a
 * file extension (so `@types/node` or `@someone` are not imports), outside code blocks and spans.
 */
export function findImports(text: string): string[] {
  const found: string[] = [];
  for (const line of proseLines(text)) {
    for (const match of line.matchAll(/(?:^|\s)@([^\s`@]+)/g)) {
      const target = match[1]!.replace(/[.,;:!?)\]]+$/, '');
      if (/\.[A-Za-z0-9]+$/.test(target) && !found.includes(target)) found.push(target);
    }
  }
  return found;
}

/**
 * Reads instruction files with their imports. `seen` spans the whole load, so a file named twice (CLAUDE.md
 * a symlink to AGENTS.md, two files importing the same one) is used once; a file that imports one of its
 * own importers is a cycle, reported and not followed.
 */
class InstructionLoader {
  readonly files: InstructionFile[] = [];
  readonly notices: UserText[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly maxChars: number) {}

  /** `target`: absolute path. `missing`: what to say when it does not exist (nothing: it is optional). */
  async load(workspace: Workspace, target: string, show: (real: string) => string, via: { chain: readonly string[]; importedBy?: string; missing?: UserText }): Promise<void> {
    const shownTarget = show(target);
    let real: string;
    try {
      real = await workspace.resolve(target);
    } catch (error) {
      const reason = error instanceof WorkspaceAccessError ? error.message : errorMessage(error);
      this.notices.push(via.importedBy ? userText('instructions.importNotRead', { importer: via.importedBy, file: shownTarget, reason }) : userText('instructions.notRead', { file: shownTarget, reason }));
      return;
    }
    const shown = show(real);
    if (via.chain.includes(real)) {
      this.notices.push(via.chain.at(-1) === real ? userText('instructions.importsItself', { file: shown }) : userText('instructions.importCycle', { importer: via.importedBy ?? shown, file: shown }));
      return;
    }
    if (this.seen.has(real)) return;
    if (this.files.length >= MAX_INSTRUCTION_FILES) {
      this.notices.push(userText('instructions.tooMany', { file: shown, max: MAX_INSTRUCTION_FILES }));
      return;
    }
    this.seen.add(real);
    const read = await readResolved(workspace, real, shown, this.maxChars);
    if (read.kind === 'missing') {
      if (via.missing) this.notices.push(via.missing);
      return;
    }
    if (read.kind === 'refused') {
      this.notices.push(read.message);
      return;
    }
    this.notices.push(...read.notices);
    if (read.text === '') return;
    this.files.push({ shown, text: read.text, ...(via.importedBy ? { importedBy: via.importedBy } : {}) });
    const imports = findImports(read.text);
    if (imports.length === 0) return;
    const chain = [...via.chain, real];
    if (chain.length > MAX_IMPORT_DEPTH) {
      this.notices.push(userText('instructions.importsTooDeep', { file: shown, imports: imports.map((i) => `@${i}`).join(', '), depth: MAX_IMPORT_DEPTH }));
      return;
    }
    for (const imported of imports) {
      const absolute = path.resolve(path.dirname(real), imported);
      await this.load(workspace, absolute, show, { chain, importedBy: shown, missing: userText('instructions.importMissing', { file: shown, import: imported, target: show(absolute) }) });
    }
  }
}

export interface SessionInstructionOptions {
  workspaceRoot: string;
  /** The user's own file (`evergreen.instructions.userFile`; `~/` is the home folder); default ~/.evergreen/AGENTS.md. */
  userFile?: string | undefined;
  /** False in an untrusted workspace: its files are not read (the user's own file still is). */
  includeWorkspace: boolean;
  /** Characters one file may take before it is cut to head and tail (10% of the window). */
  maxFileChars: number;
  /** Tests: the home folder. */
  home?: string;
}

/** The user's own file, then the workspace root's files, each with its imports, as read at a session start. */
export async function loadSessionInstructions(options: SessionInstructionOptions): Promise<LoadedInstructions> {
  const home = options.home ?? os.homedir();
  const loader = new InstructionLoader(options.maxFileChars);
  const configured = options.userFile?.trim() ? expandHome(options.userFile.trim(), home) : undefined;
  const userFile = configured ?? path.join(home, DEFAULT_USER_INSTRUCTIONS);
  await loadUserFile(loader, userFile, home, configured !== undefined);
  if (options.includeWorkspace) {
    const workspace = new NodeWorkspace(options.workspaceRoot);
    const show = (real: string) => (isInside(real, workspace.root) ? workspace.displayPath(real) : real);
    for (const name of ROOT_INSTRUCTION_FILES) await loader.load(workspace, path.join(workspace.root, name), show, { chain: [] });
  }
  return { files: loader.files, notices: loader.notices };
}

/**
 * The user's file may be a link into a dotfiles repository: it is followed, and its imports are
 * confined to the folder it really lives in.
 */
async function loadUserFile(loader: InstructionLoader, file: string, home: string, configured: boolean): Promise<void> {
  const shownHome = (p: string) => (isInside(p, home) ? `~/${path.relative(home, p).split(path.sep).join('/')}` : p);
  const missing = configured ? userText('instructions.userFileMissing', { file: shownHome(file), setting: settingRef('instructions.userFile') }) : undefined;
  let real: string;
  try {
    real = await realpath(file);
  } catch (error) {
    if (missing && isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) loader.notices.push(missing);
    else if (!(isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))) loader.notices.push(userText('instructions.userFileUnreadable', { file: shownHome(file), error: errorMessage(error) }));
    return;
  }
  let folder: Workspace;
  try {
    folder = new NodeWorkspace(path.dirname(real));
  } catch (error) {
    loader.notices.push(userText('instructions.userFileUnreadable', { file: shownHome(file), error: errorMessage(error) }));
    return;
  }
  await loader.load(folder, real, (p) => (p === real ? shownHome(file) : shownHome(p)), { chain: [], ...(missing ? { missing } : {}) });
}

function expandHome(file: string, home: string): string {
  if (file === '~') return home;
  if (file.startsWith('~/') || file.startsWith(`~${path.sep}`)) return path.join(home, file.slice(2));
  return path.resolve(file);
}

/** The system prompt's instructions section (undefined: no file had anything to say). Always last in the prompt. */
export function instructionsSection(files: readonly InstructionFile[]): string | undefined {
  if (files.length === 0) return undefined;
  return [
    INSTRUCTIONS_MARK,
    "The user's and this project's standing instructions for agents, read from these files when the session started. Follow them; where one conflicts with what the user asks in this conversation, the user's message wins.",
    ...files.map(fileBlock),
  ].join('\n');
}

function fileBlock(file: InstructionFile): string {
  return `\n## ${file.shown}${file.importedBy ? ` (imported by ${file.importedBy})` : ''}\n\n${file.text}`;
}

/** The first line of a subfolder's note: it names the file, so the session can tell it is already in view. */
export function nestedHeader(shown: string): string {
  const folder = path.posix.dirname(shown);
  return `${NESTED_INSTRUCTIONS_MARK}${shown} (they apply to ${folder}/ and everything in it; read now because you used a file there):`;
}

/** The text of a subfolder's note: its header, the file, its imports under their own headings. */
export function nestedNoteText(files: readonly InstructionFile[]): string {
  const [first, ...imports] = files;
  if (!first) return '';
  return [nestedHeader(first.shown), '', first.text, ...imports.map(fileBlock)].join('\n');
}

/** The file a note's text is about (undefined: not a note). */
export function nestedNoteFile(text: string): string | undefined {
  if (!text.startsWith(NESTED_INSTRUCTIONS_MARK)) return undefined;
  const header = text.slice(0, text.indexOf('\n') < 0 ? undefined : text.indexOf('\n'));
  const end = header.lastIndexOf(' (they apply to ');
  return end < 0 ? undefined : header.slice(NESTED_INSTRUCTIONS_MARK.length, end);
}

/**
 * A subfolder's AGENTS.md / CLAUDE.md, found when a tool reads or lists something in it (or below
 * it): the session adds each as a note to the tool results' turn, unless the same note is still in
 * the live view. Problems are reported once per file and session.
 */
export class NestedInstructions {
  private readonly reported = new Set<string>();

  constructor(
    private readonly workspace: Workspace,
    /** Asked per use: a window learned from the server shrinks the cut. */
    private readonly maxFileChars: () => number,
  ) {}

  /**
   * The notes for `folders` (real paths of folders a tool read or listed in) and the folders between
   * them and the root, outermost first. `inView(shown)`: the note for that file is in the live view already.
   */
  async notesFor(folders: readonly string[], inView: (shown: string) => boolean): Promise<{ notes: string[]; notices: UserText[] }> {
    const notes: string[] = [];
    const notices: UserText[] = [];
    // One loader for the round: a file reached twice (CLAUDE.md linked to AGENTS.md) is used once.
    const loader = new InstructionLoader(this.maxFileChars());
    const show = (real: string) => this.workspace.displayPath(real);
    for (const folder of foldersBelowRoot(folders, this.workspace.root)) {
      for (const name of NESTED_INSTRUCTION_FILES) {
        const file = path.join(folder, name);
        if (!(await lstat(file).catch(() => undefined))) continue;
        // Named by where it really is, so a link to a file already in view adds nothing.
        const real = await realpath(file).catch(() => file);
        if (inView(show(real))) continue;
        const before = loader.files.length;
        await loader.load(this.workspace, file, show, { chain: [] });
        const added = loader.files.slice(before);
        if (added.length > 0) notes.push(nestedNoteText(added));
      }
    }
    for (const notice of loader.notices) {
      // Compared by kind and data: the same problem with the same file is the same notice.
      const key = userTextForLog(notice);
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      notices.push(notice);
    }
    return { notes, notices };
  }
}

/** The folders from just below the root (excluded: its files are in the system prompt) down to each of `folders`, outermost first. */
function foldersBelowRoot(folders: readonly string[], root: string): string[] {
  const out: string[] = [];
  for (const target of folders) {
    if (!isInside(target, root)) continue;
    const chain: string[] = [];
    for (let folder = target; folder !== root && isInside(folder, root); folder = path.dirname(folder)) chain.unshift(folder);
    for (const folder of chain) if (!out.includes(folder)) out.push(folder);
  }
  return out;
}

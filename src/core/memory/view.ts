/**
 * What memory shows: `view` (a folder two levels deep, or a file with line numbers, in the words of
 * Anthropic's memory tool) and the listing a new chat's system prompt gets, so the model knows
 * what it remembered without spending a call: each file's path, size and first line, sorted,
 * within a small cap.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ToolExecutionError } from '../errors';
import { oneLine } from '../visibleText';
import { MEMORY_LIMITS, MEMORY_ROOT, type MemoryPath } from './paths';
import { formatSize, MemoryStore } from './store';

const LINE_NUMBER_WIDTH = 6;

interface ListedEntry {
  /** Below the listed folder, '/'-separated; folders end in '/'. */
  relative: string;
  bytes: number;
  folder: boolean;
  absolute: string;
}

/** Files and folders below `dir` up to `levels` deep, sorted by name; hidden names, node_modules and links left out. */
async function listEntries(dir: string, levels: number, prefix = ''): Promise<ListedEntry[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const names = entries.filter((entry) => !entry.name.startsWith('.') && entry.name !== 'node_modules').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: ListedEntry[] = [];
  for (const entry of names) {
    const absolute = path.join(dir, entry.name);
    const relative = `${prefix}${entry.name}`;
    const stat = await fsp.lstat(absolute).catch(() => undefined);
    if (!stat || stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) {
      out.push({ relative: `${relative}/`, bytes: stat.size, folder: true, absolute });
      if (levels > 1) out.push(...(await listEntries(absolute, levels - 1, `${relative}/`)));
    } else if (stat.isFile()) {
      out.push({ relative, bytes: stat.size, folder: false, absolute });
    }
  }
  return out;
}

/** `view`: a folder's listing or a file's lines. */
export async function viewMemory(store: MemoryStore, target: MemoryPath, range: readonly [number, number] | undefined): Promise<string> {
  const root = await store.root(false);
  if (root === undefined) {
    if (target.segments.length === 0) return `Here're the files and directories up to 2 levels deep in ${MEMORY_ROOT}, excluding hidden items and node_modules:\n0B\t${MEMORY_ROOT}\n(The memory is empty.)`;
    throw new ToolExecutionError(`The path ${target.shown} does not exist. Please provide a valid path.`);
  }
  const found = await store.locate(root, target);
  if (found.kind === 'missing') throw new ToolExecutionError(`The path ${target.shown} does not exist. Please provide a valid path.`);
  if (found.kind === 'folder') {
    const size = (await fsp.stat(found.absolute)).size;
    const lines = [`${formatSize(size)}\t${target.shown}`, ...(await listEntries(found.absolute, 2)).map((entry) => `${formatSize(entry.bytes)}\t${target.shown}/${entry.relative}`)];
    return `Here're the files and directories up to 2 levels deep in ${target.shown}, excluding hidden items and node_modules:\n${lines.join('\n')}`;
  }
  const file = await store.readText(root, found.absolute, target.shown);
  const all = file.text.split('\n');
  let first = 1;
  let shown = all;
  if (range) {
    if (range[0] > all.length) throw new ToolExecutionError(`Invalid \`view_range\`: line ${range[0]} is past the end of ${target.shown}, which has ${all.length} line${all.length === 1 ? '' : 's'}.`);
    first = range[0];
    shown = all.slice(first - 1, range[1] === -1 ? undefined : range[1]);
  }
  const numbered = shown.map((line, index) => `${String(first + index).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`).join('\n');
  const cut = file.cut ? `\n[${target.shown} is larger than ${formatSize(MEMORY_LIMITS.fileBytes)}, the most a memory file holds; only its beginning is shown. Shorten it.]` : '';
  return `Here's the content of ${target.shown} with line numbers:\n${numbered}${cut}`;
}

/** Opens the memory section of a system prompt. */
export const MEMORY_MARK = '# Memory\n';

/** A file's first non-empty line, on one line, capped. */
async function firstLineOf(store: MemoryStore, root: string, entry: ListedEntry, shown: string): Promise<string> {
  try {
    const { text } = await store.readText(root, entry.absolute, shown);
    const line = text.split('\n').map((candidate) => oneLine(candidate.replace(/^#+\s*/, ''), MEMORY_LIMITS.firstLineChars)).find((candidate) => candidate !== '');
    return line ?? '(empty)';
  } catch {
    return '(not readable as text)';
  }
}

/** One file in memory: its `/memories/…` path, where it is on disk, its size and its first line. */
export interface MemoryFile {
  shown: string;
  absolute: string;
  bytes: number;
  firstLine: string;
}

/** Every file in the memory folder `folder`, sorted by path, with its first line (none when the folder does not exist yet). */
export async function listMemoryFiles(folder: string): Promise<MemoryFile[]> {
  const store = new MemoryStore(folder);
  const root = await store.root(false);
  if (root === undefined) return [];
  const entries = (await listEntries(root, MEMORY_LIMITS.depth + 1)).filter((entry) => !entry.folder);
  const files: MemoryFile[] = [];
  for (const entry of entries) {
    const shown = `${MEMORY_ROOT}/${entry.relative}`;
    files.push({ shown, absolute: entry.absolute, bytes: entry.bytes, firstLine: await firstLineOf(store, root, entry, shown) });
  }
  return files;
}

/**
 * The listing for a new chat's system prompt (the memory folder `folder`): what is in memory and
 * how to use it, each file with its size and first line, sorted by path, within `maxChars`.
 */
export async function memoryListing(folder: string, maxChars: number = MEMORY_LIMITS.listingChars): Promise<string> {
  const files = await listMemoryFiles(folder);
  const head = `${MEMORY_MARK}Your memory: notes you kept in earlier chats of this workspace, under ${MEMORY_ROOT} (the memory tool reads and updates them; the user can read and edit them too). Read a note when the task touches it; keep notes short and current.`;
  if (files.length === 0) return `${head}\n(Memory is empty.)`;
  const lines: string[] = [];
  let used = head.length;
  for (let index = 0; index < files.length; index++) {
    const file = files[index]!;
    const line = `- ${file.shown} (${formatSize(file.bytes)}): ${file.firstLine}`;
    const rest = files.length - index - 1;
    const tail = rest > 0 ? `- … and ${rest} more file${rest === 1 ? '' : 's'} (view ${MEMORY_ROOT} to see them all)`.length + 1 : 0;
    if (used + line.length + 1 + tail > maxChars) {
      lines.push(`- … and ${files.length - index} more file${files.length - index === 1 ? '' : 's'} (view ${MEMORY_ROOT} to see them all)`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return `${head}\n${lines.join('\n')}`;
}

/**
 * The memory folder on disk, under the tools' confinement (tools/workspace.ts, tools/atomicWrite.ts):
 * every file is opened without following a link and without waiting on a FIFO, every write is an
 * atomic replace inside a folder opened component by component, and a symbolic link anywhere on a
 * memory path is refused outright (the model's memory is plain files; a link could only lead out).
 * Results and errors use the words of Anthropic's memory tool (its SDK's reference handler), so a
 * model that knows that tool reads them as it expects.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ToolExecutionError } from '../errors';
import { writeFileAtomicConfined } from '../workspace/atomicWrite';
import { decodeFileBytes, encodeText, readBytesAt, type TextEncoding } from '../workspace/fileio';
import { isNodeError, openConfinedDir, openConfinedFile } from '../workspace/workspace';
import { MEMORY_LIMITS, MEMORY_ROOT, type MemoryPath } from './paths';

export type MemoryEntryKind = 'file' | 'folder' | 'missing';

/** A file's text and how to write it back the same way. */
interface MemoryText {
  text: string;
  encoding: TextEncoding;
  /** The file was larger than a memory file may be: `text` is its head. */
  cut: boolean;
}

const code = (error: unknown): string | undefined => (isNodeError(error) ? error.code : undefined);

export function formatSize(bytes: number): string {
  if (bytes === 0) return '0B';
  const units = ['B', 'K', 'M', 'G'];
  const power = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  const size = bytes / 1024 ** power;
  return `${size % 1 === 0 ? String(size) : size.toFixed(1)}${units[power]}`;
}

export class MemoryStore {
  /** `folder`: where /memories lives (created, owner-only, at the first write). */
  constructor(private readonly folder: string) {}

  /** The folder's real path; undefined when it does not exist and `create` is false. */
  async root(create: boolean): Promise<string | undefined> {
    if (create) await fsp.mkdir(this.folder, { recursive: true, mode: 0o700 });
    try {
      const real = await fsp.realpath(this.folder);
      if (!(await fsp.stat(real)).isDirectory()) throw new ToolExecutionError(`The memory folder ${this.folder} is not a folder; memory cannot be used until it is.`);
      return real;
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Where a memory path is on disk and what is there; a link on the way is refused. */
  async locate(root: string, target: MemoryPath): Promise<{ absolute: string; kind: MemoryEntryKind }> {
    let current = root;
    for (let index = 0; index < target.segments.length; index++) {
      current = path.join(current, target.segments[index]!);
      const stat = await fsp.lstat(current).catch((error: unknown) => (code(error) === 'ENOENT' ? undefined : Promise.reject(error)));
      const shown = `${MEMORY_ROOT}/${target.segments.slice(0, index + 1).join('/')}`;
      if (stat === undefined) return { absolute: path.join(root, ...target.segments), kind: 'missing' };
      if (stat.isSymbolicLink()) throw new ToolExecutionError(`${shown} is a symbolic link; memory does not follow links. Use a plain file or folder instead.`);
      const last = index === target.segments.length - 1;
      if (!last && !stat.isDirectory()) throw new ToolExecutionError(`${shown} is a file, not a folder, so ${target.shown} cannot exist.`);
      if (last && !stat.isDirectory() && !stat.isFile()) throw new ToolExecutionError(`${shown} is not a regular file; memory holds only files and folders.`);
      if (last) return { absolute: current, kind: stat.isDirectory() ? 'folder' : 'file' };
    }
    return { absolute: root, kind: 'folder' };
  }

  /** A memory file's text (its head when it is over the file cap). */
  async readText(root: string, absolute: string, shown: string): Promise<MemoryText> {
    const handle = await openConfinedFile(root, absolute).catch((error: unknown) => {
      if (code(error) === 'ENOENT') throw new ToolExecutionError(`The path ${shown} does not exist. Please provide a valid path.`);
      throw error;
    });
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new ToolExecutionError(`The path ${shown} is not a file.`);
      const decoded = decodeFileBytes(await readBytesAt(handle, 0, Math.min(stat.size, MEMORY_LIMITS.fileBytes)));
      if (decoded.kind === 'binary') throw new ToolExecutionError(`${shown} is not a text file (it contains NUL bytes); memory files are text.`);
      return { text: decoded.text, encoding: decoded.encoding, cut: stat.size > MEMORY_LIMITS.fileBytes };
    } finally {
      await handle.close();
    }
  }

  /** Writes a file atomically after the caps are checked (`replacing`: the bytes it replaces, 0 for a new file). */
  async writeText(root: string, absolute: string, shown: string, text: string, encoding: TextEncoding, replacing: number): Promise<number> {
    const encoded = encodeText(text, encoding);
    if (!encoded.ok) throw new ToolExecutionError(`${shown} is not UTF-8, and the new text has characters its encoding cannot hold; nothing was written.`);
    const bytes = encoded.bytes.length;
    if (bytes > MEMORY_LIMITS.fileBytes) {
      throw new ToolExecutionError(`${shown} would be ${formatSize(bytes)}; a memory file holds at most ${formatSize(MEMORY_LIMITS.fileBytes)}. Keep memory to short notes: shorten it, or split it into files by topic. Nothing was written.`);
    }
    const usage = await this.usage(root);
    if (usage.bytes - replacing + bytes > MEMORY_LIMITS.folderBytes) {
      throw new ToolExecutionError(
        `Memory is full: it holds ${formatSize(usage.bytes)} of at most ${formatSize(MEMORY_LIMITS.folderBytes)}, and this write needs ${formatSize(bytes - replacing)} more. Delete or shorten files that no longer matter, then try again. Nothing was written.`,
      );
    }
    if (replacing === 0 && usage.files + 1 > MEMORY_LIMITS.files) throw new ToolExecutionError(`Memory holds ${usage.files} files, the most it may; merge or delete some first. Nothing was written.`);
    await writeFileAtomicConfined(root, absolute, encoded.bytes);
    return bytes;
  }

  /** Bytes and files of the whole folder (links and hidden files not counted: memory never reads them). */
  async usage(root: string): Promise<{ bytes: number; files: number }> {
    let bytes = 0;
    let files = 0;
    const walk = async (dir: string, depth: number): Promise<void> => {
      const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        const absolute = path.join(dir, entry.name);
        if (entry.isDirectory() && depth <= MEMORY_LIMITS.depth) await walk(absolute, depth + 1);
        else if (entry.isFile()) {
          bytes += (await fsp.lstat(absolute).catch(() => undefined))?.size ?? 0;
          files++;
        }
      }
    };
    await walk(root, 0);
    return { bytes, files };
  }

  /** Deletes a file or a folder with everything in it, through its opened parent (never through a swapped path). */
  async remove(root: string, absolute: string): Promise<void> {
    const dir = await openConfinedDir(root, path.dirname(absolute));
    try {
      await fsp.rm(dir.entry(path.basename(absolute)), { recursive: true });
    } catch (error) {
      throw dir.relabel(error);
    } finally {
      await dir.close();
    }
  }

  /** Moves a file or folder; the destination's folders are created. */
  async move(root: string, from: string, to: string): Promise<void> {
    const source = await openConfinedDir(root, path.dirname(from));
    try {
      const target = await openConfinedDir(root, path.dirname(to), { create: true });
      try {
        await fsp.rename(source.entry(path.basename(from)), target.entry(path.basename(to)));
      } catch (error) {
        throw target.relabel(source.relabel(error));
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  }

  /** Deepest nesting of folders below `absolute` (0 for a file or an empty folder), counted up to one past the memory's depth. */
  async depthBelow(absolute: string, limit: number = MEMORY_LIMITS.depth + 1): Promise<number> {
    if (limit <= 0) return 0;
    const entries = await fsp.readdir(absolute, { withFileTypes: true }).catch(() => []);
    let deepest = 0;
    for (const entry of entries) if (entry.isDirectory()) deepest = Math.max(deepest, 1 + (await this.depthBelow(path.join(absolute, entry.name), limit - 1)));
    return deepest;
  }
}

/**
 * An archive's files as one list, whether it is a .zip (as GitHub serves an artifact) or the folder
 * it was unpacked into. Only regular files count: a link, a device or an encrypted entry refuses
 * the archive, and so does a name that could lead out of the folder it is unpacked into (yauzl
 * refuses absolute names and `..` itself; layout.ts allows only the names a session has).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import * as yauzl from 'yauzl';
import { SessionArchiveError } from './layout';

export interface ArchiveEntry {
  /** The name inside the archive, `/`-separated. */
  name: string;
  bytes: number;
  /** The zip's CRC-32 of the content (undefined for a folder's file). */
  crc32: number | undefined;
  open(): Promise<Readable>;
}

export interface OpenedArchive {
  kind: 'zip' | 'folder';
  entries: Map<string, ArchiveEntry>;
  close(): void;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** Opens a .zip or a folder; throws SessionArchiveError with the reason when it is neither or cannot be read. */
export async function openArchive(source: string): Promise<OpenedArchive> {
  const stat = await fs.promises.stat(source).catch((error: unknown) => {
    throw new SessionArchiveError('not-an-archive', `cannot read ${source}: ${error instanceof Error ? error.message : String(error)}`);
  });
  return stat.isDirectory() ? openFolder(source) : openZip(source);
}

function zipError(error: unknown): SessionArchiveError {
  const message = error instanceof Error ? error.message : String(error);
  // yauzl's words for a name that would leave the folder.
  if (/invalid relative path|absolute path|invalid characters in fileName|backslash/i.test(message)) return new SessionArchiveError('unsafe', `the archive names a file outside its folder (${message})`);
  if (/end of central directory record signature not found/i.test(message)) return new SessionArchiveError('corrupt', 'this is not a .zip file, or it is truncated (its directory at the end is missing): download the artifact again');
  return new SessionArchiveError('corrupt', `the .zip file is damaged (${message}): download the artifact again`);
}

async function openZip(file: string): Promise<OpenedArchive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, strictFileNames: true, validateEntrySizes: true });
  } catch (error) {
    throw zipError(error);
  }
  const entries = new Map<string, ArchiveEntry>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (error: unknown) => reject(zipError(error)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const problem = zipEntryProblem(entry, entries);
        if (problem) {
          reject(problem);
          return;
        }
        if (!entry.fileName.endsWith('/')) {
          entries.set(entry.fileName, {
            name: entry.fileName,
            bytes: entry.uncompressedSize,
            crc32: entry.crc32,
            open: () => zip.openReadStreamPromise(entry).catch((error: unknown) => Promise.reject(zipError(error))),
          });
        }
        zip.readEntry();
      });
      zip.readEntry();
    });
  } catch (error) {
    zip.close();
    throw error;
  }
  return { kind: 'zip', entries, close: () => zip.close() };
}

function zipEntryProblem(entry: yauzl.Entry, seen: ReadonlyMap<string, ArchiveEntry>): SessionArchiveError | undefined {
  const name = entry.fileName;
  if (entry.isEncrypted()) return new SessionArchiveError('unsupported', `${JSON.stringify(name)} is encrypted; Evergreen's archives never are`);
  // Unix mode bits, when the zip was made on a system that keeps them (GitHub's are).
  const mode = entry.externalFileAttributes >>> 16;
  const type = mode & S_IFMT;
  if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) return new SessionArchiveError('unsafe', `${JSON.stringify(name)} is a symbolic link or special file; an archive may hold only regular files`);
  if (seen.has(name)) return new SessionArchiveError('unsafe', `${JSON.stringify(name)} is in the archive twice`);
  return undefined;
}

async function openFolder(root: string): Promise<OpenedArchive> {
  const entries = new Map<string, ArchiveEntry>();
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const dirent of await fs.promises.readdir(dir, { withFileTypes: true })) {
      const name = `${prefix}${dirent.name}`;
      const file = path.join(dir, dirent.name);
      const stat = await fs.promises.lstat(file);
      if (stat.isDirectory()) await walk(file, `${name}/`);
      else if (stat.isFile()) entries.set(name, { name, bytes: stat.size, crc32: undefined, open: () => openNoFollow(file) });
      else throw new SessionArchiveError('unsafe', `${JSON.stringify(name)} is a symbolic link or special file; an archive may hold only regular files`);
    }
  };
  await walk(root, '');
  return { kind: 'folder', entries, close: () => undefined };
}

/** A folder's file opened without following a link put there since it was listed. */
async function openNoFollow(file: string): Promise<Readable> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  return handle.createReadStream();
}

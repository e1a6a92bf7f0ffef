/**
 * A stored session written out as an archive (layout.ts): as a folder (what a CI run uploads as its
 * artifact) or as a .zip (`--export-session`). Only the files a session is made of go in, each
 * listed in the manifest with its size and SHA-256, so an import can tell a complete archive from a
 * damaged or shortened one. Links and files of other names in the session's folder are left out.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yazl from 'yazl';
import type { FileSessionStore } from '../storage/sessionStore';
import { SessionNotFoundError } from '../storage/sessionStore';
import { archiveNameProblem, ARCHIVE_FORMAT, ARCHIVE_VERSION, MANIFEST_NAME, SESSION_FOLDER, type ArchiveFileRecord, type ArchiveManifest, type ArchiveRun } from './layout';

export interface ExportOptions {
  store: FileSessionStore;
  sessionId: string;
  /** The repository the session worked on (repository.ts), to warn an import into another one. */
  repository?: string | undefined;
  workspaceRoot?: string | undefined;
  /** The CI run that made it, when one did. */
  run?: ArchiveRun | undefined;
  now?: () => Date;
}

interface SessionFile {
  /** The archive name. */
  name: string;
  /** Where it is on disk. */
  file: string;
}

/** The session's own files under their archive names: regular files whose names a session has, nothing else. */
export async function sessionArchiveFiles(sessionDir: string): Promise<SessionFile[]> {
  const found: SessionFile[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const dirents = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const dirent of dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const name = `${prefix}${dirent.name}`;
      const file = path.join(dir, dirent.name);
      // The checkpoints' shadow repository holds Git configuration: never carried anywhere.
      if (dirent.isDirectory() && name !== `${SESSION_FOLDER}/checkpoints/shadow.git`) await walk(file, `${name}/`);
      else if (dirent.isFile() && archiveNameProblem(name) === undefined) found.push({ name, file });
    }
  };
  await walk(sessionDir, `${SESSION_FOLDER}/`);
  return found;
}

async function readSessionFiles(options: ExportOptions): Promise<{ files: SessionFile[]; manifest: (records: Record<string, ArchiveFileRecord>) => ArchiveManifest }> {
  const dir = options.store.sessionDir(options.sessionId);
  const files = await sessionArchiveFiles(dir);
  const names = new Set(files.map((file) => file.name));
  if (!names.has(`${SESSION_FOLDER}/meta.json`) || !names.has(`${SESSION_FOLDER}/transcript.jsonl`)) throw new SessionNotFoundError(options.sessionId, options.store.sessionsDir);
  const manifest = (records: Record<string, ArchiveFileRecord>): ArchiveManifest => ({
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    sessionId: options.sessionId,
    exportedAt: (options.now?.() ?? new Date()).toISOString(),
    ...(options.repository ? { repository: options.repository } : {}),
    ...(options.workspaceRoot ? { workspaceRoot: options.workspaceRoot } : {}),
    ...(options.run ? { run: options.run } : {}),
    files: records,
  });
  return { files, manifest };
}

function record(bytes: Buffer): ArchiveFileRecord {
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Writes the archive as a folder (which must not exist yet, or be empty): the artifact a CI run uploads. */
export async function exportSessionToFolder(options: ExportOptions, folder: string): Promise<ArchiveManifest> {
  const { files, manifest } = await readSessionFiles(options);
  const existing = await fs.promises.readdir(folder).catch(() => []);
  if (existing.length > 0) throw new Error(`${folder} is not empty; an archive folder must start empty`);
  const records: Record<string, ArchiveFileRecord> = {};
  for (const { name, file } of files) {
    const bytes = await fs.promises.readFile(file);
    const target = path.join(folder, ...name.split('/'));
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await fs.promises.writeFile(target, bytes, { flag: 'wx' });
    records[name] = record(bytes);
  }
  const written = manifest(records);
  // Last: a folder with a manifest is a complete one.
  await fs.promises.writeFile(path.join(folder, MANIFEST_NAME), `${JSON.stringify(written, null, 2)}\n`, { flag: 'wx' });
  return written;
}

/** Writes the archive as a .zip at `zipFile` (replaced whole: a failed export leaves no partial file). */
export async function exportSessionToZip(options: ExportOptions, zipFile: string): Promise<ArchiveManifest> {
  const { files, manifest } = await readSessionFiles(options);
  const zip = new yazl.ZipFile();
  const records: Record<string, ArchiveFileRecord> = {};
  const contents: { name: string; bytes: Buffer }[] = [];
  for (const { name, file } of files) {
    const bytes = await fs.promises.readFile(file);
    records[name] = record(bytes);
    contents.push({ name, bytes });
  }
  const written = manifest(records);
  zip.addBuffer(Buffer.from(`${JSON.stringify(written, null, 2)}\n`), MANIFEST_NAME, { mode: 0o100644 });
  for (const { name, bytes } of contents) zip.addBuffer(bytes, name, { mode: 0o100644 });
  zip.end();
  const partial = path.join(path.dirname(zipFile), `.${path.basename(zipFile)}.${randomBytes(4).toString('hex')}.partial`);
  try {
    await new Promise<void>((resolve, reject) => {
      const out = fs.createWriteStream(partial, { flags: 'wx' });
      out.on('error', reject);
      out.on('close', () => resolve());
      zip.outputStream.on('error', reject);
      zip.outputStream.pipe(out);
    });
    await fs.promises.rename(partial, zipFile);
  } catch (error) {
    await fs.promises.rm(partial, { force: true });
    throw error;
  }
  return written;
}

/**
 * An archive (a .zip or its folder) imported into a session store, all or nothing: every check that
 * needs only the archive's directory runs before anything is written; the files are then unpacked
 * into a hidden staging folder beside the sessions, each checked against the zip's CRC-32 and the
 * manifest's size and SHA-256 as it is written, and the folder becomes the session by one rename.
 * Any refusal removes the staging folder, so a refused or failed import leaves nothing behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { readTranscript, type FileSessionStore, type TranscriptProblem } from '../storage/sessionStore';
import { openArchive, type ArchiveEntry, type OpenedArchive } from './archiveReader';
import { archiveNameProblem, ARCHIVE_LIMITS, MANIFEST_NAME, parseManifest, SESSION_FOLDER, SessionArchiveError, type ArchiveManifest } from './layout';

export interface ImportOptions {
  /** The repository of the workspace it is imported into (repository.ts); undefined when it has none. */
  workspaceRepository: string | undefined;
  /**
   * Asked before anything is written when there is something to warn about (another repository);
   * false stops the import. Absent: the import goes on and the warnings are returned.
   */
  confirm?: (warnings: readonly string[], manifest: ArchiveManifest) => Promise<boolean>;
}

export type ImportResult =
  | { status: 'imported'; sessionId: string; manifest: ArchiveManifest; warnings: string[]; transcriptProblems: TranscriptProblem[] }
  | { status: 'declined'; manifest: ArchiveManifest; warnings: string[] };

/** The manifest and what an import would warn about, without writing anything (refusals throw SessionArchiveError). */
export async function inspectSessionArchive(source: string, workspaceRepository: string | undefined): Promise<{ manifest: ArchiveManifest; warnings: string[] }> {
  const archive = await openArchive(source);
  try {
    const manifest = await checkArchive(archive);
    return { manifest, warnings: repositoryWarnings(manifest, workspaceRepository) };
  } finally {
    archive.close();
  }
}

export async function importSessionArchive(store: FileSessionStore, source: string, options: ImportOptions): Promise<ImportResult> {
  const archive = await openArchive(source);
  try {
    const manifest = await checkArchive(archive);
    const target = store.sessionDir(manifest.sessionId);
    if (fs.existsSync(target)) throw alreadyImported(manifest);
    const warnings = repositoryWarnings(manifest, options.workspaceRepository);
    if (warnings.length > 0 && options.confirm && !(await options.confirm(warnings, manifest))) return { status: 'declined', manifest, warnings };
    await fs.promises.mkdir(store.sessionsDir, { recursive: true });
    // Hidden (a dot), so the store's list never shows a session being unpacked.
    const staging = path.join(store.sessionsDir, `.import-${manifest.sessionId}-${randomBytes(6).toString('hex')}`);
    try {
      await fs.promises.mkdir(staging);
      for (const [name, expected] of Object.entries(manifest.files)) await unpack(archive.entries.get(name)!, expected, staging);
      const transcriptProblems = await checkSessionContent(staging, manifest);
      await fs.promises.rename(path.join(staging, SESSION_FOLDER), target).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        throw code === 'EEXIST' || code === 'ENOTEMPTY' ? alreadyImported(manifest) : error;
      });
      return { status: 'imported', sessionId: manifest.sessionId, manifest, warnings, transcriptProblems };
    } finally {
      await fs.promises.rm(staging, { recursive: true, force: true });
    }
  } finally {
    archive.close();
  }
}

function alreadyImported(manifest: ArchiveManifest): SessionArchiveError {
  const run = manifest.run?.id ? ` (run ${manifest.run.id})` : '';
  return new SessionArchiveError('already-imported', `session ${manifest.sessionId}${run} is already in this storage; open it from the chat history instead of importing it again`);
}

function repositoryWarnings(manifest: ArchiveManifest, workspaceRepository: string | undefined): string[] {
  if (manifest.repository === undefined || manifest.repository === workspaceRepository) return [];
  if (workspaceRepository === undefined) return [`The session worked on ${manifest.repository}, and this workspace has no Git remote "origin" to compare it with: file paths and the branch it talks about may not exist here.`];
  return [`The session worked on ${manifest.repository}, but this workspace is ${workspaceRepository}: file paths and the branch it talks about may not exist here.`];
}

/** Every check that needs only the directory and the manifest; returns the manifest. */
async function checkArchive(archive: OpenedArchive): Promise<ArchiveManifest> {
  const entries = [...archive.entries.values()];
  if (!archive.entries.has(MANIFEST_NAME)) {
    throw new SessionArchiveError('not-an-archive', `no ${MANIFEST_NAME} at the top: this is not an Evergreen run's artifact (or it was unpacked one folder too deep)`);
  }
  if (entries.length > ARCHIVE_LIMITS.maxEntries) throw new SessionArchiveError('too-large', `the archive has ${entries.length} files; at most ${ARCHIVE_LIMITS.maxEntries} are accepted`);
  const total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  if (total > ARCHIVE_LIMITS.maxTotalBytes) throw new SessionArchiveError('too-large', `the archive unpacks to ${total} bytes; at most ${ARCHIVE_LIMITS.maxTotalBytes} are accepted`);
  for (const entry of entries) {
    const problem = archiveNameProblem(entry.name);
    if (problem) throw new SessionArchiveError('unsafe', `the archive holds ${JSON.stringify(entry.name)}: ${problem}`);
  }
  const manifestEntry = archive.entries.get(MANIFEST_NAME)!;
  if (manifestEntry.bytes > ARCHIVE_LIMITS.maxManifestBytes) throw new SessionArchiveError('too-large', `${MANIFEST_NAME} is ${manifestEntry.bytes} bytes; at most ${ARCHIVE_LIMITS.maxManifestBytes} are accepted`);
  const manifest = parseManifest((await readWhole(manifestEntry, ARCHIVE_LIMITS.maxManifestBytes)).toString('utf8'));
  for (const [name, expected] of Object.entries(manifest.files)) {
    const entry = archive.entries.get(name);
    if (!entry) throw new SessionArchiveError('corrupt', `the archive is incomplete: ${name} is listed in ${MANIFEST_NAME} but missing`);
    if (entry.bytes !== expected.bytes) throw new SessionArchiveError('corrupt', `${name} is ${entry.bytes} bytes, but ${MANIFEST_NAME} says ${expected.bytes}: the archive is damaged`);
  }
  for (const entry of entries) {
    if (entry.name !== MANIFEST_NAME && !Object.hasOwn(manifest.files, entry.name)) throw new SessionArchiveError('corrupt', `${entry.name} is in the archive but not listed in ${MANIFEST_NAME}`);
  }
  for (const required of ['meta.json', 'transcript.jsonl']) {
    if (!Object.hasOwn(manifest.files, `${SESSION_FOLDER}/${required}`)) throw new SessionArchiveError('corrupt', `the archive has no ${SESSION_FOLDER}/${required}`);
  }
  return manifest;
}

async function readWhole(entry: ArchiveEntry, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of await entry.open()) {
    bytes += (chunk as Buffer).length;
    if (bytes > limit) throw new SessionArchiveError('too-large', `${entry.name} is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The zip's CRC-32, where this Node has it (20.15 and later; VS Code's has): a second check beside
 * the manifest's SHA-256, which alone already refuses any changed byte.
 */
const crc32: ((data: Uint8Array, value?: number) => number) | undefined = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** Writes one file under `staging`, checking size, CRC-32 and SHA-256 as the bytes pass. */
async function unpack(entry: ArchiveEntry, expected: { bytes: number; sha256: string }, staging: string): Promise<void> {
  // The name passed layout.ts's pattern: relative, no `..`, only names a session has; the staging
  // folder is new and holds nothing but what this import made, so no part of the path is a link.
  const target = path.join(staging, ...entry.name.split('/'));
  await fs.promises.mkdir(path.dirname(target), { recursive: true });
  const hash = createHash('sha256');
  let crc: number | undefined;
  let bytes = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > expected.bytes) {
        done(new SessionArchiveError('corrupt', `${entry.name} holds more than the ${expected.bytes} bytes ${MANIFEST_NAME} lists`));
        return;
      }
      // A throw here would escape the pipeline (it is called from the source's 'data' event).
      try {
        hash.update(chunk);
        if (crc32) crc = crc32(chunk, crc ?? 0);
      } catch (error) {
        done(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(await entry.open(), check, fs.createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    if (error instanceof SessionArchiveError) throw error;
    throw new SessionArchiveError('corrupt', `${entry.name} could not be unpacked (${error instanceof Error ? error.message : String(error)}): the archive is damaged or truncated`);
  }
  if (bytes !== expected.bytes) throw new SessionArchiveError('corrupt', `${entry.name} is truncated: ${bytes} of ${expected.bytes} bytes`);
  if (crc32 && entry.crc32 !== undefined && (crc ?? 0) !== entry.crc32) throw new SessionArchiveError('corrupt', `${entry.name} fails the zip's checksum: the archive is damaged`);
  if (hash.digest('hex') !== expected.sha256) throw new SessionArchiveError('corrupt', `${entry.name} does not match the SHA-256 in ${MANIFEST_NAME}: the archive is damaged or was changed`);
}

/** The unpacked session reads as one: its meta names it, and its transcript has entries (bad lines are reported, as a resume does). */
async function checkSessionContent(staging: string, manifest: ArchiveManifest): Promise<TranscriptProblem[]> {
  const dir = path.join(staging, SESSION_FOLDER);
  let meta: unknown;
  try {
    meta = JSON.parse(await fs.promises.readFile(path.join(dir, 'meta.json'), 'utf8'));
  } catch (error) {
    throw new SessionArchiveError('corrupt', `${SESSION_FOLDER}/meta.json is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const id = typeof meta === 'object' && meta !== null ? (meta as { id?: unknown }).id : undefined;
  if (id !== manifest.sessionId) throw new SessionArchiveError('corrupt', `${SESSION_FOLDER}/meta.json names session ${JSON.stringify(id)}, but ${MANIFEST_NAME} says ${manifest.sessionId}`);
  const transcript = await readTranscript(path.join(dir, 'transcript.jsonl'));
  if (transcript.entries.length === 0) throw new SessionArchiveError('corrupt', `${SESSION_FOLDER}/transcript.jsonl has no readable entry`);
  return transcript.problems;
}

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import writeFileAtomicLib from 'write-file-atomic';

/**
 * The one atomic writer (meta.json, file edits): temp file in the same directory, fsync, rename,
 * so readers never see a torn file; an existing file keeps its mode (e.g. the executable bit).
 */
export async function writeFileAtomic(file: string, content: string | Buffer): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomicLib(file, content, typeof content === 'string' ? { encoding: 'utf8' } : {});
}

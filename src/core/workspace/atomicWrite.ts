import { randomBytes } from 'node:crypto';
import { constants as fsc, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import writeFileAtomicLib from 'write-file-atomic';
import { WorkspaceAccessError, handlePath, isInside, openConfinedDir, verifyHandleAt, type ConfinedDir } from './workspace';

// One atomic-write concept, two entry points: a temp file in the target's directory, fsync,
// rename over the target, so readers never see a torn file; an existing file keeps its mode
// (e.g. the executable bit).

/** For paths the extension owns (meta.json in its storage folder): nothing there is model-controlled. */
export async function writeFileAtomic(file: string, content: string | Buffer): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomicLib(file, content, typeof content === 'string' ? { encoding: 'utf8' } : {});
}

/**
 * For content-addressed files the extension owns (a checkpoint's saved bytes, a session's images):
 * a file named by its content is written once, atomically, so a crash mid-write never leaves a torn
 * file that later writes would take as already saved.
 */
export async function writeFileOnceAtomic(file: string, content: Buffer): Promise<void> {
  const exists = await fsp.stat(file).then(
    () => true,
    () => false,
  );
  if (!exists) await writeFileAtomic(file, content);
}

/**
 * For model-chosen paths (write_file / edit_file): `file` is a real path inside the real path
 * `root` as Workspace.resolve returned it, and the write cannot be raced out of the root. The
 * directory is opened component by component without following symlinks (openConfinedDir), the
 * temp file is created exclusively inside that opened directory and its handle is verified to be
 * at <dir>/<temp> before a byte is written, and after the rename the handle must be at `file`.
 * If anything moved, the temp file is deleted wherever it ended up and the write fails; a temp
 * file is never left behind. (write-file-atomic re-resolves the path itself and exposes no handle
 * to verify, hence this variant.)
 */
export async function writeFileAtomicConfined(root: string, file: string, content: Buffer): Promise<void> {
  if (!isInside(file, root) || file === root) throw new Error(`writeFileAtomicConfined: "${file}" is not inside "${root}"`);
  const dir = await openConfinedDir(root, path.dirname(file), { create: true });
  const base = path.basename(file);
  // Short and unguessable: a long target name must not push the temp name past NAME_MAX.
  const tempName = `.evergreen-${randomBytes(8).toString('hex')}.tmp`;
  let temp: FileHandle | undefined;
  let renamed = false;
  try {
    const existing = await fsp.lstat(dir.entry(base)).catch(() => undefined);
    const mode = existing?.isFile() ? existing.mode & 0o7777 : undefined;
    temp = await fsp.open(dir.entry(tempName), fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0), mode ?? 0o666);
    await verifyHandleAt(temp, path.join(dir.real, tempName));
    await temp.writeFile(content);
    if (mode !== undefined) await temp.chmod(mode); // the umask must not strip bits the file had
    await temp.sync();
    await fsp.rename(dir.entry(tempName), dir.entry(base));
    renamed = true;
    await verifyHandleAt(temp, file);
  } catch (caught) {
    const error = dir.relabel(caught);
    if (!temp) throw error;
    const where = await removeStray(temp, dir, tempName, renamed, root);
    if (!renamed || !(error instanceof WorkspaceAccessError)) throw error;
    const fate =
      where === undefined
        ? 'where it ended up could not be determined'
        : isInside(where, root)
          ? `the new content is now at "${where}"`
          : `it landed outside the workspace at "${where}" and was deleted again`;
    throw new WorkspaceAccessError(`"${file}" was written, but a folder on its path was moved or replaced at the same moment: ${fate}. Check the workspace and try again.`);
  } finally {
    await temp?.close().catch(() => undefined);
    await dir.close();
  }
}

/**
 * After a failed check: deletes our inode wherever it is now (only if it still is our inode). A
 * renamed file that landed elsewhere inside the workspace is left alone: the rename already
 * replaced whatever was there, deleting would lose more.
 */
async function removeStray(temp: FileHandle, dir: ConfinedDir, tempName: string, renamed: boolean, root: string): Promise<string | undefined> {
  const held = await temp.stat({ bigint: true }).catch(() => undefined);
  if (held === undefined || held.nlink === 0n) return undefined; // already gone
  const where = await handlePath(temp);
  const candidate = where ?? (renamed ? undefined : dir.entry(tempName));
  if (candidate === undefined || (renamed && isInside(candidate, root))) return where;
  const found = await fsp.lstat(candidate, { bigint: true }).catch(() => undefined);
  if (found && found.dev === held.dev && found.ino === held.ino) await fsp.unlink(candidate).catch(() => undefined);
  return where;
}

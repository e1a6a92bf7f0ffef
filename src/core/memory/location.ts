/**
 * Where a workspace's memory lives: a folder in Evergreen's storage, outside the repository (so a
 * clone, a commit or a pull request never carries it), one per workspace folder, named after the
 * folder and a hash of its real path (two checkouts named `app` stay apart; a moved checkout starts
 * with empty memory). The extension's storage root is its global storage, the CLI's `~/.evergreen`
 * (or `--storage-dir`): `<root>/memory/<name>-<hash>/`.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';

/** The hash's length in hex digits: enough that two workspaces never share a folder by chance. */
const HASH_DIGITS = 16;

/** The memory folder of `workspaceRoot` under `storageRoot` (nothing is created here: the first write does it). */
export function memoryFolderFor(storageRoot: string, workspaceRoot: string): string {
  let real = path.resolve(workspaceRoot);
  try {
    real = realpathSync(real);
  } catch {
    // A folder that does not exist (yet): its path as given names it.
  }
  const name = path.basename(real).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 40) || 'workspace';
  const hash = createHash('sha256').update(real).digest('hex').slice(0, HASH_DIGITS);
  return path.join(storageRoot, 'memory', `${name}-${hash}`);
}

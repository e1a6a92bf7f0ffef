// The workspace as an overlay (Linux): a sandboxed command writes into a private upper folder
// while it sees the workspace as usual; Evergreen applies what it wrote only after it ended
// (overlayChanges.ts), checking what would arm Git or the editor outside the sandbox first
// (gitGuard.ts). So no placeholder stands in the workspace for a protected path that does not
// exist yet (they broke `git add -A` and stayed behind after a SIGKILL), and nothing a command
// writes is visible to a program outside the sandbox until it was checked.
//
// bubblewrap 0.8 (Debian 12) has no overlay option, so a small outer namespace mounts it:
// `setpriv --pdeathsig KILL` (the whole tree dies with Evergreen, even on SIGKILL) runs `unshare`
// (a user and mount namespace, util-linux >= 2.38 for --map-current-user and --keep-caps), whose
// bash mounts the overlay over the workspace's own path, drops every capability and runs the
// sandbox-runtime's bwrap command unchanged. When the command has ended, the same bash lists what
// the merged view holds in each folder the command wrote to: overlayfs marks a folder the command
// emptied and made again only in an extended attribute, which Node cannot read.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../logger';

/** The programs the outer namespace needs, as absolute paths. */
export interface OverlayTools {
  setpriv: string;
  unshare: string;
  bash: string;
}

/** One command's overlay: its folder and the parts in it. */
export interface OverlayDirs {
  dir: string;
  /** The workspace bound here first when its path has characters the mount options would read as syntax. */
  lower: string;
  upper: string;
  work: string;
  /** What the merged view held in each folder the command wrote to (NUL-separated, see readOverlayManifest). */
  manifest: string;
}

/** Written first into the manifest once the overlay is mounted: without it the command never ran. */
const MOUNTED_MARK = 'evergreen-overlay-1';
/** Printed on stderr when the overlay cannot be mounted; the command is then not run. */
export const OVERLAY_FAILURE_PREFIX = 'evergreen-sandbox: the workspace overlay could not be mounted';
/** The exit code of a wrapper that could not mount the overlay (the command did not run). */
export const OVERLAY_MOUNT_FAILED_EXIT = 125;

/**
 * The outer namespace's script. A TERM, INT or HUP (a timeout, a cancel) ends the command, whose
 * processes share this process group; the trap only keeps this shell alive long enough to write
 * the manifest, so the command's writes are still applied as they stood. The command's shell dies
 * with this one (pdeathsig), and bwrap with it (--die-with-parent). Capabilities of the outer
 * namespace are dropped before bwrap, which refuses to start with them unless it runs as root
 * (uid 0, the CLI run by root): root's bwrap sets its sandbox up with them and drops them itself.
 */
const WRAPPER_SCRIPT = `set -u
ws=$1; lower=$2; upper=$3; work=$4; manifest=$5; shell=$6; command=$7
if [ "$lower" = "$ws" ] || mount -n -i --no-canonicalize --bind -- "$ws" "$lower"; then
  mount -n -i --no-canonicalize -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work,userxattr" -- "$ws"
fi
if [ $? -ne 0 ]; then
  echo "${OVERLAY_FAILURE_PREFIX}" >&2
  exit ${OVERLAY_MOUNT_FAILED_EXIT}
fi
printf '%s\\0' '${MOUNTED_MARK}' > "$manifest"
trap ':' TERM INT HUP
if [ "$EUID" = 0 ]; then
  setpriv --pdeathsig KILL -- "$shell" -c "$command"
else
  setpriv --pdeathsig KILL --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$shell" -c "$command"
fi
status=$?
shopt -s nullglob dotglob globstar
set -- "$upper"/*
[ $# -eq 0 ] && { printf 'end\\0' >> "$manifest"; exit $status; }
{
  cd -- "$upper" && for d in . **/; do
    d=\${d%/}
    if [ -d "$ws/$d" ] && [ ! -L "$ws/$d" ]; then
      set -- "$ws/$d"/*
      printf '%s\\0%s\\0' "$d" "$#"
      [ $# -gt 0 ] && printf '%s\\0' "\${@##*/}"
    fi
  done
  printf 'end\\0'
} >> "$manifest"
exit $status
`;

/** Finds setpriv, unshare and bash, and checks that unshare has the options the wrapper uses. Returns the problem in words when something is missing. */
export function findOverlayTools(): OverlayTools | string {
  const found: Partial<Record<keyof OverlayTools, string>> = {};
  for (const name of ['setpriv', 'unshare', 'bash'] as const) {
    const dir = (process.env.PATH ?? '/usr/bin:/bin').split(':').find((entry) => entry !== '' && existsSync(path.join(entry, name)));
    if (dir === undefined) return `${name} (util-linux) is not installed`;
    found[name] = path.join(dir, name);
  }
  const tools = found as OverlayTools;
  try {
    const help = execFileSync(tools.unshare, ['--help'], { encoding: 'utf8', timeout: 5_000 });
    if (!help.includes('--map-current-user') || !help.includes('--keep-caps')) return 'unshare is older than util-linux 2.38 (no --map-current-user / --keep-caps)';
  } catch (error) {
    return `unshare --help failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return tools;
}

/**
 * overlayfs takes its folders in one option string: a comma, colon, backslash or quote in a path
 * would be read as syntax. Evergreen picks the parent; a parent it cannot use is skipped.
 */
export function usableOverlayParent(parent: string): boolean {
  return path.isAbsolute(parent) && !/[,:\\"'\n]/.test(parent);
}

/** Makes one command's overlay folder under `parent` (named with this process's id, so a later run can tell a leftover). */
export function createOverlayDirs(parent: string): OverlayDirs {
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(path.join(parent, `ov-${process.pid}-`));
  const dirs: OverlayDirs = { dir, lower: path.join(dir, 'lower'), upper: path.join(dir, 'upper'), work: path.join(dir, 'work'), manifest: path.join(dir, 'manifest') };
  for (const sub of [dirs.lower, dirs.upper, dirs.work]) mkdirSync(sub, { mode: 0o700 });
  return dirs;
}

/**
 * Removes an overlay folder, in the background: on a busy disk removing even a few folders can take
 * longer than the command, and nothing waits for it (a folder left by a process that died is swept
 * by the next run). overlayfs leaves its work folder (and a folder the command made unreadable)
 * without permissions for its owner, so modes are given back when a first try fails.
 */
export function removeOverlayDirs(dir: string, logger: Logger): Promise<void> {
  try {
    // overlayfs leaves work/work with mode 0: give it back first, or removing fails on every command.
    chmodSync(path.join(dir, 'work', 'work'), 0o700);
  } catch {
    // Not made (the overlay never mounted): nothing to give back.
  }
  return fsp.rm(dir, { recursive: true, force: true }).catch(async () => {
    try {
      makeOwnerAccessible(dir);
      await fsp.rm(dir, { recursive: true, force: true });
    } catch (error) {
      logger.warn(`sandbox: could not remove the overlay folder ${dir}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

function makeOwnerAccessible(dir: string): void {
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    try {
      chmodSync(current, 0o700);
      for (const entry of readdirSync(current, { withFileTypes: true })) if (entry.isDirectory()) pending.push(path.join(current, entry.name));
    } catch {
      // What cannot be reached is left for rmSync to report.
    }
  }
}

/** Removes overlay folders whose process is gone (it was killed mid-command): nothing in them was applied, and nothing will be. */
export async function sweepStaleOverlays(parent: string, logger: Logger): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  const removals: Promise<void>[] = [];
  for (const name of names) {
    const match = /^ov-(\d+)-/.exec(name);
    if (!match || processAlive(Number(match[1]))) continue;
    logger.info(`sandbox: removing ${name}, left by an Evergreen process that ended mid-command`);
    removals.push(removeOverlayDirs(path.join(parent, name), logger));
  }
  await Promise.all(removals);
}

/** Whether a process with this id exists (EPERM: it does, as another user's). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command that runs `sandboxedCommand` (the sandbox-runtime's bwrap line) with the workspace as an overlay. */
export function overlayCommand(tools: OverlayTools, dirs: OverlayDirs, workspaceRoot: string, shell: string, sandboxedCommand: string): { file: string; args: string[] } {
  return {
    file: tools.setpriv,
    args: [
      '--pdeathsig',
      'KILL',
      '--',
      tools.unshare,
      '--user',
      '--map-current-user',
      '--mount',
      '--propagation',
      'private',
      '--keep-caps',
      '--',
      tools.bash,
      '--norc',
      '--noprofile',
      '-c',
      WRAPPER_SCRIPT,
      'evergreen-sandbox',
      workspaceRoot,
      // The workspace itself is the lower layer when its path can stand in the mount options as it is (one mount fewer).
      usableOverlayParent(workspaceRoot) ? workspaceRoot : dirs.lower,
      dirs.upper,
      dirs.work,
      dirs.manifest,
      shell,
      sandboxedCommand,
    ],
  };
}

/**
 * What the merged view held in each folder the command wrote to (workspace-relative byte strings,
 * '' for the root), or undefined when the overlay was never mounted. A folder missing from the map was not
 * listed (the wrapper was killed first, or the folder is no longer one): its deletions are then
 * known only from overlayfs's whiteouts.
 */
export function readOverlayManifest(file: string): { listings: Map<string, Set<string>>; complete: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
  // latin1 keeps every byte as one character: names stay byte strings (overlayChanges.ts), so a
  // name that is not UTF-8 is compared exactly.
  const fields = text.split('\0');
  if (fields[0] !== MOUNTED_MARK) return undefined;
  const listings = new Map<string, Set<string>>();
  let index = 1;
  while (index < fields.length) {
    const dir = fields[index];
    if (dir === 'end') return { listings, complete: true };
    const count = Number(fields[index + 1]);
    if (dir === undefined || dir === '' || !Number.isInteger(count) || count < 0 || index + 2 + count > fields.length) break;
    listings.set(relativeOf(dir), new Set(fields.slice(index + 2, index + 2 + count)));
    index += 2 + count;
  }
  return { listings, complete: false };
}

/** The wrapper's `.` and `a/b` as '' and `a/b` (and `./a/b`, as find would print it, too). */
function relativeOf(found: string): string {
  return found === '.' ? '' : found.replace(/^\.\//, '');
}

/** Whether `dir` is on a filesystem that can hold files moved from `other` by rename (the same device). */
export function sameDevice(dir: string, other: string): boolean {
  try {
    return statSync(dir).dev === statSync(other).dev;
  } catch {
    return false;
  }
}

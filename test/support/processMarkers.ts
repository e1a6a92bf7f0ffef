// Finding a command's processes from outside the sandbox: inside its PID namespace `$$` and `$!`
// are not this machine's pids, so tests start processes whose argv[0] is a unique marker
// (`exec -a MARKER sleep 300`) and look for it in /proc/*/cmdline.
import { promises as fsp } from 'node:fs';
import { isProcessAlive } from '../../src/core/shell/processGroup';
import { pollUntil } from './waitFor';

/** A shell fragment that starts a long sleep whose argv[0] is `marker`. */
export const markedSleep = (marker: string): string => `bash -c 'exec -a ${marker} sleep 300'`;

/**
 * Live (non-zombie) processes of this machine whose argv `matches`. Reads /proc rather than
 * running `ps`: a fresh Debian machine has no procps.
 */
async function processesWhoseArgv(matches: (argv: string[]) => boolean): Promise<number[]> {
  const found: number[] = [];
  for (const name of await fsp.readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = (await fsp.readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0');
      if (matches(argv) && (await isProcessAlive(Number(name)))) found.push(Number(name));
    } catch {
      // Gone between readdir and read.
    }
  }
  return found;
}

/** Live processes whose argv[0] is `marker`. */
export const markedProcesses = (marker: string): Promise<number[]> => processesWhoseArgv((argv) => argv[0] === marker);

/** Live processes whose command line contains `text` (this process excluded). */
export const processesWhoseCommandLineIncludes = async (text: string): Promise<number[]> =>
  (await processesWhoseArgv((argv) => argv.join(' ').includes(text))).filter((pid) => pid !== process.pid);

/** Waits (bounded) until `count` marked processes run, or until none do when count is 0; returns the last look. */
export function waitForMarked(marker: string, count: number, timeoutMs = 15_000): Promise<number[]> {
  return pollUntil(() => markedProcesses(marker), (pids) => (count === 0 ? pids.length === 0 : pids.length >= count), { timeoutMs });
}

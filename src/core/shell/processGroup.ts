// Process-group helpers for run_shell: the command runs as the leader of its own group so the
// whole tree (including background children) can be signalled at once.
import { promises as fsp } from 'node:fs';

// Every child process the tools start, so a front end that is being killed (SIGTERM, SIGHUP, a
// second Ctrl-C) can take them down with it: run_shell's detached groups would otherwise outlive
// the CLI, and an rg stuck on a slow file would keep spinning.
const trackedChildren = new Map<number, { group: boolean }>();

/** Registers a running child (a group leader when `group`); the returned function unregisters it. */
export function trackChildProcess(pid: number, options: { group: boolean }): () => void {
  trackedChildren.set(pid, options);
  return () => {
    trackedChildren.delete(pid);
  };
}

/** Number of children currently registered (for tests and diagnostics). */
export function trackedChildCount(): number {
  return trackedChildren.size;
}

/**
 * Synchronously signals every registered child (its whole group for run_shell). Safe to call from
 * a signal handler or an 'exit' listener, where nothing asynchronous runs any more.
 */
export function killTrackedChildren(signal: NodeJS.Signals = 'SIGKILL'): number {
  let signalled = 0;
  for (const [pid, { group }] of trackedChildren) {
    try {
      process.kill(group && process.platform !== 'win32' ? -pid : pid, signal);
      signalled++;
    } catch {
      // ESRCH: already gone.
    }
  }
  trackedChildren.clear();
  return signalled;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Linux /proc/<pid>/stat: state and process group, or undefined if the process is gone. */
async function readStat(pid: string): Promise<{ state: string; pgrp: number } | undefined> {
  try {
    const stat = await fsp.readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

let procAvailable: boolean | undefined;
async function hasProc(): Promise<boolean> {
  procAvailable ??= await fsp.access('/proc/self/stat').then(
    () => true,
    () => false,
  );
  return procAvailable;
}

/**
 * True while some member of the group is still running. Zombies do not count: when the tool
 * runs under a PID 1 that never reaps orphans (containers), killed children stay zombies forever.
 */
export async function groupHasLiveMembers(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (!(await hasProc())) return true;
  let pids: string[];
  try {
    pids = (await fsp.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return true;
  }
  for (const pid of pids) {
    const stat = await readStat(pid);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

/** True if the process exists and is not a zombie. */
export async function isProcessAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!(await hasProc())) return true;
  const stat = await readStat(String(pid));
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM the group, wait up to graceMs for it to go away, then SIGKILL whatever is left and wait for it. */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!(await groupHasLiveMembers(pgid))) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    if (!(await groupHasLiveMembers(pgid))) return;
  }
  signalGroup(pgid, 'SIGKILL');
  // SIGKILL is delivered asynchronously: wait (bounded) until the tree is really gone, so callers
  // that report "terminated" are telling the truth even on a loaded machine.
  const killDeadline = Date.now() + 2_000;
  while (Date.now() < killDeadline && (await groupHasLiveMembers(pgid))) await sleep(20);
}

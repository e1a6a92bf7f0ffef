/**
 * Starting a process whose whole tree can be ended at once: hooks and stdio MCP servers today,
 * and the place for run_shell to move to (a process group alone misses a `setsid` grandchild).
 *
 * Best: a PID namespace of its own, through util-linux (`setpriv --pdeathsig KILL unshare --user
 * --map-current-user --pid --fork --kill-child`). The kernel kills every process of a namespace when
 * its first process dies, `setsid` or daemonized grandchildren included; `--kill-child` kills that
 * first process when `unshare` dies, and `--pdeathsig` kills `unshare` when Evergreen dies, even by
 * SIGKILL. Where user namespaces are refused (Ubuntu's AppArmor restriction, many containers, macOS)
 * or util-linux is too old, the tree is a process group plus, when it is killed, every process whose
 * parent chain leads to the leader (read from /proc): a `setsid` grandchild whose parent already
 * exited escapes that fallback, and that is the one thing it cannot catch.
 *
 * Inside the namespace the process runs as the same user with the same files, network and /proc;
 * what changes: it sees itself as PID 1, and setuid programs (sudo) cannot raise privileges.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive, signalGroup, trackChildProcess } from './processGroup';

export type TreeContainment = 'pid-namespace' | 'process-group';

/** Added to the environment of every command and hook: nothing may wait for a human (no pagers, no credential prompts). */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };

const NAMESPACE_PREFIX = ['--pdeathsig', 'KILL', '--', 'unshare', '--user', '--map-current-user', '--pid', '--fork', '--kill-child', '--'];
/** How long the one-time probe may take before the fallback is chosen. */
const PROBE_TIMEOUT_MS = 5_000;
/** How long a kill waits for the tree's processes to be gone before it reports anyway. */
const KILL_WAIT_MS = 2_000;

let namespaceProbe: Promise<boolean> | undefined;

/** Whether `setpriv … unshare --pid` works here; probed once per process (the answer does not change while it runs). */
export function pidNamespaceAvailable(): Promise<boolean> {
  namespaceProbe ??= process.platform !== 'linux' ? Promise.resolve(false) : probeNamespace();
  return namespaceProbe;
}

function probeNamespace(): Promise<boolean> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn('setpriv', [...NAMESPACE_PREFIX, 'true'], { stdio: 'ignore' });
    } catch {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(false);
    }, PROBE_TIMEOUT_MS);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

export interface ContainedProcess {
  child: ChildProcess;
  containment: TreeContainment;
  /**
   * SIGKILLs every process of the tree and waits (bounded) until they are gone. Safe to call more
   * than once and after the leader exited (then it takes down what the leader left behind).
   */
  killTree(): Promise<void>;
  /** Forgets the child for `killTrackedChildren`; call once the tree is gone. */
  untrack(): void;
}

export interface ContainedSpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  /** Test seam: force the process-group fallback. */
  containment?: TreeContainment;
}

/**
 * Spawns `file args` as the root of a tree that `killTree` ends whole. The child is the leader of
 * its own process group either way (no controlling terminal, like Claude Code's hooks), and it is
 * registered with `trackChildProcess` so a front end that is shutting down takes it along.
 */
export async function spawnContained(file: string, args: readonly string[], options: ContainedSpawnOptions): Promise<ContainedProcess> {
  const containment = options.containment ?? ((await pidNamespaceAvailable()) ? 'pid-namespace' : 'process-group');
  const child =
    containment === 'pid-namespace'
      ? spawn('setpriv', [...NAMESPACE_PREFIX, file, ...args], { cwd: options.cwd, env: options.env, stdio: options.stdio, detached: true, windowsHide: true })
      : spawn(file, [...args], { cwd: options.cwd, env: options.env, stdio: options.stdio, detached: process.platform !== 'win32', windowsHide: true });
  const leader = child.pid;
  const untrack = leader !== undefined ? trackChildProcess(leader, { group: process.platform !== 'win32' }) : () => undefined;
  // The tree as last seen while the leader lived: after it exits, its orphans have other parents.
  let known = new Set<number>();
  const refresh = async (): Promise<void> => {
    if (leader !== undefined && (await isProcessAlive(leader))) known = new Set([leader, ...(await descendantsOf(leader))]);
  };
  return {
    child,
    containment,
    untrack,
    async killTree(): Promise<void> {
      if (leader === undefined) return;
      if (process.platform === 'win32') {
        child.kill('SIGKILL');
        return;
      }
      await refresh();
      signalGroup(leader, 'SIGKILL');
      for (const pid of known) signal(pid, 'SIGKILL');
      // Something forked between the walk and the kill: one more pass over what the walk can still reach.
      for (const pid of await descendantsOfAll(known)) signal(pid, 'SIGKILL');
      const deadline = Date.now() + KILL_WAIT_MS;
      while (Date.now() < deadline && (await anyAlive(known))) await sleep(20);
    },
  };
}

/**
 * The program `command` names for a child with this PATH and working folder, as execvp finds it,
 * or undefined when there is none. In a PID namespace `unshare` runs the program and reports a
 * missing one in words of its own; a caller that wants spawn's ENOENT starts an unfound command
 * without the namespace.
 */
export async function resolveExecutable(command: string, pathEnv: string | undefined, cwd: string): Promise<string | undefined> {
  const candidates = command.includes('/')
    ? [path.resolve(cwd, command)]
    : (pathEnv ?? '')
        .split(path.delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => path.resolve(cwd, dir, command));
  for (const candidate of candidates) {
    const stat = await fsp.stat(candidate).catch(() => undefined);
    if (stat?.isFile() && (await fsp.access(candidate, fsConstants.X_OK).then(() => true, () => false))) return candidate;
  }
  return undefined;
}

/** How a child ended: its exit status, or the error that kept it from starting. */
export interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

export interface ChildWatch {
  /** Resolves when the child exits, or fails to start (then `error` is set). */
  exited: Promise<ChildEnd>;
  /**
   * Resolves when its stdio closed, or after `ms` at most: a grandchild that escaped the kill could
   * hold a pipe open forever, and output still draining after the exit is worth a short wait.
   */
  closedWithin(ms: number): Promise<void>;
}

/** Watches a child's end; call right after spawning, before any event can be missed. */
export function watchChild(child: ChildProcess): ChildWatch {
  const exited = new Promise<ChildEnd>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    exited,
    async closedWithin(ms: number): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
  };
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ESRCH: already gone.
  }
}

async function anyAlive(pids: Iterable<number>): Promise<boolean> {
  for (const pid of pids) if (await isProcessAlive(pid)) return true;
  return false;
}

/** Parent of every process, from /proc (empty where there is none). */
async function parentMap(): Promise<Map<number, number[]>> {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = (await fsp.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return children;
  }
  await Promise.all(
    names.map(async (name) => {
      try {
        const stat = await fsp.readFile(`/proc/${name}/stat`, 'utf8');
        // The command name may hold spaces and parentheses: the fields start after the last ')'.
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const list = children.get(parent) ?? [];
        list.push(Number(name));
        children.set(parent, list);
      } catch {
        // Gone while reading.
      }
    }),
  );
  return children;
}

function walk(children: Map<number, number[]>, roots: Iterable<number>): Set<number> {
  const found = new Set<number>();
  const stack = [...roots];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (found.has(child)) continue;
      found.add(child);
      stack.push(child);
    }
  }
  return found;
}

/** Every process whose parent chain leads to `pid` (Linux; elsewhere none are found). */
export async function descendantsOf(pid: number): Promise<Set<number>> {
  return walk(await parentMap(), [pid]);
}

async function descendantsOfAll(pids: Iterable<number>): Promise<Set<number>> {
  return walk(await parentMap(), pids);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The fast tier's rule, enforced (loaded with --require by `npm run test:unit`): a test under
 * test/unit may not start a process, listen on a socket or wait on a real timer. Each would make the
 * tier slow, or flaky on a loaded machine; such a test belongs in test/system.
 *
 * A broken rule fails the test that broke it, with the reason: the call throws where it is made (so
 * no process starts), and each test runs wrapped so that it fails with that error even when the code
 * under test caught it (or failed some other way because of it). A real timer that fires throws in
 * its callback, which mocha charges to the running test.
 */
import * as path from 'node:path';

// The modules themselves, not import-namespace copies: patching them must reach every importer.
/* eslint-disable @typescript-eslint/no-require-imports */
const childProcess = require('node:child_process') as typeof import('node:child_process');
const dgram = require('node:dgram') as typeof import('node:dgram');
const net = require('node:net') as typeof import('node:net');
/* eslint-enable @typescript-eslint/no-require-imports */

/** A real timer this long or longer that fires during a test is a test waiting on the clock. */
export const REAL_TIMER_LIMIT_MS = 20;

const REPO_ROOT = path.resolve(__dirname, '..', '..');

export class FastTierViolation extends Error {
  override name = 'FastTierViolation';
}

/** The first frame of the caller's stack that is ours (src/, test/), not Node's, a library's or this file's. */
function callSite(stack: string | undefined): string {
  const frames = (stack ?? '').split('\n').slice(1).map((line) => line.trim());
  const ours = frames.find((frame) => frame.includes(REPO_ROOT) && !frame.includes('node_modules') && !frame.includes(__filename));
  return ours ? ours.replace(/^at /, '').replace(REPO_ROOT + path.sep, '') : 'an unknown caller';
}

/** The caller's stack, deep enough to get past Node's own frames. */
function stackHere(): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack;
  Error.stackTraceLimit = limit;
  return stack;
}

/** Violations of the running test, for the afterEach check. */
const violations: FastTierViolation[] = [];

function fail(what: string, remedy: string, stack: string | undefined): FastTierViolation {
  const error = new FastTierViolation(
    `The fast tier (test/unit) allows no processes, no servers and no real clocks, and this test ${what} (at ${callSite(stack)}). ${remedy} See docs/architecture.md, "Testing".`,
  );
  violations.push(error);
  return error;
}

const MOVE = 'Move the test to test/system/ (same path below it), where `npm run test:system` runs it; or give the code under test an in-memory stand-in.';

function forbidProcess(name: string): (command: unknown) => never {
  return function forbidden(command: unknown): never {
    throw fail(`started a process (child_process.${name}(${JSON.stringify(String(command)).slice(0, 80)}))`, MOVE, stackHere());
  };
}

/**
 * Real timers: scheduling one is fine (a request timeout that never fires), but one of
 * REAL_TIMER_LIMIT_MS or more that fires means the test waited on the wall clock.
 */
function guardTimer<T extends (callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => unknown>(real: T, name: string): T {
  const guarded = function (this: unknown, callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]): unknown {
    if (typeof callback !== 'function' || !(Number(delay) >= REAL_TIMER_LIMIT_MS)) return real.call(this, callback, delay, ...args);
    const scheduledAt = stackHere();
    const scheduledBy = runningTest;
    return real.call(
      this,
      function fired() {
        const leftBy = scheduledBy ? `the test "${scheduledBy}"` : 'code outside any test';
        throw fail(
          scheduledBy === runningTest ? `waited ${Number(delay)} ms on a real ${name}` : `met a real ${name} of ${Number(delay)} ms left running by ${leftBy}`,
          'Use a fake clock (test/support/clock.ts: `const clock = useFakeClock()` in the describe, then `await clock().tickAsync(ms)`), or wait for the event itself instead of a time.',
          scheduledAt,
        );
      },
      delay,
      ...args,
    );
  };
  return Object.assign(guarded, real) as unknown as T;
}

const GUARDED = Symbol('fast tier guard');

/** Wraps the test's function: a violation during it is the test's failure, whatever else happened. */
function guardTest(test: Mocha.Test): void {
  const original = test.fn as (Mocha.Func & { [GUARDED]?: true }) | undefined;
  if (!original || original[GUARDED]) return;
  const guarded =
    original.length > 0
      ? function (this: Mocha.Context, done: Mocha.Done) {
          (original as (this: Mocha.Context, done: Mocha.Done) => void).call(this, (error?: unknown) => done(violations[0] ?? error));
        }
      : async function (this: Mocha.Context) {
          try {
            await (original as (this: Mocha.Context) => unknown).call(this);
          } catch (error) {
            throw violations[0] ?? error;
          }
          if (violations[0]) throw violations[0];
        };
  test.fn = Object.assign(guarded, { [GUARDED]: true as const, toString: () => original.toString() });
}

let installed = false;
/** The full title of the test running now, to name who left a timer behind. */
let runningTest: string | undefined;

/**
 * Installed by the root beforeAll, so in the process that runs the tests: under --parallel the
 * coordinator forks its workers and must stay unguarded.
 */
function install(): void {
  if (installed) return;
  installed = true;
  // Every way child_process starts a process; ChildProcess#spawn as well, which the asynchronous ones
  // reach however they were imported.
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
    (childProcess as Record<string, unknown>)[name] = forbidProcess(name);
  }
  // Not in @types/node, but where every asynchronous start ends up.
  (childProcess.ChildProcess.prototype as unknown as { spawn: (options?: { file?: string }) => never }).spawn = function forbidden(options) {
    throw fail(`started a process (ChildProcess#spawn(${JSON.stringify(options?.file ?? '?')}))`, MOVE, stackHere());
  };

  net.Server.prototype.listen = function forbidden(): never {
    throw fail('listened on a socket (net.Server#listen: an HTTP server, a fake API, an MCP server)', MOVE, stackHere());
  };
  dgram.Socket.prototype.bind = function forbidden(): never {
    throw fail('bound a UDP socket (dgram.Socket#bind)', MOVE, stackHere());
  };

  globalThis.setTimeout = guardTimer(globalThis.setTimeout, 'setTimeout') as typeof setTimeout;
  globalThis.setInterval = guardTimer(globalThis.setInterval, 'setInterval') as typeof setInterval;
}

export const mochaHooks = {
  beforeAll: install,
  beforeEach(this: Mocha.Context): void {
    runningTest = this.currentTest?.fullTitle();
    violations.length = 0;
    if (this.currentTest) guardTest(this.currentTest);
  },
  afterEach(): void {
    runningTest = undefined;
  },
};

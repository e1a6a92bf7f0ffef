/**
 * A fake clock for the fast tier (@sinonjs/fake-timers): setTimeout, setInterval and Date move only
 * when the test says so, so a test of a timeout, a retry delay or a time limit takes no real time
 * and cannot lose a race against a loaded machine. setImmediate, process.nextTick and I/O stay real.
 *
 *   const clock = useFakeClock();          // in a describe: installed before each test, removed after
 *   const pending = runSomething();
 *   await clock().tickAsync(50);           // fires what is due within 50 ms, settling promises between timers
 *   await pending;
 */
import { install, type Clock } from '@sinonjs/fake-timers';

export type FakeClock = Clock;

/**
 * Installs a fake clock now (Date starts at `now`); the caller uninstalls it. Timers set before it
 * stay real (clearing one clears the real one), so code already running keeps its own waits.
 */
export function installFakeClock(now = 0): FakeClock {
  return install({ now, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], shouldClearNativeTimers: true });
}

/** A fake clock for every test of the enclosing describe; returns the running test's clock. */
export function useFakeClock(now = 0): () => FakeClock {
  let clock: FakeClock | undefined;
  beforeEach(() => {
    clock = installFakeClock(now);
  });
  afterEach(() => {
    clock?.uninstall();
    clock = undefined;
  });
  return () => {
    if (!clock) throw new Error('useFakeClock: the clock exists only while a test of its describe runs');
    return clock;
  };
}

/**
 * Fires the fake clock's timers one at a time until `promise` settles (or none are left), and
 * returns what it settled with: for code that waits on timers the test does not care to count.
 */
export async function settleWithClock<T>(clock: FakeClock, promise: Promise<T>): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => (settled = true));
  watched.catch(() => undefined); // Rejections reach the caller through the return below.
  for (let fired = 0; !settled && fired < 10_000; fired++) {
    await clock.nextAsync();
    if (!settled && clock.countTimers() === 0) await new Promise((resolve) => setImmediate(resolve));
    if (!settled && clock.countTimers() === 0) break;
  }
  return watched;
}

/**
 * Waiting, bounded, for something that happens on its own time: a process, a server, a file, a
 * background task. For the system tier and the suites that drive real programs; the fast tier waits
 * on events or on a fake clock (clock.ts), never on this.
 */

export interface WaitOptions {
  /** What is awaited, for the error when it never comes ("the server to start"). */
  what?: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/** Polls `condition` until it holds, or throws once `timeoutMs` has passed without it. */
export async function waitFor(condition: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  const { what = 'the condition', timeoutMs = 10_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}, in vain`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Polls `look` until `done` accepts what it returns, or the time is up; returns the last look either
 * way, for the caller's assertion to show what was there.
 */
export async function pollUntil<T>(look: () => T | Promise<T>, done: (value: T) => boolean, options: Omit<WaitOptions, 'what'> = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  let value = await look();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    value = await look();
  }
  return value;
}

// How well this thread's event loop answers while some work runs: the tests of work moved to a
// worker thread (a page's conversion, an image's resize) compare it with the same work done here.

/** Runs `work` while a 10 ms interval measures this thread's event loop: the longest gap between its ticks, and how many there were. */
export async function whileTicking<T>(work: () => Promise<T>): Promise<{ value: T; worstGapMs: number; ticks: number; tookMs: number }> {
  let ticks = 0;
  let worstGapMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worstGapMs = Math.max(worstGapMs, now - last);
    last = now;
    ticks++;
  }, 10);
  const started = performance.now();
  try {
    const value = await work();
    // The gap up to now counts too: a task that never let the timer run has no tick to measure it.
    worstGapMs = Math.max(worstGapMs, performance.now() - last);
    return { value, worstGapMs, ticks, tookMs: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

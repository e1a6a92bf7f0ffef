import type { ContextGauge } from '../context/gauge';

/** While a reply streams the gauge moves by an estimate, at most this often (a cheap update, no history walk). */
export const STREAMING_GAUGE_INTERVAL_MS = 250;

/** Streamed characters feed a throttled gauge estimate, so the gauge moves while a reply streams. */
export function streamingGauge(deps: { now: () => number; estimate: ((pendingChars: number) => ContextGauge) | undefined; publish: (gauge: ContextGauge) => void }): { add(chars: number): void; reset(): void } {
  let chars = 0;
  let lastAt = deps.now();
  return {
    add: (more) => {
      chars += more;
      const now = deps.now();
      if (!deps.estimate || now - lastAt < STREAMING_GAUGE_INTERVAL_MS) return;
      lastAt = now;
      deps.publish(deps.estimate(chars));
    },
    reset: () => {
      chars = 0;
    },
  };
}

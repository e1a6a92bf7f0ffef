import type { ContextGauge } from '../context/gauge';

/** While a reply streams the gauge moves by an estimate, at most this often (a cheap update, no history walk). */
export const STREAMING_GAUGE_INTERVAL_MS = 250;

/** What a streamed delta is: thinking gets its own line in the breakdown while the turn runs. */
export type StreamedKind = 'text' | 'thinking';

/**
 * Streamed characters feed a throttled gauge estimate, so the gauge moves while a reply streams,
 * thinking included. `estimate` gets every pending character and how many of them are thinking.
 */
export function streamingGauge(deps: {
  now: () => number;
  estimate: ((pendingChars: number, pendingThinkingChars: number) => ContextGauge) | undefined;
  publish: (gauge: ContextGauge) => void;
}): { add(chars: number, kind?: StreamedKind): void; reset(): void } {
  let chars = 0;
  let thinkingChars = 0;
  let lastAt = deps.now();
  return {
    add: (more, kind = 'text') => {
      chars += more;
      if (kind === 'thinking') thinkingChars += more;
      const now = deps.now();
      if (!deps.estimate || now - lastAt < STREAMING_GAUGE_INTERVAL_MS) return;
      lastAt = now;
      deps.publish(deps.estimate(chars, thinkingChars));
    },
    reset: () => {
      chars = 0;
      thinkingChars = 0;
    },
  };
}

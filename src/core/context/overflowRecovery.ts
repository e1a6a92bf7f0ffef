/**
 * Overflow recovery, planned: what a "prompt is too long" refusal teaches and what to try, in
 * order. The API's count of the refused prompt re-anchors the estimate that let it through; a
 * window the refusal names, smaller than the one assumed, becomes the budget (a local server run
 * with a small context); then a summary (first attempt only, not while automatic compaction is
 * paused); and last a deterministic drop of the oldest rounds (compactionPlanning.ts, `planDrop`).
 * Pure: the engine records and runs the steps.
 */
import type { ModelError } from '../model/errors';
import type { RequestMark, TokenAnchor } from '../storage/transcript';
import { serverWindowOf } from './learnedWindow';
import type { EngineState } from './state';

export interface OverflowPlan {
  /** The refused prompt as the API counted it; undefined when the refusal carried no count. */
  anchor: TokenAnchor | undefined;
  /** The server's whole window when the refusal named one smaller than `assumedWindow`. */
  smallerWindow: number | undefined;
  /** Try a summary before dropping rounds. */
  compact: boolean;
}

export function planOverflowRecovery(input: { state: EngineState; mark: RequestMark; attempt: number; error: ModelError; assumedWindow: number; breakerOpen: boolean; nowMs: number }): OverflowPlan {
  const counted = input.error.tooLong;
  const anchor = counted && input.mark.liveChars > 0 ? { mark: input.mark, promptTokens: counted.promptTokens, atMs: input.state.lastRequest?.atMs ?? input.nowMs } : undefined;
  const window = serverWindowOf(counted);
  return { anchor, smallerWindow: window !== undefined && window < input.assumedWindow ? window : undefined, compact: input.attempt === 0 && !input.breakerOpen };
}

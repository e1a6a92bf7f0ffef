/**
 * Clearing or summarizing, by expected cost over the rest of the session (docs/architecture.md,
 * "Context engine", "Cost over the whole session"). Tiers 1-3 clear old tool results, but every
 * round leaves a skeleton behind — its text, its tool call's input and a placeholder — that no
 * clearing removes and every later request reads again. A summary replaces that skeleton with a
 * short text (and everything it leaves out stays one `recall` away), at a price: the summary
 * request (its cached prefix read, its reply at the output price) and the rewrite of the view
 * after it. So, prices relative to uncached input (read r, write w, output o):
 *
 *   gap      = the view with every clearable old result cleared (what clearing alone reaches)
 *              − the view right after a summary (base + summary + the newest rounds kept);
 *   price    = r·(the view now) + o·(expected summary reply) + w·(the view after − base);
 *   summarize when the reads the gap has cost since the last compaction (it grows about linearly,
 *   so ≈ r·gap·n/2 over those n requests: the ski-rental rule again) reach the price, and the
 *   requests likely to come (as many again as the session has had: a session that has run N
 *   requests is, on the evidence, as likely to run N more) save at least the price: r·gap·H ≥ price.
 *
 * Pure: the engine supplies the numbers, records and runs the summary.
 */
export interface SummaryPolicyInput {
  /** Tokens of the view now (tiers applied). */
  usedTokens: number;
  /** Tokens of the view if every clearable old result were cleared. */
  floorTokens: number;
  /** Tokens of the view right after a summary (base + kept messages), the summary itself not included. */
  keptTokens: number;
  /** Tokens of the system prompt and tools (cached across a summary). */
  baseTokens: number;
  /** The summary reply expected (its analysis included). */
  summaryOutputTokens: number;
  /** Requests since the newest compaction (the whole session when there was none). */
  requestsSinceCompaction: number;
  /** Requests the session has sent so far (the estimate of those still to come). */
  requestsInSession: number;
  prices: { cacheReadPrice: number; cacheWritePrice: number; outputPrice: number };
}

export type SummaryPolicyDecision =
  | { summarize: true; gap: number; price: number; why: string }
  | { summarize: false; gap: number; price: number };

/** The summary's own text stays in the view: of the reply, about this share is the <summary> (the rest is <analysis>). */
const SUMMARY_SHARE_OF_REPLY = 0.6;

export function decideSummary(input: SummaryPolicyInput): SummaryPolicyDecision {
  const { cacheReadPrice: r, cacheWritePrice: w, outputPrice: o } = input.prices;
  const after = input.keptTokens + SUMMARY_SHARE_OF_REPLY * input.summaryOutputTokens;
  const gap = input.floorTokens - after;
  const price = r * input.usedTokens + o * input.summaryOutputTokens + w * Math.max(0, after - input.baseTokens);
  if (!(gap > 0) || !(price >= 0)) return { summarize: false, gap, price };
  const n = Math.max(0, Math.min(input.requestsSinceCompaction, input.requestsInSession));
  const paidSince = (r * gap * n) / 2;
  const expected = r * gap * input.requestsInSession;
  if (paidSince < price || expected < price) return { summarize: false, gap, price };
  return {
    summarize: true,
    gap,
    price,
    why: `the ~${Math.round(gap).toLocaleString('en-US')} tokens of old rounds no clearing removes have cost about as much in reads since the last summary as a summary costs (~${Math.round(price).toLocaleString('en-US')} input-token equivalents), and the session is likely to go on`,
  };
}

/**
 * How a cost reads, in every front end (gauge, breakdown, session picker, CLI, transcript, subagent
 * cards): the one definition of "price unknown". A request to a model without a known price adds
 * nothing to the dollar sums (never a guess) and is counted instead, so $0.00 is never shown for a
 * cost nobody knows.
 */

/** One request's cost: `priceUnknown` when its model had no known price (costUsd is then 0). */
export interface RequestCost {
  costUsd: number;
  priceUnknown?: true;
}

/** What the cost reads as when no request had a known price. */
export const PRICE_UNKNOWN = 'price unknown';

/** Where a price is set (the next step, shown beside an unknown price where there is room). */
export const PRICE_SETTING = 'evergreen.pricing';

/**
 * "$0.42"; "price unknown" when every request was unpriced; "$0.42 + price unknown" when some were.
 * `decimals`: fixed digits (the CLI and transcripts use 4); by default 2, or 4 below a cent.
 * `priceUnknown`: the front end's words for an unknown price (the panel's and VS Code's are the
 * user's language); English by default, for the CLI, the exported Markdown and the log.
 */
export function formatCost(usd: number, unpricedRequests = 0, decimals?: number, priceUnknown = PRICE_UNKNOWN): string {
  const digits = decimals ?? (usd > 0 && usd < 0.01 ? 4 : 2);
  const dollars = `$${usd.toFixed(digits)}`;
  if (unpricedRequests <= 0) return dollars;
  return usd > 0 ? `${dollars} + ${priceUnknown}` : priceUnknown;
}

/** The next step beside an unknown price: "" when every request had a price. */
export function priceUnknownHint(unpricedRequests = 0): string {
  if (unpricedRequests <= 0) return '';
  const requests = unpricedRequests === 1 ? '1 request' : `${unpricedRequests.toLocaleString('en-US')} requests`;
  return `${requests} to a model with no known price: set its price (USD per million tokens) in "${PRICE_SETTING}" to see what it costs.`;
}

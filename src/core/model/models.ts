/** Model defaults and prices: the only place a model id is written down. */

export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const FALLBACK_CONTEXT_WINDOW = 200_000;

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Keyed by model-id prefix; the longest matching prefix wins, so dated ids inherit their family's price. */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
};

export function priceFor(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | undefined {
  const table = { ...DEFAULT_PRICES, ...overrides };
  let best: string | undefined;
  for (const prefix of Object.keys(table)) {
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : table[best];
}

export interface UsageCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Cost in USD; an unknown model costs 0 rather than a guess (the UI says the price is unknown). */
export function costOf(usage: UsageCounts, price: ModelPrice | undefined): number {
  if (!price) return 0;
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * price.cacheRead +
      usage.cacheWriteTokens * price.cacheWrite) /
    1_000_000
  );
}

/** Validates a user-supplied price table (a setting): bad entries are reported, never silently used. */
export function parsePriceOverrides(value: unknown): { prices: Record<string, ModelPrice>; problems: string[] } {
  const prices: Record<string, ModelPrice> = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { prices, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { prices, problems: ['pricing must be an object keyed by model id'] };
  }
  for (const [model, entry] of Object.entries(value as Record<string, unknown>)) {
    const fields = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;
    const record = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const bad = fields.filter((field) => typeof record[field] !== 'number' || !((record[field] as number) >= 0));
    if (bad.length > 0) {
      problems.push(`pricing for "${model}" needs non-negative numbers for ${bad.join(', ')}`);
      continue;
    }
    prices[model] = { input: record.input as number, output: record.output as number, cacheRead: record.cacheRead as number, cacheWrite: record.cacheWrite as number };
  }
  return { prices, problems };
}

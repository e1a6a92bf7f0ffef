/** Model defaults, prices and known windows: the only place a model id is written down. */
import type { ProviderId } from './providers';

export const DEFAULT_MODEL = 'claude-sonnet-5-5';
/** The OpenAI back end's model when none is configured. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4.1';
/** Anthropic: when the Models API cannot say (gateways without /v1/models). */
export const FALLBACK_CONTEXT_WINDOW = 200_000;
/** OpenAI-compatible servers: for a model not in OPENAI_CONTEXT_WINDOWS (local servers, gateways). */
export const OPENAI_FALLBACK_CONTEXT_WINDOW = 128_000;

/** The model a provider uses when none is configured. */
export function defaultModelFor(provider: ProviderId): string {
  return provider === 'openai' ? DEFAULT_OPENAI_MODEL : DEFAULT_MODEL;
}

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

/**
 * OpenAI list prices. cacheRead is the cached-input price; cacheWrite equals input, since OpenAI
 * charges nothing extra for writing its automatic prefix cache.
 */
export const OPENAI_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 },
  o3: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 1.1 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 },
  o1: { input: 15, output: 60, cacheRead: 7.5, cacheWrite: 15 },
  'o1-mini': { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 1.1 },
};

/** Each provider's price table; the user's overrides (evergreen.pricing) apply on top of either. */
const PRICES: Readonly<Record<ProviderId, Readonly<Record<string, ModelPrice>>>> = { anthropic: DEFAULT_PRICES, openai: OPENAI_PRICES };

/** The price of `model` on `provider`: the longest matching prefix of the overrides + the provider's table; undefined = unknown. */
export function priceFor(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}, provider: ProviderId = 'anthropic'): ModelPrice | undefined {
  return longestPrefix(model, { ...PRICES[provider], ...overrides });
}

/**
 * Context windows (input tokens) of known OpenAI models, by id prefix; o-series and gpt-5 count
 * the reply inside the same limit, which the engine's output reserve already accounts for.
 */
export const OPENAI_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  'gpt-5': 272_000,
  'gpt-4.1': 1_047_576,
  'gpt-4o': 128_000,
  'gpt-4-turbo': 128_000,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o4-mini': 200_000,
};

/** The window of an OpenAI(-compatible) model: the table above, else 128,000. */
export function openAIContextWindowFor(model: string): number {
  return longestPrefix(model, OPENAI_CONTEXT_WINDOWS) ?? OPENAI_FALLBACK_CONTEXT_WINDOW;
}

/** Dated ids (claude-…-20250929, gpt-4o-2024-08-06) inherit their family's entry: the longest matching prefix wins. */
function longestPrefix<T>(model: string, table: Readonly<Record<string, T>>): T | undefined {
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

/** Cost in USD; undefined for a model with no known price (never a guess: cost.ts shows it as "price unknown"). */
export function costOf(usage: UsageCounts, price: ModelPrice | undefined): number | undefined {
  if (!price) return undefined;
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

/**
 * What Evergreen knows about each provider's models without asking a server: the default model,
 * the window to assume, what the back end can do, and per model family its window and prices.
 * The one table of provider and model facts: back ends, the engine's cache economics, the front
 * ends and the CLI's help read it; a model id is written down nowhere else.
 */
import * as z from '../zod';
import type { ProviderId } from './providers';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What a back end can do (the same for every model of its provider). */
export interface BackendCapabilities {
  /**
   * 'explicit-breakpoints': the request's cache hints decide what is cached (Anthropic);
   * 'automatic-prefix': the server caches the longest repeated prefix itself, hints are ignored
   * (OpenAI), so keeping the prefix byte-identical is what makes it hit.
   */
  caching: 'explicit-breakpoints' | 'automatic-prefix';
  /** countTokens is available (a free, exact count of a request). */
  tokenCounting: boolean;
  /** The server can say the model's limits (getModelInfo may answer). */
  modelInfo: boolean;
  /** The API runs a web search itself when a request offers it (Anthropic's server tool); others need a client tool (SearXNG). */
  serverWebSearch?: true;
}

/**
 * How a model family is asked to think (model/thinking.ts turns a budget into the parameter):
 * - 'budget': Anthropic's `thinking: {type: 'enabled', budget_tokens}` (Claude 3.7 and 4.0-4.5);
 * - 'adaptive': Anthropic's `thinking: {type: 'adaptive'}` with `output_config.effort` (Claude 4.6
 *   and later, where the budget form is deprecated or refused; the 5 family thinks by default);
 * - 'effort': OpenAI's `reasoning_effort` (o-series, gpt-5);
 * - 'none': the family cannot think (a row that says so shadows a shorter prefix that can).
 */
export type ThinkingForm = 'none' | 'budget' | 'adaptive' | 'effort';

export interface ThinkingFacts {
  form: ThinkingForm;
  /** Budget form: thinks between tool calls with the `interleaved-thinking-2025-05-14` beta header (Claude 4 and later; adaptive models interleave by themselves). */
  interleaved?: true;
}

/** One model family's facts; absent ones are unknown (the server may still say them). */
export interface ModelFacts {
  /** Context window in input tokens. */
  window?: number;
  price?: ModelPrice;
  /** Whether and how it thinks; absent: unknown, treated as no thinking. */
  thinking?: ThinkingFacts;
}

export interface ProviderFacts {
  /** The model used when none is configured. */
  defaultModel: string;
  /** The window when neither a setting, the server nor the model's row says one. */
  fallbackWindow: number;
  capabilities: BackendCapabilities;
  /** What its server-side web search costs (USD per 1,000 searches); absent: it has none. */
  webSearchUsdPerThousand?: number;
  /**
   * By model-id prefix: for each fact the longest prefix that has it wins, so dated ids
   * (claude-…-20250929, gpt-4o-2024-08-06) inherit their family's, and gpt-5-mini its family's window.
   */
  models: Readonly<Record<string, ModelFacts>>;
}

const ADAPTIVE: ThinkingFacts = { form: 'adaptive' };
const INTERLEAVED_BUDGET: ThinkingFacts = { form: 'budget', interleaved: true };
const EFFORT: ThinkingFacts = { form: 'effort' };

export const PROVIDER_FACTS: Readonly<Record<ProviderId, ProviderFacts>> = {
  anthropic: {
    defaultModel: 'claude-sonnet-5-5',
    // Gateways without /v1/models: the Models API says the window of every model it knows.
    fallbackWindow: 200_000,
    capabilities: { caching: 'explicit-breakpoints', tokenCounting: true, modelInfo: true, serverWebSearch: true },
    // Anthropic's web search: USD per 1,000 searches, on top of the tokens its results add.
    webSearchUsdPerThousand: 10,
    models: {
      'claude-sonnet-5': { price: { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 }, thinking: ADAPTIVE },
      'claude-opus-5-5': { price: { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 } },
      'claude-opus-5': { price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }, thinking: ADAPTIVE },
      'claude-haiku-5': { thinking: ADAPTIVE },
      'claude-opus-4-5': { price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } },
      'claude-opus-4-6': { thinking: ADAPTIVE },
      'claude-opus-4-7': { thinking: ADAPTIVE },
      'claude-opus-4-8': { thinking: ADAPTIVE },
      'claude-opus-4': { price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }, thinking: INTERLEAVED_BUDGET },
      'claude-sonnet-4-6': { thinking: ADAPTIVE },
      'claude-sonnet-4': { price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, thinking: INTERLEAVED_BUDGET },
      'claude-3-7-sonnet': { price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, thinking: { form: 'budget' } },
      'claude-haiku-4-5': { price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, thinking: INTERLEAVED_BUDGET },
      'claude-3-5-haiku': { price: { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }, thinking: { form: 'none' } },
    },
  },
  openai: {
    defaultModel: 'gpt-4.1',
    // Local servers and gateways with models not listed below.
    fallbackWindow: 128_000,
    capabilities: { caching: 'automatic-prefix', tokenCounting: false, modelInfo: true },
    // List prices: cacheRead is the cached-input price; cacheWrite equals input, since OpenAI
    // charges nothing extra for writing its automatic prefix cache. o-series and gpt-5 count the
    // reply inside the window, which the engine's output reserve already accounts for.
    models: {
      'gpt-5': { window: 272_000, price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 }, thinking: EFFORT },
      'gpt-5-mini': { price: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 } },
      'gpt-5-nano': { price: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 } },
      'gpt-4.1': { window: 1_047_576, price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 } },
      'gpt-4.1-mini': { price: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 } },
      'gpt-4.1-nano': { price: { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 } },
      'gpt-4o': { window: 128_000, price: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 } },
      'gpt-4o-mini': { price: { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 } },
      'gpt-4-turbo': { window: 128_000 },
      o3: { window: 200_000, price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 }, thinking: EFFORT },
      'o3-mini': { window: 200_000, price: { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 1.1 }, thinking: EFFORT },
      'o4-mini': { window: 200_000, price: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 }, thinking: EFFORT },
      o1: { window: 200_000, price: { input: 15, output: 60, cacheRead: 7.5, cacheWrite: 15 }, thinking: EFFORT },
      // o1-mini (and o1-preview) predate reasoning_effort and refuse it.
      'o1-mini': { window: 128_000, price: { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 1.1 }, thinking: { form: 'none' } },
      'o1-preview': { thinking: { form: 'none' } },
    },
  },
};

/** The model a provider uses when none is configured. */
export function defaultModelFor(provider: ProviderId): string {
  return PROVIDER_FACTS[provider].defaultModel;
}

/** The model's window from the table, else the provider's fallback (a setting or the server's word come first, in the back end). */
export function contextWindowFor(provider: ProviderId, model: string): number {
  return knownWindowFor(provider, model) ?? PROVIDER_FACTS[provider].fallbackWindow;
}

/** The model's window when its family is in the table; undefined for unlisted (local, gateway) models. */
export function knownWindowFor(provider: ProviderId, model: string): number | undefined {
  return longestPrefix(model, factTable(provider, 'window'));
}

/** Whether the provider's table knows `model`'s family (a row's id is a prefix of it): a model the provider serves. */
export function knownModel(provider: ProviderId, model: string): boolean {
  return Object.keys(PROVIDER_FACTS[provider].models).some((prefix) => model.startsWith(prefix));
}

/** The window of an OpenAI(-compatible) model: the table, else 128,000. */
export function openAIContextWindowFor(model: string): number {
  return contextWindowFor('openai', model);
}

/** How `model` on `provider` thinks: its family's row (the longest prefix that says), else 'none' (unlisted models: gateways, local servers). */
export function thinkingFactsFor(provider: ProviderId, model: string): ThinkingFacts {
  return longestPrefix(model, factTable(provider, 'thinking')) ?? { form: 'none' };
}

/** The price of `model` on `provider`: the longest matching prefix of the overrides + the provider's table; undefined = unknown. */
export function priceFor(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}, provider: ProviderId = 'anthropic'): ModelPrice | undefined {
  return longestPrefix(model, { ...factTable(provider, 'price'), ...overrides });
}

/** One fact of every model row of a provider that has it, keyed by prefix (rows without it do not shadow a shorter prefix that has it). */
function factTable<K extends keyof ModelFacts>(provider: ProviderId, fact: K): Record<string, NonNullable<ModelFacts[K]>> {
  const table: Record<string, NonNullable<ModelFacts[K]>> = {};
  for (const [prefix, facts] of Object.entries(PROVIDER_FACTS[provider].models)) {
    const value = facts[fact];
    if (value !== undefined) table[prefix] = value as NonNullable<ModelFacts[K]>;
  }
  return table;
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
  /** Server-side web searches the request ran (Anthropic's `usage.server_tool_use.web_search_requests`); absent: none. */
  webSearchRequests?: number;
}

/**
 * Cost in USD; undefined for a model with no known price (never a guess: cost.ts shows it as "price
 * unknown"). `searchUsdPerThousand`: the provider's price of its server-side web search.
 */
export function costOf(usage: UsageCounts, price: ModelPrice | undefined, searchUsdPerThousand = 0): number | undefined {
  if (!price) return undefined;
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * price.cacheRead +
      usage.cacheWriteTokens * price.cacheWrite) /
      1_000_000 +
    ((usage.webSearchRequests ?? 0) * searchUsdPerThousand) / 1000
  );
}

const PRICE_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;
/** A price, with what settings.json says when the field is hovered. */
const price = (markdownDescription: string) => z.number().nonnegative().meta({ markdownDescription });
const ModelPriceSchema = z.object({
  input: price('USD per million uncached input tokens.'),
  output: price('USD per million output tokens.'),
  cacheRead: price('USD per million tokens read from the prompt cache.'),
  cacheWrite: price('USD per million tokens written to the prompt cache.'),
});
z.sameType<z.infer<typeof ModelPriceSchema>, ModelPrice>(true);

/** `evergreen.pricing`: a price per model id. Its JSON schema goes into package.json (frontends/settingSchemas.ts). */
const NOT_A_PRICE_TABLE = 'pricing must be an object keyed by model id';
export const PriceOverridesSchema = z.record(z.string(), ModelPriceSchema, { error: NOT_A_PRICE_TABLE });

/** The fields of a price that are wrong (all of them when the entry is not an object). */
function badPriceFields(error: z.ZodError): readonly string[] {
  return error.issues.some((issue) => issue.path.length === 0) ? PRICE_FIELDS : [...new Set(error.issues.map((issue) => String(issue.path[0])))];
}

/** Validates a user-supplied price table (a setting): bad entries are reported, never silently used; the good ones are. */
export function parsePriceOverrides(value: unknown): { prices: Record<string, ModelPrice>; problems: string[] } {
  if (value === undefined || value === null) return { prices: {}, problems: [] };
  const table = z.record(z.string(), z.unknown()).safeParse(value);
  if (!table.success) return { prices: {}, problems: [NOT_A_PRICE_TABLE] };
  const read = Object.entries(table.data).map(([model, entry]) => ({ model, parsed: ModelPriceSchema.safeParse(entry) }));
  return {
    prices: Object.fromEntries(read.flatMap(({ model, parsed }) => (parsed.success ? [[model, parsed.data]] : []))),
    problems: read.flatMap(({ model, parsed }) => (parsed.success ? [] : [`pricing for "${model}" needs non-negative numbers for ${badPriceFields(parsed.error).join(', ')}`])),
  };
}

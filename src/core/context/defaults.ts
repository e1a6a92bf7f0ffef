import { DEFAULT_CHARS_PER_TOKEN } from '../model/content';
import * as z from '../zod';

/**
 * Every default number of the context engine, in one place (docs/architecture.md, "Context engine"). Settings and CLI flags
 * override them through `ContextSettings`; nothing else writes these numbers down.
 */
export const CONTEXT_DEFAULTS = {
  /** Window when neither a setting nor the Models API says otherwise. */
  fallbackWindow: 200_000,
  /** Tokens reserved for the reply (`evergreen.maxOutputTokens`). */
  maxOutputTokens: 16_000,
  /** Small windows: the reserve is capped at this share of the window... */
  maxReserveShare: 0.2,
  /** ...and the auto-compact margin below the effective window at this share. */
  maxMarginShare: 0.07,
  /** Auto-compact fires at effective window minus this margin (171k of 200k). */
  autoCompactMargin: 13_000,

  /** Tier 0: a tool result larger than this (UTF-8 bytes) is persisted to disk and previewed. */
  persistThresholdBytes: 30 * 1024,
  /** Tier 0 preview in context: at most this many lines... */
  previewMaxLines: 200,
  /** ...and this many characters (head + tail). */
  previewMaxChars: 4 * 1024,
  /**
   * What run_shell and grep_search capture before their own head + tail cut (1M chars): far above
   * the persist threshold, so tier 0 writes a large output to disk whole instead of losing its middle.
   */
  toolOutputCaptureChars: 1_000_000,
  /** Tier 0 fallback: a result still longer than this (persisting failed) is cut head + tail. */
  truncateChars: 50_000,

  /** Tier 1: above these utilizations old tool results are trimmed to these sizes (chars). */
  budgetSoftUtilization: 0.5,
  budgetSoftChars: 30_000,
  budgetHardUtilization: 0.7,
  budgetHardChars: 15_000,
  /** Tier 2: snipping of superseded reads and old searches starts above this utilization. */
  snipUtilization: 0.6,
  /** Tier 2: search results of one kind kept before the oldest are snipped. */
  snipKeepPerSearchKind: 3,
  /** Tiers 1-3 never touch the newest tool results. */
  keepRecentResults: 3,
  /** Tier 3: the prompt cache is cold after this long without a request (the API's 5-minute TTL). */
  cacheTtlMs: 5 * 60_000,

  /** Tier 4 summary: recent messages kept verbatim up to this share of the effective window. */
  keepVerbatimShare: 0.1,
  /** Tier 4: recently read files restored after a summary, and their size cap (tokens each). */
  restoreFiles: 5,
  restoreFileTokens: 5_000,
  /** Tier 4: tries at fitting the summary request (oldest rounds dropped each time). */
  summaryFitTries: 3,
  /** Tier 4: consecutive failures before automatic compaction stops (circuit breaker). */
  circuitBreakerFailures: 3,
  /** The summary's own reply budget (capped by the output reserve). */
  summaryMaxTokens: 12_000,

  /**
   * Tier 3 also clears old tool results (all but the newest `keepRecentResults`) above this
   * utilization, not only when the cache is cold — batched by the cache rule below, so the
   * middle of the prompt changes rarely and each change pays for itself.
   */
  clearUtilization: 0.1,
  /** Tier 0 on small windows: the persist threshold is at most this share of the window (in bytes at 4 per token). */
  persistMaxWindowShare: 0.1,

  /**
   * Cache economics (relative to the uncached input price): a cache write costs
   * 1.25, a cache read 0.1, output 5. A tier 1-3 edit rewrites the cache from the first edited
   * block. Edits are applied when the cache is cold anyway, when the context is over the
   * auto-compact threshold, or once the cache reads already paid on the tokens they would free
   * (0.1 x freed tokens, summed over the requests they waited) exceed the extra cost of the
   * rewrite (the ski-rental rule: for steadily growing savings it batches edits at the size that
   * minimizes reads plus rewrites).
   */
  cacheWritePrice: 1.25,
  cacheReadPrice: 0.1,
  /** Output tokens, relative to uncached input (a summary's reply is paid at this price). */
  outputPrice: 5,
  /**
   * The reply a summary is expected to take (analysis included) before one was seen; later ones
   * are sized by the previous summary. Part of a summary's price in the cost rule (summaryPolicy.ts).
   */
  summaryOutputEstimate: 3_000,

  /** Tier 4: a file is restored only when at least this many characters of it fit (less is noise). */
  restoreMinChars: 200,
  /** The model's `compact` tool is refused this soon after a compaction (requests)... */
  compactToolMinRequests: 3,
  /** ...and while the context holds less than this share of the usable window. */
  compactToolMinShare: 0.1,
  /** Tier 0 on small windows: a result that could not be persisted is cut to at most this share of the window. */
  truncateMaxWindowShare: 0.2,

  /** MCP: when all MCP tool definitions together exceed this share of the window, they are deferred (found with mcp_search, called with mcp_call). */
  mcpDeferShare: 0.1,

  /** Estimate before any usage anchor exists: characters per token (defined with the message sizes it scales, model/content.ts). */
  charsPerToken: DEFAULT_CHARS_PER_TOKEN,
} as const;

/**
 * The numbers as numbers: `typeof CONTEXT_DEFAULTS` alone has literal types (`as const`), which
 * made `Partial<ContextDefaults>` accept only the default values themselves as overrides.
 */
export type ContextDefaults = { readonly [K in keyof typeof CONTEXT_DEFAULTS]: number };

const SHARE = { min: 0, max: 1 };
/** The engine numbers a user may override, with the range that keeps the engine working (the window split lives in the window settings). */
const OVERRIDABLE = {
  persistThresholdBytes: { min: 1024, max: 10 * 1024 * 1024 },
  persistMaxWindowShare: { min: 0.01, max: 1 },
  previewMaxLines: { min: 4, max: 10_000 },
  previewMaxChars: { min: 256, max: 1_000_000 },
  truncateChars: { min: 1_000, max: 10_000_000 },
  budgetSoftUtilization: SHARE,
  budgetSoftChars: { min: 100, max: 10_000_000 },
  budgetHardUtilization: SHARE,
  budgetHardChars: { min: 100, max: 10_000_000 },
  snipUtilization: SHARE,
  snipKeepPerSearchKind: { min: 0, max: 10_000 },
  keepRecentResults: { min: 0, max: 1_000_000 },
  clearUtilization: SHARE,
  cacheTtlMs: { min: 1_000, max: 24 * 3_600_000 },
  keepVerbatimShare: { min: 0, max: 0.5 },
  restoreFiles: { min: 0, max: 20 },
  restoreFileTokens: { min: 0, max: 100_000 },
  summaryFitTries: { min: 1, max: 10 },
  circuitBreakerFailures: { min: 1, max: 100 },
  summaryMaxTokens: { min: 256, max: 128_000 },
  cacheWritePrice: { min: 0, max: 100 },
  cacheReadPrice: { min: 0, max: 100 },
  outputPrice: { min: 0, max: 1_000 },
  summaryOutputEstimate: { min: 0, max: 128_000 },
  charsPerToken: { min: 1, max: 10 },
  mcpDeferShare: SHARE,
} as const satisfies Partial<Record<keyof ContextDefaults, { min: number; max: number }>>;
type OverridableKey = keyof typeof OVERRIDABLE;

const rangeText = (key: OverridableKey): string => `a number from ${OVERRIDABLE[key].min} to ${OVERRIDABLE[key].max}`;

/**
 * `evergreen.compression` and the CLI's --context-setting: each overridable number in its range,
 * no other key. Its JSON schema (with each default) goes into package.json (frontends/settingSchemas.ts).
 */
export const ContextOverridesSchema = z.strictObject(
  Object.fromEntries(
    (Object.keys(OVERRIDABLE) as OverridableKey[]).map((key) => [key, z.number({ error: `must be ${rangeText(key)}` }).min(OVERRIDABLE[key].min).max(OVERRIDABLE[key].max).optional().meta({ default: CONTEXT_DEFAULTS[key] })]),
  ) as { [Key in OverridableKey]: z.ZodOptional<z.ZodNumber> },
);

/** Each key's problem, from the schema's issues: an unknown key, or a value out of its range. */
function overrideProblems(error: z.ZodError): Map<string, string> {
  const problems = new Map<string, string>();
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0])];
    for (const key of keys) {
      problems.set(key, Object.hasOwn(OVERRIDABLE, key) ? `compression setting "${key}" must be ${rangeText(key as OverridableKey)}` : `unknown compression setting "${key}" (known: ${Object.keys(OVERRIDABLE).join(', ')})`);
    }
  }
  return problems;
}

/**
 * Validates user overrides of the engine's numbers (the `evergreen.compression` setting, the
 * CLI's --context-setting): unknown keys and bad values are reported, never silently used; the
 * good ones are used.
 */
export function parseContextOverrides(value: unknown): { settings: Partial<ContextDefaults>; problems: string[] } {
  if (value === undefined || value === null) return { settings: {}, problems: [] };
  const parsed = ContextOverridesSchema.safeParse(value);
  if (parsed.success) return { settings: parsed.data, problems: [] };
  if (typeof value !== 'object' || Array.isArray(value)) return { settings: {}, problems: ['compression settings must be an object of numbers'] };
  const problems = overrideProblems(parsed.error);
  const entries = Object.entries(value as Record<string, number>);
  return { settings: Object.fromEntries(entries.filter(([key]) => !problems.has(key))), problems: entries.flatMap(([key]) => problems.get(key) ?? []) };
}

/** Tier 0's threshold for a window: 30 KB, or less on small windows (a 40k window: 16,000 bytes). */
export function persistThresholdFor(window: number, settings: Pick<ContextDefaults, 'persistThresholdBytes' | 'persistMaxWindowShare' | 'charsPerToken'> = CONTEXT_DEFAULTS): number {
  return Math.max(1024, Math.min(settings.persistThresholdBytes, Math.floor(window * settings.persistMaxWindowShare * settings.charsPerToken)));
}

/**
 * The cache economics of a priced model, relative to its uncached input price: OpenAI charges no
 * premium for a cache write and a different read discount than Anthropic, so the rule that decides
 * when a tier edit repays its cache rewrite uses the model's own ratios. Unknown prices (local
 * servers, unlisted models) keep the defaults.
 */
export function cacheEconomicsFor(price: { input: number; cacheRead: number; cacheWrite: number; output?: number } | undefined): Partial<ContextDefaults> {
  if (!price || !(price.input > 0)) return {};
  return { cacheWritePrice: price.cacheWrite / price.input, cacheReadPrice: price.cacheRead / price.input, ...(price.output !== undefined && price.output > 0 ? { outputPrice: price.output / price.input } : {}) };
}

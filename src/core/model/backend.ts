/**
 * The provider seam (docs/architecture.md, "Provider seam"): the session, the context engine, the tools and the front ends
 * talk to a `ModelBackend` and nothing else. A back end turns one neutral request into one
 * attempt's stream of `ModelChunk`s and classifies its failures into `ModelError` kinds; the
 * shared runner in stream.ts does the rest for every back end alike (retries with the same rules,
 * the idle watchdog, accumulating the reply, invalid tool inputs, cost).
 */
import type { ContentBlock, MessageParam, ServerToolUseBlockParam, ServerTools, StopReason, ToolParam, WebSearchCitation, WebSearchToolResultBlockParam } from './messages';
import type { BackendCapabilities, ModelPrice, UsageCounts } from './models';

// Declared beside the table that gives each provider's (models.ts); re-exported for the seam's users.
export type { BackendCapabilities };
import type { ProviderId } from './providers';
import type { ThinkingRequest } from './thinking';
import type { UserText } from '../texts/userText';

// The provider list is a leaf (models.ts needs it too); re-exported so callers keep importing from here.
export { DEFAULT_PROVIDER, parseProvider, PROVIDER_INFO, PROVIDERS, type ProviderId } from './providers';

/** What the server says about the configured model; absent fields are unknown. */
export interface ModelInfo {
  id: string;
  /** The context window. */
  maxInputTokens?: number | undefined;
  /** The most one reply may hold (the request's max tokens is clamped to it). */
  maxOutputTokens?: number | undefined;
}

/** Where prompt-cache breakpoints go (decided by the context engine; the back end only applies them). */
export interface CacheHints {
  /** A breakpoint after tools + system. */
  system: boolean;
  /** Messages whose last cacheable block gets a breakpoint (at most 3 with the system one). */
  messageIndexes: number[];
}

export interface ModelRequest {
  system: string;
  tools: ToolParam[];
  messages: MessageParam[];
  maxTokens: number;
  /** Hints only: default after tools+system and on the newest message; automatic-prefix back ends ignore them. */
  cache?: CacheHints;
  /** Extended thinking for this request (model/thinking.ts); absent: none. */
  thinking?: ThinkingRequest;
  /** Server-side tools (Anthropic's web search); a back end without them ignores this. */
  serverTools?: ServerTools;
}

export interface StreamHandlers {
  onText?(delta: string): void;
  onThinking?(delta: string): void;
  /** A retry is about to wait; text streamed by the failed attempt should be discarded by UIs. */
  /** `reason`: the failure, in English (the log) and as the user's text. */
  onRetry?(info: { attempt: number; delayMs: number; reason: { english: string; text: UserText } }): void;
  /** The back end changed what it sends for the rest of the session (e.g. a refused reasoning_effort dropped): the user's notice. */
  onNotice?(message: UserText): void;
}

export interface InvalidToolInput {
  /** Why it could not be used (the JSON parser's message). */
  problem: string;
  /** What the model wrote. */
  text: string;
}

export interface ModelResponse {
  content: ContentBlock[];
  stopReason: StopReason | null;
  usage: UsageCounts;
  /** 0 when the model has no known price, which `priceUnknown` then says. */
  costUsd: number;
  priceUnknown?: true;
  /**
   * Tool calls whose streamed input was not valid JSON, by their index in `content` (ids may be
   * repeated or rewritten by the loop); their `input` is {}.
   */
  invalidToolInputs?: ReadonlyMap<number, InvalidToolInput>;
}

/**
 * One attempt's reply as a normalized stream. Order rules the accumulator relies on:
 * - `text` / `thinking` append to the open block of that kind, or open one; any other block
 *   (a tool call, redacted thinking, the other kind) closes it. `thinking_signature` sets the open
 *   thinking block's signature and closes it.
 * - tool calls are keyed by `index` (the back end's own numbering, e.g. OpenAI's tool_calls[].index);
 *   the block takes its place in the content when it starts; `tool_call_end` parses its JSON
 *   (calls still open when the stream finishes are parsed then).
 * - `usage`: fields present overwrite earlier ones (Anthropic sends input at the start, output at the end).
 * - `done`: the reply is complete. A stream that ends without it was cut (a dropped connection, retried).
 */
export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'thinking_signature'; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; json: string }
  | { type: 'tool_call_end'; index: number }
  | { type: 'usage'; usage: Partial<UsageCounts>; thinkingTokens?: number }
  /** A whole server-side block (a web search call or its result), in its place in the reply; it closes an open text block. */
  | { type: 'server_block'; block: ServerToolUseBlockParam | WebSearchToolResultBlockParam }
  /** A text block the API started on its own (one that may carry citations): the next text opens a new block. */
  | { type: 'text_start' }
  /** A citation of the open text block (opened if none is). */
  | { type: 'citation'; citation: WebSearchCitation }
  | { type: 'stop'; reason: StopReason | null }
  | { type: 'done' };

export interface ModelBackend {
  readonly provider: ProviderId;
  readonly model: string;
  readonly capabilities: BackendCapabilities;
  /** Where requests go (for messages and logs; may carry credentials, so redact before showing). */
  readonly baseURL: string;
  /**
   * Set when the model-info request did not answer in time: the session goes on without the
   * model's limits (default window, no output cap) and the front end says so.
   */
  readonly modelInfoWarning: UserText | undefined;
  /** The model's limits, fetched once; undefined when the server cannot say. Unknown model -> ModelError. */
  getModelInfo(signal?: AbortSignal): Promise<ModelInfo | undefined>;
  /** window = explicit setting, else the model's known window, else the provider's fallback. */
  contextWindow(override: number | undefined, signal?: AbortSignal): Promise<number>;
  /** An exact, free count of a request's input tokens (only when capabilities.tokenCounting). */
  countTokens?(request: Omit<ModelRequest, 'maxTokens'>, signal?: AbortSignal): Promise<number>;
  /** undefined: the model has no known price. */
  costOf(usage: UsageCounts): number | undefined;
  /** A changed price table applies from the next request on: nothing else about the back end changes. */
  setPriceOverrides(overrides: Record<string, ModelPrice> | undefined): void;
  /** One reply, streamed, with the shared retry rules; failures are ModelErrors. */
  stream(request: ModelRequest, handlers?: StreamHandlers, signal?: AbortSignal): Promise<ModelResponse>;
}

/** Constructor options every back end takes (each also reads its own provider's env variables). */
export interface BackendOptions {
  /** Falls back to the provider's env variable (ANTHROPIC_API_KEY / OPENAI_API_KEY). */
  apiKey?: string | undefined;
  /** Falls back to the provider's env variable (ANTHROPIC_BASE_URL / OPENAI_BASE_URL), then the SDK's default. */
  baseURL?: string | undefined;
  model?: string | undefined;
  /** Retries after 429 / 529 / 5xx / dropped connections before giving up. */
  maxRetries?: number;
  /** First backoff step; doubled per attempt, capped at maxRetryDelayMs. */
  retryBaseDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Per-request timeout for a single HTTP attempt (until the response headers arrive). */
  timeoutMs?: number;
  /** Once the reply has begun, a stream silent this long is treated as a dropped connection and retried. */
  streamIdleTimeoutMs?: number;
  /** How long to wait for the reply to begin (prompt processing, reasoning) before retrying; default 10 min. */
  firstOutputTimeoutMs?: number;
  /**
   * How long the model-info request may take (asked once, at startup). Default: the
   * EVERGREEN_MODELS_TIMEOUT_MS environment variable (tests), else 10 s.
   */
  modelInfoTimeoutMs?: number;
  priceOverrides?: Record<string, ModelPrice>;
}

import Anthropic from '@anthropic-ai/sdk';
import { blocksOf } from './content';
import { costOf, DEFAULT_MODEL, FALLBACK_CONTEXT_WINDOW, priceFor, type ModelPrice, type UsageCounts } from './models';

/** Conversation history holds only user and assistant turns (the system prompt travels separately). */
export type MessageParam = Anthropic.UserMessageParam | Anthropic.AssistantMessageParam;
export type ContentBlockParam = Anthropic.ContentBlockParam;
export type ContentBlock = Anthropic.ContentBlock;
/** A client tool as the API wants it; structural so src/core/tools need not import the SDK. */
export interface ToolParam {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}
export type StopReason = Anthropic.StopReason;

export interface ModelClientOptions {
  /** Falls back to ANTHROPIC_API_KEY. */
  apiKey?: string | undefined;
  /** Falls back to ANTHROPIC_BASE_URL, then the SDK's default. */
  baseURL?: string | undefined;
  model?: string | undefined;
  /** Retries after 429 / 529 / 5xx / dropped connections before giving up. */
  maxRetries?: number;
  /** First backoff step; doubled per attempt, capped at maxRetryDelayMs. */
  retryBaseDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Per-request timeout for a single HTTP attempt (until the response headers arrive). */
  timeoutMs?: number;
  /** A stream silent this long is treated as a dropped connection and retried. */
  streamIdleTimeoutMs?: number;
  /**
   * How long the Models API may take to answer (asked once, at startup). Default: the
   * EVERGREEN_MODELS_TIMEOUT_MS environment variable (tests), else 10 s.
   */
  modelInfoTimeoutMs?: number;
  priceOverrides?: Record<string, ModelPrice>;
}

/** Where prompt-cache breakpoints go (decided by the context engine; the transport only applies them). */
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
  /** Default: after tools+system and on the newest message. */
  cache?: CacheHints;
}

export interface StreamHandlers {
  onText?(delta: string): void;
  onThinking?(delta: string): void;
  /** A retry is about to wait; text streamed by the failed attempt should be discarded by UIs. */
  onRetry?(info: { attempt: number; delayMs: number; reason: string }): void;
}

export interface ModelResponse {
  content: ContentBlock[];
  stopReason: StopReason | null;
  usage: UsageCounts;
  costUsd: number;
  /**
   * Tool calls whose streamed input was not valid JSON, by their index in `content` (ids may be
   * repeated or rewritten by the loop); their `input` is {}.
   */
  invalidToolInputs?: ReadonlyMap<number, InvalidToolInput>;
}

export interface InvalidToolInput {
  /** Why it could not be used (the JSON parser's message). */
  problem: string;
  /** What the model wrote. */
  text: string;
}

export type ModelErrorKind =
  | 'no_api_key'
  | 'authentication'
  | 'permission'
  | 'model_not_found'
  | 'prompt_too_long'
  | 'invalid_request'
  | 'rate_limited'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'cancelled';

/** A next step for each front end: the extension names its commands and settings, the CLI its flags and variables. */
export interface SurfaceHint {
  extension: string;
  cli: string;
}
export type Surface = keyof SurfaceHint;

const HINTS = {
  noApiKey: { extension: 'Run "Evergreen: Set API Key" or set ANTHROPIC_API_KEY in the environment.', cli: 'Set ANTHROPIC_API_KEY in the environment.' },
  badKey: { extension: 'Set a valid key with "Evergreen: Set API Key".', cli: 'Set a valid key in ANTHROPIC_API_KEY.' },
  unknownModel: { extension: 'Pick another model id in the "evergreen.model" setting (or --model).', cli: 'Pick another model id with --model.' },
  notFound: { extension: 'Check the "evergreen.model" and "evergreen.baseUrl" settings.', cli: 'Check --model and --base-url (or ANTHROPIC_BASE_URL).' },
  connection: { extension: 'Check your network and the "evergreen.baseUrl" setting (or ANTHROPIC_BASE_URL).', cli: 'Check your network and --base-url (or ANTHROPIC_BASE_URL).' },
  credentialsInUrl: {
    extension: 'Remove the user:password part from the "evergreen.baseUrl" setting (or ANTHROPIC_BASE_URL): requests cannot carry credentials in the URL, the API key is sent on its own.',
    cli: 'Remove the user:password part from --base-url (or ANTHROPIC_BASE_URL): requests cannot carry credentials in the URL, the key in ANTHROPIC_API_KEY is sent on its own.',
  },
  promptTooLong: {
    extension: 'The conversation no longer fits the context window: start a New Chat.',
    cli: 'The conversation no longer fits the context window: compact it (--resume SESSION_ID -p "/compact") or run without --resume to start a new session.',
  },
  invalidRequest: {
    extension: 'If it happens again with every message, start a New Chat; the transcript of this one stays saved.',
    cli: 'If it happens again with every message, run without --resume to start a new session; the transcript of this one stays saved.',
  },
} as const satisfies Record<string, SurfaceHint>;

/**
 * A model failure classified for the loop and the UI, with a next step for the user. The message
 * is redacted (a base URL may carry a password); `hint` is the extension's next step, as before,
 * and `hintFor('cli')` the terminal's.
 */
export class ModelError extends Error {
  readonly hint: string | undefined;
  private readonly hints: SurfaceHint | undefined;

  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    hint: string | SurfaceHint | undefined,
    readonly status?: number,
  ) {
    super(redactUrlSecrets(message));
    this.name = 'ModelError';
    this.hints = typeof hint === 'string' ? { extension: hint, cli: hint } : hint;
    this.hint = this.hints?.extension;
  }

  hintFor(surface: Surface): string | undefined {
    return this.hints?.[surface];
  }
}

/**
 * A hint that reached a front end as text (session error events carry no kind) in that front
 * end's words; hints of other origins come back unchanged.
 */
export function hintForSurface(hint: string, surface: Surface): string {
  for (const entry of Object.values(HINTS)) {
    if (entry.extension === hint) return entry[surface];
  }
  return hint;
}

/**
 * URLs in `text` with their user:password and secret-looking query values (key=, token=, …)
 * replaced by ***: every error and log line goes through it, since a base URL may carry them.
 */
export function redactUrlSecrets(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi, '$1***@')
    .replace(/([?&][^=&#\s]*(?:key|token|secret|passw(?:or)?d|pwd|sig|signature|auth)[^=&#\s]*=)[^&#\s]*/gi, '$1***');
}

function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(['rate_limited', 'overloaded', 'server', 'connection']);

/** Wraps the SDK: streaming with our own retry loop (so retries are visible as events), cache breakpoints, model info. */
export class ModelClient {
  readonly model: string;
  private readonly sdk: Anthropic;
  private readonly apiKey: string | undefined;
  private readonly maxRetries: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private price: ModelPrice | undefined;
  private readonly streamIdleTimeoutMs: number;
  private readonly modelInfoTimeoutMs: number;
  private modelInfoProblem: string | undefined;
  private modelInfo: Promise<Anthropic.ModelInfo | undefined> | undefined;

  constructor(options: ModelClientOptions = {}) {
    this.model = options.model?.trim() || DEFAULT_MODEL;
    this.apiKey = options.apiKey || process.env.ANTHROPIC_API_KEY || undefined;
    this.maxRetries = options.maxRetries ?? 4;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 1000;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.price = priceFor(this.model, options.priceOverrides);
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 90_000;
    this.modelInfoTimeoutMs = options.modelInfoTimeoutMs ?? positiveNumber(process.env.EVERGREEN_MODELS_TIMEOUT_MS) ?? 10_000;
    this.sdk = new Anthropic({
      apiKey: this.apiKey ?? 'missing-api-key', // Never sent: requests are refused below without a real key.
      baseURL: options.baseURL || process.env.ANTHROPIC_BASE_URL || undefined,
      maxRetries: 0,
      timeout: options.timeoutMs ?? 10 * 60_000,
    });
  }

  get baseURL(): string {
    return this.sdk.baseURL;
  }

  /** A changed price table applies from the next request on: nothing else about the client changes. */
  setPriceOverrides(overrides: Record<string, ModelPrice> | undefined): void {
    this.price = priceFor(this.model, overrides);
  }

  costOf(usage: UsageCounts): number {
    return costOf(usage, this.price);
  }

  /** The Models API entry for the configured model, fetched once. Unknown model -> ModelError. */
  async getModelInfo(signal?: AbortSignal): Promise<Anthropic.ModelInfo | undefined> {
    this.modelInfo ??= this.fetchModelInfo(signal);
    try {
      return await this.modelInfo;
    } catch (error) {
      this.modelInfo = undefined; // A transient failure may succeed next time.
      throw error;
    }
  }

  /**
   * Set when the Models API did not answer in time: the session goes on without the model's
   * limits (default window, no output cap) and the front end says so.
   */
  get modelInfoWarning(): string | undefined {
    return this.modelInfoProblem;
  }

  /** window = explicit setting, else the Models API's max_input_tokens, else 200k (gateways without /v1/models). */
  async contextWindow(override: number | undefined, signal?: AbortSignal): Promise<number> {
    if (override !== undefined) return override;
    const info = await this.getModelInfo(signal);
    return info?.max_input_tokens ?? FALLBACK_CONTEXT_WINDOW;
  }

  async countTokens(request: Omit<ModelRequest, 'maxTokens'>, signal?: AbortSignal): Promise<number> {
    this.requireKey();
    try {
      const result = await this.sdk.messages.countTokens(
        { model: this.model, system: request.system, tools: toApiTools(request.tools), messages: request.messages },
        { signal },
      );
      return result.input_tokens;
    } catch (error) {
      throw this.classify(error, signal);
    }
  }

  async stream(request: ModelRequest, handlers: StreamHandlers = {}, signal?: AbortSignal): Promise<ModelResponse> {
    this.requireKey();
    // The reply reserve may exceed what this model can write; the API would refuse every request.
    const modelMax = (await this.getModelInfo(signal).catch(() => undefined))?.max_tokens ?? undefined;
    const maxTokens = modelMax ? Math.min(request.maxTokens, modelMax) : request.maxTokens;
    const params = this.buildParams({ ...request, maxTokens });
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.streamOnce(params, handlers, signal);
      } catch (raw) {
        const error = this.classify(raw, signal);
        if (!shouldRetry(raw, error) || attempt >= this.maxRetries) throw error;
        const delayMs = retryDelay(raw, attempt, this.retryBaseDelayMs, this.maxRetryDelayMs);
        handlers.onRetry?.({ attempt: attempt + 1, delayMs, reason: error.message });
        await sleep(delayMs, signal).catch(() => {
          throw new ModelError('cancelled', 'Cancelled.', undefined);
        });
      }
    }
  }

  /** Applies the request's cache hints (default: after tools+system and on the newest message). */
  buildParams(request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
    const messages = request.messages.slice();
    const hints = request.cache ?? { system: true, messageIndexes: messages.length > 0 ? [messages.length - 1] : [] };
    // The API allows 4 breakpoints; the newest ones matter most.
    const indexes = [...new Set(hints.messageIndexes)].filter((index) => index >= 0 && index < messages.length).sort((a, b) => a - b).slice(hints.system ? -3 : -4);
    for (const index of indexes) messages[index] = withCacheBreakpoint(messages[index]!);
    return {
      model: this.model,
      max_tokens: request.maxTokens,
      system: [{ type: 'text', text: request.system, ...(hints.system ? { cache_control: { type: 'ephemeral' as const } } : {}) }],
      tools: toApiTools(request.tools),
      messages,
    };
  }

  private async streamOnce(
    params: Anthropic.MessageCreateParamsNonStreaming,
    handlers: StreamHandlers,
    signal: AbortSignal | undefined,
  ): Promise<ModelResponse> {
    // The SDK's timeout ends once headers arrive; a stream that then goes silent would hang the
    // turn forever, so a watchdog aborts it and the attempt is retried as a dropped connection.
    const attempt = new AbortController();
    const onAbort = () => attempt.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) attempt.abort();
    let idle = false;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        idle = true;
        attempt.abort();
      }, this.streamIdleTimeoutMs);
    };
    try {
      arm();
      // Raw events, accumulated here rather than by the SDK's MessageStream: it fails the whole
      // reply when one tool input is not valid JSON, and that failure looked like a dropped connection.
      const stream = await this.sdk.messages.create({ ...params, stream: true }, { signal: attempt.signal });
      const reply = new ReplyAccumulator(handlers);
      for await (const event of stream) {
        arm();
        reply.add(event);
      }
      if (attempt.signal.aborted) throw new Anthropic.APIUserAbortError();
      return { ...this.toResponse(reply.finish()), ...(reply.invalidToolInputs.size > 0 ? { invalidToolInputs: reply.invalidToolInputs } : {}) };
    } catch (error) {
      if (idle && !signal?.aborted) {
        throw new ModelError('connection', `The response stream stalled: no data for ${Math.round(this.streamIdleTimeoutMs / 1000)} s.`, 'Check your network; Evergreen retries automatically.');
      }
      throw error;
    } finally {
      clearTimeout(watchdog);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private toResponse(message: Anthropic.Message): ModelResponse {
    const usage: UsageCounts = {
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
      cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
    };
    return { content: message.content, stopReason: message.stop_reason, usage, costUsd: this.costOf(usage) };
  }

  private async fetchModelInfo(signal?: AbortSignal): Promise<Anthropic.ModelInfo | undefined> {
    this.requireKey();
    try {
      // Without a bound a server that never answers would hang the start forever (the SDK waits 10 min).
      return await this.sdk.models.retrieve(this.model, {}, { signal, timeout: this.modelInfoTimeoutMs });
    } catch (raw) {
      if (raw instanceof Anthropic.APIConnectionTimeoutError && !signal?.aborted) {
        this.modelInfoProblem = `The Models API did not answer within ${this.modelInfoTimeoutMs / 1000} s, so the model's limits are unknown.`;
        return undefined;
      }
      if (raw instanceof Anthropic.NotFoundError) {
        // A gateway without the Models API answers 404 for every path; only a model-shaped 404 means the id is wrong.
        if (/model/i.test(raw.message)) {
          throw new ModelError('model_not_found', `The API does not know the model "${this.model}".`, HINTS.unknownModel, 404);
        }
        return undefined;
      }
      const error = this.classify(raw, signal);
      if (error.kind === 'authentication' || error.kind === 'connection' || error.kind === 'cancelled' || error.kind === 'no_api_key') throw error;
      return undefined; // Other failures: fall back to the default window rather than block the chat.
    }
  }

  requireKey(): void {
    if (!this.apiKey) {
      throw new ModelError('no_api_key', 'No Anthropic API key is set.', HINTS.noApiKey);
    }
  }

  private classify(error: unknown, signal?: AbortSignal): ModelError {
    if (error instanceof ModelError) return error;
    if (signal?.aborted || error instanceof Anthropic.APIUserAbortError) return new ModelError('cancelled', 'Cancelled.', undefined);
    if (error instanceof Anthropic.APIConnectionError) {
      return new ModelError('connection', `Could not reach the Anthropic API at ${this.baseURL}: ${error.message}`, hasCredentials(this.baseURL) ? HINTS.credentialsInUrl : HINTS.connection);
    }
    if (error instanceof Anthropic.APIError) {
      const detail = apiErrorMessage(error);
      // An `event: error` inside an SSE stream has no HTTP status; its error type says what it was.
      const status = error.status ?? statusForErrorType(apiErrorType(error));
      if (status === 401) return new ModelError('authentication', `The API key was rejected (401): ${detail}`, HINTS.badKey, status);
      if (status === 403) return new ModelError('permission', `Permission denied (403): ${detail}`, 'Check that your key may use this model.', status);
      if (status === 404) return new ModelError('model_not_found', `Not found (404): ${detail}`, HINTS.notFound, status);
      if (status === 429) return new ModelError('rate_limited', `Rate limited (429): ${detail}`, 'Wait a moment and try again.', status);
      if (status === 529) return new ModelError('overloaded', `The API is overloaded (529): ${detail}`, 'Try again in a minute.', status);
      if (status >= 500) return new ModelError('server', `The API failed (${status}): ${detail}`, 'Try again; if it persists, check the service status.', status);
      if (status === 408 || status === 409) return new ModelError('server', `The API asked to try again (${status}): ${detail}`, 'Try again in a moment.', status);
      if (status === 400 && /prompt is too long/i.test(detail)) return new ModelError('prompt_too_long', detail, HINTS.promptTooLong, status);
      return new ModelError('invalid_request', `The API rejected the request (${status || 'stream error'}): ${detail}`, HINTS.invalidRequest, status);
    }
    // Anything else while streaming (a socket cut mid-way, a truncated SSE body) is a dropped connection.
    const message = error instanceof Error ? error.message : String(error);
    return new ModelError('connection', `The connection dropped: ${message}`, 'Check your network and try again.');
  }
}

/**
 * The Message built from raw stream events, as the SDK's MessageStream builds it, except that a
 * tool input that is not valid JSON becomes {} and is reported instead of failing the reply.
 */
class ReplyAccumulator {
  readonly invalidToolInputs = new Map<number, InvalidToolInput>();
  private message: Anthropic.Message | undefined;
  private readonly toolJson = new Map<number, string>();
  private complete = false;

  constructor(private readonly handlers: StreamHandlers) {}

  add(event: Anthropic.RawMessageStreamEvent): void {
    if (event.type === 'message_start') {
      this.message = { ...event.message, content: [...event.message.content], usage: { ...event.message.usage } };
      return;
    }
    const message = this.message;
    if (!message) throw new Error(`The response stream sent ${event.type} before message_start.`);
    switch (event.type) {
      case 'content_block_start':
        message.content[event.index] = { ...event.content_block };
        if (event.content_block.type === 'tool_use') this.toolJson.set(event.index, '');
        break;
      case 'content_block_delta':
        this.addDelta(message.content[event.index], event.index, event.delta);
        break;
      case 'content_block_stop': {
        const block = message.content[event.index];
        const json = this.toolJson.get(event.index);
        if (block?.type === 'tool_use' && json !== undefined) block.input = this.parseToolInput(event.index, json);
        break;
      }
      case 'message_delta':
        // Counters other than output_tokens are whole-message totals, present only when they apply.
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        message.usage.output_tokens = event.usage.output_tokens;
        if (event.usage.input_tokens != null) message.usage.input_tokens = event.usage.input_tokens;
        if (event.usage.cache_creation_input_tokens != null) message.usage.cache_creation_input_tokens = event.usage.cache_creation_input_tokens;
        if (event.usage.cache_read_input_tokens != null) message.usage.cache_read_input_tokens = event.usage.cache_read_input_tokens;
        break;
      case 'message_stop':
        this.complete = true;
        break;
      default:
        break;
    }
  }

  /** The whole reply; a stream that ended early is a dropped connection (retried). */
  finish(): Anthropic.Message {
    if (!this.message || !this.complete) throw new Error('the response stream ended before the reply was complete');
    return this.message;
  }

  private addDelta(block: ContentBlock | undefined, index: number, delta: Anthropic.RawContentBlockDelta): void {
    switch (delta.type) {
      case 'text_delta':
        if (block?.type !== 'text') return;
        block.text += delta.text;
        this.handlers.onText?.(delta.text);
        return;
      case 'citations_delta':
        if (block?.type === 'text') block.citations = [...(block.citations ?? []), delta.citation];
        return;
      case 'thinking_delta':
        if (block?.type !== 'thinking') return;
        block.thinking += delta.thinking;
        this.handlers.onThinking?.(delta.thinking);
        return;
      case 'signature_delta':
        if (block?.type === 'thinking') block.signature = delta.signature;
        return;
      case 'input_json_delta': {
        const json = this.toolJson.get(index);
        if (json !== undefined) this.toolJson.set(index, json + delta.partial_json);
        return;
      }
      default:
        return;
    }
  }

  private parseToolInput(index: number, json: string): Record<string, unknown> {
    if (json.trim() === '') return {};
    let problem: string;
    try {
      const input: unknown = JSON.parse(json);
      if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input as Record<string, unknown>;
      problem = 'it is not a JSON object';
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    // {} keeps the history valid for the API (input must be an object); the session answers the
    // call with an error result instead of running it. A reply cut at max_tokens lands here too.
    this.invalidToolInputs.set(index, { problem, text: json });
    return {};
  }
}

function positiveNumber(value: string | undefined): number | undefined {
  const parsed = Number(value);
  return value !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

function apiErrorType(error: InstanceType<typeof Anthropic.APIError>): string | undefined {
  const body = error.error as { error?: { type?: unknown }; type?: unknown } | undefined;
  const type = body?.error?.type ?? body?.type;
  return typeof type === 'string' ? type : undefined;
}

function statusForErrorType(type: string | undefined): number {
  switch (type) {
    case 'overloaded_error':
      return 529;
    case 'rate_limit_error':
      return 429;
    case 'api_error':
      return 500;
    case 'timeout_error':
      return 504;
    default:
      return 0;
  }
}

/** The server's own x-should-retry wins (as in the SDK); otherwise the error kind decides. */
function shouldRetry(raw: unknown, error: ModelError): boolean {
  const header = raw instanceof Anthropic.APIError ? raw.headers?.get('x-should-retry') : undefined;
  if (header === 'false') return false;
  if (header === 'true') return error.kind !== 'cancelled';
  return RETRYABLE.has(error.kind);
}

function apiErrorMessage(error: InstanceType<typeof Anthropic.APIError>): string {
  const body = error.error as { error?: { message?: unknown } } | undefined;
  const message = body?.error?.message;
  return typeof message === 'string' ? message : error.message;
}

function toApiTools(tools: readonly ToolParam[]): Anthropic.Tool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: { ...tool.input_schema } }));
}

function withCacheBreakpoint(message: MessageParam): MessageParam {
  const blocks: ContentBlockParam[] = blocksOf(message).slice();
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    // Thinking blocks cannot carry cache_control; the breakpoint goes on the last block that can.
    if (block && block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      blocks[index] = { ...block, cache_control: { type: 'ephemeral' } } as ContentBlockParam;
      break;
    }
  }
  return message.role === 'user' ? { role: 'user', content: blocks } : { role: 'assistant', content: blocks };
}

function retryDelay(error: unknown, attempt: number, baseMs: number, maxMs: number): number {
  const headers = error instanceof Anthropic.APIError ? error.headers : undefined;
  const retryAfterMs = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(retryAfterMs) && retryAfterMs > 0) return Math.min(retryAfterMs, 60_000);
  const retryAfter = Number(headers?.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter >= 0 && headers?.get('retry-after')) return Math.min(retryAfter * 1000, 60_000);
  const exponential = Math.min(baseMs * 2 ** attempt, maxMs);
  return exponential * (0.75 + Math.random() * 0.25); // Jitter spreads clients that failed together.
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

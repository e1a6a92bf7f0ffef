import OpenAI from 'openai';
import type { BackendCapabilities, BackendOptions, ModelBackend, ModelChunk, ModelInfo, ModelRequest, ModelResponse, ProviderId, StreamHandlers } from './backend';
import { cancelledError, errorForStatus, errorHint, hasCredentials, ModelError, modelHint, modelSaid, type ModelSaid, retryAfterMsFrom, shouldRetryFrom, withoutKey, type HintKind, type TooLongCount } from './errors';
import { contextWindowFor, costOf, defaultModelFor, knownWindowFor, PROVIDER_FACTS, priceFor, thinkingFactsFor, type ModelPrice, type UsageCounts } from './models';
import { toChatMessages, toChatTools } from './openaiConvert';
import { reasoningOf, sseData, StreamReader, type ChatChunk } from './openaiStream';
import { effortForBudget } from './thinking';
import { retryRulesFrom, streamWithRetries, timeoutsFrom, type RetryRules } from './stream';
import { errorMessage, silentLogger, type Logger } from '../logger';
import { userText, userTextForLog, type UserText } from '../texts/userText';

/** A next step about this provider's key, settings or variables (each front end words it). */
const hint = (kind: HintKind) => errorHint('openai', kind);
const OFFICIAL_HOST = 'api.openai.com';

export interface OpenAIBackendOptions extends BackendOptions {
  /** Where odd server behaviour is noted (unknown finish reasons, missing usage). */
  logger?: Logger;
}

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

/**
 * An OpenAI-compatible Chat Completions server behind the ModelBackend seam: OpenAI itself, gateways,
 * and local servers (vLLM, Ollama, LM Studio, llama.cpp). One attempt is one streamed request whose
 * SSE is read here (not by the SDK's Stream, which cannot tell a stream that ended without
 * `[DONE]` from a complete one); the shared runner retries, watches for stalls and accumulates.
 * Caching is the server's automatic prefix caching: cache hints are ignored, and the conversion is
 * deterministic so each request repeats the previous one's prefix byte for byte.
 */
export class OpenAIBackend implements ModelBackend {
  readonly provider: ProviderId = 'openai';
  readonly capabilities: BackendCapabilities = { ...PROVIDER_FACTS.openai.capabilities };
  readonly model: string;
  private readonly sdk: OpenAI;
  private readonly apiKey: string | undefined;
  private readonly official: boolean;
  private readonly rules: RetryRules;
  private readonly logger: Logger;
  private price: ModelPrice | undefined;
  private readonly modelInfoTimeoutMs: number;
  private modelInfoProblem: UserText | undefined;
  private modelInfo: Promise<ModelInfo | undefined> | undefined;
  /** The model's output limit, learnt from a server that refused a larger max_tokens. */
  private outputCap: number | undefined;
  /** Ask for the usage chunk (stream_options.include_usage) until a server refuses the option. */
  private streamUsage = true;
  /**
   * OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens); compatible
   * servers know max_tokens. A refusal switches it.
   */
  private limitParam: 'max_tokens' | 'max_completion_tokens';
  /** The model takes reasoning_effort (the facts table) and the server has not refused it. */
  private reasoningEffort: boolean;

  constructor(options: OpenAIBackendOptions = {}) {
    this.model = options.model?.trim() || defaultModelFor('openai');
    this.apiKey = options.apiKey || process.env.OPENAI_API_KEY || undefined;
    this.rules = retryRulesFrom(options);
    this.logger = options.logger ?? silentLogger;
    this.price = priceFor(this.model, options.priceOverrides, 'openai');
    const timeouts = timeoutsFrom(options);
    this.modelInfoTimeoutMs = timeouts.modelInfoMs;
    this.sdk = new OpenAI({
      // Local servers (Ollama, LM Studio, llama.cpp) take any key; OpenAI itself is refused below without one.
      apiKey: this.apiKey ?? 'no-key',
      baseURL: options.baseURL || process.env.OPENAI_BASE_URL || undefined,
      maxRetries: 0,
      timeout: timeouts.requestMs,
    });
    this.official = hostOf(this.sdk.baseURL) === OFFICIAL_HOST;
    this.limitParam = this.official ? 'max_completion_tokens' : 'max_tokens';
    this.reasoningEffort = thinkingFactsFor('openai', this.model).form === 'effort';
  }

  get baseURL(): string {
    return this.sdk.baseURL;
  }

  setPriceOverrides(overrides: Record<string, ModelPrice> | undefined): void {
    this.price = priceFor(this.model, overrides, 'openai');
  }

  costOf(usage: UsageCounts): number | undefined {
    return costOf(usage, this.price);
  }

  get modelInfoWarning(): UserText | undefined {
    return this.modelInfoProblem;
  }

  /**
   * GET /models/{id}, once. Optional: many local servers lack it and OpenAI's says nothing about
   * limits, so any failure means "unknown", never an error. vLLM reports `max_model_len`, others
   * `context_length` / `context_window`.
   */
  async getModelInfo(signal?: AbortSignal): Promise<ModelInfo | undefined> {
    // The one failure worth stopping the start for: OpenAI itself without a key (nothing is sent).
    this.requireKey();
    this.modelInfo ??= this.fetchModelInfo(signal);
    return this.modelInfo;
  }

  /** window = explicit setting, else what the server says, else the table of known models, else 128,000. */
  async contextWindow(override: number | undefined, signal?: AbortSignal): Promise<number> {
    if (override !== undefined) return override;
    const info = await this.getModelInfo(signal);
    return info?.maxInputTokens ?? contextWindowFor('openai', this.model);
  }

  async stream(request: ModelRequest, handlers: StreamHandlers = {}, signal?: AbortSignal): Promise<ModelResponse> {
    this.requireKey();
    const info = await this.getModelInfo(signal);
    const cap = this.outputCap ?? info?.maxOutputTokens;
    const maxTokens = cap ? Math.min(request.maxTokens, cap) : request.maxTokens;
    let limit = maxTokens;
    // Each kind of refusal below is corrected once and remembered; anything else is the user's to see.
    for (let corrections = 0; ; corrections++) {
      try {
        return await this.run(this.buildParams({ ...request, maxTokens: limit }), handlers, signal);
      } catch (error) {
        if (!(error instanceof ModelError) || error.kind !== 'invalid_request' || corrections >= 3) throw error;
        const named = outputLimitIn(error.message);
        if (named !== undefined && named < limit) {
          // A model that writes less than the reserve: the server names its limit.
          this.outputCap = limit = named;
          this.logger.warn(`${this.model} writes at most ${named} tokens per reply (the server said so); asking for that from now on`);
        } else if (this.streamUsage && /stream_options/.test(error.message)) {
          // Older servers (and Azure API versions) refuse stream_options; the reply then comes without usage.
          this.streamUsage = false;
          this.logger.warn(`the server at ${this.baseURL} refuses stream_options (${error.message}); streaming without usage reports`);
        } else if (this.limitParam === 'max_tokens' && /max_completion_tokens/.test(error.message)) {
          // Reasoning models (o-series, gpt-5) behind a gateway or Azure refuse max_tokens.
          this.limitParam = 'max_completion_tokens';
          this.logger.warn(`${this.model} refuses max_tokens (${error.message}); sending max_completion_tokens from now on`);
        } else if (this.limitParam === 'max_completion_tokens' && /max_completion_tokens/.test(error.message)) {
          this.limitParam = 'max_tokens';
          this.logger.warn(`the server at ${this.baseURL} refuses max_completion_tokens (${error.message}); sending max_tokens from now on`);
        } else if (this.reasoningEffort && request.thinking && /reasoning[_ ]effort/i.test(error.message)) {
          // A gateway or a model that does not take it: the chat goes on without thinking, and says so once.
          this.reasoningEffort = false;
          const notice = userText('start.reasoningEffortRefused', { server: this.baseURL, model: this.model, said: error.message });
          this.logger.warn(userTextForLog(notice));
          handlers.onNotice?.(notice);
        } else {
          throw error;
        }
      }
    }
  }

  /** The request as sent: cache hints ignored (the server caches prefixes by itself). */
  buildParams(request: ModelRequest): ChatParams {
    return {
      model: this.model,
      messages: toChatMessages(request.system, request.messages),
      // An empty tools array is refused by the API; a request without tools simply has none.
      ...(request.tools.length > 0 ? { tools: toChatTools(request.tools) } : {}),
      [this.limitParam]: request.maxTokens,
      // The budget read as an effort (thinking.ts, effortForBudget); reasoning counts toward the completion limit.
      ...(request.thinking && this.reasoningEffort ? { reasoning_effort: effortForBudget(request.thinking.budgetTokens) } : {}),
      stream: true,
      ...(this.streamUsage ? { stream_options: { include_usage: true } } : {}),
    };
  }

  private run(params: ChatParams, handlers: StreamHandlers, signal: AbortSignal | undefined): Promise<ModelResponse> {
    return streamWithRetries(
      {
        attempt: (attemptSignal) => this.attempt(params, attemptSignal),
        classify: (error, errorSignal) => this.classify(error, errorSignal),
        costOf: (usage) => this.costOf(usage),
      },
      this.rules,
      handlers,
      signal,
    );
  }

  private async *attempt(params: ChatParams, signal: AbortSignal): AsyncGenerator<ModelChunk> {
    const response = await this.sdk.chat.completions.create(params, { signal }).asResponse();
    const type = response.headers.get('content-type') ?? '';
    if (!/text\/event-stream/i.test(type)) {
      const text = await response.text();
      const completion = /json/i.test(type) ? parseJson(text) : undefined;
      // A server that ignores `stream` and answers with the whole completion is still understood.
      if (isRecord(completion) && Array.isArray(completion['choices'])) {
        yield* this.chunksOfCompletion(completion as unknown as OpenAI.Chat.Completions.ChatCompletion);
        return;
      }
      // Some servers put an error body in a 200: classified like the same error with its status.
      if (isRecord(completion) && isRecord(completion['error'])) throw new OpenAI.APIError(undefined, completion['error'], undefined, response.headers);
      const answer = { url: this.baseURL, status: String(response.status), body: snippet(text) };
      throw this.notCompatible(
        type ? modelSaid('model.answeredWith', { ...answer, type }, `POST ${this.baseURL}/chat/completions answered ${response.status} with ${type}${snippet(text)}`) : modelSaid('model.answeredUntyped', answer, `POST ${this.baseURL}/chat/completions answered ${response.status} with no content type${snippet(text)}`),
      );
    }
    if (!response.body) throw new Error('the response had no body');
    const reader = new StreamReader(this.model, this.logger);
    for await (const data of sseData(response.body)) {
      if (data === '[DONE]') {
        reader.sawDone = true;
        break;
      }
      const chunk = parseJson(data);
      if (!isRecord(chunk)) throw new Error(`the server sent a stream event that is not a JSON object${snippet(data)}`);
      // The API reports a failure after the 200 as an event carrying `error` (the SDK does the same).
      if (chunk['error'] !== undefined && chunk['error'] !== null) throw new OpenAI.APIError(undefined, chunk['error'] as object, undefined, response.headers);
      yield* reader.add(chunk as unknown as ChatChunk);
    }
    if (signal.aborted) throw new OpenAI.APIUserAbortError();
    yield* reader.finish();
  }

  private *chunksOfCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): Generator<ModelChunk> {
    const reader = new StreamReader(this.model, this.logger);
    const choice = completion.choices[0];
    const message = choice?.message;
    const calls = (message?.tool_calls ?? []).flatMap((call, index) => (call.type === 'function' ? [{ index, id: call.id, type: 'function' as const, function: call.function }] : []));
    const chunk: ChatChunk = {
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      choices: [{ index: 0, delta: { content: message?.content ?? null, tool_calls: calls, ...(message && reasoningOf(message) ? { reasoning_content: reasoningOf(message) } : {}) }, finish_reason: choice?.finish_reason ?? null }],
      usage: completion.usage ?? null,
    };
    yield* reader.add(chunk);
    reader.sawDone = true;
    yield* reader.finish();
  }

  private async fetchModelInfo(signal?: AbortSignal): Promise<ModelInfo | undefined> {
    try {
      // Without a bound a server that never answers would hang the start (the SDK waits 10 min).
      const info = (await this.sdk.models.retrieve(this.model, { signal, timeout: this.modelInfoTimeoutMs })) as unknown as Record<string, unknown>;
      const window = firstPositive(info['max_model_len'], info['context_length'], info['context_window'], info['max_context_length']);
      const output = firstPositive(info['max_output_tokens'], info['max_completion_tokens']);
      return { id: typeof info['id'] === 'string' ? info['id'] : this.model, maxInputTokens: window, maxOutputTokens: output };
    } catch (error) {
      if (error instanceof OpenAI.APIConnectionTimeoutError && !signal?.aborted && knownWindowFor('openai', this.model) === undefined) {
        this.modelInfoProblem = userText('model.limitsNotSaid', { waited: userText('model.seconds', { value: this.modelInfoTimeoutMs / 1000 }), window: contextWindowFor('openai', this.model) });
      }
      this.logger.info(`model info for ${this.model} unavailable (${errorMessage(error)}); using the known window table`);
      this.modelInfo = signal?.aborted ? undefined : this.modelInfo; // A cancelled ask may be asked again.
      return undefined;
    }
  }

  requireKey(): void {
    if (!this.apiKey && this.official) {
      throw new ModelError('no_api_key', modelSaid('model.noApiKey', { provider: 'OpenAI' }, 'No OpenAI API key is set.'), hint('noApiKey'));
    }
  }

  /** `what`: what the server answered. */
  private notCompatible(what: ModelSaid): ModelError {
    return new ModelError('invalid_request', modelSaid('model.notCompatible', { url: this.baseURL, what: what.text }, `The server at ${this.baseURL} is not an OpenAI-compatible API: ${what.english}.`), hint('notCompatible'));
  }

  classify(error: unknown, signal?: AbortSignal): ModelError {
    return withoutKey(this.classifyUnredacted(error, signal), this.apiKey);
  }

  private classifyUnredacted(error: unknown, signal?: AbortSignal): ModelError {
    if (error instanceof ModelError) return error;
    if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) return cancelledError();
    if (error instanceof OpenAI.APIConnectionError) {
      return new ModelError('connection', modelSaid('model.unreachableOpenai', { url: this.baseURL, detail: error.message }, `Could not reach the OpenAI-compatible API at ${this.baseURL}: ${error.message}`), hasCredentials(this.baseURL) ? hint('credentialsInUrl') : hint('connection'));
    }
    if (error instanceof OpenAI.APIError) {
      const body = isRecord(error.error) ? error.error : undefined;
      const detail = detailOf(error);
      const code = typeof error.code === 'string' ? error.code : undefined;
      const status = error.status;
      const retry = { retryAfterMs: retryAfterMsFrom(error.headers), shouldRetry: shouldRetryFrom(error.headers) };
      if (status === undefined) {
        // An error event inside the stream: no status, its code or type says what it was.
        if (code === 'context_length_exceeded' || TOO_LONG.test(detail)) return this.tooLong(detail, 0, body);
        if (code === 'rate_limit_exceeded') return new ModelError('rate_limited', modelSaid('model.rateLimitedInStream', { detail }, `Rate limited (stream error): ${detail}`), modelHint('model.hintWaitAMoment'), undefined, retry);
        return new ModelError('server', modelSaid('model.failedMidReply', { detail }, `The server failed mid-reply: ${detail}`), modelHint('model.hintServiceStatus'), undefined, retry);
      }
      if ((status === 400 || status === 413 || status === 422) && (code === 'context_length_exceeded' || TOO_LONG.test(detail))) return this.tooLong(detail, status, body);
      if (status === 400 && NO_TOOLS.test(detail)) {
        return new ModelError('invalid_request', modelSaid('model.noToolCalls', { model: this.model, url: this.baseURL, detail }, `The model "${this.model}" at ${this.baseURL} does not support tool calls (the server said: ${detail}).`), hint('noToolCalls'), status);
      }
      if (status === 404 || status === 405) {
        // Only a 404 in the API's own error shape that talks about the model means the id is wrong.
        if (status === 404 && body && (code === 'model_not_found' || /model/i.test(detail))) {
          return new ModelError('model_not_found', modelSaid('model.serverUnknownModel', { model: this.model, detail }, `The server does not know the model "${this.model}" (404): ${detail}`), hint('unknownModel'), status);
        }
        return this.notCompatible(modelSaid('model.answered', { url: this.baseURL, status: String(status), body: snippet(detail) }, `POST ${this.baseURL}/chat/completions answered ${status}${snippet(detail)}`));
      }
      if (status === 429 && (code === 'insufficient_quota' || error.type === 'insufficient_quota')) {
        return new ModelError('permission', modelSaid('model.noQuota', { detail }, `The account has no quota left (429): ${detail}`), modelHint('model.hintBilling'), status, { shouldRetry: false });
      }
      return errorForStatus(status, detail, 'server', 'openai', retry);
    }
    // Anything else while streaming (a socket cut mid-way, a stream without [DONE]) is a dropped connection.
    return new ModelError('connection', modelSaid('model.connectionDropped', { detail: errorMessage(error) }, `The connection dropped: ${errorMessage(error)}`), modelHint('model.hintNetwork'));
  }

  /**
   * The engine's too-long recovery re-anchors on the server's count, carried as data; the
   * message says it in the same words as Anthropic's, the server's own words kept after it.
   */
  private tooLong(detail: string, status: number, body?: Record<string, unknown>): ModelError {
    const counted = countedTokens(detail, body);
    const numbers = counted ? `: ${counted.promptTokens} tokens > ${counted.maxTokens} maximum` : '';
    const text = counted
      ? modelSaid('model.promptTooLongCounted', { prompt: String(counted.promptTokens), max: String(counted.maxTokens), model: this.model, detail }, `prompt is too long${numbers} (${this.model}: ${detail})`)
      : modelSaid('model.promptTooLong', { model: this.model, detail }, `prompt is too long (${this.model}: ${detail})`);
    return new ModelError('prompt_too_long', text, hint('promptTooLong'), status || undefined, {}, counted);
  }
}

/**
 * The prompt's token count, the most it may be and the server's window, from the servers'
 * wordings (see TooLongCount): OpenAI ("maximum context length is N … your messages resulted in
 * M" / "you requested T (P in the messages, C in the completion)" / "configured limit of N …
 * resulted in M"), vLLM ("request has P input tokens (C > N - P)"), llama.cpp (n_prompt_tokens /
 * n_ctx fields).
 */
function countedTokens(detail: string, body: Record<string, unknown> | undefined): TooLongCount | undefined {
  const window = /(?:maximum context length is|configured limit of) (\d+)/i.exec(detail);
  const resulted = /resulted in (\d+) tokens/i.exec(detail);
  if (window && resulted) return { promptTokens: Number(resulted[1]), maxTokens: Number(window[1]), window: Number(window[1]), replyCounted: false };
  const requested = /\((\d+) in the messages, (\d+) in the completion\)/i.exec(detail);
  if (window && requested) return { promptTokens: Number(requested[1]), maxTokens: Number(window[1]) - Number(requested[2]), window: Number(window[1]), replyCounted: true };
  const vllm = /request has (\d+) input tokens \((\d+) > (\d+) - \d+\)/i.exec(detail);
  if (vllm) return { promptTokens: Number(vllm[1]), maxTokens: Number(vllm[3]) - Number(vllm[2]), window: Number(vllm[3]), replyCounted: true };
  const prompt = body?.['n_prompt_tokens'];
  const context = body?.['n_ctx'];
  if (typeof prompt === 'number' && typeof context === 'number') return { promptTokens: prompt, maxTokens: context, window: context, replyCounted: false };
  return undefined;
}

const TOO_LONG = /maximum context length|context[ _]length|context window|prompt is too long|too many tokens|exceeds the (?:maximum|available) context/i;
const NO_TOOLS = /does not support tools|tools? (?:is|are) not supported|not support(?:ed)? (?:function|tool)|tool[ _]choice.*requires|enable-auto-tool-choice|function calling is not (?:enabled|supported)/i;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The start of a body, for messages about what a server answered. */
function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat ? `: ${flat.length > 160 ? `${flat.slice(0, 160)}…` : flat}` : '';
}

/** The server's own words: error.message of the API's shape, a plain-string error, or the SDK's text. */
function detailOf(error: InstanceType<typeof OpenAI.APIError>): string {
  const body: unknown = error.error;
  if (isRecord(body) && typeof body['message'] === 'string') return body['message'];
  if (typeof body === 'string') return body;
  return error.message.replace(/^\d{3}\s+/, '');
}

function outputLimitIn(message: string): number | undefined {
  const match = /supports at most (\d+) completion tokens/i.exec(message);
  return match ? Number(match[1]) : undefined;
}

function firstPositive(...values: unknown[]): number | undefined {
  for (const value of values) if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  return undefined;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}


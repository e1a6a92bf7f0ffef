import type Anthropic from '@anthropic-ai/sdk';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, NotFoundError } from '@anthropic-ai/sdk/error';
import { AnthropicClient } from './anthropicClient';
import type { BackendCapabilities, BackendOptions, ModelBackend, ModelChunk, ModelInfo, ModelRequest, ModelResponse, ProviderId, StreamHandlers } from './backend';
import { blocksOf } from './content';
import { fitImagesToRequest, REQUEST_IMAGE_LIMITS } from './images';
import { cancelledError, errorForStatus, errorHint, hasCredentials, ModelError, modelHint, modelSaid, retryAfterMsFrom, shouldRetryFrom, withoutKey, type HintKind } from './errors';
import type { MessageParam, ServerTools, ToolParam, WebSearchCitation } from './messages';
import { webSearchTool } from './webSearch';
import { contextWindowFor, costOf, defaultModelFor, PROVIDER_FACTS, priceFor, thinkingFactsFor, type ModelPrice, type ThinkingFacts, type UsageCounts } from './models';
import { retryRulesFrom, streamWithRetries, timeoutsFrom, type RetryRules } from './stream';
import { effortForBudget, fitThinking } from './thinking';
import { userText, type UserText } from '../texts/userText';

/** The beta that lets Claude 4 budget-form models think between tool calls (adaptive models do it by themselves). */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';

/** A next step about this provider's key, settings or variables (each front end words it). */
const hint = (kind: HintKind) => errorHint('anthropic', kind);

/**
 * The Anthropic Messages API behind the ModelBackend seam: one attempt's raw SSE events become
 * ModelChunks (the shared runner retries, watches for stalls and accumulates), cache hints become
 * cache_control breakpoints, the Models API gives the window and the output cap.
 */
export class AnthropicBackend implements ModelBackend {
  readonly provider: ProviderId = 'anthropic';
  readonly capabilities: BackendCapabilities = { ...PROVIDER_FACTS.anthropic.capabilities };
  readonly model: string;
  private readonly sdk: AnthropicClient;
  private readonly apiKey: string | undefined;
  private readonly rules: RetryRules;
  private price: ModelPrice | undefined;
  private readonly modelInfoTimeoutMs: number;
  private modelInfoProblem: UserText | undefined;
  private modelInfo: Promise<ModelInfo | undefined> | undefined;
  /** How this model is asked to think (the facts table). */
  private readonly thinking: ThinkingFacts;

  constructor(options: BackendOptions = {}) {
    this.model = options.model?.trim() || defaultModelFor('anthropic');
    this.thinking = thinkingFactsFor('anthropic', this.model);
    this.apiKey = options.apiKey || process.env.ANTHROPIC_API_KEY || undefined;
    this.rules = retryRulesFrom(options);
    this.price = priceFor(this.model, options.priceOverrides, 'anthropic');
    const timeouts = timeoutsFrom(options);
    this.modelInfoTimeoutMs = timeouts.modelInfoMs;
    this.sdk = new AnthropicClient({
      apiKey: this.apiKey ?? 'missing-api-key', // Never sent: requests are refused below without a real key.
      baseURL: options.baseURL || process.env.ANTHROPIC_BASE_URL || undefined,
      maxRetries: 0,
      timeout: timeouts.requestMs,
    });
  }

  get baseURL(): string {
    return this.sdk.baseURL;
  }

  setPriceOverrides(overrides: Record<string, ModelPrice> | undefined): void {
    this.price = priceFor(this.model, overrides, 'anthropic');
  }

  costOf(usage: UsageCounts): number | undefined {
    return costOf(usage, this.price, PROVIDER_FACTS.anthropic.webSearchUsdPerThousand);
  }

  /** The Models API entry for the configured model, fetched once. Unknown model -> ModelError. */
  async getModelInfo(signal?: AbortSignal): Promise<ModelInfo | undefined> {
    this.modelInfo ??= this.fetchModelInfo(signal);
    try {
      return await this.modelInfo;
    } catch (error) {
      this.modelInfo = undefined; // A transient failure may succeed next time.
      throw error;
    }
  }

  get modelInfoWarning(): UserText | undefined {
    return this.modelInfoProblem;
  }

  /** window = explicit setting, else the Models API's max_input_tokens, else the table's (200k: gateways without /v1/models). */
  async contextWindow(override: number | undefined, signal?: AbortSignal): Promise<number> {
    if (override !== undefined) return override;
    const info = await this.getModelInfo(signal);
    return info?.maxInputTokens ?? contextWindowFor('anthropic', this.model);
  }

  async countTokens(request: Omit<ModelRequest, 'maxTokens'>, signal?: AbortSignal): Promise<number> {
    this.requireKey();
    try {
      const result = await this.sdk.messages.countTokens(
        { model: this.model, system: request.system, tools: toApiTools(request.tools, request.serverTools), messages: apiMessages(request.messages) },
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
    const modelMax = (await this.getModelInfo(signal).catch(() => undefined))?.maxOutputTokens;
    const maxTokens = modelMax ? Math.min(request.maxTokens, modelMax) : request.maxTokens;
    const params = this.buildParams({ ...request, maxTokens });
    const headers = this.requestHeaders(params);
    return streamWithRetries(
      {
        attempt: (attemptSignal) => this.attempt(params, attemptSignal, headers),
        classify: (error, errorSignal) => this.classify(error, errorSignal),
        costOf: (usage) => this.costOf(usage),
      },
      this.rules,
      handlers,
      signal,
    );
  }

  /** Applies the request's cache hints (default: after tools+system and on the newest message). */
  buildParams(request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
    const fitted = fitImagesToRequest(request.messages, REQUEST_IMAGE_LIMITS.anthropic);
    const messages = fitted.map(toApiMessage);
    const hints = request.cache ?? { system: true, messageIndexes: messages.length > 0 ? [messages.length - 1] : [] };
    // The API allows 4 breakpoints; the newest ones matter most.
    const indexes = [...new Set(hints.messageIndexes)].filter((index) => index >= 0 && index < messages.length).sort((a, b) => a - b).slice(hints.system ? -3 : -4);
    for (const index of indexes) messages[index] = withCacheBreakpoint(fitted[index]!);
    return {
      model: this.model,
      max_tokens: request.maxTokens,
      system: [{ type: 'text', text: request.system, ...(hints.system ? { cache_control: { type: 'ephemeral' as const } } : {}) }],
      tools: toApiTools(request.tools, request.serverTools),
      messages: joinedReplies(messages),
      ...this.thinkingParams(request),
    };
  }

  /**
   * The request's thinking as this model takes it: the budget form (`budget_tokens` ≥ 1024 and below
   * max_tokens, lowered to fit when the final max_tokens is smaller) or the adaptive form with the
   * budget read as an effort. No temperature or top_k is ever sent (thinking refuses them).
   */
  private thinkingParams(request: ModelRequest): Pick<Anthropic.MessageCreateParamsNonStreaming, 'thinking' | 'output_config'> {
    if (!request.thinking) return {};
    // `summarized`: some models omit the thinking text by default, and the panel shows what the model thought.
    if (this.thinking.form === 'adaptive') return { thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: effortForBudget(request.thinking.budgetTokens) } };
    if (this.thinking.form !== 'budget') return {};
    const fitted = fitThinking(request.thinking, request.maxTokens);
    return fitted ? { thinking: { type: 'enabled', budget_tokens: fitted.budgetTokens } } : {};
  }

  /** Thinking between tool calls on budget-form Claude 4 models is a beta, asked for by header. */
  requestHeaders(params: Anthropic.MessageCreateParamsNonStreaming): Record<string, string> {
    return params.thinking?.type === 'enabled' && this.thinking.interleaved ? { 'anthropic-beta': INTERLEAVED_THINKING_BETA } : {};
  }

  /**
   * One attempt as chunks. Raw events rather than the SDK's MessageStream: it fails the whole
   * reply when one tool input is not valid JSON, and that failure looked like a dropped connection.
   */
  private async *attempt(params: Anthropic.MessageCreateParamsNonStreaming, signal: AbortSignal, headers: Record<string, string>): AsyncGenerator<ModelChunk> {
    const stream = await this.sdk.messages.create({ ...params, stream: true }, { signal, headers });
    let started = false;
    // Block types by event index: deltas apply only to a block of their kind, as the SDK does.
    const blocks = new Map<number, string>();
    // Server tool calls by event index: their input streams like a tool call's and goes into the reply whole.
    const serverCalls = new Map<number, { id: string; json: string }>();
    for await (const event of stream) {
      if (event.type === 'message_start') {
        started = true;
        const usage = event.message.usage;
        yield {
          type: 'usage',
          usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, cacheReadTokens: usage.cache_read_input_tokens ?? 0, cacheWriteTokens: usage.cache_creation_input_tokens ?? 0 },
        };
        continue;
      }
      if (!started) throw new Error(`The response stream sent ${event.type} before message_start.`);
      yield* chunksOf(event, blocks, serverCalls);
    }
    if (signal.aborted) throw new APIUserAbortError();
  }

  private async fetchModelInfo(signal?: AbortSignal): Promise<ModelInfo | undefined> {
    this.requireKey();
    try {
      // Without a bound a server that never answers would hang the start forever (the SDK waits 10 min).
      const info = await this.sdk.models.retrieve(this.model, {}, { signal, timeout: this.modelInfoTimeoutMs });
      return { id: info.id, maxInputTokens: info.max_input_tokens ?? undefined, maxOutputTokens: info.max_tokens ?? undefined };
    } catch (raw) {
      if (raw instanceof APIConnectionTimeoutError && !signal?.aborted) {
        this.modelInfoProblem = userText('model.modelsApiSilent', { waited: userText('model.seconds', { value: this.modelInfoTimeoutMs / 1000 }) });
        return undefined;
      }
      if (raw instanceof NotFoundError) {
        // A gateway without the Models API answers 404 for every path; only a model-shaped 404 means the id is wrong.
        if (/model/i.test(raw.message)) {
          throw new ModelError('model_not_found', modelSaid('model.apiUnknownModel', { model: this.model }, `The API does not know the model "${this.model}".`), hint('unknownModel'), 404);
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
      throw new ModelError('no_api_key', modelSaid('model.noApiKey', { provider: 'Anthropic' }, 'No Anthropic API key is set.'), hint('noApiKey'));
    }
  }

  private classify(error: unknown, signal?: AbortSignal): ModelError {
    return withoutKey(this.classifyUnredacted(error, signal), this.apiKey);
  }

  private classifyUnredacted(error: unknown, signal?: AbortSignal): ModelError {
    if (error instanceof ModelError) return error;
    if (signal?.aborted || error instanceof APIUserAbortError) return cancelledError();
    if (error instanceof APIConnectionError) {
      return new ModelError('connection', modelSaid('model.unreachableAnthropic', { url: this.baseURL, detail: error.message }, `Could not reach the Anthropic API at ${this.baseURL}: ${error.message}`), hasCredentials(this.baseURL) ? hint('credentialsInUrl') : hint('connection'));
    }
    if (error instanceof APIError) {
      const detail = apiErrorMessage(error);
      // An `event: error` inside an SSE stream has no HTTP status; its error type says what it was.
      const status = error.status ?? statusForErrorType(apiErrorType(error));
      const retry = { retryAfterMs: retryAfterMsFrom(error.headers), shouldRetry: shouldRetryFrom(error.headers) };
      if (status === 400 && /prompt is too long/i.test(detail)) {
        // M in "N tokens > M maximum" is the model's input window, the one Evergreen calls its window.
        const counted = /prompt is too long:\s*(\d+)\s*tokens\s*>\s*(\d+)/i.exec(detail);
        return new ModelError('prompt_too_long', detail, hint('promptTooLong'), status, retry, counted ? { promptTokens: Number(counted[1]), maxTokens: Number(counted[2]), window: Number(counted[2]), replyCounted: false } : undefined);
      }
      return errorForStatus(status, detail, 'api', 'anthropic', retry);
    }
    // Anything else while streaming (a socket cut mid-way, a truncated SSE body) is a dropped connection.
    const message = error instanceof Error ? error.message : String(error);
    return new ModelError('connection', modelSaid('model.connectionDropped', { detail: message }, `The connection dropped: ${message}`), modelHint('model.hintNetwork'));
  }
}

/** One raw event (after message_start) as chunks; `blocks` tracks block types by index. */
function* chunksOf(event: Anthropic.RawMessageStreamEvent, blocks: Map<number, string>, serverCalls: Map<number, { id: string; json: string }>): Generator<ModelChunk> {
  switch (event.type) {
    case 'content_block_start': {
      const block = event.content_block;
      blocks.set(event.index, block.type);
      // A text block that may carry citations (after a search) stays its own block, citations and all.
      if (block.type === 'text' && Array.isArray(block.citations)) yield { type: 'text_start' };
      if (block.type === 'text' && block.text) yield { type: 'text', text: block.text };
      else if (block.type === 'thinking' && block.thinking) yield { type: 'thinking', text: block.thinking };
      else if (block.type === 'redacted_thinking') yield { type: 'redacted_thinking', data: block.data };
      else if (block.type === 'tool_use') yield { type: 'tool_call_start', index: event.index, id: block.id, name: block.name };
      else if (block.type === 'server_tool_use' && block.name === 'web_search') serverCalls.set(event.index, { id: block.id, json: '' });
      // The result arrives whole in its start event; it goes back exactly as it came.
      else if (block.type === 'web_search_tool_result') yield { type: 'server_block', block: { type: 'web_search_tool_result', tool_use_id: block.tool_use_id, content: block.content } };
      return; // Other server tools are never offered.
    }
    case 'content_block_delta': {
      const kind = blocks.get(event.index);
      const delta = event.delta;
      if (delta.type === 'text_delta' && kind === 'text') yield { type: 'text', text: delta.text };
      else if (delta.type === 'thinking_delta' && kind === 'thinking') yield { type: 'thinking', text: delta.thinking };
      else if (delta.type === 'signature_delta' && kind === 'thinking') yield { type: 'thinking_signature', signature: delta.signature };
      else if (delta.type === 'input_json_delta' && kind === 'tool_use') yield { type: 'tool_call_delta', index: event.index, json: delta.partial_json };
      else if (delta.type === 'input_json_delta' && kind === 'server_tool_use') {
        const call = serverCalls.get(event.index);
        if (call) call.json += delta.partial_json;
      } else if (delta.type === 'citations_delta' && kind === 'text' && delta.citation.type === 'web_search_result_location') yield { type: 'citation', citation: webCitation(delta.citation) };
      return;
    }
    case 'content_block_stop': {
      const kind = blocks.get(event.index);
      if (kind === 'tool_use') yield { type: 'tool_call_end', index: event.index };
      const call = serverCalls.get(event.index);
      if (kind === 'server_tool_use' && call) yield { type: 'server_block', block: { type: 'server_tool_use', id: call.id, name: 'web_search', input: parseServerInput(call.json) } };
      return;
    }
    case 'message_delta': {
      // Counters other than output_tokens are whole-message totals, present only when they apply.
      const usage = event.usage;
      const thinkingTokens = usage.output_tokens_details?.thinking_tokens;
      yield { type: 'stop', reason: event.delta.stop_reason };
      yield {
        type: 'usage',
        ...(typeof thinkingTokens === 'number' ? { thinkingTokens } : {}),
        usage: {
          outputTokens: usage.output_tokens,
          ...(usage.input_tokens != null ? { inputTokens: usage.input_tokens } : {}),
          ...(usage.cache_creation_input_tokens != null ? { cacheWriteTokens: usage.cache_creation_input_tokens } : {}),
          ...(usage.cache_read_input_tokens != null ? { cacheReadTokens: usage.cache_read_input_tokens } : {}),
          ...(usage.server_tool_use?.web_search_requests ? { webSearchRequests: usage.server_tool_use.web_search_requests } : {}),
        },
      };
      return;
    }
    case 'message_stop':
      yield { type: 'done' };
      return;
    default:
      return;
  }
}

function apiErrorType(error: APIError): string | undefined {
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

function apiErrorMessage(error: APIError): string {
  const body = error.error as { error?: { message?: unknown } } | undefined;
  const message = body?.error?.message;
  return typeof message === 'string' ? message : error.message;
}

function toApiTools(tools: readonly ToolParam[], serverTools: ServerTools | undefined): Anthropic.ToolUnion[] {
  const client: Anthropic.ToolUnion[] = tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: { ...tool.input_schema } }));
  return serverTools?.webSearch ? [...client, webSearchTool(serverTools.webSearch)] : client;
}

/** A citation as the history keeps it: exactly the fields the API sends back (its order of keys kept). */
function webCitation(citation: Anthropic.CitationsWebSearchResultLocation): WebSearchCitation {
  return { type: 'web_search_result_location', url: citation.url, title: citation.title, encrypted_index: citation.encrypted_index, cited_text: citation.cited_text };
}

/** A server tool call's streamed input; the API wrote it, so it is JSON (an unreadable one goes back as {}). */
function parseServerInput(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json === '' ? '{}' : json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The neutral history is Anthropic's own shape: the same object, typed for the SDK (its server-tool types are wider unions of the same fields). */
function toApiMessage(message: MessageParam): Anthropic.MessageParam {
  return message as Anthropic.MessageParam;
}

/** The history as the API takes it: images it would refuse in this request become their description. */
function apiMessages(messages: readonly MessageParam[]): Anthropic.MessageParam[] {
  return joinedReplies(fitImagesToRequest(messages, REQUEST_IMAGE_LIMITS.anthropic).map(toApiMessage));
}

/**
 * A reply the API paused (`pause_turn`) and its continuation are one assistant turn, kept in the
 * history as two messages in a row: they are sent as one, so the last message is the whole reply
 * so far and each tool call's results follow the message that holds it (the API would join them,
 * but its rules are about the joined turn).
 */
function joinedReplies(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  const joined: Anthropic.MessageParam[] = [];
  for (const message of messages) {
    const previous = joined.at(-1);
    if (previous?.role === 'assistant' && message.role === 'assistant') joined[joined.length - 1] = { role: 'assistant', content: [...apiBlocks(previous), ...apiBlocks(message)] };
    else joined.push(message);
  }
  return joined;
}

function apiBlocks(message: Anthropic.MessageParam): Anthropic.ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function withCacheBreakpoint(message: MessageParam): Anthropic.MessageParam {
  const blocks: Anthropic.ContentBlockParam[] = blocksOf(message).slice();
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    // Thinking blocks cannot carry cache_control; the breakpoint goes on the last block that can.
    if (block && block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      blocks[index] = { ...block, cache_control: { type: 'ephemeral' } } as Anthropic.ContentBlockParam;
      break;
    }
  }
  return { role: message.role, content: blocks };
}

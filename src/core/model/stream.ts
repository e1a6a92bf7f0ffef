/**
 * What every back end shares: the reply accumulator (normalized chunks -> ModelResponse) and the
 * retry runner (the same retry rules, idle watchdog and cancel for every provider). A back end
 * supplies one attempt as an AsyncIterable<ModelChunk> and a classifier into ModelError kinds.
 */
import type { InvalidToolInput, ModelChunk, ModelResponse, StreamHandlers } from './backend';
import { cancelledError, ModelError, modelHint, modelSaid, RETRYABLE_KINDS } from './errors';
import { userText } from '../texts/userText';
import type { ContentBlock, StopReason } from './messages';
import type { UsageCounts } from './models';
import { USAGE_KEYS, zeroUsage } from './usage';

type ToolUse = Extract<ContentBlock, { type: 'tool_use' }>;

/**
 * The reply built from chunks (see ModelChunk for the order rules). A tool input that is not
 * valid JSON becomes {} and is reported instead of failing the reply.
 */
export class ReplyAccumulator {
  readonly invalidToolInputs = new Map<number, InvalidToolInput>();
  private readonly content: ContentBlock[] = [];
  /** The text or thinking block chunks of that kind append to. */
  private open: Extract<ContentBlock, { type: 'text' | 'thinking' }> | undefined;
  /** Tool calls by the back end's index: their block's position in content and their JSON so far. */
  private readonly tools = new Map<number, { position: number; json: string; ended: boolean }>();
  private readonly usage: UsageCounts = zeroUsage();
  private stopReason: StopReason | null = null;
  private thinkingTokens: number | undefined;
  private complete = false;

  constructor(private readonly handlers: StreamHandlers = {}) {}

  add(chunk: ModelChunk): void {
    switch (chunk.type) {
      case 'text':
      case 'thinking': {
        if (chunk.text === '') return;
        const block = this.openBlock(chunk.type);
        if (block.type === 'text') {
          block.text += chunk.text;
          this.handlers.onText?.(chunk.text);
        } else {
          block.thinking += chunk.text;
          this.handlers.onThinking?.(chunk.text);
        }
        return;
      }
      case 'thinking_signature':
        // A signature without thinking text still belongs to a (possibly empty) thinking block.
        this.openBlock('thinking').signature = chunk.signature;
        this.open = undefined;
        return;
      case 'redacted_thinking':
        this.open = undefined;
        this.content.push({ type: 'redacted_thinking', data: chunk.data });
        return;
      case 'server_block':
        this.open = undefined;
        this.content.push(chunk.block);
        return;
      case 'text_start':
        this.open = undefined;
        return;
      case 'citation': {
        const block = this.openBlock('text');
        block.citations = [...(block.citations ?? []), chunk.citation];
        return;
      }
      case 'tool_call_start':
        this.open = undefined;
        if (this.tools.has(chunk.index)) throw new Error(`The response stream started tool call ${chunk.index} twice.`);
        this.tools.set(chunk.index, { position: this.content.length, json: '', ended: false });
        this.content.push({ type: 'tool_use', id: chunk.id, name: chunk.name, input: {} });
        return;
      case 'tool_call_delta': {
        const tool = this.tools.get(chunk.index);
        if (!tool) throw new Error(`The response stream sent arguments for tool call ${chunk.index} before it started.`);
        if (!tool.ended) tool.json += chunk.json;
        return;
      }
      case 'tool_call_end':
        this.endTool(chunk.index);
        return;
      case 'usage':
        for (const key of USAGE_KEYS) {
          const value = chunk.usage[key];
          if (value !== undefined) this.usage[key] = value;
        }
        if (chunk.usage.webSearchRequests !== undefined) this.usage.webSearchRequests = chunk.usage.webSearchRequests;
        if (chunk.thinkingTokens !== undefined) this.thinkingTokens = chunk.thinkingTokens;
        return;
      case 'stop':
        this.stopReason = chunk.reason;
        return;
      case 'done':
        this.complete = true;
        return;
    }
  }

  /** The whole reply; a stream that ended early is a dropped connection (retried). */
  finish(costOf: (usage: UsageCounts) => number | undefined): ModelResponse {
    if (!this.complete) throw new ModelError('connection', modelSaid('model.streamEnded', {}, 'The connection dropped: the response stream ended before the reply was complete'), modelHint('model.hintNetwork'));
    for (const index of this.tools.keys()) this.endTool(index);
    const usage = { ...this.usage };
    const cost = costOf(usage);
    return {
      content: this.content,
      stopReason: this.stopReason,
      usage,
      costUsd: cost ?? 0,
      ...(this.thinkingTokens !== undefined ? { thinkingTokens: this.thinkingTokens } : {}),
      ...(cost === undefined ? { priceUnknown: true as const } : {}),
      ...(this.invalidToolInputs.size > 0 ? { invalidToolInputs: this.invalidToolInputs } : {}),
    };
  }

  private openBlock<K extends 'text' | 'thinking'>(kind: K): Extract<ContentBlock, { type: K }>;
  private openBlock(kind: 'text' | 'thinking'): Extract<ContentBlock, { type: 'text' | 'thinking' }> {
    if (this.open?.type === kind) return this.open;
    const block: Extract<ContentBlock, { type: 'text' | 'thinking' }> = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
    this.content.push(block);
    this.open = block;
    return block;
  }

  private endTool(index: number): void {
    const tool = this.tools.get(index);
    if (!tool || tool.ended) return;
    tool.ended = true;
    const block = this.content[tool.position] as ToolUse;
    block.input = this.parseToolInput(tool.position, tool.json);
  }

  private parseToolInput(position: number, json: string): Record<string, unknown> {
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
    this.invalidToolInputs.set(position, { problem, text: json });
    return {};
  }
}

export interface RetryRules {
  /** Retries after a retryable failure before giving up. */
  maxRetries: number;
  /** First backoff step; doubled per attempt, capped at maxRetryDelayMs. */
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
  /** Once the reply has begun, a stream silent this long is aborted and retried as a dropped connection. */
  streamIdleTimeoutMs: number;
  /**
   * How long an attempt may wait for the reply to begin (the first text, thinking or tool call):
   * a local server reading a long prompt, or a reasoning model thinking, is silent far longer than
   * the idle timeout, and aborting it would only start the same wait again (and bill it again).
   */
  firstOutputTimeoutMs: number;
}

export const DEFAULT_RETRY_RULES: RetryRules = { maxRetries: 4, retryBaseDelayMs: 1000, maxRetryDelayMs: 30_000, streamIdleTimeoutMs: 90_000, firstOutputTimeoutMs: 10 * 60_000 };

/** The retry rules from a back end's options, defaults filled in. */
export function retryRulesFrom(options: Partial<RetryRules>): RetryRules {
  return {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_RULES.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_RULES.retryBaseDelayMs,
    maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY_RULES.maxRetryDelayMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_RETRY_RULES.streamIdleTimeoutMs,
    // Never shorter than the idle timeout: the wait for the first output is the longer one.
    firstOutputTimeoutMs: Math.max(options.firstOutputTimeoutMs ?? DEFAULT_RETRY_RULES.firstOutputTimeoutMs, options.streamIdleTimeoutMs ?? DEFAULT_RETRY_RULES.streamIdleTimeoutMs),
  };
}

/**
 * A back end's waits, defaults filled in: one request's SDK timeout, and how long the Models API may
 * take at startup before the session goes on with default limits (EVERGREEN_MODELS_TIMEOUT_MS).
 */
export function timeoutsFrom(options: { timeoutMs?: number | undefined; modelInfoTimeoutMs?: number | undefined }): { requestMs: number; modelInfoMs: number } {
  return {
    requestMs: options.timeoutMs ?? 10 * 60_000,
    modelInfoMs: options.modelInfoTimeoutMs ?? positiveNumber(process.env.EVERGREEN_MODELS_TIMEOUT_MS) ?? 10_000,
  };
}

/** What a back end gives the shared runner. */
export interface AttemptSource {
  /** One HTTP attempt as chunks; must stop (throw or end) when `signal` aborts. */
  attempt(signal: AbortSignal): AsyncIterable<ModelChunk>;
  /** Any failure of an attempt as a ModelError (with retry advice from the response headers). */
  classify(error: unknown, signal?: AbortSignal): ModelError;
  costOf(usage: UsageCounts): number | undefined;
}

/**
 * Runs attempts until one completes: 429 / 529 / 5xx / dropped connections (and stalled streams)
 * are retried up to `maxRetries` times, waiting the server's retry-after or an exponential
 * backoff with jitter; the server's x-should-retry wins over the kind. onRetry fires before each wait.
 */
export async function streamWithRetries(source: AttemptSource, rules: RetryRules, handlers: StreamHandlers = {}, signal?: AbortSignal): Promise<ModelResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await streamOnce(source, rules, handlers, signal);
    } catch (raw) {
      const error = source.classify(raw, signal);
      if (!shouldRetry(error) || attempt >= rules.maxRetries) throw error;
      const delayMs = retryDelay(error, attempt, rules.retryBaseDelayMs, rules.maxRetryDelayMs);
      handlers.onRetry?.({ attempt: attempt + 1, delayMs, reason: { english: error.message, text: error.text } });
      await sleep(delayMs, signal).catch(() => {
        throw cancelledError();
      });
    }
  }
}

async function streamOnce(source: AttemptSource, rules: RetryRules, handlers: StreamHandlers, signal: AbortSignal | undefined): Promise<ModelResponse> {
  // An SDK's timeout ends once headers arrive; a stream that then goes silent would hang the
  // turn forever, so a watchdog aborts it and the attempt is retried as a dropped connection.
  // Until the reply begins it allows the longer first-output wait (prompt processing, reasoning).
  const attempt = new AbortController();
  const onAbort = () => attempt.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) attempt.abort();
  let stalledAfterMs: number | undefined;
  let begun = false;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(watchdog);
    const limitMs = begun ? rules.streamIdleTimeoutMs : rules.firstOutputTimeoutMs;
    watchdog = setTimeout(() => {
      stalledAfterMs = limitMs;
      attempt.abort();
    }, limitMs);
  };
  try {
    arm();
    const reply = new ReplyAccumulator(handlers);
    for await (const chunk of source.attempt(attempt.signal)) {
      begun ||= BEGINS_REPLY.has(chunk.type);
      arm();
      reply.add(chunk);
    }
    if (attempt.signal.aborted) throw signal?.aborted ? cancelledError() : new Error('aborted');
    return reply.finish((usage) => source.costOf(usage));
  } catch (error) {
    if (stalledAfterMs !== undefined && !signal?.aborted) {
      // A sub-second limit (tests, tight settings) must not read as "no data for 0 s".
      const seconds = Math.round(stalledAfterMs / 100) / 10;
      const waited = stalledAfterMs < 1000 ? `${stalledAfterMs} ms` : `${seconds} s`;
      const waitedText = stalledAfterMs < 1000 ? userText('model.milliseconds', { value: stalledAfterMs }) : userText('model.seconds', { value: seconds });
      throw begun
        ? new ModelError('connection', modelSaid('model.streamStalled', { waited: waitedText }, `The response stream stalled: no data for ${waited}.`), modelHint('model.hintStalled'))
        : new ModelError('connection', modelSaid('model.noReplyWithin', { waited: waitedText }, `The server sent no reply within ${waited}.`), modelHint('model.hintServerRunning'));
    }
    if (signal?.aborted) throw cancelledError();
    throw error;
  } finally {
    clearTimeout(watchdog);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Chunks that show the model has begun its reply (usage alone, e.g. Anthropic's message_start, does not). */
const BEGINS_REPLY: ReadonlySet<ModelChunk['type']> = new Set(['text', 'thinking', 'thinking_signature', 'redacted_thinking', 'tool_call_start', 'tool_call_delta', 'tool_call_end', 'stop', 'done']);

/** The server's own verdict (x-should-retry) wins, as in the SDKs; otherwise the error kind decides. */
function shouldRetry(error: ModelError): boolean {
  if (error.kind === 'cancelled') return false;
  if (error.retry.shouldRetry !== undefined) return error.retry.shouldRetry;
  return RETRYABLE_KINDS.has(error.kind);
}

/** The server's retry-after if it gave one, else exponential backoff with jitter. */
export function retryDelay(error: ModelError, attempt: number, baseMs: number, maxMs: number): number {
  if (error.retry.retryAfterMs !== undefined) return error.retry.retryAfterMs;
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

/** A positive number from an environment variable, else undefined. */
export function positiveNumber(value: string | undefined): number | undefined {
  const parsed = Number(value);
  return value !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

/**
 * Public types of the fake OpenAI Chat Completions API used by tests and benchmarks.
 *
 * Everything here is plain data so a test can build replies inline; see `replies.ts` for small
 * builder helpers.
 */
import type OpenAI from 'openai';

/** The body of a POST /v1/chat/completions request that passed validation (the SDK's own type). */
export type ChatRequestBody = OpenAI.Chat.Completions.ChatCompletionCreateParams;

/** The `error.type` values the real API (and compatible servers) use. */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'requests'
  | 'tokens'
  | 'insufficient_quota'
  | 'server_error'
  | 'api_error';

/** One tool call of a scripted reply. */
export interface ScriptedToolCall {
  name: string;
  /** Streamed as `JSON.stringify(arguments)` in several fragments (unless the stream controls say otherwise). */
  arguments: Record<string, unknown>;
  /** Default: a generated `call_…` id. */
  id?: string;
}

/** Explicit usage numbers; any field given replaces the computed one. */
export interface UsageOverride {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
}

/** Controls that only apply when the request has `stream: true`. */
export interface StreamControls {
  /** Characters per content delta (default 8). */
  textChunkChars?: number;
  /** Characters per tool-call arguments fragment (default 10; the first delta of a call always has `arguments: ''`). */
  argsChunkChars?: number;
  /**
   * The arguments text streamed for the reply's tool calls, in order, instead of the JSON of their
   * `arguments` (e.g. malformed JSON): for clients' handling of a model that writes bad arguments.
   */
  rawToolArguments?: string[];
  /** The first delta of every tool call carries no `id` (some local servers do this). */
  omitToolCallIds?: boolean;
  /**
   * Replace the finish_reason of the final chunk (e.g. an unknown one such as `'eos'`);
   * `null` sends no chunk with a finish_reason at all.
   */
  finishReason?: string | null;
  /** End the response cleanly after the last chunk without `data: [DONE]`. */
  omitDone?: boolean;
  /** Never send the usage chunk, even when `stream_options.include_usage` asks for it (servers that ignore it). */
  omitUsage?: boolean;
  /** Destroy the socket after this many `data:` lines (0 = right after the 200 headers). */
  cutAfterChunks?: number;
  /**
   * After this many chunks, send `data: {"error": {…}}` (the real API's mid-stream failure) and end
   * the response. The SDK throws an APIError with that body.
   */
  errorAfterChunks?: { after: number; message?: string; type?: ApiErrorType; code?: string | null };
  /** Wait this long (ms, real time) before writing each chunk. For cancellation and idle tests. */
  chunkDelayMs?: number;
}

/** An assistant message. */
export interface MessageReply {
  kind: 'message';
  /** Assistant text (may be empty when the reply only calls tools). */
  content: string;
  tool_calls?: ScriptedToolCall[];
  /**
   * Default: `tool_calls` when there are tool calls, else `stop`. If the reply is longer than the
   * request's max tokens (or the room left in the window), the fake cuts it and answers `length`.
   */
  finish_reason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage?: UsageOverride;
  /**
   * Hidden reasoning tokens the reply spends (OpenAI reasoning models return no reasoning text).
   * Default: when the request sets `reasoning_effort` on a reasoning model, `REASONING_TOKENS`
   * of that effort; otherwise 0. They come out of the completion budget first (a budget they use
   * up leaves an empty reply with `length`), are included in `completion_tokens`, and are reported
   * as `usage.completion_tokens_details.reasoning_tokens`.
   */
  reasoning_tokens?: number;
  /**
   * Visible reasoning as compatible servers send it (DeepSeek, vLLM with a reasoning parser):
   * streamed as `delta.reasoning_content` chunks before the content, `message.reasoning_content`
   * otherwise. Its tokens count as reasoning tokens (after any `reasoning_tokens`) and come out
   * of the budget before the content.
   */
  reasoning_content?: string;
  /** Wait this long (ms, real time) before sending the response headers. */
  delayMs?: number;
  /** Streaming-only behaviour. Ignored for non-streaming requests. */
  stream?: StreamControls;
}

/** An HTTP error with the real body `{"error": {"message", "type", "param", "code"}}`. */
export interface ErrorReply {
  kind: 'error';
  /** 400, 401, 403, 404, 429, 500, 503, … */
  status: number;
  /** Default: the type the real API uses for `status`. */
  type?: ApiErrorType;
  /** Default: the message the real API uses for `status`. */
  message?: string;
  /** Default: the code the real API uses for `status` (or null). */
  code?: string | null;
  param?: string | null;
  /** Seconds; sent as the `retry-after` header. */
  retryAfter?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  delayMs?: number;
}

/** Any HTTP answer, verbatim (e.g. an HTML page from something that is not an OpenAI-compatible server). */
export interface RawReply {
  kind: 'raw';
  status: number;
  contentType: string;
  body: string;
}

/** Destroy the connection before any response byte: the SDK sees an APIConnectionError. */
export interface DisconnectReply {
  kind: 'disconnect';
  delayMs?: number;
}

/** Never answer; the connection stays open until the client aborts or the fake is closed. */
export interface HangReply {
  kind: 'hang';
}

/** What POST /v1/chat/completions answers with. Queue with `enqueue()` or return from a responder. */
export type ScriptedReply = MessageReply | ErrorReply | RawReply | DisconnectReply | HangReply;

/** Model table entry. */
export interface ModelSpec {
  /** Context window (prompt + completion), in tokens. */
  context_window: number;
  /** The most `max_tokens` / `max_completion_tokens` may ask for. */
  max_output_tokens: number;
  /** False: a request with `tools` gets the 400 a server without tool support sends. Default true. */
  supports_tools?: boolean;
  /** Refuse `max_tokens` as reasoning models do (o-series, gpt-5): only `max_completion_tokens` is accepted. Default false. */
  requires_max_completion_tokens?: boolean;
  /** Refuse `stream_options` as an unrecognized argument (older servers, older Azure API versions). Default false. */
  rejects_stream_options?: boolean;
  /**
   * The `reasoning_effort` values the model takes (a reasoning model: o-series, gpt-5). Absent or
   * empty: not a reasoning model, which refuses the parameter ("Unrecognized request argument
   * supplied: reasoning_effort"); a known value outside the list gets "Unsupported value: …".
   */
  reasoning_efforts?: string[];
  /** Also report the window in GET /v1/models/{id} as `max_model_len` (vLLM does; OpenAI does not). */
  expose_max_model_len?: boolean;
  owned_by?: string;
  /** Unix seconds. */
  created?: number;
}

/** What the fake answered, recorded on every request. */
export interface RecordedReply {
  status: number;
  /**
   * `message` / `stream`: an assistant reply (JSON or SSE); `error`: an error body; `raw`: a
   * scripted raw answer; `stream-cut`: SSE cut by `cutAfterChunks`; `stream-error`: SSE ended by an
   * error chunk; `model`, `models`; `disconnect`; `hang`; `aborted` (client went away mid-stream).
   */
  kind: 'message' | 'stream' | 'stream-cut' | 'stream-error' | 'error' | 'raw' | 'model' | 'models' | 'disconnect' | 'hang' | 'aborted';
  requestId: string;
  /** JSON body sent (non-streaming and errors). */
  body?: unknown;
  /** SSE `data:` payloads written, in order (streams only; `[DONE]` as the string). */
  chunks?: unknown[];
  /** The usage computed for the reply (messages only), whether or not it was sent. */
  usage?: OpenAI.CompletionUsage;
  /** The fake's own checks refused the request (auth, validation, unknown model, context length). */
  rejected?: boolean;
}

/** One HTTP request received by the fake. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when empty; the raw string when it was not JSON). */
  body: unknown;
  /** Fake-clock time (ms) when it arrived. */
  at: number;
  /** Filled in when the reply is decided; stays undefined while a `hang` is pending. */
  reply?: RecordedReply;
}

export interface FakeOpenAIOptions {
  /** The key accepted in `Authorization: Bearer`. Default 'sk-test-openai-key'. */
  apiKey?: string;
  /** Base clock (ms). Default Date.now. `advanceClock` adds to it. */
  now?: () => number;
  /** Replace the default model table. */
  models?: Record<string, ModelSpec>;
  /** How long a cached prefix stays usable (real API: 5-10 minutes of inactivity). Default 10 minutes. */
  cacheTtlMs?: number;
  /** Seed for generated ids (default 1), so runs are reproducible. */
  seed?: number;
  /**
   * A compatible server that does not know `reasoning_effort`: every model refuses it as an
   * unrecognized argument, whatever its `reasoning_efforts` say. Default false.
   */
  rejectReasoningEffort?: boolean;
}

export interface FakeOpenAI {
  /** http://127.0.0.1:PORT/v1 — pass as `baseURL` to the SDK (it appends `/chat/completions`). */
  url: string;
  /** The key it accepts; other keys get 401. */
  apiKey: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Scripted replies consumed in order by POST /v1/chat/completions requests that pass validation. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Used when the queue is empty. `index` counts the completion requests that reached scripting (0-based). */
  setResponder(fn: ((req: ChatRequestBody, index: number) => ScriptedReply | Promise<ScriptedReply>) | undefined): void;
  /** Add or replace a model. */
  setModel(id: string, spec: ModelSpec): void;
  /** Move the fake clock forward (cache retention). */
  advanceClock(ms: number): void;
  /** Queued replies not consumed yet. */
  pendingReplies(): number;
  /** POST /v1/chat/completions requests only (convenience filter over `requests`). */
  completionRequests(): RecordedRequest[];
  /** Completion requests the fake refused with a 4xx before scripting (validation, auth, model, context length). */
  rejectedRequests(): RecordedRequest[];
  /** Forget every cached prefix. */
  clearCache(): void;
  close(): Promise<void>;
}

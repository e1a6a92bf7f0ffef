/**
 * Public types of the fake Anthropic Messages API used by tests and benchmarks.
 *
 * Everything here is plain data so a test can build replies inline; see
 * `replies.ts` for small builder helpers.
 */
import type Anthropic from '@anthropic-ai/sdk';

/** The body of a POST /v1/messages request that passed validation (the SDK's own type). */
export type MessagesRequestBody = Anthropic.MessageCreateParams;

/** The `error.type` values the real API uses. */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

/** A content block of a scripted assistant reply. */
export type ScriptedBlock =
  /**
   * Plain text. Streamed as several `text_delta` events. `citations`: web search results it cites
   * (each becomes a `web_search_result_location` with the fake's `encrypted_index`, streamed as a
   * `citations_delta`); the cited URL should be a result of a search earlier in the reply.
   */
  | { type: 'text'; text: string; citations?: Array<{ url: string; title?: string | null; cited_text: string }> }
  /**
   * A server-side web search (needs the request to declare the `web_search_20250305` tool): a
   * `server_tool_use` block (`id` defaults to `srvtoolu_…`) and its `web_search_tool_result`, whose
   * results carry the fake's `encrypted_content` (refused when sent back edited). `error` instead
   * of results: a `web_search_tool_result_error` with that code. Counted in `usage.server_tool_use`.
   */
  | { type: 'web_search'; query: string; results?: Array<{ url: string; title: string; page_age?: string | null }>; error?: Anthropic.WebSearchToolResultErrorCode; id?: string }
  /**
   * A client tool call. `id` defaults to a generated `toolu_01…` id. `input` is streamed as
   * several `input_json_delta` events whose `partial_json` concatenate to `JSON.stringify(input)`.
   */
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string }
  /**
   * Extended thinking. `signature` defaults to the fake's own signature of `thinking`
   * (see `thinkingSignature()`); the fake rejects a thinking block sent back with a signature
   * it did not issue, like the real API ("Invalid `signature` in `thinking` block").
   * `signature: null` sends the block WITHOUT a signature (no `signature` field, no
   * `signature_delta`): a misbehaving gateway, for clients that must not send such a block back.
   * Only allowed when the request enabled thinking (see `allowUnrequestedThinking`).
   */
  | { type: 'thinking'; thinking: string; signature?: string | null }
  /**
   * A redacted thinking block (opaque `data`), streamed whole in its `content_block_start` as
   * the real API does. The fake remembers the data it sent, so the latest assistant message
   * must send it back unchanged.
   */
  | { type: 'redacted_thinking'; data: string };

/** Explicit usage numbers; any field given replaces the computed one. */
export interface UsageOverride {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** Controls that only apply when the request has `stream: true`. */
export interface StreamControls {
  /**
   * Destroy the socket after this many SSE events have been written (0 = right after the
   * 200 headers). The SDK then sees a truncated body and throws.
   */
  cutAfterEvents?: number;
  /** Wait this long (ms, real time) before writing each SSE event. For cancellation tests. */
  eventDelayMs?: number;
  /**
   * After this many events, send an SSE `event: error` (like the real API's mid-stream
   * `overloaded_error`) and end the response. The SDK throws an APIError with this type.
   */
  errorAfterEvents?: { after: number; type?: ApiErrorType; message?: string };
  /** Characters per `text_delta` / `thinking_delta` (default 12). */
  textChunkChars?: number;
  /** Characters per `input_json_delta` (default 10; the first delta is always `""` like the real API). */
  jsonChunkChars?: number;
  /**
   * The `partial_json` text streamed for the reply's tool_use blocks, in order, instead of the
   * JSON of their `input` (which the final Message still carries). For clients' handling of a
   * model that writes malformed tool input; not something the fake does on its own.
   */
  rawToolInputJson?: string[];
  /**
   * End the stream inside content block `index` (e.g. a thinking block) after `afterDeltas` of
   * its text deltas (default 1; 0 = right after its `content_block_start`). A thinking block is
   * never given its `signature_delta` or `content_block_stop`: the client holds a half-streamed,
   * unsigned block. The socket is destroyed (the SDK sees a truncated body), or with `error` an
   * SSE `event: error` of that type is sent instead (like `errorAfterEvents`).
   */
  cutInBlock?: { index: number; afterDeltas?: number; error?: ApiErrorType };
}

/** An assistant message. */
export interface MessageReply {
  kind: 'message';
  content: ScriptedBlock[];
  /**
   * Default: `tool_use` when a tool_use block is present, otherwise `end_turn`.
   * If the content is longer than the request's `max_tokens`, the fake truncates it at the
   * token limit and answers `max_tokens` whatever is set here (as the real API would).
   */
  stop_reason?: Anthropic.StopReason;
  /**
   * Reported when stop_reason is 'stop_sequence'. If the request has `stop_sequences` and a text
   * block contains one, the fake cuts the reply before it and reports it (as the real API would).
   */
  stop_sequence?: string | null;
  /** Replace computed usage numbers (input/cache numbers still drive nothing else). */
  usage?: UsageOverride;
  /** Wait this long (ms, real time) before sending the response headers. */
  delayMs?: number;
  /** Streaming-only behaviour. Ignored for non-streaming requests. */
  stream?: StreamControls;
}

/** An HTTP error with the real error body. */
export interface ErrorReply {
  kind: 'error';
  /** 400, 401, 403, 404, 413, 429, 500, 529, … */
  status: number;
  /** Default: the type the real API uses for `status`. */
  type?: ApiErrorType;
  /** Default: the message the real API uses for that type (e.g. "Overloaded" for 529). */
  message?: string;
  /** Seconds; sent as the `retry-after` header (fractions allowed, the SDK parses floats). */
  retryAfter?: number;
  /** Extra response headers (e.g. `{ 'x-should-retry': 'false' }` to override the default). */
  headers?: Record<string, string>;
  delayMs?: number;
}

/** Destroy the connection before any response byte: the SDK sees an APIConnectionError (and retries it). */
export interface DisconnectReply {
  kind: 'disconnect';
  delayMs?: number;
}

/** Never answer; the connection stays open until the client aborts or the fake is closed. */
export interface HangReply {
  kind: 'hang';
}

/** What POST /v1/messages answers with. Queue with `enqueue()` or return from a responder. */
export type ScriptedReply = MessageReply | ErrorReply | DisconnectReply | HangReply;

/** A `thinking.type` value. */
export type ThinkingType = 'enabled' | 'adaptive' | 'between_tools' | 'disabled';

/** Model table entry. */
export interface ModelSpec {
  max_input_tokens: number;
  max_tokens: number;
  display_name?: string;
  /** Minimum prefix length (tokens) for a cache entry to be written. Default from the model family. */
  min_cacheable_tokens?: number;
  /** RFC 3339; default a fixed date. */
  created_at?: string;
  /**
   * Whether `thinking` may be enabled. Default from the id: every model except the Claude 3
   * models before 3.7 (claude-3-5-haiku, claude-3-5-sonnet, claude-3-opus, claude-3-haiku), which
   * refuse it with "'<id>' does not support thinking.".
   */
  supports_thinking?: boolean;
  /**
   * The `thinking.type` values the model takes, and its thinking when the request omits `thinking`
   * (platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting, per-model table).
   * Default from the id: Claude 3.7 and 4.0–4.5 `enabled`/`disabled`, off; Opus/Sonnet 4.6 also
   * `adaptive`; Opus 4.7/4.8 `adaptive`/`disabled`, off; Sonnet 5 `adaptive`/`disabled`, adaptive
   * by default; Sonnet 5.5 `adaptive`/`between_tools` (no `disabled`), adaptive by default.
   */
  thinking_types?: ThinkingType[];
  thinking_default?: 'off' | 'adaptive';
  /**
   * Thinking blocks are tied to the model that wrote them (Claude Sonnet 5.5's breaking change):
   * this model signs its thinking for itself and refuses blocks another model signed
   * ("Invalid `signature` in `thinking` block"). Default: Sonnet / Opus 5.5 and later.
   */
  binds_thinking_to_model?: boolean;
  /**
   * Whether the `interleaved-thinking-2025-05-14` beta applies (then, with tools, `budget_tokens`
   * may exceed `max_tokens`). Default: Claude 4 and later (not 3.7).
   */
  supports_interleaved_thinking?: boolean;
  /**
   * Whether a final assistant message (a prefill the model continues) is allowed. Default from the
   * id: not on Opus / Sonnet 4.6 and later, which refuse it with "This model does not support
   * assistant message prefill. The conversation must end with a user message.".
   */
  supports_prefill?: boolean;
}

/** What the fake answered, recorded on every request. */
export interface RecordedReply {
  status: number;
  /**
   * `message` / `stream`: an assistant message (JSON or SSE); `error`: an error body;
   * `stream-cut`: SSE cut by `cutAfterEvents`; `stream-error`: SSE ended by an `error` event;
   * `count_tokens`, `model`, `models`; `disconnect`; `hang`; `aborted` (client went away mid-stream).
   */
  kind:
    | 'message'
    | 'stream'
    | 'stream-cut'
    | 'stream-error'
    | 'error'
    | 'count_tokens'
    | 'model'
    | 'models'
    | 'disconnect'
    | 'hang'
    | 'aborted';
  requestId: string;
  /** JSON body sent (non-streaming), or the final Message for streams. */
  body?: unknown;
  /** SSE events written, in order (streams only). */
  events?: Array<{ event: string; data: unknown }>;
  /** The usage reported (messages only). */
  usage?: Anthropic.Usage;
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

export interface FakeAnthropicOptions {
  /** The key accepted in `x-api-key` or `Authorization: Bearer`. Default 'sk-ant-test-key'. */
  apiKey?: string;
  /** Base clock (ms). Default Date.now. `advanceClock` adds to it. */
  now?: () => number;
  /** Replace the default model table. */
  models?: Record<string, ModelSpec>;
  /** Blocks looked back from a breakpoint for an earlier cache entry (real API: 20). */
  cacheLookbackBlocks?: number;
  /**
   * Reject thinking blocks whose signature the fake did not issue, and (in the latest assistant
   * message) thinking / redacted_thinking blocks that differ from what the fake sent (default true).
   */
  verifyThinkingSignatures?: boolean;
  /**
   * Let a scripted reply carry thinking / redacted_thinking blocks when the request did not enable
   * thinking (default false: such a reply is a test-setup mistake, answered with a loud 500 that
   * names it, since the real model never thinks unasked).
   */
  allowUnrequestedThinking?: boolean;
  /** Seed for generated ids (default 1), so runs are reproducible. */
  seed?: number;
  /** Request body limit in bytes before 413 request_too_large (real API: 32 MB). */
  maxBodyBytes?: number;
}

export interface FakeAnthropic {
  /** http://127.0.0.1:PORT — pass as `baseURL` to the SDK. */
  url: string;
  /** The key it accepts; other keys get 401. */
  apiKey: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Scripted replies consumed in order by POST /v1/messages requests that pass validation. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Used when the queue is empty. `index` counts the messages requests that reached scripting (0-based). */
  setResponder(
    fn: ((req: MessagesRequestBody, index: number) => ScriptedReply | Promise<ScriptedReply>) | undefined,
  ): void;
  /** Add or replace a model (the id becomes a standalone model, not an alias). */
  setModel(id: string, info: ModelSpec): void;
  /** Move the fake clock forward (cache TTLs). */
  advanceClock(ms: number): void;
  /** Queued replies not consumed yet. */
  pendingReplies(): number;
  /** POST /v1/messages requests only (convenience filter over `requests`). */
  messageRequests(): RecordedRequest[];
  /** Drop every prompt-cache entry. */
  clearCache(): void;
  close(): Promise<void>;
}

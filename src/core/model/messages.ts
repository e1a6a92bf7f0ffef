/**
 * The provider-neutral conversation: what the canonical history, the transcript and the context
 * engine hold, whichever back end sends it. The block shapes are Anthropic's Messages shapes
 * (the history was first written in them, and transcripts on disk store them), declared here
 * structurally so nothing above src/core/model depends on an SDK; each back end converts to its
 * wire format (the Anthropic one sends them as they are, the OpenAI one maps them to chat messages).
 */

export interface TextBlockParam {
  type: 'text';
  text: string;
  /** Web search citations Anthropic's model attached to this text; sent back exactly, or not at all. */
  citations?: WebSearchCitation[];
}

/** Where a cited text comes from: one result of a web search in the same reply (`encrypted_index` is opaque). */
export interface WebSearchCitation {
  type: 'web_search_result_location';
  url: string;
  title: string | null;
  encrypted_index: string;
  cited_text: string;
}

/** Anthropic's server-side tool call (web search): the server ran it; it goes back as it came, with its result right after it. */
export interface ServerToolUseBlockParam {
  type: 'server_tool_use';
  id: string;
  name: 'web_search';
  input: Record<string, unknown>;
}

export interface WebSearchResultParam {
  type: 'web_search_result';
  url: string;
  title: string;
  /** Opaque; must go back unchanged (the API refuses an edited one). */
  encrypted_content: string;
  page_age?: string | null;
}

/** Why a search gave no results (the API reports it in the result block, with HTTP 200). */
export type WebSearchErrorCode = 'invalid_tool_input' | 'unavailable' | 'max_uses_exceeded' | 'too_many_requests' | 'query_too_long' | 'request_too_large';

export interface WebSearchToolResultBlockParam {
  type: 'web_search_tool_result';
  tool_use_id: string;
  content: WebSearchResultParam[] | { type: 'web_search_tool_result_error'; error_code: WebSearchErrorCode };
}

/** The media types the APIs accept for inline images. */
export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export interface ImageBlockParam {
  type: 'image';
  source: { type: 'base64'; media_type: ImageMediaType; data: string } | { type: 'url'; url: string };
}

export interface ToolUseBlockParam {
  type: 'tool_use';
  /** Unique across the whole history (the APIs reject repeats); [a-zA-Z0-9_-]. */
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<TextBlockParam | ImageBlockParam>;
  is_error?: boolean;
}

/** Extended thinking; the signature lets the provider verify the block when it is sent back. */
export interface ThinkingBlockParam {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlockParam {
  type: 'redacted_thinking';
  data: string;
}

export type ContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam
  | ThinkingBlockParam
  | RedactedThinkingBlockParam
  | ServerToolUseBlockParam
  | WebSearchToolResultBlockParam;

export interface UserMessageParam {
  role: 'user';
  content: string | ContentBlockParam[];
}

export interface AssistantMessageParam {
  role: 'assistant';
  content: string | ContentBlockParam[];
}

/** Conversation history holds only user and assistant turns (the system prompt travels separately). */
export type MessageParam = UserMessageParam | AssistantMessageParam;

/**
 * A block of a model's reply, as the shared stream accumulator builds it (src/core/model/stream.ts);
 * the session turns these into ContentBlockParams for the history.
 */
export type ContentBlock =
  | { type: 'text'; text: string; citations?: WebSearchCitation[] | null }
  | ServerToolUseBlockParam
  | WebSearchToolResultBlockParam
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/**
 * Server-side tools a request offers (Anthropic runs them itself; back ends without them ignore
 * this): web search with its limits (model/webSearch.ts builds the API's tool).
 */
export interface ServerTools {
  webSearch?: { maxUses: number; allowedDomains?: readonly string[]; blockedDomains?: readonly string[] };
}

/** A client tool as the APIs want it (JSON Schema input). */
export interface ToolParam {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

/**
 * Why a reply ended, in one vocabulary for every back end (Anthropic's words: the OpenAI back end
 * maps finish_reason stop -> end_turn, length -> max_tokens, tool_calls -> tool_use,
 * content_filter -> refusal).
 */
export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

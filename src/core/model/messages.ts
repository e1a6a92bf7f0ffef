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

export type ContentBlockParam = TextBlockParam | ImageBlockParam | ToolUseBlockParam | ToolResultBlockParam | ThinkingBlockParam | RedactedThinkingBlockParam;

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
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

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

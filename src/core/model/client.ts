/**
 * Temporary re-exports while imports move to the neutral modules (messages.ts, backend.ts,
 * errors.ts) and the Anthropic back end (anthropic.ts); deleted once nothing imports it.
 */
export type { ContentBlock, ContentBlockParam, MessageParam, StopReason, ToolParam } from './messages';
export type { CacheHints, InvalidToolInput, ModelRequest, ModelResponse, StreamHandlers } from './backend';
export { hintForSurface, ModelError, redactUrlSecrets, type ModelErrorKind, type Surface, type SurfaceHint } from './errors';
export { AnthropicBackend as ModelClient } from './anthropic';

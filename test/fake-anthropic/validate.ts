/**
 * Request validation for POST /v1/messages and /v1/messages/count_tokens, mirroring the real
 * API's checks and messages (field errors use the API's pydantic-style `path: message` form).
 *
 * Throws `ApiFailure`; returns the typed body and the resolved model otherwise.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { webSearchHistoryProblem, webSearchToolProblem } from './webSearch';
import { imageSize } from 'image-size';
import { ApiFailure, invalid } from './errors';
import { adaptiveAllowsForcedToolUse, type ModelEntry } from './models';
import type { ThinkingType } from './types';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MESSAGES_KEYS = new Set([
  'model',
  'messages',
  'max_tokens',
  'cache_control',
  'container',
  'context_management',
  'diagnostics',
  'inference_geo',
  'mcp_servers',
  'metadata',
  'output_config',
  'output_format',
  'service_tier',
  'speed',
  'stop_sequences',
  'stream',
  'system',
  'temperature',
  'thinking',
  'tool_choice',
  'tools',
  'top_k',
  'top_p',
]);

const COUNT_TOKENS_KEYS = new Set([
  'model',
  'messages',
  'cache_control',
  'context_management',
  'mcp_servers',
  'output_config',
  'output_format',
  'speed',
  'system',
  'thinking',
  'tool_choice',
  'tools',
]);

/** Allowed keys per input block type; `null` = accepted without a key check. */
const BLOCK_KEYS: Record<string, Set<string> | null> = {
  text: new Set(['type', 'text', 'cache_control', 'citations']),
  image: new Set(['type', 'source', 'cache_control', 'transformations']),
  document: new Set(['type', 'source', 'cache_control', 'citations', 'context', 'title']),
  search_result: null,
  thinking: new Set(['type', 'thinking', 'signature']),
  redacted_thinking: new Set(['type', 'data']),
  tool_use: new Set(['type', 'id', 'name', 'input', 'cache_control', 'caller', 'toolset_name']),
  tool_result: new Set(['type', 'tool_use_id', 'content', 'is_error', 'cache_control', 'toolset_name']),
  server_tool_use: null,
  web_search_tool_result: null,
  web_fetch_tool_result: null,
  code_execution_tool_result: null,
  bash_code_execution_tool_result: null,
  text_editor_code_execution_tool_result: null,
  tool_search_tool_result: null,
  container_upload: null,
};
const BLOCK_TAGS = Object.keys(BLOCK_KEYS)
  .map((t) => `'${t}'`)
  .join(', ');

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

export interface ValidateContext {
  endpoint: 'messages' | 'count_tokens';
  resolveModel(id: string): ModelEntry | undefined;
  /**
   * A thinking block's signature as `model` sees it: `valid`; `edited` (one the fake issued, for
   * other text); `foreign` (never issued, or bound to another model). Absent: signatures are not checked.
   */
  signatureStatus?(thinking: string, signature: string, model: ModelEntry): 'valid' | 'edited' | 'foreign';
  /** Whether the fake sent this redacted_thinking `data`. */
  issuedRedacted?(data: string): boolean;
  /** Whether a final assistant message's blocks end with a reply the fake paused (`pause_turn`): the turn's continuation, not a prefill. */
  continuesPausedTurn?(blocks: readonly unknown[]): boolean;
  /** The `anthropic-beta` header's values. */
  betas?: readonly string[];
}

export interface Validated {
  body: Anthropic.MessageCreateParams;
  model: ModelEntry;
  /** The request declares the web search server tool (a scripted search needs it). */
  webSearch: boolean;
  /** Thinking is on: asked for, or the model's default (adaptive on Sonnet 5 and later). */
  thinkingEnabled: boolean;
  /** The thinking the request runs with (`disabled` when off). */
  thinkingMode: ThinkingType;
}

function checkExtraKeys(obj: Record<string, unknown>, allowed: Set<string>, prefix: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.has(k)) throw invalid(`${prefix}${k}: Extra inputs are not permitted`);
  }
}

function checkCacheControl(v: unknown, path: string, counter: Counter): void {
  if (v === undefined || v === null) return;
  if (!isRecord(v)) throw invalid(`${path}: Input should be a valid dictionary`);
  if (v['type'] !== 'ephemeral') throw invalid(`${path}.type: Input should be 'ephemeral'`);
  const ttl = v['ttl'];
  if (ttl !== undefined && ttl !== '5m' && ttl !== '1h') throw invalid(`${path}.ttl: Input should be '5m' or '1h'`);
  checkExtraKeys(v, new Set(['type', 'ttl']), `${path}.`);
  counter.n++;
  counter.ttls.push(typeof ttl === 'string' ? ttl : '5m');
}

function checkText(text: unknown, path: string, scope: string): void {
  if (typeof text !== 'string') throw invalid(`${path}.text: Input should be a valid string`);
  if (text.length === 0) throw invalid(`${scope}: text content blocks must be non-empty`);
  if (text.trim().length === 0) throw invalid(`${scope}: text content blocks must contain non-whitespace text`);
}

/** Cache breakpoints seen, and the request's images (path and size) for the per-request limits. */
interface Counter {
  n: number;
  ttls: string[];
  images: Array<{ path: string; width: number; height: number }>;
}

const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const DETECTED_MEDIA_TYPE: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };
/** The real limits and messages (platform.claude.com/docs/en/build-with-claude/vision; the texts are the API's own). */
export const IMAGE_MAX_BASE64 = 5 * 1024 * 1024;
export const IMAGE_MAX_SIDE = 8000;
export const MANY_IMAGES = 20;
export const MANY_IMAGES_MAX_SIDE = 2000;
export const MAX_IMAGES = 100;

/** An image source as the API checks it: type, base64, size, that the bytes are the declared type, and its pixels. */
function checkImageSource(source: Record<string, unknown>, path: string, counter: Counter): void {
  const kind = source['type'];
  if (kind === 'url') {
    if (typeof source['url'] !== 'string') throw invalid(`${path}.url.url: Field required`);
    return;
  }
  if (kind !== 'base64') throw invalid(`${path}: Input tag '${String(kind)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`);
  const mediaType = source['media_type'];
  if (typeof mediaType !== 'string' || !IMAGE_MEDIA_TYPES.includes(mediaType)) {
    throw invalid(`${path}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
  }
  const data = source['data'];
  if (typeof data !== 'string') throw invalid(`${path}.base64.data: Field required`);
  if (data.length > IMAGE_MAX_BASE64) throw invalid(`${path}.base64: image exceeds 5 MB maximum: ${data.length} bytes > ${IMAGE_MAX_BASE64} bytes`);
  if (data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw invalid(`${path}.base64.data: Could not process image`);
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(Buffer.from(data, 'base64'));
  } catch {
    throw invalid(`${path}.base64.data: Could not process image`);
  }
  if (DETECTED_MEDIA_TYPE[size.type ?? ''] !== mediaType) throw invalid(`${path}.base64.data: Image does not match the provided media type ${mediaType}`);
  if (size.width > IMAGE_MAX_SIDE || size.height > IMAGE_MAX_SIDE) {
    throw invalid(`${path}.base64.data: At least one of the image dimensions exceed max allowed size: ${IMAGE_MAX_SIDE} pixels`);
  }
  counter.images.push({ path: `${path}.base64.data`, width: size.width, height: size.height });
}

/** The per-request image limits: how many, and their pixels when there are many. */
function checkRequestImages(counter: Counter): void {
  const images = counter.images;
  if (images.length > MAX_IMAGES) throw invalid(`Too much media: 0 document pages + ${images.length} images > ${MAX_IMAGES}`);
  if (images.length <= MANY_IMAGES) return;
  const large = images.find((image) => image.width > MANY_IMAGES_MAX_SIDE || image.height > MANY_IMAGES_MAX_SIDE);
  if (large) throw invalid(`${large.path}: At least one of the image dimensions exceed max allowed size for many-image requests: ${MANY_IMAGES_MAX_SIDE} pixels`);
}

/** Validate one content block of messages[i].content[j] (or a nested tool_result block). */
function checkBlock(
  b: unknown,
  path: string,
  role: string,
  counter: Counter,
  nested: boolean,
): void {
  if (!isRecord(b)) throw invalid(`${path}: Input should be a valid dictionary`);
  const type = b['type'];
  if (type === undefined) throw invalid(`${path}.type: Field required`);
  if (typeof type !== 'string' || !(type in BLOCK_KEYS)) {
    throw invalid(`${path}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${BLOCK_TAGS}`);
  }
  const allowed = BLOCK_KEYS[type];
  if (allowed) checkExtraKeys(b, allowed, `${path}.${type}.`);
  checkCacheControl(b['cache_control'], `${path}.${type}.cache_control`, counter);
  const field = (name: string): string => `${path}.${type}.${name}`;
  switch (type) {
    case 'text':
      checkText(b['text'], `${path}.${type}`, 'messages');
      break;
    case 'image':
      if (!isRecord(b['source'])) throw invalid(`${field('source')}: Field required`);
      checkImageSource(b['source'], field('source'), counter);
      break;
    case 'document':
      if (!isRecord(b['source'])) throw invalid(`${field('source')}: Field required`);
      break;
    case 'tool_use': {
      if (nested) throw invalid(`${path}: tool_use blocks are not allowed inside tool_result content`);
      if (role !== 'assistant') throw invalid(`${path}: \`tool_use\` blocks can only be in \`assistant\` messages`);
      const id = b['id'];
      if (typeof id !== 'string') throw invalid(`${field('id')}: Field required`);
      if (!TOOL_USE_ID.test(id)) throw invalid(`${field('id')}: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof b['name'] !== 'string') throw invalid(`${field('name')}: Field required`);
      if (!isRecord(b['input'])) throw invalid(`${field('input')}: Input should be a valid dictionary`);
      break;
    }
    case 'tool_result': {
      if (nested) throw invalid(`${path}: tool_result blocks cannot be nested`);
      if (role !== 'user') throw invalid(`${path}: \`tool_result\` blocks can only be in \`user\` messages`);
      if (typeof b['tool_use_id'] !== 'string') throw invalid(`${field('tool_use_id')}: Field required`);
      const c = b['content'];
      if (c !== undefined && typeof c !== 'string') {
        if (!Array.isArray(c)) throw invalid(`${field('content')}: Input should be a valid list`);
        c.forEach((nb, k) => {
          const np = `${field('content')}.${k}`;
          checkBlock(nb, np, role, counter, true);
        });
      }
      if (b['is_error'] !== undefined && typeof b['is_error'] !== 'boolean') {
        throw invalid(`${field('is_error')}: Input should be a valid boolean`);
      }
      break;
    }
    case 'thinking':
      if (role !== 'assistant') throw invalid(`${path}: \`thinking\` blocks can only be in \`assistant\` messages`);
      if (typeof b['thinking'] !== 'string') throw invalid(`${field('thinking')}: Field required`);
      if (typeof b['signature'] !== 'string') throw invalid(`${field('signature')}: Field required`);
      break;
    case 'redacted_thinking':
      if (typeof b['data'] !== 'string') throw invalid(`${field('data')}: Field required`);
      break;
    default:
      break;
  }
}

function checkTools(tools: unknown, counter: Counter): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw invalid('tools: Input should be a valid list');
  const names: string[] = [];
  tools.forEach((t, i) => {
    if (!isRecord(t)) throw invalid(`tools.${i}: Input should be a valid dictionary`);
    const type = t['type'];
    const custom = type === undefined || type === null || type === 'custom';
    const prefix = custom ? `tools.${i}.custom` : `tools.${i}.${String(type)}`;
    if (typeof t['name'] !== 'string') throw invalid(`${prefix}.name: Field required`);
    if (custom) {
      if (!TOOL_NAME.test(t['name'])) throw invalid(`${prefix}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      const schema = t['input_schema'];
      if (schema === undefined) throw invalid(`${prefix}.input_schema: Field required`);
      if (!isRecord(schema)) throw invalid(`${prefix}.input_schema: Input should be a valid dictionary`);
      if (schema['type'] !== 'object') throw invalid(`${prefix}.input_schema.type: Input should be 'object'`);
      if (t['description'] !== undefined && typeof t['description'] !== 'string') {
        throw invalid(`${prefix}.description: Input should be a valid string`);
      }
      checkExtraKeys(
        t,
        new Set([
          'name',
          'description',
          'input_schema',
          'cache_control',
          'type',
          'allowed_callers',
          'defer_loading',
          'eager_input_streaming',
          'input_examples',
          'strict',
        ]),
        `${prefix}.`,
      );
    }
    checkCacheControl(t['cache_control'], `${prefix}.cache_control`, counter);
    names.push(t['name']);
  });
  if (new Set(names).size !== names.length) throw invalid('tools: Tool names must be unique.');
  return names;
}

function checkToolChoice(choice: unknown, toolNames: string[], toolsGiven: boolean): void {
  if (choice === undefined) return;
  if (!isRecord(choice)) throw invalid('tool_choice: Input should be a valid dictionary');
  const t = choice['type'];
  if (t !== 'auto' && t !== 'any' && t !== 'tool' && t !== 'none') {
    throw invalid(
      `tool_choice: Input tag '${String(t)}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`,
    );
  }
  const allowed = t === 'tool' ? ['type', 'name', 'disable_parallel_tool_use'] : t === 'none' ? ['type'] : ['type', 'disable_parallel_tool_use'];
  checkExtraKeys(choice, new Set(allowed), `tool_choice.${t}.`);
  if (t === 'tool') {
    if (typeof choice['name'] !== 'string') throw invalid('tool_choice.tool.name: Field required');
  }
  if (!toolsGiven && t !== 'none') throw invalid('tool_choice may only be specified while providing tools');
  if (t === 'tool' && typeof choice['name'] === 'string' && !toolNames.includes(choice['name'])) {
    throw invalid(`tool_choice.name: Tool '${choice['name']}' not found in provided tools`);
  }
}

function checkSystem(system: unknown, counter: Counter): void {
  if (system === undefined || typeof system === 'string') return;
  if (!Array.isArray(system)) throw invalid('system: Input should be a valid string');
  system.forEach((b, i) => {
    const path = `system.${i}`;
    if (!isRecord(b)) throw invalid(`${path}: Input should be a valid dictionary`);
    if (b['type'] !== 'text') throw invalid(`${path}.type: Input should be 'text'`);
    checkExtraKeys(b, new Set(['type', 'text', 'cache_control', 'citations']), `${path}.`);
    checkText(b['text'], path, 'system');
    checkCacheControl(b['cache_control'], `${path}.cache_control`, counter);
  });
}

const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const THINKING_CONSIDERATIONS = `Please consult our documentation at ${THINKING_DOCS}#important-considerations-when-using-extended-thinking`;
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';

/** The thinking config's shape: its type (undefined when omitted) and budget. Checked at schema level. */
function checkThinkingShape(thinking: unknown): { type?: ThinkingType; budget?: number } {
  if (thinking === undefined || thinking === null) return {};
  if (!isRecord(thinking)) throw invalid('thinking: Input should be a valid dictionary');
  const t = thinking['type'];
  if (t === 'adaptive') {
    checkExtraKeys(thinking, new Set(['type', 'display']), 'thinking.adaptive.');
    const display = thinking['display'];
    if (display !== undefined && display !== null && display !== 'summarized' && display !== 'omitted') throw invalid(`thinking.adaptive.display: Input should be 'summarized' or 'omitted'`);
    return { type: t };
  }
  if (t === 'disabled' || t === 'between_tools') return { type: t };
  if (t !== 'enabled') {
    throw invalid(
      `thinking: Input tag '${String(t)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`,
    );
  }
  checkExtraKeys(thinking, new Set(['type', 'budget_tokens', 'display']), 'thinking.enabled.');
  const budget = thinking['budget_tokens'];
  if (budget === undefined) throw invalid('thinking.enabled.budget_tokens: Field required');
  if (typeof budget !== 'number' || !Number.isInteger(budget)) {
    throw invalid('thinking.enabled.budget_tokens: Input should be a valid integer');
  }
  if (budget < 1024) throw invalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  return { type: 'enabled', budget };
}

/** `output_config`: its shape and the effort levels (adaptive thinking's depth). */
function checkOutputConfig(config: unknown): void {
  if (config === undefined || config === null) return;
  if (!isRecord(config)) throw invalid('output_config: Input should be a valid dictionary');
  checkExtraKeys(config, new Set(['effort', 'format', 'task_budget']), 'output_config.');
  const effort = config['effort'];
  if (effort !== undefined && effort !== null && !['low', 'medium', 'high', 'xhigh', 'max'].includes(String(effort))) {
    throw invalid("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
  }
}

/** What a model says when it does not take a thinking type. */
function typeNotSupported(type: ThinkingType): ApiFailure {
  switch (type) {
    case 'enabled':
      return invalid('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.');
    case 'adaptive':
      return invalid('adaptive thinking is not supported on this model');
    case 'disabled':
      return invalid('"thinking.type.disabled" is not supported for this model. Use "thinking.type.between_tools" to turn off up-front thinking.');
    case 'between_tools':
      return invalid('"thinking.type.between_tools" is not supported for this model.');
  }
}

/**
 * The thinking a request runs with, and what it may not be combined with (the real API's checks,
 * in its words): a model without thinking or without that thinking type; for manual thinking
 * (`enabled`) a budget not below max_tokens (except interleaved thinking with tools, where the
 * budget spans the whole turn); with any thinking on, temperature other than 1, top_k, top_p below
 * 0.95, and forced tool use (accepted with adaptive thinking except on the 5.5 models).
 * An omitted `thinking` takes the model's default (adaptive on Sonnet 5 and later).
 */
function checkThinkingCompatibility(
  raw: Record<string, unknown>,
  shape: { type?: ThinkingType; budget?: number },
  model: ModelEntry,
  maxTokens: number | undefined,
  toolsGiven: boolean,
  betas: readonly string[],
): ThinkingType {
  if (shape.type !== undefined && shape.type !== 'disabled' && !model.supports_thinking) {
    throw invalid(`'${model.id}' does not support thinking.`);
  }
  if (shape.type !== undefined && !model.thinking_types.includes(shape.type)) throw typeNotSupported(shape.type);
  const mode: ThinkingType = shape.type ?? (model.supports_thinking && model.thinking_default === 'adaptive' ? 'adaptive' : 'disabled');
  if (mode === 'disabled') return mode;
  const interleaved = betas.includes(INTERLEAVED_THINKING_BETA) && model.supports_interleaved_thinking && toolsGiven;
  if (shape.budget !== undefined && maxTokens !== undefined && maxTokens <= shape.budget && !interleaved) {
    throw invalid(
      `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}#max-tokens-and-context-window-size`,
    );
  }
  const temperature = raw['temperature'];
  if (temperature !== undefined && temperature !== null && temperature !== 1) {
    throw invalid(`\`temperature\` may only be set to 1 when thinking is enabled. ${THINKING_CONSIDERATIONS}`);
  }
  if (raw['top_k'] !== undefined && raw['top_k'] !== null) {
    throw invalid(`\`top_k\` must be unset when thinking is enabled. ${THINKING_CONSIDERATIONS}`);
  }
  const topP = raw['top_p'];
  if (typeof topP === 'number' && topP < 0.95) {
    throw invalid(`\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. ${THINKING_CONSIDERATIONS}`);
  }
  const choice = raw['tool_choice'];
  const forced = isRecord(choice) && (choice['type'] === 'any' || choice['type'] === 'tool');
  if (forced && (mode === 'enabled' || !adaptiveAllowsForcedToolUse(model.id))) {
    throw invalid('Thinking may not be enabled when tool_choice forces tool use.');
  }
  return mode;
}

function blocksOf(m: Record<string, unknown>): unknown[] {
  const c = m['content'];
  return Array.isArray(c) ? c : typeof c === 'string' ? [{ type: 'text', text: c }] : [];
}

function typeOf(b: unknown): string {
  return isRecord(b) && typeof b['type'] === 'string' ? b['type'] : '';
}

/** tool_use ↔ tool_result pairing, as the real API checks it. */
function checkToolPairing(messages: Record<string, unknown>[]): void {
  const seen = new Set<string>();
  messages.forEach((m, i) => {
    blocksOf(m).forEach((b, j) => {
      if (typeOf(b) !== 'tool_use' || !isRecord(b)) return;
      const id = String(b['id']);
      if (seen.has(id)) throw invalid(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
      seen.add(id);
    });
  });

  messages.forEach((m, i) => {
    const blocks = blocksOf(m);
    if (m['role'] === 'user') {
      // Every tool_result must answer a tool_use of the immediately previous assistant message.
      const prev = i > 0 ? messages[i - 1] : undefined;
      const prevIds = new Set(
        prev && prev['role'] === 'assistant'
          ? blocksOf(prev)
              .filter((b) => typeOf(b) === 'tool_use')
              .map((b) => String((b as Record<string, unknown>)['id']))
          : [],
      );
      blocks.forEach((b, j) => {
        if (typeOf(b) !== 'tool_result') return;
        const id = String((b as Record<string, unknown>)['tool_use_id']);
        if (!prevIds.has(id)) {
          throw invalid(
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
      });
      return;
    }
    // assistant: its tool_use ids must be answered by the tool_result blocks at the *start* of the next message.
    const ids = blocks.filter((b) => typeOf(b) === 'tool_use').map((b) => String((b as Record<string, unknown>)['id']));
    if (ids.length === 0) return;
    const next = messages[i + 1];
    if (!next) return; // final assistant message (prefill); the model continues it.
    const answered = new Set<string>();
    if (next['role'] === 'user') {
      for (const b of blocksOf(next)) {
        if (typeOf(b) !== 'tool_result') break;
        answered.add(String((b as Record<string, unknown>)['tool_use_id']));
      }
    }
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      throw invalid(
        `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
  });
}

/** Index of the last user message that starts a turn (has a block that is not a tool_result); -1 if none. */
function lastTurnStart(messages: Record<string, unknown>[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.['role'] === 'user' && blocksOf(m).some((b) => typeOf(b) !== 'tool_result')) return i;
  }
  return -1;
}

/**
 * Thinking blocks sent back, as the real API checks them:
 * - every thinking block must carry a signature the API issued for exactly that text (earlier
 *   turns too: the API drops their thinking from the context, but a forged one is still refused),
 *   and, on models that bind thinking to themselves, issued by that model;
 * - in the latest assistant message, thinking and redacted_thinking must be exactly as sent;
 * - with thinking disabled, a final assistant message may not contain thinking; with it enabled,
 *   a final assistant message may not end in thinking;
 * - with manual thinking (`enabled`), the current turn's first assistant message (a tool-use loop in
 *   progress, or a prefill the model is to continue) must start with a thinking block.
 */
function checkThinkingBlocks(messages: Record<string, unknown>[], mode: ThinkingType, model: ModelEntry, ctx: ValidateContext): void {
  const thinkingEnabled = mode !== 'disabled';
  let latestAssistant = -1;
  messages.forEach((m, i) => {
    if (m['role'] === 'assistant') latestAssistant = i;
  });
  const modified = (i: number, j: number): ApiFailure =>
    invalid(
      `messages.${i}.content.${j}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`,
    );
  if (ctx.signatureStatus) {
    messages.forEach((m, i) => {
      blocksOf(m).forEach((b, j) => {
        if (!isRecord(b)) return;
        if (typeOf(b) === 'redacted_thinking') {
          if (i === latestAssistant && ctx.issuedRedacted && !ctx.issuedRedacted(String(b['data']))) throw modified(i, j);
          return;
        }
        if (typeOf(b) !== 'thinking') return;
        const signature = String(b['signature']);
        const status = ctx.signatureStatus?.(String(b['thinking']), signature, model);
        if (status === 'valid') return;
        if (i === latestAssistant && status === 'edited') throw modified(i, j);
        throw invalid(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
      });
    });
  }
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (!last) return;
  if (!thinkingEnabled && last['role'] === 'assistant') {
    blocksOf(last).forEach((b, j) => {
      const t = typeOf(b);
      if (t === 'thinking' || t === 'redacted_thinking') {
        throw invalid(
          `messages.${lastIndex}.content.${j}: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
        );
      }
    });
  }
  if (!thinkingEnabled) return;
  if (last['role'] === 'assistant') {
    // A prefill cannot end in thinking: the model continues text, not a thought.
    const t = typeOf(blocksOf(last).at(-1));
    if (t === 'thinking' || t === 'redacted_thinking') {
      throw invalid(`messages.${lastIndex}: The final block in an assistant message cannot be \`thinking\`.`);
    }
  }
  // Adaptive thinking may skip thinking, so only manual thinking requires a thinking block first.
  if (mode !== 'enabled') return;
  const turnStart = lastTurnStart(messages);
  for (let ai = turnStart + 1; ai < messages.length; ai++) {
    const assistant = messages[ai];
    if (assistant?.['role'] !== 'assistant') continue;
    const blocks = blocksOf(assistant);
    if (blocks.length === 0) return; // an empty prefill: nothing to continue
    const t = typeOf(blocks[0]);
    if (t !== 'thinking' && t !== 'redacted_thinking') {
      throw invalid(
        `messages.${ai}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${t}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
      );
    }
    return;
  }
}

/** Validate a parsed request body. Throws ApiFailure (400/404) like the real API. */
export function validateRequest(raw: unknown, ctx: ValidateContext): Validated {
  if (!isRecord(raw)) throw invalid('Input should be a valid dictionary');
  const isMessages = ctx.endpoint === 'messages';
  checkExtraKeys(raw, isMessages ? MESSAGES_KEYS : COUNT_TOKENS_KEYS, '');

  const model = raw['model'];
  if (model === undefined) throw invalid('model: Field required');
  if (typeof model !== 'string') throw invalid('model: Input should be a valid string');

  let maxTokens: number | undefined;
  if (isMessages) {
    const mt = raw['max_tokens'];
    if (mt === undefined) throw invalid('max_tokens: Field required');
    if (typeof mt !== 'number' || !Number.isInteger(mt)) throw invalid('max_tokens: Input should be a valid integer');
    if (mt < 1) throw invalid('max_tokens: Input should be greater than or equal to 1');
    maxTokens = mt;
    const stream = raw['stream'];
    if (stream !== undefined && typeof stream !== 'boolean') throw invalid('stream: Input should be a valid boolean');
    const stops = raw['stop_sequences'];
    if (stops !== undefined && (!Array.isArray(stops) || stops.some((s) => typeof s !== 'string'))) {
      throw invalid('stop_sequences: Input should be a valid list');
    }
    const temp = raw['temperature'];
    if (temp !== undefined) {
      if (typeof temp !== 'number') throw invalid('temperature: Input should be a valid number');
      if (temp < 0) throw invalid('temperature: Input should be greater than or equal to 0');
      if (temp > 1) throw invalid('temperature: Input should be less than or equal to 1');
    }
  }

  const messages = raw['messages'];
  if (messages === undefined) throw invalid('messages: Field required');
  if (!Array.isArray(messages)) throw invalid('messages: Input should be a valid list');

  const counter: Counter = { n: 0, ttls: [], images: [] };
  const toolNames = checkTools(raw['tools'], counter);
  const search = webSearchToolProblem(Array.isArray(raw['tools']) ? raw['tools'] : []);
  if (search.problem) throw invalid(search.problem);
  const toolsGiven = Array.isArray(raw['tools']) && raw['tools'].length > 0;
  checkToolChoice(raw['tool_choice'], toolNames, Array.isArray(raw['tools']));
  checkSystem(raw['system'], counter);

  const msgs: Record<string, unknown>[] = [];
  messages.forEach((m, i) => {
    if (!isRecord(m)) throw invalid(`messages.${i}: Input should be a valid dictionary`);
    const role = m['role'];
    if (role === undefined) throw invalid(`messages.${i}.role: Field required`);
    if (role !== 'user' && role !== 'assistant') throw invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    checkExtraKeys(m, new Set(['role', 'content']), `messages.${i}.`);
    const content = m['content'];
    if (content === undefined) throw invalid(`messages.${i}.content: Field required`);
    if (typeof content !== 'string' && !Array.isArray(content)) {
      throw invalid(`messages.${i}.content: Input should be a valid list`);
    }
    if (Array.isArray(content)) content.forEach((b, j) => checkBlock(b, `messages.${i}.content.${j}`, role, counter, false));
    msgs.push(m);
  });
  if (msgs.length === 0) throw invalid('messages: at least one message is required');
  checkRequestImages(counter);
  if (msgs[0]?.['role'] !== 'user') throw invalid('messages: first message must use the "user" role');

  msgs.forEach((m, i) => {
    const c = m['content'];
    const isFinalAssistant = i === msgs.length - 1 && m['role'] === 'assistant';
    const empty = (typeof c === 'string' && c.length === 0) || (Array.isArray(c) && c.length === 0);
    if (empty && !isFinalAssistant) {
      throw invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    if (typeof c === 'string' && c.length > 0 && c.trim().length === 0 && !isFinalAssistant) {
      throw invalid('messages: text content blocks must contain non-whitespace text');
    }
    if (isFinalAssistant) {
      const blocks = blocksOf(m);
      const lastBlock = blocks[blocks.length - 1];
      if (isRecord(lastBlock) && lastBlock['type'] === 'text' && /\s$/u.test(String(lastBlock['text']))) {
        throw invalid('messages: final assistant content cannot end with trailing whitespace');
      }
    }
  });

  const usesTools = msgs.some((m) => blocksOf(m).some((b) => typeOf(b) === 'tool_use' || typeOf(b) === 'tool_result'));
  if (usesTools && !toolsGiven) {
    throw invalid('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  }
  checkToolPairing(msgs);
  const searchProblem = webSearchHistoryProblem(msgs as unknown as Anthropic.MessageParam[]);
  if (searchProblem) throw invalid(searchProblem);

  checkCacheControl(raw['cache_control'], 'cache_control', counter);
  if (counter.n > 4) throw invalid(`A maximum of 4 blocks with cache_control may be provided. Found ${counter.n}.`);
  const firstShort = counter.ttls.indexOf('5m');
  if (firstShort >= 0 && counter.ttls.slice(firstShort).includes('1h')) {
    throw invalid(
      "A cache_control block with ttl='1h' must not come after a cache_control block with ttl='5m'. Place longer-lived breakpoints first.",
    );
  }

  const entry = ctx.resolveModel(model);
  if (!entry) throw new ApiFailure(404, 'not_found_error', `model: ${model}`);
  if (maxTokens !== undefined && maxTokens > entry.max_tokens) {
    throw invalid(
      `max_tokens: ${maxTokens} > ${entry.max_tokens}, which is the maximum allowed number of output tokens for ${entry.id}`,
    );
  }

  const final = msgs[msgs.length - 1];
  if (!entry.supports_prefill && final?.['role'] === 'assistant' && !ctx.continuesPausedTurn?.(blocksOf(final))) {
    throw invalid('This model does not support assistant message prefill. The conversation must end with a user message.');
  }
  checkOutputConfig(raw['output_config']);
  const thinkingMode = checkThinkingCompatibility(raw, checkThinkingShape(raw['thinking']), entry, maxTokens, toolsGiven, ctx.betas ?? []);
  const thinkingEnabled = thinkingMode !== 'disabled';
  checkThinkingBlocks(msgs, thinkingMode, entry, ctx);

  return { body: raw as unknown as Anthropic.MessageCreateParams, model: entry, webSearch: search.declared, thinkingEnabled, thinkingMode };
}

/**
 * Token counting for the fake API, with the real Claude BPE tokenizer.
 *
 * A prompt is flattened into "segments", one per cacheable block, in the order the real API
 * renders a prompt: tools, then system, then messages. Each segment's count is the tokenizer
 * count of a deterministic text rendering of the block plus a small fixed overhead, so counts
 * are additive: the tokens of the prefix up to any block are the sum of the segments so far
 * plus REQUEST_OVERHEAD. That is what prompt-cache accounting and `count_tokens` both use, so
 * `count_tokens` always equals input + cache_creation + cache_read of the matching message.
 */
import { createHash } from 'node:crypto';
import { getTokenizer } from '@anthropic-ai/tokenizer';
import { imageSize } from 'image-size';
import type { ScriptedBlock } from './types';

/** Fixed tokens every request pays (start/end markers). */
export const REQUEST_OVERHEAD = 4;
/** Per message (role markers); charged on the message's first block. */
export const MESSAGE_OVERHEAD = 3;
/** Per system prompt (charged on its first block). */
export const SYSTEM_OVERHEAD = 2;
/** Per tool definition. */
export const TOOL_OVERHEAD = 5;
/**
 * The tool-use system prompt the real API adds when `tools` is non-empty (documented for
 * Claude 4 models: 346 tokens with tool_choice auto/none, 313 with any/tool). Charged on the first tool.
 */
export const TOOLS_PREAMBLE_AUTO = 346;
export const TOOLS_PREAMBLE_FORCED = 313;
/** Per non-text structural block (tool_use, tool_result, thinking …). */
export const STRUCTURED_BLOCK_OVERHEAD = 4;
/** Cost of an image block whose pixels cannot be read (a URL image); a readable one costs imageTokens. */
export const IMAGE_TOKENS = 1600;

/**
 * The documented cost of an image: width*height/750 after it is scaled to fit 1568 px on the long
 * edge and about 1.15 megapixels (platform.claude.com/docs/en/build-with-claude/vision).
 */
export function imageTokens(source: unknown): number {
  if (!isRecord(source) || source['type'] !== 'base64' || typeof source['data'] !== 'string') return IMAGE_TOKENS;
  let width: number;
  let height: number;
  try {
    ({ width, height } = imageSize(Buffer.from(source['data'], 'base64')));
  } catch {
    return IMAGE_TOKENS;
  }
  const scale = Math.min(1, 1568 / Math.max(width, height), Math.sqrt(1_150_000 / (width * height)));
  return Math.max(1, Math.ceil((width * scale * (height * scale)) / 750));
}
/** Fixed cost of a PDF / URL document block. */
export const PDF_TOKENS = 1500;
/** Output overhead per tool_use block in a reply. */
export const OUTPUT_TOOL_USE_OVERHEAD = 4;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Tokenizer (one instance per process; countTokens() from the package re-parses the BPE table
// on every call, which is far too slow for long transcripts).

type Tokenizer = ReturnType<typeof getTokenizer>;
let tokenizer: Tokenizer | undefined;
function tk(): Tokenizer {
  tokenizer ??= getTokenizer();
  return tokenizer;
}

const memo = new Map<string, number>();
const MEMO_LIMIT = 50_000;

/** Tokenizer count of `text` (NFKC-normalised, special tokens allowed, like `countTokens`). */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  const hit = memo.get(text);
  if (hit !== undefined) return hit;
  const n = tk().encode(text.normalize('NFKC'), 'all').length;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(text, n);
  return n;
}

/** The first `maxTokens` tokens of `text`, decoded back to a string. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const ids = tk().encode(text.normalize('NFKC'), 'all');
  if (ids.length <= maxTokens) return text;
  const bytes = tk().decode(ids.slice(0, maxTokens));
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/\uFFFD+$/u, '');
}

// ---------------------------------------------------------------------------------------------
// Canonical serialisation (for cache hashing) — key-sorted JSON without cache_control, null
// fields, or defaults that do not change what the model sees.

function canonicalValue(v: unknown, dropCacheControl: boolean): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map((x) => canonicalValue(x, dropCacheControl));
  if (isRecord(v)) {
    const out: { [k: string]: Json } = {};
    for (const key of Object.keys(v).sort()) {
      const val = v[key];
      if (val === null || val === undefined) continue;
      if (dropCacheControl && key === 'cache_control') continue;
      if (key === 'caller' && isRecord(val) && val['type'] === 'direct') continue;
      out[key] = canonicalValue(val, dropCacheControl);
    }
    return out;
  }
  return String(v);
}

/** Deterministic JSON: sorted keys, no cache_control, no null fields. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(canonicalValue(v, true));
}

/** Deterministic JSON keeping every field (used for tool inputs / schemas). */
export function stableJson(v: unknown): string {
  return JSON.stringify(canonicalValue(v, false));
}

// ---------------------------------------------------------------------------------------------
// Block → tokens

function textOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function nestedContentTokens(content: unknown): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content) n += inputBlockTokens(b, true);
  return n;
}

/**
 * Tokens of one input content block. `countThinking` false models the real API dropping
 * thinking blocks of earlier turns from the context.
 */
export function inputBlockTokens(block: unknown, countThinking: boolean): number {
  if (!isRecord(block)) return 0;
  switch (block['type']) {
    case 'text':
      return countTextTokens(textOf(block['text']));
    case 'image':
      return imageTokens(block['source']);
    case 'document': {
      const src = block['source'];
      let n = countTextTokens(textOf(block['title'])) + countTextTokens(textOf(block['context']));
      if (isRecord(src) && src['type'] === 'text') n += countTextTokens(textOf(src['data']));
      else if (isRecord(src) && src['type'] === 'content') n += nestedContentTokens(src['content']);
      else n += PDF_TOKENS;
      return n + STRUCTURED_BLOCK_OVERHEAD;
    }
    case 'search_result':
      return (
        STRUCTURED_BLOCK_OVERHEAD +
        countTextTokens(textOf(block['title'])) +
        countTextTokens(textOf(block['source'])) +
        nestedContentTokens(block['content'])
      );
    case 'tool_use':
      return (
        STRUCTURED_BLOCK_OVERHEAD + countTextTokens(textOf(block['name'])) + countTextTokens(stableJson(block['input']))
      );
    case 'tool_result':
      return STRUCTURED_BLOCK_OVERHEAD + nestedContentTokens(block['content']);
    case 'thinking':
      return countThinking ? STRUCTURED_BLOCK_OVERHEAD + countTextTokens(textOf(block['thinking'])) : 0;
    case 'redacted_thinking':
      return countThinking ? STRUCTURED_BLOCK_OVERHEAD + Math.ceil(textOf(block['data']).length / 4) : 0;
    default:
      return STRUCTURED_BLOCK_OVERHEAD + countTextTokens(canonicalJson(block));
  }
}

// ---------------------------------------------------------------------------------------------
// Prompt → segments

/** One cacheable unit of the prompt, in render order. */
export interface Segment {
  /** Path as the API names it in errors, e.g. `tools.0`, `system.1`, `messages.3.content.2`. */
  path: string;
  region: 'tools' | 'system' | 'messages';
  tokens: number;
  /** Chained hash of everything up to and including this block. */
  hash: string;
  /** The block's cache_control (undefined when absent). */
  cacheControl?: { type: string; ttl?: string };
}

export interface PromptShape {
  model: string;
  system?: unknown;
  tools?: unknown;
  tool_choice?: unknown;
  thinking?: unknown;
  messages: unknown;
}

export interface PromptTokens {
  total: number;
  segments: Segment[];
}

function cacheControlOf(block: unknown): Segment['cacheControl'] {
  if (!isRecord(block)) return undefined;
  const cc = block['cache_control'];
  if (!isRecord(cc)) return undefined;
  const out: { type: string; ttl?: string } = { type: String(cc['type']) };
  if (typeof cc['ttl'] === 'string') out.ttl = cc['ttl'];
  return out;
}

function toolTokens(tool: Record<string, unknown>): number {
  const schema = tool['input_schema'];
  let n = TOOL_OVERHEAD + countTextTokens(textOf(tool['name'])) + countTextTokens(textOf(tool['description']));
  if (schema !== undefined) n += countTextTokens(stableJson(schema));
  else n += countTextTokens(canonicalJson({ ...tool, name: undefined, description: undefined }));
  return n;
}

/**
 * Index of the first message whose thinking blocks still count: everything after the last
 * user message that is a new turn (has any block that is not a tool_result).
 */
function firstCountedThinkingMessage(messages: unknown[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isRecord(m) || m['role'] !== 'user') continue;
    const c = m['content'];
    if (typeof c === 'string') return i + 1;
    if (Array.isArray(c) && c.some((b) => !isRecord(b) || b['type'] !== 'tool_result')) return i + 1;
  }
  return 0;
}

/** Count a (validated) prompt and split it into cacheable segments. */
export function promptTokens(p: PromptShape): PromptTokens {
  const segments: Segment[] = [];
  let h = createHash('sha256').update(`model:${p.model}`).digest('hex');
  const push = (path: string, region: Segment['region'], tokens: number, canonical: string, block: unknown): void => {
    h = createHash('sha256').update(h).update('\u0000').update(canonical).digest('hex');
    const seg: Segment = { path, region, tokens, hash: h };
    const cc = cacheControlOf(block);
    if (cc) seg.cacheControl = cc;
    segments.push(seg);
  };

  const choiceType = isRecord(p.tool_choice) ? String(p.tool_choice['type']) : 'auto';
  const tools = Array.isArray(p.tools) ? p.tools : [];
  tools.forEach((tool, i) => {
    if (!isRecord(tool)) return;
    const preamble =
      i === 0 ? (choiceType === 'any' || choiceType === 'tool' ? TOOLS_PREAMBLE_FORCED : TOOLS_PREAMBLE_AUTO) : 0;
    push(`tools.${i}`, 'tools', preamble + toolTokens(tool), `tool:${choiceType}:${canonicalJson(tool)}`, tool);
  });

  if (typeof p.system === 'string' && p.system.length > 0) {
    push('system', 'system', SYSTEM_OVERHEAD + countTextTokens(p.system), canonicalJson({ type: 'text', text: p.system }), undefined);
  } else if (Array.isArray(p.system)) {
    p.system.forEach((b, i) => {
      push(`system.${i}`, 'system', (i === 0 ? SYSTEM_OVERHEAD : 0) + inputBlockTokens(b, true), canonicalJson(b), b);
    });
  }

  const messages = Array.isArray(p.messages) ? p.messages : [];
  const thinkingFrom = firstCountedThinkingMessage(messages);
  // Changing thinking or tool_choice invalidates message-level cache entries (documented).
  const messagesSalt = `thinking:${canonicalJson(p.thinking ?? null)}|choice:${canonicalJson(p.tool_choice ?? null)}`;
  messages.forEach((m, mi) => {
    if (!isRecord(m)) return;
    const role = String(m['role']);
    const content = m['content'];
    const blocks: unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    const salt = mi === 0 ? messagesSalt : '';
    if (blocks.length === 0) {
      push(`messages.${mi}`, 'messages', MESSAGE_OVERHEAD, `${salt}msg:${role}:empty`, undefined);
      return;
    }
    blocks.forEach((b, bi) => {
      const tokens = (bi === 0 ? MESSAGE_OVERHEAD : 0) + inputBlockTokens(b, mi >= thinkingFrom);
      const canonical = `${bi === 0 ? `${salt}msg:${role}:` : ''}${canonicalJson(b)}`;
      const path = typeof content === 'string' ? `messages.${mi}.content` : `messages.${mi}.content.${bi}`;
      push(path, 'messages', tokens, canonical, typeof content === 'string' ? undefined : b);
    });
  });

  const total = REQUEST_OVERHEAD + segments.reduce((s, x) => s + x.tokens, 0);
  return { total, segments };
}

// ---------------------------------------------------------------------------------------------
// Output

/** A reply content block in either scripted (ScriptedBlock) or wire (SDK ContentBlock) form. */
type OutputBlock = ScriptedBlock | { readonly type: string };

/** Tokens of one output block. */
export function outputBlockTokens(b: OutputBlock): number {
  const r: Record<string, unknown> = { ...b };
  switch (b.type) {
    case 'text':
      return countTextTokens(textOf(r['text']));
    case 'thinking':
      return countTextTokens(textOf(r['thinking']));
    case 'redacted_thinking':
      return Math.ceil(textOf(r['data']).length / 4);
    case 'tool_use':
      return OUTPUT_TOOL_USE_OVERHEAD + countTextTokens(textOf(r['name'])) + countTextTokens(stableJson(r['input']));
    default:
      return countTextTokens(canonicalJson(b));
  }
}

/** usage.output_tokens the fake reports for a reply (at least 1, like the real API). */
export function countOutputTokens(content: readonly OutputBlock[]): number {
  return Math.max(1, content.reduce((s, b) => s + outputBlockTokens(b), 0));
}

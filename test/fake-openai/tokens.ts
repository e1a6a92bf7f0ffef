/**
 * Token counting for the fake Chat Completions API, with a real BPE tokenizer (o200k_base, the
 * encoding of gpt-4o, gpt-4.1, gpt-5 and the o-series, from gpt-tokenizer).
 *
 * A prompt is rendered into one sequence of token ids, in the order the real API renders it
 * (tool definitions, then messages, ChatML style: start marker, role, separator, content, end
 * marker). Markers and images are ids above the vocabulary, so they count and take part in prefix
 * matching without colliding with text. The sequence's length is prompt_tokens; the longest
 * common prefix of two sequences is what automatic prefix caching can reuse (cache.ts).
 */
import { createHash } from 'node:crypto';
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';

/** Markers (ids beyond the o200k vocabulary). */
const IM_START = 300_001;
const IM_SEP = 300_002;
const IM_END = 300_003;
const TOOL_DEF = 300_004;
const TOOL_CALL = 300_005;
const TOOLS_PREAMBLE_ID = 300_006;
/** Tokens the API adds to describe the function-calling format when `tools` is non-empty. */
export const TOOLS_PREAMBLE = 12;
/** Every reply is primed with `<|im_start|>assistant<|im_sep|>` (3 tokens, as the cookbook counts). */
export const REPLY_PRIMING = 3;
/** A high-detail 512x512 image on gpt-4o (85 base + 170 per tile x 4). The fake does not decode pixels. */
export const IMAGE_TOKENS = 765;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Text -> ids, memoised: long sessions re-send the same messages hundreds of times.

const memo = new Map<string, readonly number[]>();
const MEMO_LIMIT = 20_000;

/** The o200k ids of `text` (special-token text counts as plain text, as in user content). */
export function textIds(text: string): readonly number[] {
  if (text.length === 0) return [];
  const hit = memo.get(text);
  if (hit) return hit;
  const ids = encode(text, { disallowedSpecial: new Set() });
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(text, ids);
  return ids;
}

export function countTextTokens(text: string): number {
  return textIds(text).length;
}

/** The first `maxTokens` tokens of `text`, decoded back to a string. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const ids = textIds(text);
  if (ids.length <= maxTokens) return text;
  return decode(ids.slice(0, maxTokens)).replace(/\uFFFD+$/u, '');
}

/** Deterministic JSON with sorted keys (how the fake renders schemas). */
export function stableJson(v: unknown): string {
  const canonical = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(canonical);
    if (isRecord(x)) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(x).sort()) if (x[k] !== undefined) out[k] = canonical(x[k]);
      return out;
    }
    return x;
  };
  return JSON.stringify(canonical(v));
}

function imageIds(url: string): number[] {
  // Different images must differ in the prefix; the same image must match.
  const digest = createHash('sha256').update(url).digest();
  const ids = new Array<number>(IMAGE_TOKENS);
  for (let i = 0; i < IMAGE_TOKENS; i++) ids[i] = 310_000 + (digest[i % digest.length] ?? 0) * 7 + (i % 7);
  return ids;
}

function contentIds(content: unknown, out: number[]): void {
  if (typeof content === 'string') {
    out.push(...textIds(content));
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part['type'] === 'text' && typeof part['text'] === 'string') out.push(...textIds(part['text']));
    else if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') out.push(...textIds(part['refusal']));
    else if (part['type'] === 'image_url' && isRecord(part['image_url'])) out.push(...imageIds(String(part['image_url']['url'])));
    else out.push(...textIds(stableJson(part)));
  }
}

/** The prompt of a (validated) request as token ids. */
export function promptIds(body: { tools?: unknown; messages: unknown }): number[] {
  const out: number[] = [];
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length > 0) for (let i = 0; i < TOOLS_PREAMBLE; i++) out.push(TOOLS_PREAMBLE_ID);
  for (const tool of tools) {
    const fn = isRecord(tool) && isRecord(tool['function']) ? tool['function'] : {};
    out.push(TOOL_DEF);
    out.push(...textIds(`${String(fn['name'])}\n${typeof fn['description'] === 'string' ? fn['description'] : ''}\n${stableJson(fn['parameters'] ?? {})}`));
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (!isRecord(m)) continue;
    out.push(IM_START, ...textIds(String(m['role'])));
    if (typeof m['name'] === 'string') out.push(...textIds(m['name']));
    out.push(IM_SEP);
    contentIds(m['content'], out);
    const calls = Array.isArray(m['tool_calls']) ? m['tool_calls'] : [];
    for (const call of calls) {
      const fn = isRecord(call) && isRecord(call['function']) ? call['function'] : {};
      out.push(TOOL_CALL, ...textIds(`${String(fn['name'])}(${String(fn['arguments'])})`));
    }
    out.push(IM_END);
  }
  return out;
}

/** prompt_tokens of a request: its rendering plus the reply priming. */
export function promptTokens(body: { tools?: unknown; messages: unknown }): number {
  return promptIds(body).length + REPLY_PRIMING;
}

/** completion_tokens of a reply (at least 1, like the real API). */
export function completionTokens(content: string, toolCalls: ReadonlyArray<{ name: string; arguments: string }>): number {
  let n = countTextTokens(content);
  for (const call of toolCalls) n += 3 + countTextTokens(call.name) + countTextTokens(call.arguments);
  return Math.max(1, n);
}

/**
 * Turning a scripted reply into the wire Message and its SSE event sequence.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { IdGenerator } from './errors';
import { thinkingSignature } from './replies';
import { countTextTokens, outputBlockTokens, stableJson, truncateToTokens } from './tokens';
import type { MessageReply, ScriptedBlock, StreamControls } from './types';
import { citation, searchBlocks } from './webSearch';

export interface BuiltMessage {
  message: Anthropic.Message;
  /** Signatures issued for thinking blocks (`signature\0thinking`). */
  issuedSignatures: string[];
  /** `data` of the redacted_thinking blocks sent. */
  issuedRedacted: string[];
}

/**
 * Apply the output limit (max_tokens covers thinking and text together): blocks are kept in order
 * while they fit, so thinking, which comes first, is what a small limit cuts first; a text/thinking
 * block that does not fit is cut at the token boundary (a cut thinking block is signed as cut);
 * a tool_use (or redacted thinking) that does not fit is dropped.
 */
function limitContent(content: ScriptedBlock[], limit: number): { content: ScriptedBlock[]; truncated: boolean } {
  const out: ScriptedBlock[] = [];
  let used = 0;
  for (const b of content) {
    const n = outputBlockTokens(b);
    if (used + n <= limit) {
      out.push(b);
      used += n;
      continue;
    }
    const room = limit - used;
    if (room > 0 && b.type === 'text') {
      const text = truncateToTokens(b.text, room);
      if (text.length > 0) out.push({ type: 'text', text });
    } else if (room > 0 && b.type === 'thinking') {
      const thinking = truncateToTokens(b.thinking, room);
      if (thinking.length > 0) out.push(b.signature === null ? { type: 'thinking', thinking, signature: null } : { type: 'thinking', thinking });
    }
    return { content: out, truncated: true };
  }
  return { content: out, truncated: false };
}

/**
 * Apply the request's stop_sequences to text blocks: the reply ends right before the first
 * occurrence (the sequence itself is not returned), later blocks are dropped.
 */
function applyStopSequences(
  content: ScriptedBlock[],
  stops: readonly string[],
): { content: ScriptedBlock[]; matched: string | null } {
  if (stops.length === 0) return { content, matched: null };
  const out: ScriptedBlock[] = [];
  for (const b of content) {
    if (b.type !== 'text') {
      out.push(b);
      continue;
    }
    let at = -1;
    let seq: string | null = null;
    for (const s of stops) {
      const i = s.length > 0 ? b.text.indexOf(s) : -1;
      if (i >= 0 && (at < 0 || i < at)) {
        at = i;
        seq = s;
      }
    }
    if (seq === null) {
      out.push(b);
      continue;
    }
    if (at > 0) out.push({ type: 'text', text: b.text.slice(0, at) });
    return { content: out, matched: seq };
  }
  return { content: out, matched: null };
}

export interface BuildArgs {
  reply: MessageReply;
  /** The request's stop_sequences. */
  stopSequences: readonly string[];
  model: string;
  /** min(request max_tokens, room left in the context window). */
  maxOutput: number;
  /** Whether maxOutput came from the context window rather than max_tokens. */
  windowLimited: boolean;
  usage: Omit<Anthropic.Usage, 'output_tokens'>;
  ids: IdGenerator;
  /** Sign thinking for this model only (models that bind thinking to themselves). */
  bindThinkingTo?: string;
}

export function buildMessage(a: BuildArgs): BuiltMessage {
  const stopped = applyStopSequences(a.reply.content, a.stopSequences);
  const { content: limited, truncated } = limitContent(stopped.content, a.maxOutput);
  const issuedSignatures: string[] = [];
  const issuedRedacted: string[] = [];
  let searches = 0;
  const content: Anthropic.ContentBlock[] = limited.flatMap((b): Anthropic.ContentBlock[] => {
    switch (b.type) {
      case 'web_search':
        searches++;
        return searchBlocks(b.id ?? `srvtoolu_${a.ids.toolUse().slice('toolu_'.length)}`, b.query, b.error ? { error_code: b.error } : (b.results ?? []));
      case 'text':
        return [{ type: 'text', text: b.text, citations: b.citations ? b.citations.map((c) => citation(c.url, c.title ?? null, c.cited_text)) : null }];
      default:
        return [single(b)];
    }
  });
  function single(b: Exclude<ScriptedBlock, { type: 'web_search' | 'text' }>): Anthropic.ContentBlock {
    switch (b.type) {
      case 'tool_use':
        return { type: 'tool_use', id: b.id ?? a.ids.toolUse(), name: b.name, input: b.input, caller: { type: 'direct' } };
      case 'thinking': {
        // A gateway that drops signatures: the block goes out without the field the SDK types promise.
        if (b.signature === null) return { type: 'thinking', thinking: b.thinking } as unknown as Anthropic.ThinkingBlock;
        const signature = b.signature ?? thinkingSignature(b.thinking, a.bindThinkingTo);
        issuedSignatures.push(`${signature}\u0000${b.thinking}`);
        return { type: 'thinking', thinking: b.thinking, signature };
      }
      case 'redacted_thinking':
        issuedRedacted.push(b.data);
        return { type: 'redacted_thinking', data: b.data };
    }
  }
  const hasToolUse = content.some((b) => b.type === 'tool_use');
  const stop_reason: Anthropic.StopReason = truncated
    ? a.windowLimited
      ? 'model_context_window_exceeded'
      : 'max_tokens'
    : stopped.matched !== null
      ? 'stop_sequence'
      : (a.reply.stop_reason ?? (hasToolUse ? 'tool_use' : 'end_turn'));
  const computedOutput = Math.max(1, content.reduce((s, b) => s + outputBlockTokens(b), 0));
  const thinkingTokens = content.reduce((s, b) => s + (b.type === 'thinking' ? countTextTokens(b.thinking) : 0), 0);
  const o = a.reply.usage ?? {};
  const usage: Anthropic.Usage = {
    ...a.usage,
    input_tokens: o.input_tokens ?? a.usage.input_tokens,
    cache_creation_input_tokens: o.cache_creation_input_tokens ?? a.usage.cache_creation_input_tokens,
    cache_read_input_tokens: o.cache_read_input_tokens ?? a.usage.cache_read_input_tokens,
    output_tokens: o.output_tokens ?? (truncated ? a.maxOutput : computedOutput),
    output_tokens_details: thinkingTokens > 0 ? { thinking_tokens: thinkingTokens } : null,
    server_tool_use: searches > 0 ? { web_search_requests: searches, web_fetch_requests: 0 } : null,
  };
  const message: Anthropic.Message = {
    id: a.ids.message(),
    type: 'message',
    role: 'assistant',
    model: a.model,
    content,
    stop_reason,
    stop_sequence: stop_reason === 'stop_sequence' ? (stopped.matched ?? a.reply.stop_sequence ?? null) : null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage,
  };
  return { message, issuedSignatures, issuedRedacted };
}

// ---------------------------------------------------------------------------------------------
// SSE

export interface SseEvent {
  event: string;
  data: unknown;
}

function chunks(s: string, size: number): string[] {
  const cps = Array.from(s);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

/** The real event sequence for a message (ping after the first content_block_start). */
export function sseEvents(m: Anthropic.Message, controls: StreamControls = {}): SseEvent[] {
  const textSize = Math.max(1, controls.textChunkChars ?? 12);
  const jsonSize = Math.max(1, controls.jsonChunkChars ?? 10);
  const events: SseEvent[] = [];
  const push = (data: Anthropic.RawMessageStreamEvent | { type: 'ping' }): void => {
    events.push({ event: data.type, data });
  };
  const u = m.usage;
  const start: Anthropic.RawMessageStartEvent = {
    type: 'message_start',
    message: {
      ...m,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...u, output_tokens: Math.min(u.output_tokens, 1), output_tokens_details: null },
    },
  };
  push(start);
  let pinged = false;
  let toolUses = 0;
  const ping = (): void => {
    if (!pinged) push({ type: 'ping' });
    pinged = true;
  };
  m.content.forEach((b, index) => {
    const delta = (d: Anthropic.RawContentBlockDelta): void => {
      const ev: Anthropic.RawContentBlockDeltaEvent = { type: 'content_block_delta', index, delta: d };
      push(ev);
    };
    switch (b.type) {
      case 'text': {
        const ev: Anthropic.RawContentBlockStartEvent = {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '', citations: b.citations ? [] : null },
        };
        push(ev);
        ping();
        for (const cite of b.citations ?? []) delta({ type: 'citations_delta', citation: cite });
        for (const c of chunks(b.text, textSize)) delta({ type: 'text_delta', text: c });
        break;
      }
      case 'server_tool_use': {
        push({ type: 'content_block_start', index, content_block: { ...b, input: {} } } satisfies Anthropic.RawContentBlockStartEvent);
        ping();
        for (const c of chunks(stableJson(b.input), jsonSize)) delta({ type: 'input_json_delta', partial_json: c });
        break;
      }
      case 'web_search_tool_result':
        // The result arrives whole in its start event, as the real API sends it.
        push({ type: 'content_block_start', index, content_block: b } satisfies Anthropic.RawContentBlockStartEvent);
        ping();
        break;
      case 'thinking': {
        const signed = typeof (b as { signature?: unknown }).signature === 'string';
        push({
          type: 'content_block_start',
          index,
          content_block: (signed ? { type: 'thinking', thinking: '', signature: '' } : { type: 'thinking', thinking: '' }) as Anthropic.ThinkingBlock,
        } satisfies Anthropic.RawContentBlockStartEvent);
        ping();
        for (const c of chunks(b.thinking, textSize)) delta({ type: 'thinking_delta', thinking: c });
        if (signed) delta({ type: 'signature_delta', signature: b.signature });
        break;
      }
      case 'redacted_thinking':
        push({ type: 'content_block_start', index, content_block: b } satisfies Anthropic.RawContentBlockStartEvent);
        ping();
        break;
      case 'tool_use': {
        const { input: _input, ...rest } = b;
        void _input;
        push({
          type: 'content_block_start',
          index,
          content_block: { ...rest, input: {} },
        } satisfies Anthropic.RawContentBlockStartEvent);
        ping();
        delta({ type: 'input_json_delta', partial_json: '' });
        const json = controls.rawToolInputJson?.[toolUses++] ?? stableJson(b.input);
        for (const c of chunks(json, jsonSize)) delta({ type: 'input_json_delta', partial_json: c });
        break;
      }
      default:
        break;
    }
    const stop: Anthropic.RawContentBlockStopEvent = { type: 'content_block_stop', index };
    push(stop);
  });
  ping();
  const md: Anthropic.RawMessageDeltaEvent = {
    type: 'message_delta',
    delta: { stop_reason: m.stop_reason, stop_sequence: m.stop_sequence, stop_details: null, container: null },
    usage: {
      input_tokens: u.input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens,
      output_tokens: u.output_tokens,
      output_tokens_details: u.output_tokens_details,
      server_tool_use: u.server_tool_use ?? null,
    },
  };
  push(md);
  push({ type: 'message_stop' } satisfies Anthropic.RawMessageStopEvent);
  return events;
}

export function formatSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

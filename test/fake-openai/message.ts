/**
 * An assistant reply from a script: the content cut to the completion budget (like the real API,
 * which stops at max_tokens or the end of the window with finish_reason `length`), the non-stream
 * `chat.completion` object, and the `chat.completion.chunk` sequence of a stream.
 */
import type OpenAI from 'openai';
import type { IdGenerator } from './errors';
import { completionTokens, countTextTokens, truncateToTokens } from './tokens';
import type { MessageReply, StreamControls } from './types';

export interface BuiltCall {
  id: string;
  name: string;
  /** The arguments text as sent (may be malformed when scripted so). */
  arguments: string;
}

export interface BuiltReply {
  id: string;
  created: number;
  model: string;
  /** Visible reasoning (compatible servers); '' when none. */
  reasoningContent: string;
  content: string;
  toolCalls: BuiltCall[];
  finishReason: string;
  usage: OpenAI.CompletionUsage;
}

const FINGERPRINT = 'fp_f33640a400';

/**
 * Hidden reasoning tokens a reply spends by default for each `reasoning_effort` (the fake's own
 * round numbers: more effort, more tokens; the real counts vary per prompt).
 */
export const REASONING_TOKENS: Readonly<Record<string, number>> = { none: 0, minimal: 16, low: 64, medium: 256, high: 1024, xhigh: 2048 };

export function buildReply(args: {
  reply: MessageReply;
  model: string;
  budget: number;
  promptTokens: number;
  cachedTokens: number;
  ids: IdGenerator;
  now: number;
  /** Stream controls apply (raw tool arguments). */
  streaming: boolean;
  /** The request's accepted `reasoning_effort`, if any. */
  reasoningEffort?: string;
}): BuiltReply {
  const { reply } = args;
  // Reasoning is generated first, so it takes the budget first: hidden tokens, then visible reasoning.
  const hidden = Math.min(args.budget, reply.reasoning_tokens ?? (args.reasoningEffort === undefined ? 0 : (REASONING_TOKENS[args.reasoningEffort] ?? 0)));
  let left = args.budget - hidden;
  let reasoningContent = reply.reasoning_content ?? '';
  let reasoningCut = hidden >= args.budget && (reasoningContent !== '' || reply.content !== '' || (reply.tool_calls ?? []).length > 0);
  if (countTextTokens(reasoningContent) > left) {
    reasoningContent = truncateToTokens(reasoningContent, left);
    reasoningCut = true;
  }
  left -= countTextTokens(reasoningContent);
  const reasoning = hidden + countTextTokens(reasoningContent);
  const budget = Math.max(0, left);
  const raw = args.streaming ? (reply.stream?.rawToolArguments ?? []) : [];
  const calls: BuiltCall[] = (reply.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? args.ids.toolCall(),
    name: c.name,
    arguments: raw[i] ?? JSON.stringify(c.arguments),
  }));
  let content = reply.content;
  let finish: string = reply.finish_reason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  let toolCalls = calls;
  if (reasoningCut) {
    finish = 'length';
    content = '';
    toolCalls = [];
  } else if ((content !== '' || calls.length > 0) && completionTokens(content, calls) > budget) {
    finish = 'length';
    const contentTokens = countTextTokens(content);
    if (contentTokens >= budget) {
      content = truncateToTokens(content, budget);
      toolCalls = [];
    } else {
      let left = budget - contentTokens;
      toolCalls = [];
      for (const call of calls) {
        const cost = completionTokens('', [call]);
        if (cost <= left) {
          toolCalls.push(call);
          left -= cost;
          continue;
        }
        const room = left - 3 - countTextTokens(call.name);
        if (room > 0) toolCalls.push({ ...call, arguments: truncateToTokens(call.arguments, room) });
        break;
      }
    }
  }
  const visible = content === '' && toolCalls.length === 0 && reasoning > 0 ? 0 : completionTokens(content, toolCalls);
  const completion = reply.usage?.completion_tokens ?? reasoning + visible;
  const prompt = reply.usage?.prompt_tokens ?? args.promptTokens;
  const cached = reply.usage?.cached_tokens ?? args.cachedTokens;
  return {
    id: args.ids.completion(),
    created: Math.floor(args.now / 1000),
    model: args.model,
    reasoningContent,
    content,
    toolCalls,
    finishReason: finish,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
  };
}

/** The non-stream body. */
export function completionObject(r: BuiltReply): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: r.content === '' && r.toolCalls.length > 0 ? null : r.content,
    refusal: null,
    annotations: [],
    ...(r.reasoningContent !== '' ? { reasoning_content: r.reasoningContent } : {}),
  };
  if (r.toolCalls.length > 0) {
    message['tool_calls'] = r.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return {
    id: r.id,
    object: 'chat.completion',
    created: r.created,
    model: r.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.finishReason }],
    usage: r.usage,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  };
}

function split(text: string, size: number): string[] {
  const out: string[] = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/**
 * The `data:` payloads of a stream, in the real order: role, content deltas, tool-call deltas (the
 * first of each call with index, id, type, name and empty arguments; later ones index + arguments
 * fragments), the finish_reason chunk, the usage chunk (empty choices) when asked, then `[DONE]`.
 */
export function streamChunks(r: BuiltReply, controls: StreamControls, includeUsage: boolean): Array<Record<string, unknown> | '[DONE]'> {
  const textSize = Math.max(1, controls.textChunkChars ?? 8);
  const argSize = Math.max(1, controls.argsChunkChars ?? 10);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
    id: r.id,
    object: 'chat.completion.chunk',
    created: r.created,
    model: r.model,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: Array<Record<string, unknown> | '[DONE]'> = [];
  const textOnly = r.content !== '' || r.toolCalls.length === 0;
  // A reply that starts with a tool call carries the role in the call's first delta (content null).
  if (textOnly || r.reasoningContent !== '') out.push(chunk({ role: 'assistant', content: '', refusal: null }));
  // DeepSeek's shape: reasoning deltas carry content null.
  for (const piece of split(r.reasoningContent, textSize)) out.push(chunk({ content: null, reasoning_content: piece }));
  for (const piece of split(r.content, textSize)) out.push(chunk({ content: piece }));
  r.toolCalls.forEach((call, index) => {
    const head: Record<string, unknown> = { index, ...(controls.omitToolCallIds ? {} : { id: call.id }), type: 'function', function: { name: call.name, arguments: '' } };
    out.push(chunk(index === 0 && !textOnly && r.reasoningContent === '' ? { role: 'assistant', content: null, tool_calls: [head], refusal: null } : { tool_calls: [head] }));
    for (const piece of split(call.arguments, argSize)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const finish = controls.finishReason === undefined ? r.finishReason : controls.finishReason;
  if (finish !== null) out.push(chunk({}, finish));
  if (includeUsage && !controls.omitUsage) {
    out.push({
      id: r.id,
      object: 'chat.completion.chunk',
      created: r.created,
      model: r.model,
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
      choices: [],
      usage: r.usage,
    });
  }
  if (!controls.omitDone) out.push('[DONE]');
  return out;
}

import { createHash, randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { ModelChunk } from './backend';
import type { StopReason } from './messages';
import type { UsageCounts } from './models';
import type { Logger } from '../logger';

// Stream assembly for the OpenAI back end, apart from its request and error handling:
// SSE framing and Chat Completions chunks → ModelChunks (tool calls, stop reason, usage).

export type ChatChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/**
 * The reply's ModelChunks from Chat Completions chunks. Tool calls are keyed by their `index`
 * (servers that leave it out are keyed by id, or by position); a call without an id gets a
 * generated one; the stop reason, usage and `done` come last, only when the stream ended with
 * `[DONE]` after a finish_reason (anything else is a cut stream, retried).
 */
export class StreamReader {
  sawDone = false;
  private finishReason: string | null | undefined;
  private completionId = '';
  private usage: UsageCounts | undefined;
  /** completion_tokens_details.reasoning_tokens: the part of the output the model spent reasoning. */
  private reasoningTokens: number | undefined;
  /** Calls by the back end's index: started (with a name) or waiting for one, with arguments so far. */
  private readonly calls = new Map<number, { started: boolean; id: string | undefined; name: string; pending: string }>();
  private readonly indexById = new Map<string, number>();
  private lastIndex = -1;

  constructor(
    private readonly model: string,
    private readonly logger: Logger,
  ) {}

  *add(chunk: ChatChunk): Generator<ModelChunk> {
    if (typeof chunk.id === 'string' && chunk.id) this.completionId ||= chunk.id;
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      this.usage = { inputTokens: Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached), cacheReadTokens: cached, cacheWriteTokens: 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
      const reasoning = chunk.usage.completion_tokens_details?.reasoning_tokens;
      this.reasoningTokens = typeof reasoning === 'number' ? reasoning : undefined;
    }
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    // Compatible servers (vLLM, DeepSeek, llama.cpp; Ollama and OpenRouter say `reasoning`) stream the
    // model's reasoning beside the content: shown as thinking, never sent back (it has no signature).
    const reasoning = reasoningOf(delta);
    if (reasoning) yield { type: 'thinking', text: reasoning };
    if (typeof delta.content === 'string' && delta.content.length > 0) yield { type: 'text', text: delta.content };
    for (const [position, call] of (delta.tool_calls ?? []).entries()) yield* this.addCall(call, position);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  private *addCall(call: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall, position: number): Generator<ModelChunk> {
    const id = typeof call.id === 'string' && call.id.length > 0 ? call.id : undefined;
    let index: number;
    if (typeof call.index === 'number') index = call.index;
    else if (id !== undefined) index = this.indexById.get(id) ?? Math.max(this.lastIndex + 1, this.calls.size, position);
    else index = this.lastIndex >= 0 ? this.lastIndex : position;
    if (id !== undefined) this.indexById.set(id, index);
    this.lastIndex = index;
    let state = this.calls.get(index);
    if (!state) {
      state = { started: false, id, name: '', pending: '' };
      this.calls.set(index, state);
    }
    if (!state.id && id) state.id = id;
    const name = call.function?.name;
    if (typeof name === 'string' && name.length > 0 && !state.started) state.name = name;
    const args = call.function?.arguments;
    if (typeof args === 'string') state.pending += args;
    if (!state.started && state.name) {
      state.started = true;
      yield { type: 'tool_call_start', index, id: state.id ?? this.generatedId(index), name: state.name };
    }
    if (state.started && state.pending) {
      yield { type: 'tool_call_delta', index, json: state.pending };
      state.pending = '';
    }
  }

  /** A stable id for a call the server sent without one (the history needs it to pair the result). */
  private generatedId(index: number): string {
    const seed = this.completionId || randomUUID();
    return `call_${createHash('sha256').update(`${seed}:${index}`).digest('hex').slice(0, 24)}`;
  }

  *finish(): Generator<ModelChunk> {
    if (!this.sawDone) throw new Error('the response stream ended without [DONE] (the reply is incomplete)');
    if (!this.finishReason) throw new Error('the response stream ended without a finish_reason (the reply is incomplete)');
    for (const [index, state] of this.calls) {
      if (!state.started) {
        // Arguments without a name: kept, under an empty name the session answers as an unknown tool.
        this.logger.warn(`${this.model} sent tool call ${index} without a function name`);
        yield { type: 'tool_call_start', index, id: state.id ?? this.generatedId(index), name: '' };
        if (state.pending) yield { type: 'tool_call_delta', index, json: state.pending };
      }
      yield { type: 'tool_call_end', index };
    }
    yield { type: 'stop', reason: this.stopReason(this.finishReason) };
    if (this.usage) yield { type: 'usage', usage: this.usage, ...(this.reasoningTokens !== undefined ? { thinkingTokens: this.reasoningTokens } : {}) };
    else this.logger.warn(`${this.model}: the server reported no usage (stream_options.include_usage ignored); the gauge estimates this request`);
    yield { type: 'done' };
  }

  private stopReason(reason: string): StopReason {
    const hasCalls = this.calls.size > 0;
    switch (reason) {
      case 'stop':
      case 'eos':
        // Some servers say `stop` for a reply that calls tools.
        return hasCalls ? 'tool_use' : 'end_turn';
      case 'tool_calls':
      case 'function_call':
        return 'tool_use';
      case 'length':
        return 'max_tokens';
      case 'content_filter':
        return 'refusal';
      default:
        this.logger.warn(`${this.model} ended its reply with an unknown finish_reason "${reason}"; treated as the end of the turn`);
        return hasCalls ? 'tool_use' : 'end_turn';
    }
  }
}

/** The reasoning text a compatible server put in a delta or message (`reasoning_content`, or `reasoning`), if any. */
export function reasoningOf(delta: object): string | undefined {
  const fields = delta as { reasoning_content?: unknown; reasoning?: unknown };
  const text = typeof fields.reasoning_content === 'string' ? fields.reasoning_content : fields.reasoning;
  return typeof text === 'string' && text.length > 0 ? text : undefined;
}

/** The `data:` payloads of an SSE body (events joined per the spec; comments and other fields ignored). */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const lines = function* (final: boolean): Generator<string> {
    const parts = buffer.split(/\r\n|\n|\r/);
    buffer = final ? '' : (parts.pop() ?? '');
    yield* parts;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const line of lines(done)) {
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
      if (done) break;
    }
    if (data.length > 0) yield data.join('\n');
  } finally {
    reader.releaseLock();
  }
}

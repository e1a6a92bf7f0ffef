/**
 * The back-end test matrix (issue 9): one scripting API over both strict fakes, so a suite is
 * written once and run against each provider:
 *
 *   for (const backend of BACKENDS) describe(`agent loop [${backend.name}]`, () => {
 *     let fake: FakeBackend;
 *     beforeEach(async () => (fake = await backend.start()));
 *     ...
 *     fake.enqueue(say.toolUse('read_file', { path: 'a.txt' }), say.text('Done.'));
 *     await startAgentSession({ config: fake.config(), ... });
 *     fake.requests().at(-1)!.messages; // what was sent, as neutral messages whatever the wire format
 *   });
 *
 * Requests are read back through a neutral view: Anthropic bodies are already neutral-shaped;
 * Chat Completions bodies are regrouped here (tool messages and the user text after them become one
 * user turn of tool_result blocks and text), independently of the back end's own converter, so the
 * converter is checked, not trusted.
 */
import type { AgentConfig } from '../../src/core/agent/factory';
import type { ProviderId } from '../../src/core/model/backend';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import { TOOL_ERROR_MARK } from '../../src/core/model/openaiConvert';
import * as anthropic from '../fake-anthropic/server';
import * as openai from '../fake-openai/server';

export interface ToolCallSpec {
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

/** How a streamed reply misbehaves; counted in the provider's own stream units (SSE events / chunks). */
export interface StreamSpec {
  /** Characters per text delta. */
  chunkChars?: number;
  /** Wait before each event (ms). */
  delayMs?: number;
  /** Drop the connection after this many events. */
  cutAfter?: number;
  /** After this many events, the provider's mid-stream failure (an overload / server error event). */
  errorAfter?: number;
}

export type NeutralReply =
  | { kind: 'message'; text: string; toolCalls: ToolCallSpec[]; stream?: StreamSpec }
  | { kind: 'error'; status: number; retryAfter?: number }
  | { kind: 'disconnect' };

/** Reply builders shared by every provider. */
export const say = {
  text(text: string, opts: { stream?: StreamSpec } = {}): NeutralReply {
    return { kind: 'message', text, toolCalls: [], ...opts };
  },
  toolUse(name: string, input: Record<string, unknown>, opts: { id?: string; preamble?: string; stream?: StreamSpec } = {}): NeutralReply {
    const { id, preamble, stream } = opts;
    return { kind: 'message', text: preamble ?? '', toolCalls: [id ? { name, input, id } : { name, input }], ...(stream ? { stream } : {}) };
  },
  toolUses(calls: ToolCallSpec[], opts: { preamble?: string } = {}): NeutralReply {
    return { kind: 'message', text: opts.preamble ?? '', toolCalls: calls };
  },
  /** An HTTP error with the provider's real body for `status`. */
  error(status: number, opts: { retryAfter?: number } = {}): NeutralReply {
    return { kind: 'error', status, ...opts };
  },
  disconnect(): NeutralReply {
    return { kind: 'disconnect' };
  },
};

/** One request the fake received, seen through the neutral view. */
export interface SentRequest {
  system: string;
  messages: MessageParam[];
  /** max_tokens / max_completion_tokens as sent. */
  maxTokens: number | undefined;
  /** The HTTP status answered (undefined while pending or for a dropped connection). */
  status: number | undefined;
  /** Cached prompt tokens the fake billed for this request (cache reads / prefix cache hits). */
  cachedTokens: number;
  /** The whole prompt as the fake counted it for an answered request (Anthropic: input + cache write + cache read). */
  promptTokens: number;
  /** The wire body, for provider-specific assertions. */
  raw: unknown;
}

export interface FakeBackend {
  name: ProviderId;
  url: string;
  apiKey: string;
  /** The model tests use on this provider. */
  model: string;
  /** The env variables the CLI reads for this provider. */
  keyEnv: string;
  baseUrlEnv: string;
  /** The status an overloaded server answers with (Anthropic 529, OpenAI-compatible 503). */
  overloadedStatus: number;
  /** What a retry after the provider's mid-stream failure event gives as its reason. */
  midStreamErrorReason: RegExp;
  enqueue(...replies: NeutralReply[]): void;
  /** Asked when the queue is empty. */
  setResponder(fn: ((request: SentRequest) => NeutralReply) | undefined): void;
  /** `window`: the most tokens a prompt may have on this model (the provider's own sense of it). */
  setModel(id: string, limits: { window: number; maxOutput: number }): void;
  /** Model requests (Messages / Chat Completions) only, in arrival order. */
  requests(): SentRequest[];
  /** Model requests the fake refused before any scripted reply: validation, auth, model, context length. */
  rejectedRequests(): SentRequest[];
  pendingReplies(): number;
  /** An AgentConfig that talks to this fake. */
  config(overrides?: Partial<AgentConfig>): AgentConfig;
  /** CLI flags and environment that talk to this fake. */
  cliArgs(): string[];
  cliEnv(): Record<string, string>;
  close(): Promise<void>;
}

export interface BackendFactory {
  name: ProviderId;
  start(): Promise<FakeBackend>;
}

const BASE_CONFIG = {
  maxOutputTokens: 4096,
  approvalPolicy: { writes: 'auto', shell: 'auto', shellAllowList: [] },
  trusted: true,
  ripgrepPath: undefined,
  retryBaseDelayMs: 1,
} as const satisfies Partial<AgentConfig>;

// ---------------------------------------------------------------------------------------------
// Anthropic

function toAnthropic(reply: NeutralReply): anthropic.ScriptedReply {
  switch (reply.kind) {
    case 'error':
      return anthropic.reply.error(reply.status, reply.retryAfter === undefined ? {} : { retryAfter: reply.retryAfter });
    case 'disconnect':
      return anthropic.reply.disconnect();
    case 'message': {
      const blocks: anthropic.ScriptedBlock[] = [];
      if (reply.text || reply.toolCalls.length === 0) blocks.push({ type: 'text', text: reply.text });
      for (const call of reply.toolCalls) blocks.push(call.id ? { type: 'tool_use', name: call.name, input: call.input, id: call.id } : { type: 'tool_use', name: call.name, input: call.input });
      const s = reply.stream;
      const stream: anthropic.StreamControls = {
        ...(s?.chunkChars !== undefined ? { textChunkChars: s.chunkChars } : {}),
        ...(s?.delayMs !== undefined ? { eventDelayMs: s.delayMs } : {}),
        ...(s?.cutAfter !== undefined ? { cutAfterEvents: s.cutAfter } : {}),
        ...(s?.errorAfter !== undefined ? { errorAfterEvents: { after: s.errorAfter, type: 'overloaded_error' } } : {}),
      };
      return anthropic.reply.message(blocks, s ? { stream } : {});
    }
  }
}

function textOf(system: unknown): string {
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) return system.map((block: { text?: unknown }) => (typeof block.text === 'string' ? block.text : '')).join('\n');
  return '';
}

function anthropicRequest(request: anthropic.RecordedRequest): SentRequest {
  const body = request.body as anthropic.MessagesRequestBody;
  const usage = request.reply?.usage;
  return {
    system: textOf(body.system),
    messages: structuredClone(body.messages) as MessageParam[],
    maxTokens: body.max_tokens,
    status: request.reply?.status || undefined,
    cachedTokens: usage?.cache_read_input_tokens ?? 0,
    promptTokens: usage ? usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) : 0,
    raw: body,
  };
}

const REFUSALS = new Set([400, 404, 413]);

async function startAnthropic(): Promise<FakeBackend> {
  const fake = await anthropic.startFakeAnthropic();
  const model = 'claude-sonnet-4-6';
  return {
    name: 'anthropic',
    url: fake.url,
    apiKey: fake.apiKey,
    model,
    keyEnv: 'ANTHROPIC_API_KEY',
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    overloadedStatus: 529,
    midStreamErrorReason: /overloaded/i,
    enqueue: (...replies) => fake.enqueue(...replies.map(toAnthropic)),
    setResponder: (fn) => fake.setResponder(fn ? (body) => toAnthropic(fn(anthropicRequest({ body } as anthropic.RecordedRequest))) : undefined),
    setModel: (id, limits) => fake.setModel(id, { max_input_tokens: limits.window, max_tokens: limits.maxOutput }),
    requests: () => fake.messageRequests().map(anthropicRequest),
    // The Anthropic fake refuses invalid requests (and prompts over the window) with 400, unknown models
    // with 404 and oversized bodies with 413; the suites script none of those statuses.
    rejectedRequests: () => fake.messageRequests().filter((request) => REFUSALS.has(request.reply?.status ?? 0)).map(anthropicRequest),
    pendingReplies: () => fake.pendingReplies(),
    config: (overrides = {}) => ({ ...BASE_CONFIG, provider: 'anthropic', apiKey: fake.apiKey, baseURL: fake.url, model, ...overrides }),
    cliArgs: () => ['--provider', 'anthropic'],
    cliEnv: () => ({ ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url }),
    close: () => fake.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible

function toOpenAI(reply: NeutralReply): openai.ScriptedReply {
  switch (reply.kind) {
    case 'error':
      return openai.reply.error(reply.status, reply.retryAfter === undefined ? {} : { retryAfter: reply.retryAfter });
    case 'disconnect':
      return openai.reply.disconnect();
    case 'message': {
      const s = reply.stream;
      const stream: openai.StreamControls = {
        ...(s?.chunkChars !== undefined ? { textChunkChars: s.chunkChars } : {}),
        ...(s?.delayMs !== undefined ? { chunkDelayMs: s.delayMs } : {}),
        ...(s?.cutAfter !== undefined ? { cutAfterChunks: s.cutAfter } : {}),
        ...(s?.errorAfter !== undefined ? { errorAfterChunks: { after: s.errorAfter, type: 'server_error' } } : {}),
      };
      const opts = s ? { stream } : {};
      if (reply.toolCalls.length === 0) return openai.reply.text(reply.text, opts);
      return openai.reply.toolCalls(
        reply.toolCalls.map((call) => (call.id ? { name: call.name, arguments: call.input, id: call.id } : { name: call.name, arguments: call.input })),
        { ...opts, ...(reply.text ? { preamble: reply.text } : {}) },
      );
    }
  }
}

type ChatMessage = openai.ChatRequestBody['messages'][number];

function chatText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
  return '';
}

/** A user message's parts as neutral blocks: text stays text, a data-URL image an image block (what the model was shown). */
function userBlocks(content: unknown): ContentBlockParam[] {
  if (!Array.isArray(content)) return [{ type: 'text', text: chatText(content) }];
  return content.map((part: { type?: string; text?: string; image_url?: { url?: string } }): ContentBlockParam => {
    const image = part.type === 'image_url' ? /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s.exec(part.image_url?.url ?? '') : null;
    if (image) return { type: 'image', source: { type: 'base64', media_type: image[1] as 'image/png', data: image[2]! } };
    return { type: 'text', text: part.type === 'text' ? (part.text ?? '') : `[${part.type ?? 'part'}]` };
  });
}

/** Chat Completions messages regrouped as neutral turns (see the module comment). */
export function neutralFromChat(messages: readonly ChatMessage[]): { system: string; messages: MessageParam[] } {
  let system = '';
  const out: MessageParam[] = [];
  // Tool results and the user text of the same turn collect here until the next assistant message.
  let pendingUser: ContentBlockParam[] | undefined;
  const flushUser = () => {
    if (pendingUser) out.push({ role: 'user', content: pendingUser });
    pendingUser = undefined;
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system += chatText(message.content);
        break;
      case 'tool': {
        const text = chatText(message.content);
        const isError = text.startsWith(TOOL_ERROR_MARK);
        (pendingUser ??= []).push({ type: 'tool_result', tool_use_id: message.tool_call_id, content: isError ? text.slice(TOOL_ERROR_MARK.length) : text, ...(isError ? { is_error: true } : {}) });
        break;
      }
      case 'user':
        (pendingUser ??= []).push(...userBlocks(message.content));
        break;
      case 'assistant': {
        flushUser();
        const blocks: ContentBlockParam[] = [];
        const text = chatText(message.content);
        if (text) blocks.push({ type: 'text', text });
        for (const call of message.tool_calls ?? []) {
          if (call.type !== 'function') continue;
          blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) as Record<string, unknown> });
        }
        out.push({ role: 'assistant', content: blocks });
        break;
      }
      default:
        throw new Error(`unexpected chat message role ${(message as { role: string }).role}`);
    }
  }
  flushUser();
  return { system, messages: out };
}

function openAIRequest(request: openai.RecordedRequest): SentRequest {
  const body = request.body as openai.ChatRequestBody;
  const { system, messages } = neutralFromChat(body.messages);
  return {
    system,
    messages,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    status: request.reply?.status || undefined,
    cachedTokens: request.reply?.usage?.prompt_tokens_details?.cached_tokens ?? 0,
    promptTokens: request.reply?.usage?.prompt_tokens ?? 0,
    raw: body,
  };
}

async function startOpenAI(): Promise<FakeBackend> {
  const fake = await openai.startFakeOpenAI();
  const model = 'gpt-4.1';
  return {
    name: 'openai',
    url: fake.url,
    apiKey: fake.apiKey,
    model,
    keyEnv: 'OPENAI_API_KEY',
    baseUrlEnv: 'OPENAI_BASE_URL',
    overloadedStatus: 503,
    midStreamErrorReason: /failed mid-reply/i,
    enqueue: (...replies) => fake.enqueue(...replies.map(toOpenAI)),
    setResponder: (fn) => fake.setResponder(fn ? (body) => toOpenAI(fn(openAIRequest({ body } as openai.RecordedRequest))) : undefined),
    setModel: (id, limits) => fake.setModel(id, { context_window: limits.window, max_output_tokens: limits.maxOutput }),
    requests: () => fake.completionRequests().map(openAIRequest),
    rejectedRequests: () => fake.rejectedRequests().map(openAIRequest),
    pendingReplies: () => fake.pendingReplies(),
    config: (overrides = {}) => ({ ...BASE_CONFIG, provider: 'openai', apiKey: fake.apiKey, baseURL: fake.url, model, ...overrides }),
    cliArgs: () => ['--provider', 'openai'],
    cliEnv: () => ({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url }),
    close: () => fake.close(),
  };
}

export const BACKENDS: readonly BackendFactory[] = [
  { name: 'anthropic', start: startAnthropic },
  { name: 'openai', start: startOpenAI },
];

/** The text blocks of a neutral message, joined (a string content counts as one block). */
export function textOfMessage(message: MessageParam | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/**
 * Shared rig for the context-engine tests (not a test file itself): a ContextEngine over a plain
 * array history, a stub summary model that records its requests, a transcript sink collecting
 * entries, a fake clock, and the API's request rules restated independently of the engine.
 */
import assert from 'node:assert/strict';
import { ContextEngine } from '../../src/core/context/engine';
import type { ContextEngineOptions, ContextEvent, EngineSnapshot, PreparedRequest, SummaryModel } from '../../src/core/context/engineTypes';
import type { ContextDefaults } from '../../src/core/context/defaults';
import { lineLogger } from '../../src/core/logger';
import type { ModelRequest, ModelResponse } from '../../src/core/model/backend';
import { ModelError } from '../../src/core/model/errors';
import type { ContentBlockParam, MessageParam, ToolParam } from '../../src/core/model/messages';
import type { UsageCounts } from '../../src/core/model/models';
import type { TranscriptEntry } from '../../src/core/storage/transcript';
import type { Workspace } from '../../src/core/workspace/workspace';

export const SYSTEM = 'You are Evergreen, a careful coding agent. Follow the user instructions and use the tools.';

const schema = (properties: Record<string, unknown>): ToolParam['input_schema'] => ({ type: 'object', properties });
export const TOOLS: ToolParam[] = [
  { name: 'read_file', description: 'Read a file.', input_schema: schema({ path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } }) },
  { name: 'grep_search', description: 'Search files.', input_schema: schema({ pattern: { type: 'string' }, path: { type: 'string' } }) },
  { name: 'list_files', description: 'List files.', input_schema: schema({ path: { type: 'string' } }) },
  { name: 'run_shell', description: 'Run a command.', input_schema: schema({ command: { type: 'string' } }) },
  { name: 'compact', description: 'Compact the conversation.', input_schema: schema({ focus: { type: 'string' } }) },
];

/** A summary reply: text (wrapped as one text block), an Error to throw, or a function of the request. */
export type Reply = string | Error | ((request: ModelRequest) => string | Error);

export const goodSummary = (n: number | string = 1): string =>
  `<analysis>Private reasoning ${n} that must never reach the history.</analysis>\n<summary>1. Primary request: summary body ${n}.\n8. Current work: step ${n}.</summary>`;

export function usage(promptTokens: number, outputTokens = 50, cacheReadTokens = 0): UsageCounts {
  return { inputTokens: Math.max(0, promptTokens - cacheReadTokens), outputTokens, cacheReadTokens, cacheWriteTokens: 0 };
}

export interface RigOptions {
  window: number;
  maxOutputTokens?: number;
  autoCompactPercent?: number;
  settings?: Partial<ContextDefaults>;
  toolResultsDir?: string;
  transcriptPath?: string;
  workspace?: Workspace;
  initial?: Partial<EngineSnapshot>;
  /** Replies used once the queue is empty (default: a good summary numbered by call). */
  fallbackReply?: Reply;
  system?: string;
  tools?: ToolParam[];
  startMs?: number;
}

export class Rig {
  readonly history: MessageParam[] = [];
  readonly entries: TranscriptEntry[] = [];
  readonly events: ContextEvent[] = [];
  readonly summaryRequests: ModelRequest[] = [];
  readonly replies: Reply[] = [];
  readonly logs: string[] = [];
  readonly system: string;
  readonly tools: ToolParam[];
  nowMs: number;
  engine: ContextEngine;
  private ids = 0;

  constructor(readonly options: RigOptions) {
    this.nowMs = options.startMs ?? Date.UTC(2025, 0, 1);
    this.system = options.system ?? SYSTEM;
    this.tools = options.tools ?? TOOLS;
    this.engine = new ContextEngine(this.engineOptions());
  }

  engineOptions(overrides: Partial<ContextEngineOptions> = {}): ContextEngineOptions {
    const model: SummaryModel = {
      stream: async (request: ModelRequest): Promise<ModelResponse> => {
        this.summaryRequests.push(structuredClone(request));
        const reply = this.replies.shift() ?? this.options.fallbackReply ?? goodSummary(this.summaryRequests.length);
        const value = typeof reply === 'function' ? reply(request) : reply;
        if (value instanceof Error) throw value;
        return {
          content: value === '' ? [] : [{ type: 'text', text: value }],
          stopReason: 'end_turn',
          usage: usage(1000, 200),
          costUsd: 0,
        };
      },
    };
    return {
      history: () => this.history,
      system: this.system,
      tools: this.tools,
      model,
      window: this.options.window,
      maxOutputTokens: this.options.maxOutputTokens ?? 16_000,
      ...(this.options.autoCompactPercent !== undefined ? { autoCompactPercent: this.options.autoCompactPercent } : {}),
      ...(this.options.settings ? { settings: this.options.settings } : {}),
      transcript: {
        append: (entry: TranscriptEntry) => this.entries.push(structuredClone(entry)),
        ...(this.options.toolResultsDir ? { toolResultsDir: this.options.toolResultsDir } : {}),
        ...(this.options.transcriptPath ? { transcriptPath: this.options.transcriptPath } : {}),
      },
      workspace: this.options.workspace,
      logger: lineLogger((line) => this.logs.push(line)),
      now: () => this.nowMs,
      emit: (event) => this.events.push(structuredClone(event)),
      ...(this.options.initial ? { initial: this.options.initial } : {}),
      ...overrides,
    };
  }

  get ts(): string {
    return new Date(this.nowMs).toISOString();
  }

  advance(ms: number): void {
    this.nowMs += ms;
  }

  push(message: MessageParam): void {
    this.history.push(message);
    this.entries.push({ type: 'message', ts: this.ts, message: structuredClone(message) });
  }

  nextId(prefix = 'toolu'): string {
    return `${prefix}_${String(++this.ids).padStart(4, '0')}`;
  }

  user(text: string): void {
    this.push({ role: 'user', content: [{ type: 'text', text }] });
  }

  assistant(text: string): void {
    this.push({ role: 'assistant', content: [{ type: 'text', text }] });
  }

  /** One assistant message with tool calls and the user message answering them; returns the ids. */
  round(calls: Array<{ name: string; input: Record<string, unknown>; result: string }>, text = 'Working on it.'): string[] {
    const ids = calls.map(() => this.nextId());
    this.push({ role: 'assistant', content: [{ type: 'text', text }, ...calls.map((call, i): ContentBlockParam => ({ type: 'tool_use', id: ids[i]!, name: call.name, input: call.input }))] });
    this.push({ role: 'user', content: calls.map((call, i): ContentBlockParam => ({ type: 'tool_result', tool_use_id: ids[i]!, content: call.result })) });
    return ids;
  }

  async prepare(): Promise<PreparedRequest> {
    return this.engine.prepareRequest(new AbortController().signal);
  }

  /** The API answered `prepared`, counting `promptTokens` (default: chars / 4, the engine's own ratio). */
  respond(prepared: PreparedRequest, promptTokens = Math.round(prepared.mark.liveChars / 4), outputTokens = 50, cacheReadTokens = 0): void {
    const counts = usage(promptTokens, outputTokens, cacheReadTokens);
    this.engine.onResponse(prepared, counts);
    this.entries.push({ type: 'usage', ts: this.ts, model: 'claude-test', usage: counts, costUsd: 0, request: prepared.mark });
  }

  eventsOf<T extends ContextEvent['type']>(type: T): Array<Extract<ContextEvent, { type: T }>> {
    return this.events.filter((event): event is Extract<ContextEvent, { type: T }> => event.type === type);
  }
}

/** A text of exactly `chars` characters spread over lines of about 80 characters. */
export function bulk(chars: number, seed = 'x'): string {
  const line = `${seed} `.repeat(40).slice(0, 79) + '\n';
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

export function textOf(message: MessageParam): string {
  return typeof message.content === 'string' ? message.content : message.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/**
 * The Messages API's rules for `messages`, restated independently of the engine: the first message
 * is a user message, every tool_use is answered by tool_result blocks at the start of the next
 * (user) message, no tool_result answers anything but the previous message's tool_use, tool_use
 * ids are unique, no text block is empty or whitespace, and the last message is a user message.
 */
export function assertApiValid(messages: readonly MessageParam[], where = 'request'): void {
  assert.ok(messages.length > 0, `${where}: no messages`);
  assert.equal(messages[0]!.role, 'user', `${where}: the first message must be a user message`);
  assert.equal(messages.at(-1)!.role, 'user', `${where}: the last message must be a user message`);
  const seen = new Set<string>();
  messages.forEach((message, index) => {
    const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    assert.ok(blocks.length > 0, `${where}: message ${index} is empty`);
    for (const block of blocks) {
      if (block.type === 'text') assert.ok(block.text.trim().length > 0, `${where}: empty text block in message ${index}`);
      if (block.type === 'tool_use') {
        assert.equal(message.role, 'assistant', `${where}: tool_use in a user message ${index}`);
        assert.ok(!seen.has(block.id), `${where}: duplicate tool_use id ${block.id}`);
        seen.add(block.id);
      }
      if (block.type === 'tool_result') assert.equal(message.role, 'user', `${where}: tool_result in an assistant message ${index}`);
    }
    if (message.role === 'assistant') {
      const ids = blocks.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
      if (ids.length === 0) return;
      const next = messages[index + 1];
      assert.ok(next && next.role === 'user', `${where}: tool_use in message ${index} is not followed by a user message`);
      const leading: string[] = [];
      for (const block of typeof next.content === 'string' ? [] : next.content) {
        if (block.type !== 'tool_result') break;
        leading.push(block.tool_use_id);
      }
      for (const id of ids) assert.ok(leading.includes(id), `${where}: tool_use ${id} (message ${index}) is not answered at the start of message ${index + 1}`);
    } else {
      const previous = messages[index - 1];
      const allowed = new Set(
        previous && previous.role === 'assistant' && typeof previous.content !== 'string' ? previous.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) : [],
      );
      for (const block of blocks) {
        if (block.type === 'tool_result') assert.ok(allowed.has(block.tool_use_id), `${where}: orphan tool_result ${block.tool_use_id} in message ${index}`);
      }
    }
  });
}

/** The API refusing a prompt as too long, with its count (what both back ends throw). */
export function tooLongError(promptTokens: number, maxTokens: number): ModelError {
  return new ModelError('prompt_too_long', `prompt is too long: ${promptTokens} tokens > ${maxTokens} maximum`, undefined, 400, {}, { promptTokens, maxTokens });
}

/** A turn of a random session (the property tests): its tool rounds, and the idle time before it. */
export interface RandomTurn<R extends RandomRound> {
  rounds: R[];
  idleMs: number;
}
export interface RandomRound {
  /** Tool calls in this round, each with its result size in characters. */
  results: number[];
  /** After this round's results, the user compacts by hand (between requests of the same turn). */
  compact: boolean;
}

/**
 * Drives one random session through the rig: per turn a user message and its rounds, each a request
 * (`onRequest` sees it), then a reply that opens with `lead`'s blocks and calls read_file once per
 * result, then the results; a compaction where a round asks. `check` sees every request, summary
 * requests included. Returns the tier edits and the compactions (by hand, and recorded) that ran.
 */
export async function driveRandomSession<R extends RandomRound>(
  rig: Rig,
  turns: readonly RandomTurn<R>[],
  options: {
    task: (turn: number) => string;
    check: (messages: readonly MessageParam[], where: string) => void;
    onRequest: (prepared: PreparedRequest, turn: number) => void;
    lead: (round: R, ids: readonly string[]) => ContentBlockParam[];
  },
): Promise<{ edits: number; compactions: number }> {
  let compactions = 0;
  for (const [t, turn] of turns.entries()) {
    rig.user(options.task(t));
    rig.advance(turn.idleMs);
    for (const round of turn.rounds) {
      const prepared = await rig.prepare();
      options.check(prepared.messages, `turn ${t}`);
      options.onRequest(prepared, t);
      rig.respond(prepared);
      const ids = round.results.map(() => rig.nextId());
      rig.push({ role: 'assistant', content: [...options.lead(round, ids), { type: 'text', text: `Calling ${ids.length} tool(s).` }, ...ids.map((id): ContentBlockParam => ({ type: 'tool_use', id, name: 'read_file', input: { path: `src/${id}.ts` } }))] });
      rig.push({ role: 'user', content: ids.map((id, i): ContentBlockParam => ({ type: 'tool_result', tool_use_id: id, content: bulk(round.results[i]!, id) })) });
      if (round.compact) {
        const outcome = await rig.engine.compact(undefined, 'manual', new AbortController().signal);
        if (outcome.ok) compactions++;
      }
    }
    const final = await rig.prepare();
    options.check(final.messages, `turn ${t} (last request)`);
    rig.respond(final);
    rig.assistant(`Turn ${t} done.`);
  }
  for (const request of rig.summaryRequests) options.check(request.messages, 'summary request');
  return {
    edits: rig.entries.filter((entry) => entry.type === 'tier_edit').length,
    compactions: compactions + rig.entries.filter((entry) => entry.type === 'compaction').length,
  };
}

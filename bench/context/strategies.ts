/**
 * The seeds' context strategies (bench/SEEDS.md) behind the session's `ContextStrategy` seam, plus
 * "no compression" and a recording wrapper around Evergreen's own engine. Each seed keeps its own
 * working list (SEEDS.md §0): new canonical messages are appended (as copies) and then edited in
 * place, exactly as the seed edits its list; summaries are real requests through the session's model.
 *
 * No seed sets cache_control; the "+rb" variants add one rolling breakpoint (after system and on the
 * newest message) to every request, and change nothing else.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContextStrategy } from '../../src/core/agent/session';
import { ContextEngine } from '../../src/core/context/engine';
import type { CompactionOutcome, ContextEngineOptions, PreparedRequest } from '../../src/core/context/engineTypes';
import { contextGauge, type ContextGauge } from '../../src/core/context/gauge';
import { promptTokensFromUsage } from '../../src/core/model/usage';
import type { ContentBlockParam, MessageParam } from '../../src/core/model/messages';
import { blocksOf, messageChars } from '../../src/core/model/content';
import type { UsageCounts } from '../../src/core/model/models';
import { verbatim } from '../../src/core/texts/userText';

type ToolResult = Extract<ContentBlockParam, { type: 'tool_result' }>;

export interface SeedOptions {
  /** One rolling cache breakpoint per request (system + newest message). */
  rolling: boolean;
  /** Where the seed writes its transcripts / large outputs (outside the workspace, so list_files does not see them). */
  dir: string;
}

/** Every tool_result block of user messages, oldest first. */
function toolResults(msgs: readonly MessageParam[]): ToolResult[] {
  const out: ToolResult[] = [];
  for (const message of msgs) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const block of message.content) if (block.type === 'tool_result') out.push(block);
  }
  return out;
}

function toolUseMap(msgs: readonly MessageParam[]): Map<string, { name: string; input: unknown }> {
  const map = new Map<string, { name: string; input: unknown }>();
  for (const message of msgs) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) if (block.type === 'tool_use') map.set(block.id, { name: block.name, input: block.input });
  }
  return map;
}

abstract class SeedStrategy implements ContextStrategy {
  protected msgs: MessageParam[] = [];
  private seen = 0;
  protected lastUsage: UsageCounts | undefined;
  protected lastApiCallTime: number | undefined;
  protected readonly now: () => number;

  constructor(
    protected readonly o: ContextEngineOptions,
    protected readonly seed: SeedOptions,
  ) {
    this.now = o.now ?? Date.now;
    fs.mkdirSync(seed.dir, { recursive: true });
  }

  /** New canonical messages join the working list as copies (the seed edits its list in place). */
  protected sync(): void {
    const canonical = this.o.history();
    for (; this.seen < canonical.length; this.seen++) this.msgs.push(structuredClone(canonical[this.seen]!));
  }

  protected abstract transform(signal: AbortSignal): Promise<void>;
  protected abstract estimate(): number;
  protected mainMaxTokens(): number {
    return this.o.maxOutputTokens;
  }

  protected cacheHints(length: number): PreparedRequest['cache'] {
    return this.seed.rolling && length > 0 ? { system: true, messageIndexes: [length - 1] } : { system: false, messageIndexes: [] };
  }

  async prepareRequest(signal: AbortSignal): Promise<PreparedRequest> {
    this.sync();
    await this.transform(signal);
    const messages = this.msgs.slice();
    const liveChars = messages.reduce((sum, message) => sum + messageChars(message), 0);
    return {
      messages,
      cache: this.cacheHints(messages.length),
      maxTokens: this.mainMaxTokens(),
      mark: { canonicalCount: this.o.history().length, liveCount: messages.length, liveChars },
      estimatedTokens: this.estimate(),
    };
  }

  onResponse(_prepared: PreparedRequest, usage: UsageCounts): void {
    this.lastUsage = usage;
    this.lastApiCallTime = this.now();
  }

  async onToolResult(input: { toolUseId: string; toolName: string; content: string }): Promise<string> {
    return input.content;
  }

  /** No seed has a reactive path: "prompt is too long" ends the turn. */
  async recoverFromTooLong(): Promise<boolean> {
    return false;
  }

  protected abstract compactNow(signal: AbortSignal): Promise<void>;

  async compact(_focus: string | undefined, _trigger: unknown, signal: AbortSignal): Promise<CompactionOutcome> {
    this.sync();
    await this.compactNow(signal);
    return { ok: true, message: verbatim('compacted') };
  }

  requestCompactFromTool(): string {
    return 'This strategy has no compact tool.';
  }

  gauge(messages: readonly MessageParam[] = this.msgs): ContextGauge {
    const used = messages.reduce((sum, message) => sum + Math.ceil(messageChars(message) / 4), 0);
    return contextGauge({ window: this.o.window, outputReserve: this.o.maxOutputTokens, usedTokens: used, autoCompactThreshold: this.o.window, cacheReadShare: 0, sessionCostUsd: 0 });
  }

  liveView(): MessageParam[] {
    return this.msgs.slice();
  }

  /** A real summarizer request through the session's model; returns content[0].text like the seeds. */
  protected async summarizer(system: string, messages: MessageParam[], maxTokens: number, withTools: boolean, signal: AbortSignal): Promise<string> {
    const response = await this.o.model.stream(
      { system, tools: withTools ? [...this.o.tools] : [], messages, maxTokens, cache: this.cacheHints(messages.length) },
      {},
      signal,
    );
    this.o.onModelUsage?.(response.usage, response);
    const first = response.content[0];
    return first?.type === 'text' ? first.text : '';
  }
}

// ---- no compression -------------------------------------------------------------------------

export class NoCompression extends SeedStrategy {
  protected async transform(): Promise<void> {}
  protected estimate(): number {
    return Math.ceil(this.msgs.reduce((sum, message) => sum + messageChars(message), 0) / 4);
  }
  protected async compactNow(): Promise<void> {}
}

// ---- seed 000: v5, three layers --------------------------------------------------------------

const V5_COMPACTABLE = new Set(['run_shell', 'read_file', 'grep_search', 'list_files']);

export class SeedV5 extends SeedStrategy {
  /** 0.853 x max_context_tokens (200,000, the constructor default, whatever the model's window). */
  private readonly threshold = 0.853 * 200_000;

  protected override mainMaxTokens(): number {
    return 8000;
  }

  override async onToolResult(input: { toolUseId: string; toolName: string; content: string }): Promise<string> {
    const est = Math.floor(input.content.length / 4);
    if (est <= 40_000) return input.content;
    const file = path.join(this.seed.dir, `output_${Math.floor(this.now() / 1000)}.txt`);
    fs.writeFileSync(file, input.content);
    return `Output too large (${est} tokens). Saved to: ${file}\n\nPreview:\n${input.content.slice(0, 2000)}...`;
  }

  protected estimate(): number {
    return this.msgs.reduce((sum, message) => sum + Math.floor(JSON.stringify(message).length / 4), 0);
  }

  protected async transform(signal: AbortSignal): Promise<void> {
    const names = toolUseMap(this.msgs);
    const results = toolResults(this.msgs).filter((r) => V5_COMPACTABLE.has(names.get(r.tool_use_id)?.name ?? ''));
    for (const r of results.slice(0, -3)) {
      if (typeof r.content === 'string' && Math.floor(r.content.length / 4) > 1000) r.content = '[Output compacted - re-read if needed]';
    }
    if (this.estimate() > this.threshold) await this.compactNow(signal);
  }

  protected async compactNow(signal: AbortSignal): Promise<void> {
    fs.appendFileSync(path.join(this.seed.dir, 'transcript.jsonl'), this.msgs.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const lines: string[] = [];
    for (const message of this.msgs) {
      if (typeof message.content === 'string') {
        lines.push(`[${message.role}] ${message.content.slice(0, 500)}`);
        continue;
      }
      for (const block of message.content) {
        if (block.type === 'text') lines.push(`[${message.role}] ${block.text.slice(0, 500)}`);
        else if (block.type === 'tool_result') lines.push(`[tool_result] ${typeof block.content === 'string' ? block.content : JSON.stringify(block.content)}`.slice(0, '[tool_result] '.length + 200));
      }
    }
    const text = lines.join('\n');
    const summary = await this.summarizer(
      'You are a conversation summarizer. Be concise but thorough.',
      [{ role: 'user', content: 'Summarize this conversation chronologically. Include: goals, actions taken, decisions made, current state, and pending work.\n\n' + text.slice(0, 100_000) }],
      2000,
      false,
      signal,
    );
    const recent = this.msgs.length > 5 ? this.msgs.slice(-5) : this.msgs.slice(-2);
    this.msgs = [
      { role: 'user', content: `[Conversation compressed]\n\n${summary}` },
      { role: 'assistant', content: 'Understood. I have the context. Continuing.' },
      ...recent,
    ];
  }
}

// ---- seed 001: the 4-tier pipeline ---------------------------------------------------------------

const SNIPPABLE = new Set(['read_file', 'grep_search', 'list_files', 'run_shell']);
const SNIPPED = '[Content snipped - re-read if needed]';
const CLEARED = '[Old result cleared]';

export class SeedFourTier extends SeedStrategy {
  private lastInputTokenCount = 0;
  private readonly effectiveWindow = this.o.window - 20_000;
  /** SEEDS.md: the seed's summarizer call passes no tools; the API refuses tool blocks without tools, so tools are passed (see RESULTS.md). */
  static summaryWithTools = true;

  override onResponse(prepared: PreparedRequest, usage: UsageCounts): void {
    super.onResponse(prepared, usage);
    this.lastInputTokenCount = usage.inputTokens;
  }

  protected estimate(): number {
    return this.lastInputTokenCount;
  }

  override async onToolResult(input: { toolUseId: string; toolName: string; content: string }): Promise<string> {
    let content = input.content;
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > 30 * 1024) {
      const dir = this.o.transcript?.toolResultsDir ?? this.seed.dir;
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${this.now()}-${input.toolName}.txt`);
      fs.writeFileSync(file, content);
      const lines = content.split('\n');
      content = `[Result too large (${(bytes / 1024).toFixed(1)} KB, ${lines.length} lines). Full output saved to ${file}. You can use read_file to see the full result.]\n\nPreview (first 200 lines):\n${lines.slice(0, 200).join('\n')}`;
    }
    if (content.length > 50_000) {
      const keep = Math.floor((50_000 - 60) / 2);
      content = content.slice(0, keep) + `\n\n[... truncated ${content.length - 2 * keep} chars ...]\n\n` + content.slice(-keep);
    }
    return content;
  }

  protected async transform(signal: AbortSignal): Promise<void> {
    const last = this.msgs.at(-1);
    const turnStart = last !== undefined && last.role === 'user' && !blocksOf(last).some((block) => block.type === 'tool_result');
    if (turnStart && this.lastInputTokenCount > this.effectiveWindow * 0.85 && this.msgs.length >= 4) await this.compactNow(signal);
    const util = this.lastInputTokenCount / this.effectiveWindow;
    // Tier 1, budget: every string tool_result, the newest included.
    if (util >= 0.5) {
      const budget = util > 0.7 ? 15_000 : 30_000;
      for (const r of toolResults(this.msgs)) {
        if (typeof r.content === 'string' && r.content.length > budget) {
          const k = Math.floor((budget - 80) / 2);
          r.content = r.content.slice(0, k) + `\n\n[... budgeted: ${r.content.length - 2 * k} chars truncated ...]\n\n` + r.content.slice(-k);
        }
      }
    }
    // Tier 2, snip (literal rules): older reads of the same file; per search kind the newest 3; the newest 3 results always kept.
    if (util >= 0.6) {
      const uses = toolUseMap(this.msgs);
      const results = toolResults(this.msgs);
      const protectedIds = new Set(results.slice(-3).map((r) => r.tool_use_id));
      const newestReadOf = new Map<string, string>();
      const perKind = new Map<string, ToolResult[]>();
      for (const r of results) {
        const use = uses.get(r.tool_use_id);
        if (!use || !SNIPPABLE.has(use.name)) continue;
        if (use.name === 'read_file') newestReadOf.set(String((use.input as { path?: unknown }).path), r.tool_use_id);
        else perKind.set(use.name, [...(perKind.get(use.name) ?? []), r]);
      }
      const snip = (r: ToolResult) => {
        if (!protectedIds.has(r.tool_use_id) && r.content !== SNIPPED) r.content = SNIPPED;
      };
      for (const r of results) {
        const use = uses.get(r.tool_use_id);
        if (use?.name === 'read_file' && newestReadOf.get(String((use.input as { path?: unknown }).path)) !== r.tool_use_id) snip(r);
      }
      for (const list of perKind.values()) for (const r of list.slice(0, -3)) snip(r);
    }
    // Tier 3, micro-compact after 5 minutes idle: every string result but the newest 3.
    if (this.lastApiCallTime !== undefined && this.now() - this.lastApiCallTime >= 300_000) {
      for (const r of toolResults(this.msgs).slice(0, -3)) {
        if (typeof r.content === 'string' && r.content !== CLEARED && r.content !== SNIPPED) r.content = CLEARED;
      }
    }
  }

  protected async compactNow(signal: AbortSignal): Promise<void> {
    const last = this.msgs[this.msgs.length - 1]!;
    const summary = await this.summarizer(
      'You are a conversation summarizer. Be concise but preserve important details.',
      [
        ...this.msgs.slice(0, -1),
        { role: 'user', content: 'Summarize the conversation so far in a concise paragraph, preserving key decisions, file paths, and context needed to continue the work.' },
      ],
      2048,
      SeedFourTier.summaryWithTools,
      signal,
    );
    this.msgs = [
      { role: 'user', content: `[Previous conversation summary]\n${summary || 'No summary available.'}` },
      { role: 'assistant', content: 'Understood. I have the context from our previous conversation. How can I continue helping?' },
    ];
    if (last.role === 'user') this.msgs.push(last);
    this.lastInputTokenCount = 0;
  }
}

// ---- seeds 002/003: s06 (micro every call, summary above a fixed 50,000 tokens) ------------------

export class SeedS06 extends SeedStrategy {
  private readonly threshold = 50_000;

  protected override mainMaxTokens(): number {
    return 8000;
  }

  protected estimate(): number {
    return Math.floor(JSON.stringify(this.msgs).length / 4);
  }

  protected async transform(signal: AbortSignal): Promise<void> {
    const names = toolUseMap(this.msgs);
    const results = toolResults(this.msgs);
    if (results.length > 3) {
      for (const r of results.slice(0, -3)) {
        if (typeof r.content === 'string' && r.content.length > 100) r.content = `[Previous: used ${names.get(r.tool_use_id)?.name ?? 'unknown'}]`;
      }
    }
    if (this.estimate() > this.threshold) await this.compactNow(signal);
  }

  protected async compactNow(signal: AbortSignal): Promise<void> {
    const file = path.join(this.seed.dir, `transcript_${Math.floor(this.now() / 1000)}.jsonl`);
    fs.writeFileSync(file, this.msgs.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const text = JSON.stringify(this.msgs).slice(0, 80_000);
    const summary = await this.summarizer(
      // The seed sends no system prompt; the session's model client always sends a system block, so it holds one character.
      '.',
      [{ role: 'user', content: 'Summarize this conversation for continuity. Include: 1) What was accomplished, 2) Current state, 3) Key decisions made. Be concise but preserve critical details.\n\n' + text }],
      2000,
      false,
      signal,
    );
    this.msgs = [
      { role: 'user', content: `[Conversation compressed. Transcript: ${file}]\n\n${summary}` },
      { role: 'assistant', content: 'Understood. I have the context from the summary. Continuing.' },
    ];
  }
}

// ---- Evergreen: the default engine, with its estimates recorded --------------------------------------

export interface EstimateSample {
  estimated: number;
  counted: number;
}

export function recordingEngine(options: ContextEngineOptions, samples: EstimateSample[]): ContextStrategy {
  const engine = new ContextEngine(options);
  return {
    prepareRequest: (signal) => engine.prepareRequest(signal),
    onResponse: (prepared, usage) => {
      samples.push({ estimated: prepared.estimatedTokens, counted: promptTokensFromUsage(usage) });
      engine.onResponse(prepared, usage);
    },
    onToolResult: (input) => engine.onToolResult(input),
    recoverFromTooLong: (prepared, attempt, error, signal) => engine.recoverFromTooLong(prepared, attempt, error, signal),
    compact: (focus, trigger, signal) => engine.compact(focus, trigger, signal),
    requestCompactFromTool: (focus) => engine.requestCompactFromTool(focus),
    gauge: (messages) => engine.gauge(messages),
    liveView: () => engine.liveView(),
  };
}

export type StrategyId = 'none' | 's06' | 'v5' | 'fourTier' | 'evergreen';

export const STRATEGY_LABELS: Record<StrategyId, string> = {
  none: 'no compression',
  s06: '3-layer (002/003)',
  v5: 'v5 (000)',
  fourTier: '4-tier (001)',
  evergreen: 'Evergreen',
};

export function makeStrategy(id: Exclude<StrategyId, 'evergreen'>, options: ContextEngineOptions, seed: SeedOptions): ContextStrategy {
  switch (id) {
    case 'none':
      return new NoCompression(options, seed);
    case 's06':
      return new SeedS06(options, seed);
    case 'v5':
      return new SeedV5(options, seed);
    case 'fourTier':
      return new SeedFourTier(options, seed);
  }
}

/**
 * The context engine (docs/architecture.md, "Context engine", "Life of a request"). The session appends to the canonical history; before
 * every API call the engine computes the live view to send: tier edits and compaction boundaries
 * applied, cache breakpoints placed. Every decision is written to the transcript *before* it takes
 * effect, so `foldTranscript` rebuilds the same view. It never edits the canonical history.
 *
 * Cache economics (the rule behind tiers 1-3, numbers in `defaults.ts`): an edit to an old tool
 * result rewrites the prompt cache from that block on. With cache write 1.25 and read 0.1 (of the
 * input price), applying edits that free S tokens at a point with T cached tokens after it costs
 * about 1.15·T − 1.25·S once, and every request they wait costs 0.1·S in reads of what they would
 * free. Edits are applied when the cache is cold anyway (idle past the TTL), when the context is
 * over the auto-compact threshold, or once those waiting reads add up to the rewrite's cost (the
 * ski-rental rule) — so the middle of the prompt changes rarely (the seeds' flaw was changing it
 * on every call) and each change has paid for itself.
 */
import { errorActionsFor, type ErrorAction } from '../agent/errors';
import { randomUUID } from 'node:crypto';
import type { ModelRequest, ModelResponse, StreamHandlers } from '../model/backend';
import { ModelError } from '../model/errors';
import type { ContentBlockParam, MessageParam, ToolParam } from '../model/messages';
import { blocksOf, messageChars, toolResultText, toolUsesOf, type ToolResultBlock } from '../model/content';
import type { RequestCost } from '../model/cost';
import type { UsageCounts } from '../model/models';
import { errorMessage, type Logger } from '../logger';
import type { CompactionRecord, CompactionTrigger, RequestMark, RestoredFile, ToolResultEdit, TranscriptEntry } from '../storage/transcript';
import { openForRead, type Workspace } from '../tools/workspace';
import { latestTodos } from '../tools/todos';
import { contextBreakdownChars, scaleBreakdown } from './breakdown';
import { anchorAfter, COMPACTION_FAILED_EVENT, compactionEvent, TOKEN_ANCHOR_EVENT } from './fold';
import { serverWindowOf, windowLearnedMessage, WINDOW_LEARNED_EVENT } from './learnedWindow';
import { CONTEXT_DEFAULTS, persistThresholdFor, type ContextDefaults } from './defaults';
import { contextBudget, contextGauge, promptTokensFromUsage, cacheReadShare, type ContextBudget, type ContextGauge } from './gauge';
import type { CompactionPreview, UndoOutcome, UndoPoint } from './compactionPreview';
import { buildLiveView, isCleanStart, type LiveState } from './liveView';
import { previewTierSavings, type TierSavings } from './tierSavings';
import { extractSummary, summaryInstruction, SUMMARY_MARK } from './summary';
import { applyTier0, persistNote, type SavedOutput, type Tier0Settings } from './tier0';
import { headTail } from './text';
import { collectToolResults, planTierEdits, type PlannedEdit, type TierName, type ToolResultRef } from './tiers';

/** The part of the model client the engine needs: one streamed request (summaries). */
export interface SummaryModel {
  stream(request: ModelRequest, handlers?: StreamHandlers, signal?: AbortSignal): Promise<ModelResponse>;
  /** The API's own count (free): after a compaction the estimate is re-anchored on it. */
  countTokens?(request: Omit<ModelRequest, 'maxTokens'>, signal?: AbortSignal): Promise<number>;
}

/** Where the engine writes its decisions (the session's transcript). */
export interface TranscriptSink {
  append(entry: TranscriptEntry): void;
  readonly toolResultsDir?: string;
  readonly transcriptPath?: string;
}

export type ContextEvent =
  | { type: 'context'; gauge: ContextGauge }
  /** `savedOutput`: a persisted result's file (its full path), as data, so a front end can link to it rather than print the path. */
  | { type: 'tier'; tier: 'persist' | 'truncate' | TierName; items: number; tokensBefore: number; tokensAfter: number; detail: string; savedOutput?: SavedOutput }
  | {
      type: 'compaction';
      /** The boundary's id (the transcript's compaction entry; what an undo names). */
      compactionId: string;
      trigger: CompactionTrigger;
      focus?: string;
      tokensBefore: number;
      tokensAfter: number;
      messagesSummarized: number;
      messagesKept: number;
      summary: string | undefined;
      restoredFiles: string[];
    }
  /** "Undo Last Compaction": the live view is the one before compaction `compactionId` again. */
  | { type: 'compaction_undone'; compactionId: string; tokensBefore: number; tokensAfter: number }
  | { type: 'compaction_failed'; trigger: CompactionTrigger; message: string; consecutiveFailures: number; breakerOpen: boolean; hint: string; actions: ErrorAction[] }
  /** The server refused a prompt and named a window smaller than the one assumed: the engine now compacts for it (`message` is the user's notice). */
  | { type: 'context_window_learned'; window: number; assumed: number; message: string };

/** What the session sends: the live view plus where the cache breakpoints go. */
export interface PreparedRequest {
  messages: MessageParam[];
  cache: { system: boolean; messageIndexes: number[] };
  maxTokens: number;
  mark: RequestMark;
  /** Estimated prompt tokens of this request. */
  estimatedTokens: number;
}

export interface EngineSnapshot {
  live: LiveState;
  lastRequest: { mark: RequestMark; promptTokens: number; atMs: number } | undefined;
  consecutiveFailures: number;
  /** Cache reads already paid on what pending tier edits would free (see the header comment). */
  pendingWaste?: number;
  /** The newest compaction, while it can still be undone. */
  undoable?: UndoPoint | undefined;
  /** A window the server proved smaller than the configured one (learned from a refusal). */
  window?: number | undefined;
}

export interface ContextEngineOptions {
  /** The session's canonical history (append-only; the engine only reads it). */
  history: () => readonly MessageParam[];
  system: string;
  tools: readonly ToolParam[];
  model: SummaryModel;
  window: number;
  maxOutputTokens: number;
  autoCompactPercent?: number | undefined;
  settings?: Partial<ContextDefaults>;
  transcript?: TranscriptSink | undefined;
  workspace?: Workspace | undefined;
  logger: Logger;
  now?: () => number;
  emit: (event: ContextEvent) => void;
  /** Usage of the engine's own requests (summaries), so totals and cost include them. */
  onModelUsage?: (usage: UsageCounts, cost: RequestCost) => void;
  /** Session cost so far, for the gauge. */
  sessionCostUsd?: () => number;
  /** The part of it the session's subagents spent. */
  subagentCostUsd?: () => number;
  /** Requests so far whose model had no known price (the gauge says the cost is unknown). */
  unpricedRequests?: () => number;
  /** State rebuilt by foldTranscript for a resumed session. */
  initial?: EngineSnapshot | undefined;
}

export interface CompactionOutcome {
  ok: boolean;
  message: string;
  record?: CompactionRecord;
}

export class ContextWindowTooSmallError extends Error {
  override name = 'ContextWindowTooSmallError';
}

/** A consecutive-failure count at or above this stops automatic compaction until one succeeds. */
export class ContextEngine {
  /** The window split; shrinks when the server proves a smaller window (learnWindow), never grows. */
  private currentBudget: ContextBudget;
  private readonly settings: ContextDefaults;
  private readonly now: () => number;
  private live: LiveState;
  private lastRequest: EngineSnapshot['lastRequest'];
  private consecutiveFailures: number;
  private undoable: UndoPoint | undefined;
  private pendingToolCompact: { focus: string | undefined } | undefined;
  private requestsSinceCompaction = Number.POSITIVE_INFINITY;
  private pendingWaste: number;
  private tier0: Tier0Settings;
  private readonly baseChars: number;
  private readonly charCache = new WeakMap<MessageParam, number>();
  private lastCacheRead = 0;
  /** The newest gauge, the base of the cheap estimates while a reply streams. */
  private lastGauge: ContextGauge | undefined;

  constructor(private readonly options: ContextEngineOptions) {
    this.settings = { ...CONTEXT_DEFAULTS, ...options.settings };
    this.now = options.now ?? Date.now;
    const learned = options.initial?.window;
    const window = learned !== undefined && learned > 0 && learned < options.window ? learned : options.window;
    this.currentBudget = contextBudget(window, options.maxOutputTokens, options.autoCompactPercent);
    this.live = options.initial?.live ?? { boundary: undefined, edits: new Map() };
    this.lastRequest = options.initial?.lastRequest;
    this.consecutiveFailures = options.initial?.consecutiveFailures ?? 0;
    this.undoable = options.initial?.undoable;
    this.pendingWaste = options.initial?.pendingWaste ?? 0;
    this.tier0 = this.tier0For(window);
    this.baseChars = options.system.length + JSON.stringify(options.tools).length;
  }

  get budget(): ContextBudget {
    return this.currentBudget;
  }

  private tier0For(window: number): Tier0Settings {
    // Small windows: a result that could not be persisted is cut to at most a fifth of the window.
    const truncateChars = Math.min(this.settings.truncateChars, Math.floor(window * 0.2 * this.settings.charsPerToken));
    return { ...this.settings, persistThresholdBytes: persistThresholdFor(window, this.settings), truncateChars };
  }

  /**
   * The server proved its window is `window` tokens (its "prompt is too long" named it): when that
   * is smaller than the current one, the budget shrinks to it — recorded first, so a fold (resume)
   * gives the same budget — and the user is told once. A refusal never grows the window. True when
   * the budget changed.
   */
  learnWindow(window: number): boolean {
    const assumed = this.currentBudget.window;
    if (!Number.isFinite(window) || window <= 0 || Math.floor(window) >= assumed) return false;
    const learned = Math.floor(window);
    this.record({ type: 'event', ts: new Date(this.now()).toISOString(), name: WINDOW_LEARNED_EVENT, data: { window: learned, assumed } });
    this.currentBudget = contextBudget(learned, this.options.maxOutputTokens, this.options.autoCompactPercent);
    this.tier0 = this.tier0For(learned);
    const message = windowLearnedMessage(learned, assumed);
    this.options.logger.warn(`${message} (budget: ${this.currentBudget.outputReserve} reserved for the reply, auto-compact at ${this.currentBudget.threshold})`);
    this.emit({ type: 'context_window_learned', window: learned, assumed, message });
    this.emit({ type: 'context', gauge: this.gauge() });
    return true;
  }

  get snapshot(): EngineSnapshot {
    return {
      live: { boundary: this.live.boundary, edits: new Map(this.live.edits) },
      lastRequest: this.lastRequest,
      consecutiveFailures: this.consecutiveFailures,
      pendingWaste: this.pendingWaste,
      undoable: this.undoable,
      ...(this.currentBudget.window < this.options.window ? { window: this.currentBudget.window } : {}),
    };
  }

  get breakerOpen(): boolean {
    return this.consecutiveFailures >= this.settings.circuitBreakerFailures;
  }

  /** The live view as it would be sent now (no tiers applied). */
  liveView(): MessageParam[] {
    return buildLiveView(this.options.history(), this.live, this.options.transcript?.transcriptPath);
  }

  // ---- token accounting -----------------------------------------------------------------------

  private charsOf(message: MessageParam): number {
    let chars = this.charCache.get(message);
    if (chars === undefined) {
      chars = messageChars(message);
      this.charCache.set(message, chars);
    }
    return chars;
  }

  private liveChars(messages: readonly MessageParam[]): number {
    let chars = this.baseChars;
    for (const message of messages) chars += this.charsOf(message);
    return chars;
  }

  /** Tokens per character, calibrated on the last request the API counted. */
  private get tokensPerChar(): number {
    const last = this.lastRequest;
    if (!last || last.mark.liveChars <= 0 || last.promptTokens <= 0) return 1 / this.settings.charsPerToken;
    return last.promptTokens / last.mark.liveChars;
  }

  /** used = the last request's counted prompt tokens + an estimate of what changed since. */
  estimateTokens(messages: readonly MessageParam[]): number {
    const chars = this.liveChars(messages);
    const last = this.lastRequest;
    if (!last) return Math.ceil(chars / this.settings.charsPerToken);
    return Math.max(0, Math.round(last.promptTokens + (chars - last.mark.liveChars) * this.tokensPerChar));
  }

  gauge(messages: readonly MessageParam[] = this.liveView(), usedTokens: number = this.estimateTokens(messages), estimated = true): ContextGauge {
    const chars = contextBreakdownChars(this.options.system, this.options.tools, messages);
    const gauge = contextGauge({
      window: this.budget.window,
      outputReserve: this.budget.outputReserve,
      usedTokens,
      autoCompactThreshold: this.budget.threshold,
      cacheReadShare: this.lastCacheRead,
      sessionCostUsd: this.options.sessionCostUsd?.() ?? 0,
      ...(this.options.subagentCostUsd ? { subagentCostUsd: this.options.subagentCostUsd() } : {}),
      ...this.unpriced(),
      breakdown: scaleBreakdown(chars, usedTokens),
      estimated,
    });
    this.lastGauge = gauge;
    return gauge;
  }

  /**
   * The gauge while a reply streams: the last gauge plus `chars` streamed so far, at the calibrated
   * ratio. Cheap (no walk over the history), so the session may call it a few times a second.
   */
  estimateWithPending(chars: number): ContextGauge {
    const base = this.lastGauge ?? this.gauge();
    const pending = Math.max(0, Math.round(chars * this.tokensPerChar));
    const breakdown = base.breakdown ? { ...base.breakdown, messages: base.breakdown.messages + pending, total: base.breakdown.total + pending } : undefined;
    const subagents = this.options.subagentCostUsd ? { subagentCostUsd: this.options.subagentCostUsd() } : {};
    return contextGauge({ ...base, usedTokens: base.usedTokens + pending, ...(breakdown ? { breakdown } : {}), sessionCostUsd: this.options.sessionCostUsd?.() ?? base.sessionCostUsd, ...subagents, ...this.unpriced(), estimated: true });
  }

  /** The gauge's count of unpriced requests, present only when there are some. */
  private unpriced(): { unpricedRequests?: number } {
    const count = this.options.unpricedRequests?.() ?? 0;
    return count > 0 ? { unpricedRequests: count } : {};
  }

  /**
   * What tiers 1-3 and a summary would free if they ran now (the breakdown document). Read-only:
   * nothing is recorded or applied.
   */
  tierSavings(): TierSavings {
    const canonical = this.options.history();
    const keptFrom = this.live.boundary ? Math.min(this.live.boundary.keptFrom, canonical.length) : 0;
    const messages = this.liveView();
    const used = this.estimateTokens(messages);
    const cacheCold = this.lastRequest !== undefined && this.now() - this.lastRequest.atMs > this.settings.cacheTtlMs;
    const refs = collectToolResults(canonical, keptFrom, this.live.edits);
    const tiers = previewTierSavings(refs, used / Math.max(1, this.budget.effective), cacheCold, this.settings, (ref) => this.originalText(ref), this.tokensPerChar);
    return { usedTokens: used, tiers, summary: this.summarySavings(canonical, used) };
  }

  /**
   * Tier 4 as automatic compaction would run now: the kept messages verbatim plus the recently read
   * files it restores (estimated from their last reads), and a summary of up to its reply budget.
   */
  private summarySavings(canonical: readonly MessageParam[], usedBefore: number): TierSavings['summary'] {
    if (!allToolUsesAnswered(canonical)) return { possible: false, reason: 'a tool call is waiting for its result' };
    const keptFrom = this.chooseKeptFrom(canonical);
    if (keptFrom === undefined) return { possible: false, reason: 'nothing to summarize yet' };
    const trial: CompactionRecord = { ...emptyBoundary(), trigger: 'auto', summary: '', keptFrom, ...todosAsOf(canonical) };
    const keptTokens = this.estimateTokens(buildLiveView(canonical, { boundary: trial, edits: this.live.edits }, this.options.transcript?.transcriptPath));
    const restoredTokens = this.restoreEstimateTokens(canonical, keptFrom);
    const summaryMaxTokens = Math.max(1, Math.min(this.settings.summaryMaxTokens, this.budget.outputReserve));
    const low = keptTokens + restoredTokens;
    return {
      possible: true,
      messagesSummarized: keptFrom - (this.live.boundary?.keptFrom ?? 0),
      messagesKept: canonical.length - keptFrom,
      keptTokens,
      restoredTokens,
      summaryMaxTokens,
      tokensAfter: { min: low, max: low + summaryMaxTokens },
      frees: { min: Math.max(0, usedBefore - low - summaryMaxTokens), max: Math.max(0, usedBefore - low) },
    };
  }

  /** The files a summary would restore, sized by their last read in the summarized part (no disk access). */
  private restoreEstimateTokens(canonical: readonly MessageParam[], keptFrom: number): number {
    if (this.settings.restoreFiles <= 0) return 0;
    const resultChars = new Map<string, number>();
    for (let index = this.live.boundary?.keptFrom ?? 0; index < keptFrom; index++) {
      for (const block of blocksOf(canonical[index]!)) if (block.type === 'tool_result' && !block.is_error) resultChars.set(block.tool_use_id, toolResultText(block).length);
    }
    const skip = new Set<string>();
    for (let index = keptFrom; index < canonical.length; index++) for (const use of toolUsesOf(canonical[index]!)) if (use.name === 'read_file') skip.add(normalizedPath(pathOf(use.input) ?? ''));
    let tokens = 0;
    let files = 0;
    for (let index = keptFrom - 1; index >= (this.live.boundary?.keptFrom ?? 0) && files < this.settings.restoreFiles; index--) {
      for (const use of toolUsesOf(canonical[index]!).reverse()) {
        const target = pathOf(use.input);
        const chars = resultChars.get(use.id);
        if (use.name !== 'read_file' || !target || chars === undefined || skip.has(normalizedPath(target)) || files >= this.settings.restoreFiles) continue;
        skip.add(normalizedPath(target));
        files++;
        tokens += Math.min(this.settings.restoreFileTokens, chars * this.tokensPerChar);
      }
    }
    return Math.round(Math.min(tokens, this.restoreBudgetTokens()));
  }

  private emit(event: ContextEvent): void {
    try {
      this.options.emit(event);
    } catch (error) {
      this.options.logger.error('context event listener failed', error);
    }
  }

  private record(entry: TranscriptEntry): void {
    this.options.transcript?.append(entry);
  }

  // ---- tier 0 ---------------------------------------------------------------------------------

  /** Tier 0, before a result enters the history: persist > 30 KB (less on small windows), truncate what is still too long. */
  async onToolResult(input: { toolUseId: string; toolName: string; content: string }): Promise<string> {
    const outcome = await applyTier0(input, this.options.transcript?.toolResultsDir, this.tier0, this.options.logger);
    const ratio = this.tokensPerChar;
    const tokens = (chars: number) => Math.round(chars * ratio);
    const tokensBefore = tokens(input.content.length);
    const tokensAfter = tokens(outcome.content.length);
    if (outcome.persisted) {
      // The token figures go with the entry, so a resumed chat shows the note the live one showed.
      this.record({ type: 'persisted_output', ts: new Date(this.now()).toISOString(), toolUseId: input.toolUseId, toolName: input.toolName, ...outcome.persisted, tokensBefore, tokensAfter });
      this.emit(persistNote({ toolName: input.toolName, file: outcome.persisted.file, tokensBefore, tokensAfter }));
    } else if (outcome.truncated) {
      this.emit({ type: 'tier', tier: 'truncate', items: 1, tokensBefore, tokensAfter, detail: `${input.toolName} output cut to its head and tail` });
    }
    return outcome.content;
  }

  // ---- before every request -------------------------------------------------------------------

  /** Applies due tiers, compacts when over the threshold, and returns what to send. */
  async prepareRequest(signal: AbortSignal): Promise<PreparedRequest> {
    this.assertBaseFits();
    // The first request has no counted predecessor: the API's free count anchors the estimate, so
    // a huge first message is measured, not guessed at 4 characters a token.
    if (!this.lastRequest) await this.reanchor(signal);
    const canonical = this.options.history();
    if (this.pendingToolCompact && allToolUsesAnswered(canonical)) {
      const { focus } = this.pendingToolCompact;
      this.pendingToolCompact = undefined;
      await this.compact(focus, 'tool', signal);
    }
    if (this.applyDueTiers()) await this.reanchor(signal);
    let messages = this.liveView();
    let used = this.estimateTokens(messages);
    if (used > this.budget.threshold) {
      if (this.breakerOpen) {
        this.options.logger.warn(`context at ${used} tokens is over the auto-compact threshold (${this.budget.threshold}) but automatic compaction is paused after ${this.consecutiveFailures} failures`);
      } else {
        await this.compact(undefined, 'auto', signal);
        messages = this.liveView();
        used = this.estimateTokens(messages);
      }
    }
    return this.finishPrepare(messages, used);
  }

  /** The system prompt and tools must leave room for a conversation next to the reply reserve. */
  private assertBaseFits(): void {
    const baseTokens = Math.round(this.baseChars * this.tokensPerChar);
    if (baseTokens >= this.budget.effective) {
      throw new ContextWindowTooSmallError(
        `The context window (${this.budget.window.toLocaleString('en-US')} tokens, ${this.budget.outputReserve.toLocaleString('en-US')} reserved for the reply) is smaller than the system prompt and tool definitions (~${baseTokens.toLocaleString('en-US')} tokens). Raise "evergreen.contextWindow" (or --context-window), or lower "evergreen.maxOutputTokens".`,
      );
    }
  }

  private finishPrepare(messages: MessageParam[], used: number): PreparedRequest {
    const canonical = this.options.history();
    const indexes = new Set<number>();
    // The previous request's newest message stays a breakpoint: a round that adds more than the
    // API's 20-block lookback would otherwise miss the cache written last time.
    const previous = this.lastRequest ? this.liveIndexOf(this.lastRequest.mark.canonicalCount - 1, messages.length, canonical.length) : undefined;
    if (previous !== undefined && previous >= 0 && previous < messages.length - 1) indexes.add(previous);
    if (messages.length > 0) indexes.add(messages.length - 1);
    const mark: RequestMark = { canonicalCount: canonical.length, liveCount: messages.length, liveChars: this.liveChars(messages), pendingWaste: this.pendingWasteAfterThis };
    this.requestsSinceCompaction++;
    this.emit({ type: 'context', gauge: this.gauge(messages) });
    return { messages, cache: { system: true, messageIndexes: [...indexes].sort((a, b) => a - b) }, maxTokens: this.budget.outputReserve, mark, estimatedTokens: used };
  }

  /** Live-view index of a canonical message (undefined when it is before the boundary). */
  private liveIndexOf(canonicalIndex: number, liveLength: number, canonicalLength: number): number | undefined {
    const keptFrom = this.live.boundary ? Math.min(this.live.boundary.keptFrom, canonicalLength) : 0;
    if (canonicalIndex < keptFrom) return undefined;
    const offset = liveLength - (canonicalLength - keptFrom);
    return canonicalIndex - keptFrom + offset;
  }

  /** After a response: its usage becomes the token anchor. */
  /** `atMs`: when the response came (the session passes the time it also writes in the usage entry). */
  onResponse(prepared: PreparedRequest, usage: UsageCounts, atMs: number = this.now()): void {
    this.lastRequest = anchorAfter(this.lastRequest, prepared.mark, promptTokensFromUsage(usage), atMs);
    // The reads of what deferred edits would free were paid with this request.
    this.pendingWaste = prepared.mark.pendingWaste ?? 0;
    this.lastCacheRead = cacheReadShare(usage);
    const counted = promptTokensFromUsage(usage);
    // No usage reported: the gauge shows the estimate, marked as one, rather than a counted 0.
    this.emit({ type: 'context', gauge: counted > 0 ? this.gauge(prepared.messages, counted + usage.outputTokens, false) : this.gauge(prepared.messages) });
  }

  private originalText(ref: ToolResultRef): string {
    const message = this.options.history()[ref.messageIndex];
    if (!message) return '';
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_result' && block.tool_use_id === ref.toolUseId) return toolResultText(block as ToolResultBlock);
    }
    return '';
  }

  /** What `pendingWaste` becomes once the request being prepared is paid for (set by applyDueTiers). */
  private pendingWasteAfterThis = 0;

  /** Tiers 1-3: plan, then apply the batch only when it pays (see the header comment). True when edits were applied. */
  private applyDueTiers(): boolean {
    this.pendingWasteAfterThis = 0;
    const canonical = this.options.history();
    const keptFrom = this.live.boundary ? Math.min(this.live.boundary.keptFrom, canonical.length) : 0;
    const messages = this.liveView();
    const used = this.estimateTokens(messages);
    const utilization = used / Math.max(1, this.budget.effective);
    const cacheCold = this.lastRequest !== undefined && this.now() - this.lastRequest.atMs > this.settings.cacheTtlMs;
    const refs = collectToolResults(canonical, keptFrom, this.live.edits);
    const plan = planTierEdits(refs, utilization, cacheCold, this.settings, (ref) => this.originalText(ref));
    // Nothing pending: the account closes with this request (written in its usage mark).
    if (plan.length === 0) return false;
    const ratio = this.tokensPerChar;
    const savedTokens = plan.reduce((sum, item) => sum + item.savedChars, 0) * ratio;
    const firstIndex = plan[0]!.ref.messageIndex;
    const liveFirst = this.liveIndexOf(firstIndex, messages.length, canonical.length) ?? 0;
    let suffixChars = 0;
    const cachedUpTo = this.lastRequest ? Math.min(messages.length, this.liveIndexOf(this.lastRequest.mark.canonicalCount - 1, messages.length, canonical.length) ?? -1) + 1 : 0;
    for (let index = liveFirst; index < cachedUpTo; index++) suffixChars += this.charsOf(messages[index]!);
    const rewriteTokens = suffixChars * ratio;
    const { cacheWritePrice: write, cacheReadPrice: read } = this.settings;
    const extraCost = (write - read) * rewriteTokens - write * savedTokens;
    const overThreshold = used > this.budget.threshold;
    const paidFor = this.pendingWaste >= extraCost;
    if (!cacheCold && !overThreshold && !paidFor) {
      this.pendingWasteAfterThis = this.pendingWaste + read * savedTokens;
      this.options.logger.debug(
        `tiers: ${plan.length} edit(s) freeing ~${Math.round(savedTokens)} tokens deferred (rewrite costs ~${Math.round(extraCost)}, reads paid on them so far ~${Math.round(this.pendingWaste)})`,
      );
      return false;
    }
    const why = cacheCold ? 'the prompt cache is cold' : overThreshold ? 'the context is over the auto-compact threshold' : 'the reads they saved have paid for the cache rewrite';
    this.pendingWaste = 0;
    this.applyPlan(plan, used, why);
    return true;
  }

  private applyPlan(plan: readonly PlannedEdit[], usedBefore: number, why: string): void {
    const ts = new Date(this.now()).toISOString();
    const byTier = new Map<TierName, PlannedEdit[]>();
    for (const item of plan) byTier.set(item.tier, [...(byTier.get(item.tier) ?? []), item]);
    let used = usedBefore;
    for (const tier of ['microcompact', 'snip', 'budget'] as const) {
      const items = byTier.get(tier);
      if (!items) continue;
      const edits: ToolResultEdit[] = items.map((item) => item.edit);
      const before = used;
      // Written first: the transcript must hold every decision before it takes effect.
      const after = Math.max(0, Math.round(before - items.reduce((sum, item) => sum + item.savedChars, 0) * this.tokensPerChar));
      this.record({ type: 'tier_edit', ts, tier, edits, tokensBefore: before, tokensAfter: after });
      const next = new Map(this.live.edits);
      for (const edit of edits) next.set(edit.toolUseId, edit);
      this.live = { boundary: this.live.boundary, edits: next };
      used = this.estimateTokens(this.liveView());
      const verb = tier === 'budget' ? 'trimmed' : tier === 'snip' ? 'snipped' : 'cleared';
      this.options.logger.info(`tier ${tier}: ${verb} ${items.length} old tool result(s), ~${before} -> ~${used} tokens (${why})`);
      this.emit({ type: 'tier', tier, items: items.length, tokensBefore: before, tokensAfter: used, detail: `${verb} ${items.length} old tool result(s) because ${why}` });
    }
  }

  private restoreBudgetTokens(): number {
    return Math.min(this.settings.restoreFiles * this.settings.restoreFileTokens, Math.floor(this.budget.effective * this.settings.keepVerbatimShare));
  }

  // ---- compaction -----------------------------------------------------------------------------

  /**
   * The canonical index from which messages stay verbatim: a clean start (no tool pair split),
   * as early as the keep budget allows, at least the newest round, and past the current boundary.
   */
  private chooseKeptFrom(canonical: readonly MessageParam[], keepShare: number = this.settings.keepVerbatimShare): number | undefined {
    const n = canonical.length;
    if (n === 0) return undefined;
    const previous = this.live.boundary?.keptFrom ?? 0;
    const last = canonical[n - 1]!;
    let maxK = n;
    if (last.role === 'user') maxK = isCleanStart(last) ? n - 1 : n - 2;
    if (maxK <= previous) return undefined;
    const budgetTokens = Math.floor(this.budget.effective * keepShare);
    const ratio = this.tokensPerChar;
    let best: number | undefined;
    let suffix = 0;
    for (let index = n - 1; index > previous; index--) {
      suffix += this.charsOf(canonical[index]!) * ratio;
      if (index > maxK) continue;
      if (!isCleanStart(canonical[index]!)) continue;
      if (best === undefined || suffix <= budgetTokens) best = index;
      if (suffix > budgetTokens) break;
    }
    return best;
  }

  /** The model's `compact` tool: compaction runs before the next request, once its result is in. */
  requestCompactFromTool(focus: string | undefined): string {
    const messages = this.liveView();
    const used = this.estimateTokens(messages);
    if (this.requestsSinceCompaction < 3 || used < this.budget.effective * 0.1) {
      return `Not compacted: the context holds only ~${used.toLocaleString('en-US')} tokens (${Math.round((used / this.budget.effective) * 100)}% of the usable window)${this.requestsSinceCompaction < 3 ? ' and it was compacted moments ago' : ''}. Continue with the task; compaction also happens automatically when needed.`;
    }
    this.pendingToolCompact = { focus };
    return 'Compaction scheduled: the conversation will be summarized before your next step (the full transcript stays on disk). Continue with the task afterwards.';
  }

  /**
   * Tier 4 / manual / reactive: summarize, keep recent messages verbatim with valid pairing,
   * restore recently read files. On failure the history is untouched and the failure is reported.
   */
  async compact(focus: string | undefined, trigger: CompactionTrigger, signal: AbortSignal): Promise<CompactionOutcome> {
    const canonical = this.options.history();
    if (!allToolUsesAnswered(canonical)) {
      return this.fail(trigger, 'a tool call is still waiting for its result; compaction runs before the next request instead', false);
    }
    // Asked for by the user or the model: summarize everything that may go (only an unfinished
    // round stays verbatim). Automatic compaction keeps the newest messages up to the keep budget.
    const explicit = trigger === 'manual' || trigger === 'tool';
    const keptFrom = this.chooseKeptFrom(canonical, explicit ? 0 : this.settings.keepVerbatimShare);
    if (keptFrom === undefined) return { ok: false, message: 'Nothing to compact yet: every message is already as short as it can be.' };
    const before = this.liveView();
    const tokensBefore = this.estimateTokens(before);
    let summary: string;
    let requests = 0;
    try {
      ({ summary, requests } = await this.summarize(before, canonical.length - keptFrom, focus, signal));
    } catch (error) {
      if (signal.aborted) return { ok: false, message: 'Compaction cancelled.' };
      return this.fail(trigger, errorMessage(error), trigger !== 'manual' && trigger !== 'tool');
    }
    const restoredFiles = await this.restoreFiles(canonical, keptFrom);
    const record: CompactionRecord = {
      id: randomUUID(),
      trigger,
      ...(focus ? { focus } : {}),
      summary,
      keptFrom,
      restoredFiles,
      ...todosAsOf(canonical),
      stats: { tokensBefore, tokensAfter: 0, messagesSummarized: keptFrom - (this.live.boundary?.keptFrom ?? 0), messagesKept: canonical.length - keptFrom, summaryRequests: requests },
    };
    const preview: LiveState = { boundary: record, edits: this.live.edits };
    const after = buildLiveView(canonical, preview, this.options.transcript?.transcriptPath);
    // Counted before the boundary is written, so the divider's "after" and the gauge show one number.
    const counted = await this.countPrompt(after, signal);
    record.stats.tokensAfter = counted ?? this.estimateTokens(after);
    this.commitBoundary(record);
    if (counted !== undefined) this.anchorAt(after, counted);
    this.consecutiveFailures = 0;
    this.requestsSinceCompaction = 0;
    const message = `Compacted (${trigger}): ~${tokensBefore.toLocaleString('en-US')} -> ~${record.stats.tokensAfter.toLocaleString('en-US')} tokens; ${record.stats.messagesSummarized} message(s) summarized, ${record.stats.messagesKept} kept verbatim, ${restoredFiles.length} file(s) restored.`;
    this.options.logger.info(message);
    return { ok: true, message, record };
  }

  /**
   * What `compact(focus, 'manual')` would do now — kept verbatim, summarized, restored, tokens
   * before -> after — without a request or a transcript entry ("Compact Conversation" shows it first).
   */
  previewCompaction(focus?: string): CompactionPreview {
    const canonical = this.options.history();
    const messages = this.liveView();
    const tokensBefore = this.estimateTokens(messages);
    const summaryMaxTokens = Math.max(1, Math.min(this.settings.summaryMaxTokens, this.budget.outputReserve));
    const nothing = (message: string): CompactionPreview => ({
      ok: false,
      message,
      focus,
      tokensBefore,
      summarized: { messages: 0, tokens: 0 },
      kept: { messages: canonical.length, tokens: tokensBefore },
      restoredFiles: [],
      summaryMaxTokens,
      tokensAfter: tokensBefore,
    });
    if (canonical.length === 0) return nothing('Nothing to compact yet: the conversation is empty.');
    if (!allToolUsesAnswered(canonical)) return nothing('A tool call is still waiting for its result; compact when the turn has ended.');
    // As `compact` chooses for an explicit request: everything but an unfinished round is summarized.
    const keptFrom = this.chooseKeptFrom(canonical, 0);
    if (keptFrom === undefined) return nothing('Nothing to compact yet: every message is already as short as it can be.');
    const ratio = this.tokensPerChar;
    const perFileTokens = this.settings.restoreFileTokens;
    let restoreBudget = this.workspace() ? this.restoreBudgetTokens() : 0;
    const restoredFiles: CompactionPreview['restoredFiles'] = [];
    for (const candidate of this.workspace() ? this.restoreCandidates(canonical, keptFrom) : []) {
      // The newest read's size stands in for the file's (it is re-read from disk when the summary lands).
      const tokens = Math.min(perFileTokens, restoreBudget, Math.ceil(candidate.readChars * ratio));
      if (tokens * this.settings.charsPerToken < 200) continue;
      restoredFiles.push({ path: candidate.path, tokens });
      restoreBudget -= tokens;
    }
    const keptOnly: CompactionRecord = { ...emptyBoundary(), trigger: 'manual', keptFrom, ...todosAsOf(canonical) };
    const keptView = buildLiveView(canonical, { boundary: keptOnly, edits: this.live.edits }, this.options.transcript?.transcriptPath);
    const withKept = this.estimateTokens(keptView);
    const baseTokens = Math.round(this.baseChars * ratio);
    const restoredTokens = restoredFiles.reduce((sum, file) => sum + file.tokens, 0);
    const preview: CompactionPreview = {
      ok: true,
      message: '',
      focus,
      tokensBefore,
      summarized: { messages: keptFrom - (this.live.boundary?.keptFrom ?? 0), tokens: Math.max(0, tokensBefore - withKept) },
      kept: { messages: canonical.length - keptFrom, tokens: Math.max(0, withKept - baseTokens) },
      restoredFiles,
      summaryMaxTokens,
      tokensAfter: withKept + restoredTokens,
    };
    preview.message = `Compact: ~${tokensBefore.toLocaleString('en-US')} -> ~${preview.tokensAfter.toLocaleString('en-US')} tokens + the summary; ${preview.summarized.messages} message(s) summarized, ${preview.kept.messages} kept verbatim, ${restoredFiles.length} file(s) restored.`;
    return preview;
  }

  private workspace(): Workspace | undefined {
    return this.settings.restoreFiles > 0 ? this.options.workspace : undefined;
  }

  /**
   * Whether the newest compaction can be undone now, and the live state it would restore. The
   * restored view's size is the larger of its estimate at today's calibration and the tokens
   * before that compaction plus what was added since: the undo must not overflow the window or
   * be compacted again by the very next request.
   */
  checkUndo(): ({ ok: true; message: string; state: LiveState; tokensBefore: number; tokensAfter: number; compactionId: string }) | { ok: false; message: string } {
    const undoable = this.undoable;
    const boundary = this.live.boundary;
    if (!undoable || !boundary || boundary.id !== undoable.compactionId) {
      return { ok: false, message: 'Nothing to undo: only the most recent compaction can be undone, once (a drop of old rounds after a "prompt is too long" cannot).' };
    }
    const state: LiveState = { boundary: undoable.previous, edits: this.live.edits };
    const tokensBefore = this.estimateTokens(this.liveView());
    const restored = this.estimateTokens(buildLiveView(this.options.history(), state, this.options.transcript?.transcriptPath));
    const grown = boundary.stats.tokensBefore + Math.max(0, tokensBefore - boundary.stats.tokensAfter);
    const tokensAfter = Math.max(restored, grown);
    if (tokensAfter > this.budget.threshold) {
      return {
        ok: false,
        message: `Cannot undo the last compaction: the conversation before it plus what was added since (~${tokensAfter.toLocaleString('en-US')} tokens) is over the auto-compact threshold (${this.budget.threshold.toLocaleString('en-US')} of a ${this.budget.window.toLocaleString('en-US')}-token window), so it would be compacted again right away. The full conversation stays in the transcript (Open Archived Transcript).`,
      };
    }
    return { ok: true, message: '', state, tokensBefore, tokensAfter, compactionId: undoable.compactionId };
  }

  /**
   * "Undo Last Compaction": the live view goes back to the one before the newest compaction
   * (messages added since stay, tier edits stay). Recorded first, like every decision, so a fold
   * (resume) gives the same view. The failure count of the circuit breaker is left alone: the
   * compaction did succeed.
   */
  async undoLastCompaction(signal: AbortSignal): Promise<UndoOutcome> {
    const check = this.checkUndo();
    if (!check.ok) return check;
    this.record({ type: 'compaction_undo', ts: new Date(this.now()).toISOString(), compactionId: check.compactionId, tokensBefore: check.tokensBefore, tokensAfter: check.tokensAfter });
    this.live = check.state;
    this.undoable = undefined;
    this.pendingToolCompact = undefined;
    this.emit({ type: 'compaction_undone', compactionId: check.compactionId, tokensBefore: check.tokensBefore, tokensAfter: check.tokensAfter });
    // The compacted view's tokens-per-character does not fit the restored one: the API counts it.
    await this.reanchor(signal);
    const gauge = this.gauge();
    this.emit({ type: 'context', gauge });
    const message = `Compaction undone: ~${check.tokensBefore.toLocaleString('en-US')} -> ~${gauge.usedTokens.toLocaleString('en-US')} tokens; the messages it summarized are sent verbatim again.`;
    this.options.logger.info(message);
    return { ok: true, message };
  }

  /**
   * After a compaction or applied tier edits the view changed where it was densest (tool output),
   * so the last request's tokens-per-character no longer fits it: the API's free count re-anchors
   * the estimate (recorded, so resume agrees).
   */
  private async reanchor(signal: AbortSignal): Promise<void> {
    const messages = this.liveView();
    const tokens = await this.countPrompt(messages, signal);
    if (tokens !== undefined) this.anchorAt(messages, tokens);
  }

  /** The API's count of a prompt with these messages; undefined when the back end cannot count or the count failed. */
  private async countPrompt(messages: MessageParam[], signal: AbortSignal): Promise<number | undefined> {
    const count = this.options.model.countTokens;
    if (!count) return undefined;
    try {
      return await count.call(this.options.model, { system: this.options.system, tools: [...this.options.tools], messages }, signal);
    } catch (error) {
      this.options.logger.warn(`could not count the compacted context's tokens (the estimate stays calibrated on the last request): ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** A counted prompt becomes the token anchor (recorded, so resume agrees), and the gauge shows it. */
  private anchorAt(messages: MessageParam[], tokens: number): void {
    const canonical = this.options.history();
    this.lastRequest = {
      mark: { canonicalCount: canonical.length, liveCount: messages.length, liveChars: this.liveChars(messages), pendingWaste: 0 },
      promptTokens: tokens,
      atMs: this.lastRequest?.atMs ?? this.now(),
    };
    this.record({ type: 'event', ts: new Date(this.now()).toISOString(), name: TOKEN_ANCHOR_EVENT, data: { ...this.lastRequest } });
    this.emit({ type: 'context', gauge: this.gauge(messages) });
  }

  private commitBoundary(record: CompactionRecord): void {
    this.record({ type: 'compaction', ts: new Date(this.now()).toISOString(), compaction: record });
    // A drop happens only when the API refused the context: the view before it cannot come back.
    this.undoable = record.trigger === 'drop' ? undefined : { compactionId: record.id, previous: this.live.boundary };
    this.live = { boundary: record, edits: this.live.edits };
    this.emit(compactionEvent(record));
    this.emit({ type: 'context', gauge: this.gauge() });
  }

  private fail(trigger: CompactionTrigger, reason: string, counts: boolean): CompactionOutcome {
    if (counts) this.consecutiveFailures++;
    const breakerOpen = this.breakerOpen;
    const hint = breakerOpen
      ? `Automatic compaction is paused after ${this.consecutiveFailures} failures in a row. Compact by hand to try again — "Evergreen: Compact Conversation" or "/compact [focus]" in the chat, "-p '/compact [focus]'" in the CLI — or start a New Chat; the transcript is saved.`
      : 'The history is unchanged. Evergreen tries again before the next request; you can also compact by hand ("/compact [focus]").';
    const message = `Compaction (${trigger}) failed: ${reason}`;
    this.record({ type: 'event', ts: new Date(this.now()).toISOString(), name: COMPACTION_FAILED_EVENT, data: { trigger, reason, counts } });
    this.options.logger.error(`${message} (consecutive failures: ${this.consecutiveFailures})`);
    this.emit({ type: 'compaction_failed', trigger, message, consecutiveFailures: this.consecutiveFailures, breakerOpen, hint, actions: errorActionsFor('compaction_failed') });
    return { ok: false, message: `${message}. ${hint}` };
  }

  /** The summary request: the live view + the instruction, sharing its cached prefix; fitted by dropping oldest rounds (up to 3 tries). */
  private async summarize(live: MessageParam[], keptCount: number, focus: string | undefined, signal: AbortSignal): Promise<{ summary: string; requests: number }> {
    const keptNote =
      keptCount > 0 ? `The newest ${keptCount} message(s) stay in the context verbatim after the summary; summarize everything, but put the weight on what they do not show.` : '';
    const maxTokens = Math.max(1, Math.min(this.settings.summaryMaxTokens, this.budget.outputReserve));
    const room = this.budget.window - maxTokens;
    const instruction = summaryInstruction(focus, keptNote);
    const estimateWith = (messages: readonly MessageParam[]) => this.estimateTokens(withInstruction(messages, instruction).messages);
    let messages = live;
    if (estimateWith(messages) > room) {
      // Old tool results go first (their tool calls stay, so the summary still knows what was done);
      // only if that is not enough do whole rounds go, and the user's words travel along.
      messages = shrinkToolResults(messages, this.settings.keepRecentResults, this.settings.budgetHardChars);
      this.options.logger.warn('summary request: old tool results left out so it fits the window');
    }
    let lastError: unknown;
    for (let attempt = 0; attempt < this.settings.summaryFitTries; attempt++) {
      if (estimateWith(messages) > room) {
        const fitted = dropOldestRounds(messages, estimateWith, room * 0.95);
        if (fitted.length === messages.length || estimateWith(fitted) > room) throw new Error('the conversation cannot be shortened enough for the summary request to fit the window');
        this.options.logger.warn(`summary request: dropped the ${messages.length - fitted.length} oldest message(s) so it fits the window`);
        messages = fitted;
      }
      const request = withInstruction(messages, instruction);
      try {
        const response = await this.options.model.stream(
          { system: this.options.system, tools: [...this.options.tools], messages: request.messages, maxTokens, cache: { system: true, messageIndexes: request.breakpoints } },
          {},
          signal,
        );
        this.options.onModelUsage?.(response.usage, response);
        const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
        return { summary: extractSummary(text), requests: attempt + 1 };
      } catch (error) {
        lastError = error;
        const tooLong = !signal.aborted && error instanceof ModelError && error.kind === 'prompt_too_long';
        if (!tooLong) throw error;
        // The API counted more than the estimate: drop a third more of the oldest rounds and try again.
        this.options.logger.warn(`summary request too long (try ${attempt + 1} of ${this.settings.summaryFitTries}); dropping the oldest rounds`);
        const fitted = dropOldestRounds(messages, estimateWith, estimateWith(messages) * 0.7);
        if (fitted.length === messages.length) throw error;
        messages = fitted;
      }
    }
    throw lastError instanceof Error ? lastError : new Error(`the summary request did not fit after ${this.settings.summaryFitTries} tries`);
  }

  /** Up to 5 files read recently (and not visible in the kept part), re-read from disk, each capped. */
  /**
   * The files a summary would restore: up to 5 read recently (newest first), not visible in the
   * kept part, whose read did not fail; with the chars of their newest read (for the preview).
   */
  private restoreCandidates(canonical: readonly MessageParam[], keptFrom: number): Array<{ path: string; readChars: number }> {
    const keptPaths = new Set<string>();
    for (let index = keptFrom; index < canonical.length; index++) {
      for (const use of toolUsesOf(canonical[index]!)) if (use.name === 'read_file') keptPaths.add(normalizedPath(pathOf(use.input) ?? ''));
    }
    const failed = new Set<string>();
    for (const message of canonical) for (const block of blocksOf(message)) if (block.type === 'tool_result' && block.is_error) failed.add(block.tool_use_id);
    const resultChars = new Map<string, number>();
    for (let index = keptFrom - 1; index >= (this.live.boundary?.keptFrom ?? 0); index--) {
      for (const block of blocksOf(canonical[index]!)) if (block.type === 'tool_result') resultChars.set(block.tool_use_id, toolResultText(block as ToolResultBlock).length);
    }
    const recent: string[] = [];
    const chars: number[] = [];
    for (let index = canonical.length - 1; index >= (this.live.boundary?.keptFrom ?? 0) && recent.length < this.settings.restoreFiles; index--) {
      const uses = toolUsesOf(canonical[index]!);
      for (let u = uses.length - 1; u >= 0; u--) {
        const use = uses[u]!;
        const target = pathOf(use.input);
        // A read that failed restores nothing; `./a.ts` and `a.ts` are one file.
        if (use.name !== 'read_file' || !target || failed.has(use.id)) continue;
        const key = normalizedPath(target);
        if (keptPaths.has(key) || recent.some((seen) => normalizedPath(seen) === key)) continue;
        if (recent.length < this.settings.restoreFiles) {
          recent.push(target);
          chars.push(resultChars.get(use.id) ?? 0);
        }
      }
    }
    return recent.map((path, index) => ({ path, readChars: chars[index]! }));
  }

  private async restoreFiles(canonical: readonly MessageParam[], keptFrom: number): Promise<RestoredFile[]> {
    const workspace = this.options.workspace;
    if (!workspace || this.settings.restoreFiles <= 0) return [];
    const recent = this.restoreCandidates(canonical, keptFrom).map((candidate) => candidate.path);
    const budgetChars = this.restoreBudgetTokens() / this.tokensPerChar;
    const perFileChars = Math.floor(this.settings.restoreFileTokens / this.tokensPerChar);
    let used = 0;
    const restored: RestoredFile[] = [];
    for (const target of recent) {
      try {
        const cap = Math.min(perFileChars, Math.floor(budgetChars - used));
        if (cap < 200) break;
        const absolute = await workspace.resolve(target);
        // Only regular files, and only the bytes the cap can use: a FIFO or a 1 GB file must not stall compaction.
        // Confined, non-blocking open and fstat of the handle: a swapped symlink or FIFO changes nothing.
        const handle = await openForRead(workspace, absolute);
        let buffer: Buffer;
        try {
          const stat = await handle.stat();
          if (!stat.isFile()) continue;
          buffer = Buffer.alloc(Math.min(stat.size, cap * 4));
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
          buffer = buffer.subarray(0, bytesRead);
        } finally {
          await handle.close();
        }
        if (buffer.subarray(0, 8192).includes(0)) continue;
        let content = buffer.toString('utf8');
        if (content.length > cap || buffer.length >= cap * 4) content = `${content.slice(0, cap)}\n[... file continues; read it with read_file (offset/limit) for the rest ...]`;
        used += content.length;
        restored.push({ path: workspace.displayPath(absolute), content });
      } catch (error) {
        this.options.logger.warn(`compaction: could not restore ${target}: ${errorMessage(error)}`);
      }
    }
    return restored;
  }

  // ---- prompt too long ------------------------------------------------------------------------

  /**
   * The API said the prompt is too long: first compact (once), then drop the oldest rounds
   * deterministically (tool pairs whole). Returns true when the live view shrank and a retry may fit.
   */
  async recoverFromTooLong(prepared: PreparedRequest, attempt: number, error: ModelError, signal: AbortSignal): Promise<boolean> {
    const counted = error.tooLong;
    if (counted && prepared.mark.liveChars > 0) {
      // The API's count recalibrates the estimate that let this request through. Recorded like
      // every other engine decision, so a fold (resume) anchors its estimates the same way.
      this.lastRequest = { mark: prepared.mark, promptTokens: counted.promptTokens, atMs: this.lastRequest?.atMs ?? this.now() };
      this.record({ type: 'event', ts: new Date(this.now()).toISOString(), name: TOKEN_ANCHOR_EVENT, data: { ...this.lastRequest } });
    }
    this.options.logger.warn(`prompt too long (${error.message}); recovery attempt ${attempt + 1}`);
    // A server window smaller than the one assumed: every check below (and every request after)
    // uses it, so the retry fits. When the prompt already fits it (the server only counted the
    // larger reply reserve), the retry asks for the smaller reserve and nothing is compacted.
    const serverWindow = serverWindowOf(counted);
    if (serverWindow !== undefined && this.learnWindow(serverWindow)) {
      this.assertBaseFits();
      if (this.estimateTokens(this.liveView()) <= this.budget.effective) return true;
    }
    if (attempt === 0 && !this.breakerOpen) {
      const outcome = await this.compact(undefined, 'reactive', signal);
      if (outcome.ok && this.estimateTokens(this.liveView()) <= this.budget.effective) return true;
    }
    return this.dropOldestLive();
  }

  private dropOldestLive(): boolean {
    const canonical = this.options.history();
    const target = this.budget.threshold;
    const previous = this.live.boundary;
    const from = previous?.keptFrom ?? 0;
    const last = canonical.at(-1);
    const maxK = !last ? 0 : last.role === 'user' ? (isCleanStart(last) ? canonical.length - 1 : canonical.length - 2) : canonical.length;
    // The user's own words in the dropped range travel along verbatim: a drop never loses a request.
    const carryBudget = Math.floor(this.budget.effective * this.settings.keepVerbatimShare / this.tokensPerChar);
    const carried = (until: number) => boundedCarry([...(previous?.userMessages ?? []), ...userTexts(canonical.slice(from, until))], carryBudget);
    let keptFrom: number | undefined;
    for (let index = from + 1; index <= Math.min(maxK, canonical.length - 1); index++) {
      if (!isCleanStart(canonical[index]!)) continue;
      keptFrom = index;
      const trial: LiveState = { boundary: { ...(previous ?? emptyBoundary()), keptFrom, userMessages: carried(index) }, edits: this.live.edits };
      if (this.estimateTokens(buildLiveView(canonical, trial, this.options.transcript?.transcriptPath)) <= target) break;
    }
    if (keptFrom === undefined) {
      this.options.logger.error('prompt too long and no older round is left to drop');
      return false;
    }
    const tokensBefore = this.estimateTokens(this.liveView());
    const record: CompactionRecord = {
      id: randomUUID(),
      trigger: 'drop',
      ...(previous?.summary !== undefined ? { summary: previous.summary } : {}),
      ...(previous?.focus ? { focus: previous.focus } : {}),
      keptFrom,
      restoredFiles: previous?.restoredFiles ?? [],
      ...(carried(keptFrom).length > 0 ? { userMessages: carried(keptFrom) } : {}),
      ...todosAsOf(canonical),
      stats: { tokensBefore, tokensAfter: 0, messagesSummarized: keptFrom - from, messagesKept: canonical.length - keptFrom, summaryRequests: 0 },
    };
    record.stats.tokensAfter = this.estimateTokens(buildLiveView(canonical, { boundary: record, edits: this.live.edits }, this.options.transcript?.transcriptPath));
    this.options.logger.warn(`dropped the ${keptFrom - from} oldest message(s) from the live view to fit the window (~${tokensBefore} -> ~${record.stats.tokensAfter} tokens)`);
    this.commitBoundary(record);
    return true;
  }
}

/** The task list as of a new boundary, for its record (the live view shows it next to the summary). */
function todosAsOf(canonical: readonly MessageParam[]): Pick<CompactionRecord, 'todos'> {
  const todos = latestTodos(canonical);
  return todos && todos.length > 0 ? { todos } : {};
}

function emptyBoundary(): CompactionRecord {
  return { id: '', trigger: 'drop', keptFrom: 0, restoredFiles: [], stats: { tokensBefore: 0, tokensAfter: 0, messagesSummarized: 0, messagesKept: 0, summaryRequests: 0 } };
}

function normalizedPath(value: string): string {
  return value.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/+/g, '/');
}

function pathOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>).path;
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** True when no assistant tool_use at the end waits for its result. */
export function allToolUsesAnswered(canonical: readonly MessageParam[]): boolean {
  const last = canonical.at(-1);
  return !last || toolUsesOf(last).length === 0;
}

/**
 * The summary instruction appended to the conversation: as a text block after the last user
 * message's blocks (tool_results stay first), or as a new user message after an assistant reply.
 */
export function withInstruction(messages: readonly MessageParam[], instruction: string): { messages: MessageParam[]; breakpoints: number[] } {
  const out = messages.slice();
  const last = out.at(-1);
  if (last && last.role === 'user') {
    out[out.length - 1] = { role: 'user', content: [...blocksOf(last), { type: 'text', text: instruction }] };
  } else {
    out.push({ role: 'user', content: [{ type: 'text', text: instruction }] });
  }
  // The API looks back up to 20 blocks from a breakpoint for a cached prefix, so one on the
  // newest block reads the conversation written by the previous request.
  return { messages: out, breakpoints: [out.length - 1] };
}

/** The text a user typed in these messages (tool results and summaries excluded). */
export function userTexts(messages: readonly MessageParam[]): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    for (const block of blocksOf(message)) {
      if (block.type !== 'text' || block.text.startsWith(SUMMARY_MARK)) continue;
      // Words carried by an earlier drop are carried again (one by one), never lost.
      if (block.text.startsWith(CARRIED_MARK)) texts.push(...block.text.split('\n- ').slice(1));
      else texts.push(block.text);
    }
  }
  return texts;
}

export const OMITTED_RESULT_TEXT = '[Tool result left out of this summary request to fit the window; the full output is in the transcript.]';
const CARRIED_MARK = 'Earlier messages of the user';
/** One carried user message at most this long (head + tail); the full text stays in the transcript. */
const CARRIED_MESSAGE_CHARS = 4_000;

/**
 * The user's carried words within a budget (characters): each message cut head + tail, and when
 * they still do not fit, the oldest go first — an unbounded carry could itself outgrow the window.
 */
export function boundedCarry(texts: readonly string[], budgetChars: number): string[] {
  const cut = texts.map((text) => headTail(text, Math.min(CARRIED_MESSAGE_CHARS, Math.max(200, budgetChars)), 'a long user message, cut; the full text is in the transcript'));
  const kept: string[] = [];
  let used = 0;
  for (let index = cut.length - 1; index >= 0; index--) {
    used += cut[index]!.length;
    if (used > budgetChars && kept.length > 0) break;
    kept.unshift(cut[index]!);
  }
  return kept;
}

/** Old tool results replaced by a short note, the newest `keep` trimmed to `maxChars`: the summary request's first way to fit. */
export function shrinkToolResults(messages: readonly MessageParam[], keep: number, maxChars: number): MessageParam[] {
  let total = 0;
  for (const message of messages) if (message.role === 'user') for (const block of blocksOf(message)) if (block.type === 'tool_result') total++;
  let seen = 0;
  return messages.map((message) => {
    if (message.role !== 'user' || typeof message.content === 'string' || !message.content.some((block) => block.type === 'tool_result')) return message;
    const content = message.content.map((block): ContentBlockParam => {
      if (block.type !== 'tool_result') return block;
      seen++;
      const text = seen <= total - keep ? OMITTED_RESULT_TEXT : headTail(toolResultText(block), maxChars, 'trimmed to fit the summary request');
      return { type: 'tool_result', tool_use_id: block.tool_use_id, content: text, ...(block.is_error ? { is_error: true } : {}) };
    });
    return { role: 'user', content };
  });
}

/**
 * Drops the oldest rounds (never splitting a tool pair) until the estimate is at most `target`;
 * a leading summary message is kept, and what the user wrote in the dropped rounds is carried
 * verbatim. The result starts with a user message.
 */
export function dropOldestRounds(messages: readonly MessageParam[], estimate: (messages: readonly MessageParam[]) => number, target: number): MessageParam[] {
  const keepHead = messages[0] && blocksOf(messages[0]).some((block) => block.type === 'text' && block.text.startsWith(SUMMARY_MARK)) ? 1 : 0;
  const carryBudget = Math.max(2_000, Math.floor(JSON.stringify(messages).length * 0.1));
  const lastUser = messages.length - 1;
  let best: MessageParam[] = messages.slice();
  for (let cut = keepHead + 1; cut < lastUser; cut++) {
    if (!isCleanStart(messages[cut]!)) continue;
    const dropped = boundedCarry(userTexts(messages.slice(keepHead, cut)), carryBudget);
    const carry: ContentBlockParam[] = dropped.length > 0 ? [{ type: 'text', text: `${CARRIED_MARK} (older rounds were left out to fit; kept verbatim):\n\n${dropped.map((text) => `- ${text}`).join('\n')}` }] : [];
    const rest = messages.slice(cut);
    const first = rest[0]!;
    let head: MessageParam[];
    if (keepHead) {
      const summary = messages[0]!;
      head = first.role === 'user' ? [{ role: 'user', content: [...blocksOf(summary), ...carry, ...blocksOf(first)] }] : [{ role: 'user', content: [...blocksOf(summary), ...carry] }, first];
    } else if (first.role === 'assistant') {
      head = [{ role: 'user', content: [{ type: 'text', text: '[Earlier messages omitted to fit the context window.]' }, ...carry] }, first];
    } else {
      head = [{ role: 'user', content: [...carry, ...blocksOf(first)] }];
    }
    best = [...head, ...rest.slice(1)];
    if (estimate(best) <= target) return best;
  }
  return best;
}


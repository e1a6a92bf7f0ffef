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
import { errorActionsFor } from '../agent/errors';
import { randomUUID } from 'node:crypto';
import { ModelError } from '../model/errors';
import type { MessageParam } from '../model/messages';
import { blocksOf, messageChars, toolResultText, type ToolResultBlock } from '../model/content';
import type { UsageCounts } from '../model/models';
import { errorMessage } from '../logger';
import type { CompactionRecord, CompactionTrigger, RequestMark, ToolResultEdit, TranscriptEntry } from '../storage/transcript';
import type { Workspace } from '../tools/workspace';
import { contextBreakdownChars, scaleBreakdown } from './breakdown';
import { anchorAfter, COMPACTION_FAILED_EVENT, compactionEvent, TOKEN_ANCHOR_EVENT } from './fold';
import { serverWindowOf, windowLearnedMessage, WINDOW_LEARNED_EVENT } from './learnedWindow';
import { CONTEXT_DEFAULTS, persistThresholdFor, type ContextDefaults } from './defaults';
import { contextBudget, contextGauge, promptTokensFromUsage, cacheReadShare, type ContextBudget, type ContextGauge } from './gauge';
import type { CompactionPreview, UndoOutcome, UndoPoint } from './compactionPreview';
import { buildLiveView, isCleanStart, type LiveState } from './liveView';
import { previewTierSavings, type TierSavings } from './tierSavings';
import { applyTier0, persistNote, type Tier0Settings } from './tier0';
import { collectToolResults, planTierEdits, type PlannedEdit, type TierName, type ToolResultRef } from './tiers';
import type { CompactionOutcome, ContextEngineOptions, ContextEvent, EngineSnapshot, PreparedRequest } from './engineTypes';
import { ContextWindowTooSmallError } from './engineTypes';
import { planDrop, previewCompaction, summarySavings, type PlanningView } from './compactionPlanning';
import { requestSummary } from './summaryRequest';
import { restoreFiles, type RestoreLimits } from './restoreFiles';
import { allToolUsesAnswered, todosAsOf } from './compactionHelpers';

// The engine's types and pure helpers live in their own modules; re-exported so callers keep importing from here.
export * from './engineTypes';
export { allToolUsesAnswered, boundedCarry, dropOldestRounds, OMITTED_RESULT_TEXT, shrinkToolResults, userTexts, withInstruction } from './compactionHelpers';

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
    const refs = collectToolResults(canonical, keptFrom, this.live.edits, this.options.toolTraits);
    const tiers = previewTierSavings(refs, used / Math.max(1, this.budget.effective), cacheCold, this.settings, (ref) => this.originalText(ref), this.tokensPerChar);
    return { usedTokens: used, tiers, summary: summarySavings(this.planningView(), canonical, used) };
  }


  private restoreLimits(): RestoreLimits {
    return { from: this.live.boundary?.keptFrom ?? 0, files: this.settings.restoreFiles, fileTokens: this.settings.restoreFileTokens, budgetTokens: this.restoreBudgetTokens(), tokensPerChar: this.tokensPerChar, toolTraits: this.options.toolTraits };
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
    const outcome = await applyTier0(input, this.options.transcript?.toolResultsDir, this.tier0, this.options.logger, this.options.toolTraits);
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
    const refs = collectToolResults(canonical, keptFrom, this.live.edits, this.options.toolTraits);
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
      ({ summary, requests } = await requestSummary(before, canonical.length - keptFrom, focus, signal, {
        model: this.options.model,
        system: this.options.system,
        tools: this.options.tools,
        settings: this.settings,
        budget: this.budget,
        estimateTokens: (messages) => this.estimateTokens(messages),
        logger: this.options.logger,
        onModelUsage: this.options.onModelUsage,
      }));
    } catch (error) {
      if (signal.aborted) return { ok: false, message: 'Compaction cancelled.' };
      return this.fail(trigger, errorMessage(error), trigger !== 'manual' && trigger !== 'tool');
    }
    const restoredFiles = await restoreFiles(canonical, keptFrom, this.options.workspace, this.restoreLimits(), this.options.logger);
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
   * What \`compact(focus, 'manual')\` would do now — kept verbatim, summarized, restored, tokens
   * before -> after — without a request or a transcript entry ("Compact Conversation" shows it first).
   */
  previewCompaction(focus?: string): CompactionPreview {
    return previewCompaction(this.planningView(), focus);
  }

  /** The engine's state as the planning functions read it. */
  private planningView(): PlanningView {
    return {
      canonical: this.options.history(),
      live: this.live,
      settings: this.settings,
      budget: this.budget,
      tokensPerChar: this.tokensPerChar,
      baseChars: this.baseChars,
      transcriptPath: this.options.transcript?.transcriptPath,
      workspace: this.workspace(),
      restoreLimits: this.restoreLimits(),
      logger: this.options.logger,
      liveView: () => this.liveView(),
      estimateTokens: (messages) => this.estimateTokens(messages),
      chooseKeptFrom: (canonical, keepShare) => this.chooseKeptFrom(canonical, keepShare),
    };
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
    const record = planDrop(this.planningView());
    if (!record) return false;
    this.commitBoundary(record);
    return true;
  }
}

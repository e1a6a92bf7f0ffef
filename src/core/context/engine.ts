/**
 * The context engine's coordinator (docs/architecture.md, "Context engine", "Life of a request").
 * The session appends to the canonical history; before every API call the engine computes the live
 * view to send: tier edits and compaction boundaries applied, cache breakpoints placed.
 *
 * Every decision is a transcript entry, written *before* it takes effect and applied with
 * `applyEntry` (state.ts) — the same function `foldTranscript` applies on resume, so a resumed
 * session cannot differ from the live one. The decisions themselves are made by pure planners:
 * token accounting (accounting.ts), when tiers 1-3 run (tierScheduling.ts), what a compaction
 * keeps (compactionPlanning.ts), and what tier 0 does to a new result (tier0.ts). This class only
 * orders them, records their entries, talks to the model and emits events. It never edits the
 * canonical history.
 */
import { errorActionsFor } from '../model/errorActions';
import { settingRef, userText, userTextForLog, verbatim, type UserText } from '../texts/userText';
import { errorMessage } from '../logger';
import { ModelError } from '../model/errors';
import type { MessageParam } from '../model/messages';
import type { UsageCounts } from '../model/models';
import type { CompactionRecord, CompactionTrigger, TranscriptEntry } from '../storage/transcript';
import { TokenAccounting } from './accounting';
import { contextBreakdownChars, scaleBreakdown } from './breakdown';
import { allToolUsesAnswered, emptyBoundary, todosAsOf } from './compactionHelpers';
import { NOTHING_TO_COMPACT, planCompaction, restoreLimitsFor, planDrop, planUndo, previewCompaction, summarySavings, type PlanningView, type UndoPlan } from './compactionPlanning';
import type { CompactionPreview, UndoOutcome } from './compactionPreview';
import { CONTEXT_DEFAULTS, type ContextDefaults } from './defaults';
import type { CompactionOutcome, ContextEngineOptions, ContextEvent, EngineSnapshot, PreparedRequest } from './engineTypes';
import { compactionEvent, ContextWindowTooSmallError } from './engineTypes';
import { contextBudget, gaugeOf, promptTokensFromUsage, withStreamedTokens, type ContextBudget, type ContextGauge, type GaugeCosts } from './gauge';
import { windowInUse, windowLearnedMessage, windowLearnedText } from './learnedWindow';
import { planOverflowRecovery } from './overflowRecovery';
import { buildLiveView, buildLiveView as liveViewOf, clearedText } from './liveView';
import { cacheBreakpoints } from './cacheBreakpoints';
import { runSummaryCompaction, type SummaryCompaction } from './compactionRun';
import { applyEntry, applyResponse, initialEngineState, type EngineState } from './state';
import { persistNote } from './persistNote';
import { applyTier0, tier0SettingsFor } from './tier0';
import { isCacheCold, originalTextIn, scheduleTiers, tierEditEntry, tierNote, tierVerb } from './tierScheduling';
import { previewTierSavings, type TierSavings } from './tierSavings';
import { collectToolResults } from './tiers';
import { decideSummary } from './summaryPolicy';
import { SummaryError } from './summary';


export class ContextEngine {
  private readonly settings: ContextDefaults;
  private readonly now: () => number;
  private readonly accounting: TokenAccounting;
  /** Changed only by `commit` and `onResponse`, both through the reducer. */
  private state: EngineState;
  /** The newest gauge, the base of the cheap estimates while a reply streams (a cache, not state). */
  private lastGauge: ContextGauge | undefined;

  constructor(private readonly options: ContextEngineOptions) {
    this.settings = { ...CONTEXT_DEFAULTS, ...options.settings };
    this.now = options.now ?? Date.now;
    this.state = initialEngineState(options.initial);
    this.accounting = new TokenAccounting(options.system.length + JSON.stringify(options.tools).length, this.settings.charsPerToken);
  }

  /** The window split; shrinks when the server proves a smaller window (learnWindow), never grows. */
  get budget(): ContextBudget {
    return contextBudget(windowInUse(this.options.window, this.state.learnedWindow), this.options.maxOutputTokens, this.options.autoCompactPercent);
  }

  get snapshot(): EngineSnapshot {
    return this.state;
  }

  get breakerOpen(): boolean {
    return this.state.consecutiveFailures >= this.settings.circuitBreakerFailures;
  }

  /** The live view as it would be sent now (no tiers applied). */
  liveView(): MessageParam[] {
    return buildLiveView(this.options.history(), this.state.live, this.options.transcript?.transcriptPath);
  }

  /** Writes a decision to the transcript, then applies it: the only way engine state changes. */
  private commit(entry: TranscriptEntry): void {
    this.options.transcript?.append(entry);
    this.state = applyEntry(this.state, entry);
  }

  private ts(): string {
    return new Date(this.now()).toISOString();
  }

  private emit(event: ContextEvent): void {
    try {
      this.options.emit(event);
    } catch (error) {
      this.options.logger.error('context event listener failed', error);
    }
  }

  // ---- token accounting -----------------------------------------------------------------------

  private get tokensPerChar(): number {
    return this.accounting.tokensPerChar(this.state.lastRequest);
  }

  /** used = the last request's counted prompt tokens + an estimate of what changed since. */
  estimateTokens(messages: readonly MessageParam[]): number {
    return this.accounting.estimate(this.state.lastRequest, messages);
  }

  gauge(messages: readonly MessageParam[] = this.liveView(), usedTokens: number = this.estimateTokens(messages), estimated = true): ContextGauge {
    const chars = contextBreakdownChars(this.options.system, this.options.tools, messages, this.options.toolTraits);
    this.lastGauge = gaugeOf(this.budget, usedTokens, scaleBreakdown(chars, usedTokens), this.state.cacheReadShare, this.costs(), estimated);
    return this.lastGauge;
  }

  /**
   * The gauge while a reply streams: the last gauge plus `chars` streamed so far, at the calibrated
   * ratio. Cheap (no walk over the history), so the session may call it a few times a second.
   */
  estimateWithPending(chars: number, thinkingChars = 0): ContextGauge {
    return withStreamedTokens(this.lastGauge ?? this.gauge(), Math.max(0, Math.round(chars * this.tokensPerChar)), this.costs(), Math.max(0, Math.round(thinkingChars * this.tokensPerChar)));
  }

  private costs(): GaugeCosts {
    return { sessionCostUsd: this.options.sessionCostUsd?.() ?? 0, subagentCostUsd: this.options.subagentCostUsd?.(), unpricedRequests: this.options.unpricedRequests?.() ?? 0, webSearches: this.options.webSearches?.() };
  }

  /** What tiers 1-3 and a summary would free if they ran now (the breakdown document). Read-only. */
  tierSavings(): TierSavings {
    const canonical = this.options.history();
    const keptFrom = this.state.live.boundary ? Math.min(this.state.live.boundary.keptFrom, canonical.length) : 0;
    const used = this.estimateTokens(this.liveView());
    const refs = collectToolResults(canonical, keptFrom, this.state.live.edits, this.options.toolTraits);
    const cacheCold = isCacheCold(this.state, this.now(), this.settings);
    const tiers = previewTierSavings(refs, used / Math.max(1, this.budget.effective), cacheCold, this.settings, originalTextIn(this.options.history()), this.tokensPerChar);
    return { usedTokens: used, tiers, summary: summarySavings(this.planningView(), canonical, used) };
  }

  // ---- tier 0 ---------------------------------------------------------------------------------

  /** Tier 0, before a result enters the history: persist > 30 KB (less on small windows), truncate what is still too long. */
  async onToolResult(input: { toolUseId: string; toolName: string; content: string }): Promise<string> {
    const outcome = await applyTier0(input, this.options.transcript?.toolResultsDir, tier0SettingsFor(this.budget.window, this.settings), this.options.logger, this.options.toolTraits);
    const tokens = (chars: number) => Math.round(chars * this.tokensPerChar);
    const tokensBefore = tokens(input.content.length);
    const tokensAfter = tokens(outcome.content.length);
    if (outcome.persisted) {
      // The token figures go with the entry, so a resumed chat shows the note the live one showed.
      this.commit({ type: 'persisted_output', ts: this.ts(), toolUseId: input.toolUseId, toolName: input.toolName, ...outcome.persisted, tokensBefore, tokensAfter });
      this.emit(persistNote({ toolName: input.toolName, toolUseId: input.toolUseId, file: outcome.persisted.file, tokensBefore, tokensAfter }));
    } else if (outcome.truncated) {
      this.emit({ type: 'tier', tier: 'truncate', items: 1, tokensBefore, tokensAfter, detail: userText('context.truncated', { tool: input.toolName }) });
    }
    return outcome.content;
  }

  // ---- before every request -------------------------------------------------------------------

  /** Applies due tiers, compacts when over the threshold, and returns what to send. */
  async prepareRequest(signal: AbortSignal): Promise<PreparedRequest> {
    this.assertBaseFits();
    // The first request has no counted predecessor: the API's free count anchors the estimate, so
    // a huge first message is measured, not guessed at 4 characters a token.
    if (!this.state.lastRequest) await this.reanchor(signal);
    // The model's `compact` call, once its result is in (the entry it wrote clears on any compaction).
    const scheduled = this.state.scheduledCompaction;
    if (scheduled && allToolUsesAnswered(this.options.history())) await this.compact(scheduled.focus, 'tool', signal);
    const pendingWaste = await this.runDueTiers(signal);
    let messages = this.liveView();
    let used = this.estimateTokens(messages);
    const proactive = used <= this.budget.threshold && !this.breakerOpen ? this.planCostSummary(used) : undefined;
    if (proactive) {
      this.options.logger.info(`summarizing before the threshold: ${proactive.why}`);
      await this.compact(undefined, 'auto', signal, { keptFrom: proactive.keptFrom });
      messages = this.liveView();
      used = this.estimateTokens(messages);
    }
    if (used > this.budget.threshold) {
      if (this.breakerOpen) {
        this.options.logger.warn(`context at ${used} tokens is over the auto-compact threshold (${this.budget.threshold}) but automatic compaction is paused after ${this.state.consecutiveFailures} failures`);
      } else {
        await this.compact(undefined, 'auto', signal);
        messages = this.liveView();
        used = this.estimateTokens(messages);
      }
    }
    return this.finishPrepare(messages, used, pendingWaste);
  }

  /**
   * Whether a summary now costs less over the rest of the session than the old rounds' skeleton it
   * removes (summaryPolicy.ts). It keeps the newest rounds whose results tiers 1-3 leave in view, and
   * restores no files: their reads were cleared from the view already, and each is one recall away.
   */
  private planCostSummary(used: number): { keptFrom: number; why: string } | undefined {
    const canonical = this.options.history();
    if (!allToolUsesAnswered(canonical)) return undefined;
    const previous = this.state.live.boundary ? Math.min(this.state.live.boundary.keptFrom, canonical.length) : 0;
    const refs = collectToolResults(canonical, previous, this.state.live.edits, this.options.toolTraits);
    const keep = Math.max(1, this.settings.keepRecentResults);
    if (refs.length <= keep) return undefined;
    // The kept part starts with the assistant message that made the oldest kept call.
    const keptFrom = refs[refs.length - keep]!.messageIndex - 1;
    if (keptFrom <= previous || canonical[keptFrom]?.role !== 'assistant') return undefined;
    const ratio = this.tokensPerChar;
    let clearable = 0;
    for (const ref of refs.slice(0, -keep)) {
      if (ref.traits.clearable === false || ref.edit?.action === 'clear') continue;
      clearable += Math.max(0, ref.currentChars - clearedText(ref.toolUseId).length);
    }
    const trial: CompactionRecord = { ...emptyBoundary(), trigger: 'auto', summary: '', keptFrom, ...todosAsOf(canonical) };
    const keptTokens = this.estimateTokens(liveViewOf(canonical, { boundary: trial, edits: this.state.live.edits }, this.options.transcript?.transcriptPath));
    const previousSummary = this.state.live.boundary?.summary;
    const decision = decideSummary({
      usedTokens: used,
      floorTokens: used - clearable * ratio,
      keptTokens,
      baseTokens: Math.round(this.accounting.baseChars * ratio),
      summaryOutputTokens: previousSummary ? Math.max(this.settings.summaryOutputEstimate / 2, Math.round((previousSummary.length * ratio) / 0.6)) : this.settings.summaryOutputEstimate,
      requestsSinceCompaction: this.state.requestsSinceCompaction,
      requestsInSession: canonical.reduce((count, message) => count + (message.role === 'assistant' ? 1 : 0), 0),
      prices: this.settings,
    });
    return decision.summarize ? { keptFrom, why: decision.why } : undefined;
  }

  /** The system prompt and tools must leave room for a conversation next to the reply reserve. */
  private assertBaseFits(): void {
    const baseTokens = Math.round(this.accounting.baseChars * this.tokensPerChar);
    const budget = this.budget;
    if (baseTokens >= budget.effective) {
      throw new ContextWindowTooSmallError(
        `The context window (${budget.window.toLocaleString('en-US')} tokens, ${budget.outputReserve.toLocaleString('en-US')} reserved for the reply) is smaller than the system prompt and tool definitions (~${baseTokens.toLocaleString('en-US')} tokens).`,
        userText('context.windowTooSmall', { window: budget.window, reserve: budget.outputReserve, base: baseTokens, windowSetting: settingRef('contextWindow'), outputSetting: settingRef('maxOutputTokens') }),
      );
    }
  }

  /** `pendingWaste`: the batching account this request's mark carries (tierScheduling.ts). */
  private finishPrepare(messages: MessageParam[], used: number, pendingWaste: number): PreparedRequest {
    const canonical = this.options.history();
    const mark = { canonicalCount: canonical.length, liveCount: messages.length, liveChars: this.accounting.liveChars(messages), pendingWaste };
    this.emit({ type: 'context', gauge: this.gauge(messages) });
    return { messages, cache: { system: true, messageIndexes: cacheBreakpoints(messages, canonical.length, this.state) }, maxTokens: this.budget.outputReserve, mark, estimatedTokens: used };
  }

  /** After a response: its usage becomes the token anchor. `atMs`: when it came (the session writes the same time in the usage entry). */
  onResponse(prepared: PreparedRequest, usage: UsageCounts, atMs: number = this.now()): void {
    // The session records the usage entry; its state change is the reducer's, applied here alike.
    this.state = applyResponse(this.state, prepared.mark, usage, atMs);
    const counted = promptTokensFromUsage(usage);
    // No usage reported: the gauge shows the estimate, marked as one, rather than a counted 0.
    this.emit({ type: 'context', gauge: counted > 0 ? this.gauge(prepared.messages, counted + usage.outputTokens, false) : this.gauge(prepared.messages) });
  }

  /**
   * Tiers 1-3: the scheduler decides; applied batches are recorded one tier at a time and the
   * estimate re-anchored. Returns the batching account the next request's mark carries.
   */
  private async runDueTiers(signal: AbortSignal): Promise<number> {
    const messages = this.liveView();
    const used = this.estimateTokens(messages);
    const decision = scheduleTiers({
      state: this.state,
      canonical: this.options.history(),
      messages,
      used,
      budget: this.budget,
      settings: this.settings,
      accounting: this.accounting,
      nowMs: this.now(),
      originalText: originalTextIn(this.options.history()),
      toolTraits: this.options.toolTraits,
    });
    if (decision.kind === 'none') return 0;
    if (decision.kind === 'defer') {
      this.options.logger.debug(
        `tiers: ${decision.edits} edit(s) freeing ~${Math.round(decision.savedTokens)} tokens deferred (rewrite costs ~${Math.round(decision.extraCost)}, reads paid on them so far ~${Math.round(this.state.pendingWaste)})`,
      );
      return decision.pendingWaste;
    }
    const ts = this.ts();
    let current = used;
    for (const batch of decision.batches) {
      const before = current;
      this.commit(tierEditEntry(batch, ts, before, this.tokensPerChar));
      current = this.estimateTokens(this.liveView());
      const verb = tierVerb(batch.tier);
      this.options.logger.info(`tier ${batch.tier}: ${verb} ${batch.edits.length} old tool result(s), ~${before} -> ~${current} tokens (${decision.why})`);
      this.emit({ type: 'tier', tier: batch.tier, items: batch.edits.length, tokensBefore: before, tokensAfter: current, detail: tierNote(batch.tier, batch.edits.length, decision.reason) });
    }
    await this.reanchor(signal);
    return 0;
  }

  // ---- compaction -----------------------------------------------------------------------------

  /** The model's `compact` tool: compaction runs before the next request, once its result is in. */
  requestCompactFromTool(focus: string | undefined): string {
    const used = this.estimateTokens(this.liveView());
    const effective = this.budget.effective;
    const recent = this.state.requestsSinceCompaction < this.settings.compactToolMinRequests;
    if (recent || used < effective * this.settings.compactToolMinShare) {
      return `Not compacted: the context holds only ~${used.toLocaleString('en-US')} tokens (${Math.round((used / effective) * 100)}% of the usable window)${recent ? ' and it was compacted moments ago' : ''}. Continue with the task; compaction also happens automatically when needed.`;
    }
    this.commit({ type: 'compact_scheduled', ts: this.ts(), ...(focus ? { focus } : {}) });
    return 'Compaction scheduled: the conversation will be summarized before your next step (the full transcript stays on disk). Continue with the task afterwards.';
  }

  /**
   * Tier 4 / manual / reactive: summarize, keep recent messages verbatim with valid pairing,
   * restore recently read files. On failure the history is untouched and the failure is reported.
   */
  async compact(focus: string | undefined, trigger: CompactionTrigger, signal: AbortSignal, costPlan?: { keptFrom: number }): Promise<CompactionOutcome> {
    const plan = costPlan ? { ok: true as const, keptFrom: costPlan.keptFrom } : planCompaction(this.planningView(), trigger === 'manual' || trigger === 'tool');
    if (!plan.ok && plan.blocker === 'waiting') return this.fail(trigger, { english: 'a tool call is still waiting for its result; compaction runs before the next request instead', text: userText('context.compactionWaiting', {}) }, false);
    if (!plan.ok) return { ok: false, message: NOTHING_TO_COMPACT };
    // PreCompact hooks add to the focus, or skip this compaction (a failure like any other).
    const hooked = await this.options.compactionHooks?.before(trigger, focus, signal);
    if (hooked && 'skip' in hooked) return this.fail(trigger, { english: hooked.skip, text: verbatim(hooked.skip) }, trigger !== 'manual' && trigger !== 'tool');
    if (hooked) focus = hooked.focus;
    let run: SummaryCompaction;
    try {
      const view = this.planningView();
      // A summary the cost rule asked for restores no files (planCostSummary).
      const planned = costPlan ? { ...view, restoreLimits: { ...view.restoreLimits, files: 0, budgetTokens: 0 } } : view;
      run = await runSummaryCompaction(planned, plan.keptFrom, focus, trigger, signal, {
        summary: {
          model: this.options.model,
          system: this.options.system,
          tools: this.options.tools,
          ...(this.options.serverTools ? { serverTools: this.options.serverTools } : {}),
          settings: this.settings,
          budget: this.budget,
          estimateTokens: (messages) => this.estimateTokens(messages),
          logger: this.options.logger,
          onModelUsage: this.options.onModelUsage,
        },
        workspace: this.options.workspace,
        countPrompt: (messages) => this.countPrompt(messages, signal),
      });
    } catch (error) {
      if (signal.aborted) return { ok: false, message: userText('context.compactionCancelled', {}) };
      // A model's or a summary's failure has its kind for the user; any other error's message is shown as it is.
      const text = error instanceof ModelError || error instanceof SummaryError ? error.text : verbatim(errorMessage(error));
      return this.fail(trigger, { english: errorMessage(error), text }, trigger !== 'manual' && trigger !== 'tool');
    }
    const { record, after, counted } = run;
    this.commitBoundary(record);
    if (counted !== undefined) this.anchorAt(after, counted);
    const { tokensBefore, tokensAfter, messagesSummarized, messagesKept } = record.stats;
    const message = userText('context.compacted', { trigger, before: tokensBefore, after: tokensAfter, summarized: messagesSummarized, kept: messagesKept, restored: record.restoredFiles.length });
    this.options.logger.info(userTextForLog(message));
    await this.options.compactionHooks?.after(trigger, record.summary ?? '', signal);
    return { ok: true, message, record };
  }

  /**
   * What `compact(focus, 'manual')` would do now — kept verbatim, summarized, restored, tokens
   * before -> after — without a request or a transcript entry ("Compact Conversation" shows it first).
   */
  previewCompaction(focus?: string): CompactionPreview {
    return previewCompaction(this.planningView(), focus);
  }

  /** The engine's state as the planners read it (taken at one moment: nothing changes while a plan runs). */
  private planningView(): PlanningView {
    return {
      canonical: this.options.history(),
      live: this.state.live,
      undoable: this.state.undoable,
      settings: this.settings,
      budget: this.budget,
      tokensPerChar: this.tokensPerChar,
      accounting: this.accounting,
      transcriptPath: this.options.transcript?.transcriptPath,
      workspace: this.settings.restoreFiles > 0 ? this.options.workspace : undefined,
      restoreLimits: restoreLimitsFor(this.settings, this.budget, this.state.live, this.tokensPerChar, this.options.toolTraits),
      logger: this.options.logger,
      liveView: () => this.liveView(),
      estimateTokens: (messages) => this.estimateTokens(messages),
    };
  }

  /** Whether the newest compaction can be undone now, and the live state it would restore. */
  checkUndo(): UndoPlan {
    return planUndo(this.planningView());
  }

  /**
   * "Undo Last Compaction": the live view goes back to the one before the newest compaction
   * (messages added since stay, tier edits stay). The circuit breaker's failure count is left
   * alone: the compaction did succeed.
   */
  async undoLastCompaction(signal: AbortSignal): Promise<UndoOutcome> {
    const check = this.checkUndo();
    if (!check.ok) return check;
    this.commit({ type: 'compaction_undo', ts: this.ts(), compactionId: check.compactionId, tokensBefore: check.tokensBefore, tokensAfter: check.tokensAfter });
    this.emit({ type: 'compaction_undone', compactionId: check.compactionId, tokensBefore: check.tokensBefore, tokensAfter: check.tokensAfter });
    // The compacted view's tokens-per-character does not fit the restored one: the API counts it.
    await this.reanchor(signal);
    const gauge = this.gauge();
    this.emit({ type: 'context', gauge });
    const message = userText('context.undone', { before: check.tokensBefore, after: gauge.usedTokens });
    this.options.logger.info(userTextForLog(message));
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
      return await count.call(this.options.model, { system: this.options.system, tools: [...this.options.tools], messages, ...(this.options.serverTools ? { serverTools: this.options.serverTools } : {}) }, signal);
    } catch (error) {
      this.options.logger.warn(`could not count the compacted context's tokens (the estimate stays calibrated on the last request): ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** A counted prompt becomes the token anchor, and the gauge shows it. */
  private anchorAt(messages: MessageParam[], tokens: number): void {
    const anchor = this.accounting.anchorOf(messages, this.options.history().length, tokens, this.state.lastRequest?.atMs ?? this.now());
    this.commit({ type: 'token_anchor', ts: this.ts(), anchor });
    this.emit({ type: 'context', gauge: this.gauge(messages) });
  }

  private commitBoundary(record: CompactionRecord): void {
    this.commit({ type: 'compaction', ts: this.ts(), compaction: record });
    this.emit(compactionEvent(record));
    this.emit({ type: 'context', gauge: this.gauge() });
  }

  /** `reason`: in English for the transcript and the log, and for the user. */
  private fail(trigger: CompactionTrigger, reason: { english: string; text: UserText }, counts: boolean): CompactionOutcome {
    this.commit({ type: 'compaction_failed', ts: this.ts(), trigger, reason: reason.english, counts });
    const failures = this.state.consecutiveFailures;
    const breakerOpen = this.breakerOpen;
    const hint = breakerOpen ? userText('context.breakerOpenHint', { failures }) : userText('context.compactionRetryHint', {});
    const message = userText('context.compactionFailed', { trigger, reason: reason.text });
    this.options.logger.error(`Compaction (${trigger}) failed: ${reason.english} (consecutive failures: ${failures})`);
    this.emit({ type: 'compaction_failed', trigger, message, consecutiveFailures: failures, breakerOpen, hint, actions: errorActionsFor('compaction_failed') });
    return { ok: false, message: userText('context.compactionFailedOutcome', { failure: message, hint }) };
  }

  // ---- prompt too long ------------------------------------------------------------------------

  /**
   * The server proved its window is `window` tokens (its "prompt is too long" named it): when that
   * is smaller than the current one, the budget shrinks to it — recorded first, so a fold (resume)
   * gives the same budget — and the user is told once. A refusal never grows the window. True when
   * the budget changed.
   */
  learnWindow(window: number): boolean {
    const assumed = this.budget.window;
    if (!Number.isFinite(window) || window <= 0 || Math.floor(window) >= assumed) return false;
    const learned = Math.floor(window);
    this.commit({ type: 'window_learned', ts: this.ts(), window: learned, assumed });
    const budget = this.budget;
    const message = windowLearnedMessage(learned, assumed);
    this.options.logger.warn(`${message} (budget: ${budget.outputReserve} reserved for the reply, auto-compact at ${budget.threshold})`);
    this.emit({ type: 'context_window_learned', window: learned, assumed, message: windowLearnedText(learned, assumed) });
    this.emit({ type: 'context', gauge: this.gauge() });
    return true;
  }

  /**
   * The API said the prompt is too long: first compact (once), then drop the oldest rounds
   * deterministically (tool pairs whole). Returns true when the live view shrank and a retry may fit.
   */
  async recoverFromTooLong(prepared: PreparedRequest, attempt: number, error: ModelError, signal: AbortSignal): Promise<boolean> {
    const plan = planOverflowRecovery({ state: this.state, mark: prepared.mark, attempt, error, assumedWindow: this.budget.window, breakerOpen: this.breakerOpen, nowMs: this.now() });
    if (plan.anchor) this.commit({ type: 'token_anchor', ts: this.ts(), anchor: plan.anchor });
    this.options.logger.warn(`prompt too long (${error.message}); recovery attempt ${attempt + 1}`);
    // Every check below (and every request after) uses the smaller window. When the prompt already
    // fits it (the server only counted the larger reply reserve), the retry asks for the smaller
    // reserve and nothing is compacted.
    if (plan.smallerWindow !== undefined && this.learnWindow(plan.smallerWindow)) {
      this.assertBaseFits();
      if (this.estimateTokens(this.liveView()) <= this.budget.effective) return true;
    }
    if (plan.compact) {
      const outcome = await this.compact(undefined, 'reactive', signal);
      if (outcome.ok && this.estimateTokens(this.liveView()) <= this.budget.effective) return true;
    }
    const record = planDrop(this.planningView());
    if (!record) return false;
    this.commitBoundary(record);
    return true;
  }
}

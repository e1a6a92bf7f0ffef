import { randomUUID } from 'node:crypto';
import { ContextEngine } from '../context/engine';
// `userText` is also send()'s parameter: the builder goes by another name here.
import { userText as kindText, type UserText } from '../texts/userText';
import type { ContextEngineOptions, PreparedRequest } from '../context/engineTypes';
import type { CompactionPreview, UndoOutcome } from '../context/compactionPreview';
import { silentLogger, type Logger } from '../logger';
import { ModelError } from '../model/errors';
import { textsOf } from '../model/content';
import type { MessageParam, ToolParam } from '../model/messages';
import { createPolicyApprover, type ApprovalPolicy, type Approver } from '../approvals/approval';
import type { TaskInput } from '../tools/taskInput';
import type { ToolContext, ToolResult } from '../tools/types';
import type { RecalledSlice, RecallSource } from '../tools/recallTypes';
import { TranscriptRecall } from '../recall/recallIndex';
import { withRecallReferences } from '../storage/recalledEntries';
import { toolTraitsLookup } from '../tools/registry';
import { formatCost, type RequestCost } from '../model/cost';
import type { UsageCounts as ModelUsage } from '../model/models';
import { errorActionsFor } from '../model/errorActions';
import { approvalSummaryOf, type AgentEvent, type TurnStopReason } from './events';
import { repairHistory } from './history';
import { errorEventFor } from './errorEvent';
import { streamingGauge } from './streamingGauge';
import { resolveAttachments, userMessageContent, type AttachmentSpec, type ResolvedAttachment } from './attachments';
import { subagentRecordData } from './subagentEvents';
import { TOOL_CARD_RECORD, toolCardRecordData } from './toolCards';
import type { AgentSessionOptions, ContextStrategy } from './sessionOptions';
import { toolUseIdsIn, toParams, turnStopReason } from './responseContent';
import { instructionNotes } from './instructions';
import { TurnThinking } from './thinkingTurn';
import { roundCalls, ToolRound, type CallGate, type RoundHost } from './round';
import { sessionEffectHandlers } from './effects';
import { PlanDecisionError, type SessionModes } from './modes';
import type { PlanDecisionKind } from '../todos/planDecision';
import { approvalNotification } from './hookRuns';

// The session's option types and response conversion live in their own modules; re-exported so callers keep importing from here.
export type { AgentSessionOptions, ContextConfig, ContextStrategy } from './sessionOptions';

/** A model that keeps asking for tools stops here; the user is told and can say "continue". */
export const DEFAULT_MAX_TOOL_ROUNDS_PER_TURN = 500;
/** What `evergreen.maxToolRoundsPerTurn` / `--max-tool-rounds` accept: long autonomous turns may need far more. */
export const MAX_TOOL_ROUNDS_RANGE = { min: 1, max: 100_000 } as const;
/** "Prompt is too long" recoveries tried for one request before the error reaches the user. */
const MAX_TOO_LONG_RECOVERIES = 2;

/** What one turn runs under besides the session's own settings. */
export interface TurnOptions {
  /** Refuses calls of tools this turn does not allow (a slash command's tool list); it never approves anything. */
  gate?: CallGate;
}

export class SessionBusyError extends Error {
  constructor() {
    super('The agent is still working on the previous message. Cancel it first or wait for it to finish.');
    this.name = 'SessionBusyError';
  }
}

/**
 * The agent loop: user message -> stream -> run tool calls -> feed results -> until the model
 * stops. The history is valid for the API after every step, including after a cancel.
 */
export class AgentSession {
  private readonly messages: MessageParam[];
  private running: AbortController | undefined;
  private sessionCostUsd = 0;
  /** The part of sessionCostUsd spent by subagents (the gauge shows it). */
  private subagentCostUsd = 0;
  /** Requests whose model had no known price: not in sessionCostUsd, shown as "price unknown". */
  private unpricedRequests = 0;
  /** Server-side web searches run (each billed apart from tokens; the gauge names them). */
  private webSearches = 0;
  private turnCounter = 0;
  private currentTurnId: string | undefined;
  /** The error the newest failed turn ended with (its `message` is English: a parent session reports it to its model). */
  private failure: unknown;
  readonly context: ContextStrategy;
  private readonly logger: Logger;
  private approvalPolicy: ApprovalPolicy;
  /** One clock for the engine and the transcript's timestamps, so a fold sees the times the engine saw. */
  private readonly now: () => number;
  /** `recall`'s history on disk (none without a store), and this round's recall results, stored as references. */
  private readonly recall: RecallSource | undefined;
  private readonly pendingRecalls = new Map<string, RecalledSlice>();
  private readonly thinking: TurnThinking;
  /** What the newest turn ran under (a retry of it runs under the same). */
  private lastTurn: TurnOptions = {};
  /** What every round of this session's turns is run with: the tools, tier 0, events, the effect handlers. */
  private readonly roundHost: RoundHost;

  constructor(private readonly options: AgentSessionOptions) {
    this.logger = options.logger ?? silentLogger;
    this.approvalPolicy = options.approvalPolicy;
    this.now = options.context.now ?? Date.now;
    this.recall = options.store ? new TranscriptRecall({ sessionDir: options.store.dir, logger: this.logger }) : undefined;
    this.thinking = new TurnThinking(options.thinking, (event) => this.emit(event), this.logger);
    const repaired = repairHistory(options.history ?? [], options.interruptedToolResult);
    this.messages = repaired.messages;
    if (repaired.repairs > 0 && options.history) {
      const ts = new Date(this.now()).toISOString();
      this.logger.warn(`resumed history needed ${repaired.repairs} repair(s)`);
      options.store?.append({ type: 'repair', ts, repairs: repaired.repairs, reason: 'resumed history was not valid for the API (a crash mid-turn)' });
      // A crash right after a tool_use leaves it unanswered at the end: the answer repair adds is
      // recorded, so the transcript alone replays to exactly this history.
      const last = repaired.messages.at(-1);
      if (last && last.role === 'user' && options.history.at(-1)?.role === 'assistant') options.store?.append({ type: 'message', ts, message: last });
    }
    this.sessionCostUsd = options.store?.meta.totals.costUsd ?? 0;
    this.unpricedRequests = options.store?.meta.totals.unpricedRequests ?? 0;
    this.webSearches = options.store?.meta.totals.webSearchRequests ?? 0;
    this.subagentCostUsd = options.subagentCostUsd ?? 0;
    const engineOptions: ContextEngineOptions = {
      history: () => this.messages,
      system: options.systemPrompt,
      tools: options.tools.list(),
      ...(options.serverTools ? { serverTools: options.serverTools } : {}),
      toolTraits: toolTraitsLookup(options.tools),
      model: options.client,
      window: options.context.window,
      maxOutputTokens: options.maxOutputTokens,
      autoCompactPercent: options.context.autoCompactPercent,
      ...(options.context.settings ? { settings: options.context.settings } : {}),
      transcript: options.store,
      workspace: options.workspace,
      logger: this.logger,
      now: this.now,
      emit: (event) => this.emit({ ...event, ...(this.currentTurnId ? { turnId: this.currentTurnId } : {}) }),
      onModelUsage: (usage, cost) => this.recordUsage(this.currentTurnId ?? 'compaction', usage, cost, undefined),
      sessionCostUsd: () => this.sessionCostUsd,
      unpricedRequests: () => this.unpricedRequests,
      webSearches: () => this.webSearches,
      subagentCostUsd: () => this.subagentCostUsd,
      initial: options.context.initial,
      ...(options.hooks ? { compactionHooks: options.hooks.compactionHooks() } : {}),
    };
    this.context = options.context.strategy ? options.context.strategy(engineOptions) : new ContextEngine(engineOptions);
    this.roundHost = {
      tools: options.tools,
      recordResult: (result) => this.context.onToolResult(result),
      recordCard: (card) => this.options.store?.append({ type: 'event', ts: new Date(this.now()).toISOString(), name: TOOL_CARD_RECORD, data: toolCardRecordData(card) }),
      emit: (event) => this.emit(event),
      toolContext: (turnId, toolUseId, signal, preApproved) => this.toolContext(turnId, toolUseId, signal, preApproved),
      ...(options.hooks ? { hooks: options.hooks } : {}),
      effects: sessionEffectHandlers({ emit: (event) => this.emit(event), pendingRecalls: this.pendingRecalls, recordWrite: options.recordWrite, logger: this.logger }),
      // A subfolder's AGENTS.md / CLAUDE.md rides in this turn after the results: recorded, so replays send the same.
      notesAfter: async ({ foldersRead, turnId }) => [
        ...(options.instructions ? await instructionNotes(options.instructions, foldersRead, () => this.context.liveView(), (event) => this.emit({ ...event, turnId }), this.logger) : []),
        // What the round's hooks added for the model (PreToolUse, PostToolUse), through tier 0.
        ...((await options.hooks?.takeNotes(turnId, this.tier0)) ?? []),
      ],
      refusal: (toolUse) => options.modes?.refusal(toolUse),
    };
  }

  /** Tier 0 for what the session adds besides tool results (attachments, hooks' text). */
  private readonly tier0 = (input: { toolUseId: string; toolName: string; content: string }): Promise<string> => this.context.onToolResult(input);

  /**
   * Manual compaction ("Compact Conversation", /compact): summarizes now, between turns. Refused
   * while a turn runs (the turn compacts by itself when needed).
   */
  async compact(focus?: string, signal?: AbortSignal): Promise<{ ok: boolean; message: UserText }> {
    if (this.running) throw new SessionBusyError();
    if (this.messages.length === 0) return { ok: false, message: kindText('context.conversationEmpty', {}) };
    return this.betweenTurns(signal, (running) => this.context.compact(focus?.trim() || undefined, 'manual', running));
  }

  /** What a manual compaction would do now (estimates; nothing is sent or recorded). */
  previewCompaction(focus?: string): CompactionPreview | undefined {
    return this.context.previewCompaction?.(focus?.trim() || undefined);
  }

  /**
   * "Undo Last Compaction": the view before the newest compaction comes back (see the engine).
   * Refused while a turn runs: the turn may be compacting or sending this very view.
   */
  async undoLastCompaction(signal?: AbortSignal): Promise<UndoOutcome> {
    if (this.running) return { ok: false, message: kindText('context.undoWhileWorking', {}) };
    const undo = this.context.undoLastCompaction;
    if (!undo) return { ok: false, message: kindText('context.undoUnsupported', {}) };
    return this.betweenTurns(signal, (running) => undo.call(this.context, running));
  }

  /**
   * Runs a history change between turns (a manual compaction, an undo) as the session's one running
   * task: cancel() and the caller's signal abort it, and meta.json is written after it.
   */
  private async betweenTurns<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.running = controller;
    try {
      return await work(controller.signal);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.running = undefined;
      await this.options.store?.flushMeta().catch((error: unknown) => this.logger.error('could not write meta.json', error));
    }
  }

  /** `origin`: a subagent's request, counted here so the parent's totals include its children. */
  private recordUsage(turnId: string, usage: ModelUsage, cost: RequestCost & { thinkingTokens?: number }, prepared: PreparedRequest | undefined, atMs: number = this.now(), origin?: { childId: string; parentToolUseId: string }): void {
    const { costUsd } = cost;
    const unpriced = cost.priceUnknown ? { priceUnknown: true as const } : {};
    this.sessionCostUsd += costUsd;
    if (origin) this.subagentCostUsd += costUsd;
    if (cost.priceUnknown) this.unpricedRequests++;
    this.webSearches += usage.webSearchRequests ?? 0;
    this.logger.info(
      `usage (${turnId}): ${usage.inputTokens} in, ${usage.cacheReadTokens} cache read, ${usage.cacheWriteTokens} cache write, ${usage.outputTokens} out, ${formatCost(costUsd, cost.priceUnknown ? 1 : 0, 4)}`,
    );
    this.options.store?.append({ type: 'usage', ts: new Date(atMs).toISOString(), model: this.model, usage, costUsd, ...unpriced, ...(prepared ? { request: prepared.mark } : {}), ...(origin ? { childId: origin.childId } : {}) });
    this.emit({ type: 'usage', turnId, model: this.model, usage, costUsd, ...unpriced, ...(cost.thinkingTokens !== undefined ? { thinkingTokens: cost.thinkingTokens } : {}), sessionCostUsd: this.sessionCostUsd, ...(this.unpricedRequests > 0 ? { sessionUnpricedRequests: this.unpricedRequests } : {}), ...origin });
  }

  get history(): readonly MessageParam[] {
    return this.messages;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  get model(): string {
    return this.options.client.model;
  }

  get systemPrompt(): string {
    return this.options.systemPrompt;
  }

  get toolSpecs(): ToolParam[] {
    return this.options.tools.list();
  }

  /** The session's mode (absent in a subagent): switch it between turns; the model is told with the next message. */
  get modes(): SessionModes | undefined {
    return this.options.modes;
  }

  /**
   * The user's decision on the proposed plan (the plan card's Build it / Keep planning): the mode
   * switches as the decision says and the next turn starts with it, `note` as the user's words.
   * Throws PlanDecisionError when no plan waits for it, SessionBusyError while a turn runs.
   */
  async decidePlan(decision: PlanDecisionKind, options: { toolUseId?: string; note?: string } = {}, signal?: AbortSignal): Promise<TurnStopReason> {
    if (this.running) throw new SessionBusyError();
    if (!this.options.modes) throw new PlanDecisionError('This session has no modes, so it has no plan to decide on.');
    return this.send(this.options.modes.decidePlan(this.messages, decision, options), signal);
  }

  /** Changed approval settings apply from the next tool call on, without restarting the session. */
  setApprovalPolicy(policy: ApprovalPolicy): void {
    this.approvalPolicy = policy;
    this.options.subagents?.setApprovalPolicy(policy);
  }

  get costUsd(): number {
    return this.sessionCostUsd;
  }

  /** Requests (this session's and its subagents') whose model had no known price: costUsd leaves them out. */
  get unpricedRequestCount(): number {
    return this.unpricedRequests;
  }

  /** Stops the running turn (stream and tools). Returns false when nothing was running. */
  cancel(): boolean {
    if (!this.running) return false;
    this.running.abort();
    return true;
  }

  /**
   * Runs one user turn to its end. Never throws for model or tool failures: they become events.
   * An attachment that cannot be read throws AttachmentError before anything is sent or recorded.
   */
  async send(userText: string, externalSignal?: AbortSignal, attachments: readonly AttachmentSpec[] = [], turn: TurnOptions = {}): Promise<TurnStopReason> {
    const text = userText.trim();
    if (!text) throw new Error('The message is empty.');
    if (this.running) throw new SessionBusyError();
    const resolved = attachments.length === 0 ? [] : await resolveAttachments(attachments, this.options.tools, this.toolContext('attachments', 'attachment', externalSignal ?? new AbortController().signal));
    return this.startTurn(text, externalSignal, resolved, turn);
  }

  /**
   * "Retry" after a failed turn: sends the conversation as it stands. If the last message is the
   * assistant's (a partial reply kept after the failure), "Continue." is added for it to go on.
   */
  async retry(externalSignal?: AbortSignal): Promise<TurnStopReason> {
    if (this.messages.length === 0) throw new Error('Nothing to retry: the conversation is empty.');
    // The retried turn keeps what it ran under (a command's tool list still narrows it).
    return this.startTurn(this.messages.at(-1)?.role === 'assistant' ? 'Continue.' : undefined, externalSignal, [], this.lastTurn);
  }

  /** `text` undefined: no new user message (a retry of what is already in the history). */
  private async startTurn(text: string | undefined, externalSignal?: AbortSignal, attachments: readonly ResolvedAttachment[] = [], turn: TurnOptions = {}): Promise<TurnStopReason> {
    if (this.running) throw new SessionBusyError();
    this.lastTurn = turn;
    const controller = new AbortController();
    const onExternalAbort = () => controller.abort();
    externalSignal?.addEventListener('abort', onExternalAbort, { once: true });
    if (externalSignal?.aborted) controller.abort();
    this.running = controller;
    const turnId = `turn-${++this.turnCounter}-${randomUUID().slice(0, 8)}`;
    this.currentTurnId = turnId;
    let stopReason: TurnStopReason;
    try {
      // A checkpoint failure never stops the turn (logged): that turn alone cannot be restored.
      const checkpoint = await this.options.checkpoints?.begin(text ?? '(retry)', this.options.store?.entryCount ?? 0).catch((error: unknown) => void this.logger.error('could not record a checkpoint before the turn', error));
      const chips = attachments.map(({ kind, label, image }) => ({ kind, label, ...(image ? { image: { mediaType: image.mediaType, data: image.data } } : {}) }));
      this.emit({ type: 'turn_started', turnId, userText: text ?? '', ...(checkpoint ? { checkpoint } : {}), ...(chips.length > 0 ? { attachments: chips } : {}) });
      // Inside the try: a failed transcript write must not leave the session busy forever. Attachments go through tier 0 like tool output.
      const persist = (attachment: ResolvedAttachment, index: number) => this.tier0({ toolUseId: `${turnId}-attachment-${index + 1}`, toolName: `@${attachment.kind}`, content: attachment.text });
      // UserPromptSubmit may block the prompt (nothing is recorded or sent) or add text around it.
      const hooked = text === undefined || !this.options.hooks ? { before: [], after: [] } : await this.options.hooks.beforePrompt(text, turnId, controller.signal, this.tier0);
      if ('blocked' in hooked) {
        stopReason = 'error';
        this.emit({ type: 'error', turnId, kind: 'hook_blocked', message: hooked.blocked.message, hint: hooked.blocked.hint, actions: errorActionsFor('hook_blocked') });
      } else {
        // A mode switch (and a plan decision) the model has not been told of opens the message: the prefix before it stays.
        if (text !== undefined) this.append({ role: 'user', content: [...(this.options.modes?.takeLeadingBlocks() ?? []), ...hooked.before, ...(await userMessageContent(text, attachments, persist)), ...hooked.after] }, checkpoint);
        stopReason = await this.runTurn(turnId, controller.signal, turn);
      }
    } catch (error) {
      stopReason = controller.signal.aborted ? 'cancelled' : 'error';
      if (stopReason === 'error') this.emitError(turnId, error);
    }
    await this.options.checkpoints?.end().catch((error: unknown) => this.logger.error('could not record the checkpoint after the turn', error));
    if (stopReason !== 'cancelled') this.options.hooks?.notify('idle_prompt', 'Evergreen is waiting for your input', turnId);
    try {
      await this.options.store?.flushMeta().catch((error: unknown) => this.logger.error('could not write meta.json', error)); // first: a session list opened at "turn over" shows it
      this.emit({ type: 'turn_finished', turnId, stopReason, ...(stopReason === 'context_window_exceeded' ? { actions: errorActionsFor('context_window_exceeded') } : {}) });
    } finally {
      externalSignal?.removeEventListener('abort', onExternalAbort);
      this.running = undefined;
      this.currentTurnId = undefined;
    }
    return stopReason;
  }

  private async runTurn(turnId: string, signal: AbortSignal, turn: TurnOptions): Promise<TurnStopReason> {
    const maxRounds = this.options.maxToolRoundsPerTurn ?? DEFAULT_MAX_TOOL_ROUNDS_PER_TURN;
    let tooLongRecoveries = 0;
    /** Times Stop hooks kept this turn going (their loop guard counts them). */
    let stopContinuations = 0;
    for (let requestIndex = 0, rounds = 0; ; requestIndex++) {
      if (signal.aborted) return 'cancelled';
      // Before every request, also deep inside a long tool-driven turn: tiers and compaction.
      const prepared = await this.context.prepareRequest(signal);
      if (signal.aborted) return 'cancelled';
      this.emit({ type: 'request_started', turnId, requestIndex });
      // What was sent, never its content: the log may be shared in a bug report.
      this.logger.info(`request ${requestIndex} of ${turnId}: ${this.model}, ${prepared.messages.length} messages, ~${prepared.estimatedTokens} tokens, max ${prepared.maxTokens} out`);
      let partialText = '';
      const streamed = streamingGauge({
        now: this.now,
        estimate: this.context.estimateWithPending?.bind(this.context),
        publish: (gauge) => this.emit({ type: 'context', gauge, ...(this.currentTurnId ? { turnId: this.currentTurnId } : {}) }),
      });
      let response;
      try {
        response = await this.options.client.stream(
          { system: this.options.systemPrompt, tools: this.options.tools.list(), messages: prepared.messages, maxTokens: prepared.maxTokens, cache: prepared.cache, ...this.thinking.forRequest(turnId, prepared.messages), ...(this.options.serverTools ? { serverTools: this.options.serverTools } : {}) },
          {
            onNotice: (message) => this.thinking.notice(turnId, { level: 'warning', message }),
            onText: (delta) => {
              partialText += delta;
              this.emit({ type: 'text_delta', turnId, text: delta });
              streamed.add(delta.length);
            },
            onThinking: (delta) => {
              this.emit({ type: 'thinking_delta', turnId, text: delta });
              streamed.add(delta.length, 'thinking');
            },
            onRetry: ({ attempt, delayMs, reason }) => {
              partialText = '';
              streamed.reset();
              this.logger.warn(`request ${requestIndex} retry ${attempt} in ${Math.round(delayMs)} ms: ${reason.english}`);
              this.emit({ type: 'retrying', turnId, attempt, delayMs, reason: reason.text });
            },
          },
          signal,
        );
      } catch (error) {
        if (error instanceof ModelError && error.kind === 'prompt_too_long' && tooLongRecoveries < MAX_TOO_LONG_RECOVERIES) {
          // Reactive tier: compact (or drop the oldest rounds) and send again.
          if (await this.context.recoverFromTooLong(prepared, tooLongRecoveries++, error, signal)) continue;
        }
        // What the user already saw stays in the history (cancel or final failure); an unfinished
        // tool call is dropped, it was never run and is never sent back.
        if (partialText.trim()) this.append({ role: 'assistant', content: [{ type: 'text', text: partialText }] });
        if (error instanceof ModelError && error.kind === 'cancelled') return 'cancelled';
        throw error;
      }
      tooLongRecoveries = 0;
      // One timestamp for the engine's cache clock and the usage entry, so a fold sees the same time.
      const respondedAt = this.now();
      this.context.onResponse(prepared, response.usage, respondedAt);
      this.recordUsage(turnId, response.usage, response, prepared, respondedAt);

      const content = toParams(response.content, toolUseIdsIn(this.messages));
      for (const block of response.content) if (block.type === 'redacted_thinking') this.emit({ type: 'thinking_redacted', turnId });
      const calls = roundCalls(response, content); // before the message is recorded: an unusable input is recorded as {}
      if (content.length > 0) this.append({ role: 'assistant', content });
      if (calls.length === 0) {
        // The API paused its own tool loop (server-side web search) mid-reply: the reply goes back
        // as it is, as the last message, and the model continues it. It counts as a round.
        if (response.stopReason === 'pause_turn') {
          if (++rounds > maxRounds) return this.roundLimitReached(turnId, maxRounds);
          continue;
        }
        // Stop hooks may keep the turn going, their reason its next instruction (at most MAX_STOP_HOOK_CONTINUATIONS times).
        const goOn = response.stopReason === 'end_turn' ? await this.options.hooks?.onStop(turnId, textsOf({ role: 'assistant', content }).join('\n'), stopContinuations, signal, this.tier0) : undefined;
        if (!goOn || signal.aborted) return turnStopReason(response.stopReason);
        stopContinuations++;
        this.append({ role: 'user', content: goOn });
        continue;
      }
      const truncated = response.stopReason === 'max_tokens' || response.stopReason === 'model_context_window_exceeded';
      const overLimit = ++rounds > maxRounds;
      const round = new ToolRound(this.roundHost, { turnId, calls, signal, stop: truncated ? 'max_tokens' : overLimit ? 'round_limit' : undefined, gate: turn.gate });
      this.append({ role: 'user', content: await round.run() });
      if (signal.aborted) return 'cancelled';
      if (round.endsTurn) return 'end_turn';
      // A hook's `continue: false` ends the turn once the round's results are in.
      if (this.options.hooks?.takeStop(turnId) !== undefined) return 'end_turn';
      if (overLimit) return this.roundLimitReached(turnId, maxRounds);
    }
  }

  private roundLimitReached(turnId: string, maxRounds: number): TurnStopReason {
    this.emit({
      type: 'error',
      turnId,
      kind: 'tool_round_limit',
      message: kindText('turns.roundLimit', { rounds: maxRounds }),
      hint: kindText('turns.roundLimitHint', {}),
      actions: errorActionsFor('tool_round_limit'),
    });
    return 'error';
  }

  /** Files, approvals and the capabilities this session offers, for one call (a round adds `report`). */
  private toolContext(turnId: string, toolUseId: string, signal: AbortSignal, preApproved = false): ToolContext {
    const interactive: Approver = {
      requestApproval: async (request, approvalSignal) => {
        this.emit({ type: 'approval_needed', turnId, toolUseId, request: approvalSummaryOf(request) });
        this.options.hooks?.notify('permission_prompt', approvalNotification(request), turnId);
        const decision = await this.options.approver.requestApproval(request, approvalSignal, { toolUseId });
        this.emit({ type: 'approval_resolved', turnId, toolUseId, approved: decision.approved, ...(decision.approved && decision.always ? { always: true } : {}) });
        return decision;
      },
    };
    const approver = createPolicyApprover(this.approvalPolicy, interactive, { preApproved });
    const restrictions = this.options.modes?.restrictions();
    return {
      workspace: this.options.workspace,
      toolUseId,
      signal,
      onProgress: (chunk) => this.emit({ type: 'tool_call_progress', turnId, toolUseId, chunk }),
      approve: (request) => approver.requestApproval(request, signal),
      requestCompact: async (focus: string | undefined) => this.context.requestCompactFromTool(focus),
      ...(this.options.subagents ? { runSubagent: (input: TaskInput) => this.runSubagent(input, turnId, toolUseId, signal) } : {}),
      ...(this.recall ? { recall: this.recall } : {}),
      ...(restrictions ? { restrictions } : {}),
    };
  }

  private runSubagent(input: TaskInput, turnId: string, toolUseId: string, signal: AbortSignal): Promise<ToolResult> {
    const runner = this.options.subagents;
    if (!runner) return Promise.resolve({ content: 'Subagents are not available here.', isError: true });
    return runner.run(input, {
      turnId,
      toolUseId,
      signal,
      approvalPolicy: this.approvalPolicy,
      emit: (event) => this.emit(event),
      record: (event) => this.options.store?.append({ type: 'event', ts: new Date(this.now()).toISOString(), name: event.type, data: subagentRecordData(event) }),
      recordUsage: (usage, cost, childId) => this.recordUsage(turnId, usage, cost, undefined, this.now(), { childId, parentToolUseId: toolUseId }),
      ...(this.options.recordWrite ? { recordWrite: this.options.recordWrite } : {}),
    });
  }

  private append(message: MessageParam, checkpoint?: number): void {
    this.messages.push(message);
    // Which back end and model wrote each reply: a session may change provider on its way.
    const origin = message.role === 'assistant' ? { provider: this.options.client.provider, model: this.options.client.model } : {};
    const stored = withRecallReferences(message, this.pendingRecalls); // a large recall: a reference, not a copy
    this.options.store?.append({ type: 'message', ts: new Date(this.now()).toISOString(), message: stored.message, ...origin, ...(checkpoint !== undefined ? { checkpoint } : {}), ...(stored.recalls ? { recalls: stored.recalls } : {}) });
  }

  private emit(event: AgentEvent): void {
    try {
      this.options.onEvent(event);
    } catch (error) {
      // A failing listener (a closed webview) must not break the loop or the history.
      this.logger.error(`event listener failed on ${event.type}`, error);
    }
  }

  /** The error the newest failed turn ended with; undefined when none did (or it ended otherwise, e.g. at the round limit). */
  get lastError(): unknown {
    return this.failure;
  }

  private emitError(turnId: string, error: unknown): void {
    this.failure = error;
    this.logger.error('turn failed', error);
    this.emit(errorEventFor(turnId, error));
  }
}

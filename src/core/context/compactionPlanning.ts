/**
 * Compaction planning, read-only: what a summary would free (the breakdown's tier 4), what a manual
 * compaction would do (its preview), and which boundary a deterministic drop sets after a refused
 * prompt. Each works on a snapshot of the engine's state (PlanningView) and records nothing; the
 * engine commits what it decides.
 */
import { randomUUID } from 'node:crypto';
import type { MessageParam } from '../model/messages';
import { toolUsesOf } from '../model/content';
import type { Logger } from '../logger';
import type { CompactionRecord } from '../storage/transcript';
import type { ToolTraitsLookup } from '../tools/types';
import type { Workspace } from '../workspace/workspace';
import { allToolUsesAnswered, boundedCarry, emptyBoundary, todosAsOf, userTexts } from './compactionHelpers';
import type { TokenAccounting } from './accounting';
import type { CompactionBlocker, CompactionPreview, UndoPoint } from './compactionPreview';
import type { ContextDefaults } from './defaults';
import type { ContextBudget } from './gauge';
import { buildLiveView, isCleanStart, type LiveState } from './liveView';
import { restoreCandidates, restoreEstimateTokens, type RestoreLimits } from './restoreFiles';
import type { TierSavings } from './tierSavings';
import { userText, type UserText } from '../texts/userText';

export const NOTHING_TO_COMPACT: UserText = userText('context.nothingToCompact', {});

/** The engine's state a plan reads (taken at one moment: nothing changes while a plan runs). */
export interface PlanningView {
  canonical: readonly MessageParam[];
  live: LiveState;
  settings: ContextDefaults;
  budget: ContextBudget;
  tokensPerChar: number;
  /** Sizes of messages and of the system prompt and tools (`baseChars`, sent with every request). */
  accounting: TokenAccounting;
  transcriptPath: string | undefined;
  /** The workspace files are restored from; undefined when restoring is off. */
  workspace: Workspace | undefined;
  restoreLimits: RestoreLimits;
  logger: Logger;
  liveView(): MessageParam[];
  estimateTokens(messages: readonly MessageParam[]): number;
  /** The newest compaction, while it can still be undone. */
  undoable: UndoPoint | undefined;
}

/** Why a compaction cannot run now, in the words each caller shows. */
export type { CompactionBlocker };

/**
 * The one decision every compaction shares (the preview, the breakdown's tier 4, and manual, tool,
 * automatic and reactive compaction): the canonical index from which messages stay verbatim.
 * Asked for by the user or the model (`explicit`), everything that may go is summarized (only an
 * unfinished round stays verbatim); automatic compaction keeps the newest messages up to the keep budget.
 */
export function planCompaction(view: PlanningView, explicit: boolean): { ok: true; keptFrom: number } | { ok: false; blocker: CompactionBlocker } {
  if (view.canonical.length === 0) return { ok: false, blocker: 'empty' };
  if (!allToolUsesAnswered(view.canonical)) return { ok: false, blocker: 'waiting' };
  const keptFrom = chooseKeptFrom(view, explicit ? 0 : view.settings.keepVerbatimShare);
  return keptFrom === undefined ? { ok: false, blocker: 'nothing' } : { ok: true, keptFrom };
}

/**
 * The canonical index from which messages stay verbatim: a clean start (no tool pair split), as
 * early as the keep budget allows, at least the newest round, and past the current boundary.
 */
function chooseKeptFrom(view: PlanningView, keepShare: number): number | undefined {
  const canonical = view.canonical;
  const n = canonical.length;
  const previous = view.live.boundary?.keptFrom ?? 0;
  const last = canonical[n - 1]!;
  let maxK = n;
  if (last.role === 'user') maxK = isCleanStart(last) ? n - 1 : n - 2;
  if (maxK <= previous) return undefined;
  const budgetTokens = Math.floor(view.budget.effective * keepShare);
  let best: number | undefined;
  let suffix = 0;
  for (let index = n - 1; index > previous; index--) {
    suffix += view.accounting.charsOf(canonical[index]!) * view.tokensPerChar;
    if (index > maxK) continue;
    if (!isCleanStart(canonical[index]!)) continue;
    if (best === undefined || suffix <= budgetTokens) best = index;
    if (suffix > budgetTokens) break;
  }
  return best;
}

export type UndoPlan = { ok: true; state: LiveState; tokensBefore: number; tokensAfter: number; compactionId: string } | { ok: false; message: UserText };

/**
 * Whether the newest compaction can be undone now, and the live state it would restore. The
 * restored view's size is the larger of its estimate at today's calibration and the tokens
 * before that compaction plus what was added since: the undo must not overflow the window or
 * be compacted again by the very next request.
 */
export function planUndo(view: PlanningView): UndoPlan {
  const undoable = view.undoable;
  const boundary = view.live.boundary;
  if (!undoable || !boundary || boundary.id !== undoable.compactionId) {
    return { ok: false, message: userText('context.nothingToUndo', {}) };
  }
  const state: LiveState = { boundary: undoable.previous, edits: view.live.edits };
  const tokensBefore = view.estimateTokens(view.liveView());
  const restored = view.estimateTokens(buildLiveView(view.canonical, state, view.transcriptPath));
  const grown = boundary.stats.tokensBefore + Math.max(0, tokensBefore - boundary.stats.tokensAfter);
  const tokensAfter = Math.max(restored, grown);
  if (tokensAfter > view.budget.threshold) {
    return { ok: false, message: userText('context.undoOverThreshold', { tokens: tokensAfter, threshold: view.budget.threshold, window: view.budget.window }) };
  }
  return { ok: true, state, tokensBefore, tokensAfter, compactionId: undoable.compactionId };
}

/**
 * Tier 4 as automatic compaction would run now: the kept messages verbatim plus the recently read
 * files it restores (estimated from their last reads), and a summary of up to its reply budget.
 */
export function summarySavings(view: PlanningView, canonical: readonly MessageParam[], usedBefore: number): TierSavings['summary'] {
  const plan = planCompaction(view, false);
  if (!plan.ok) return { possible: false, reason: userText(plan.blocker === 'waiting' ? 'context.summaryWaitsForTool' : 'context.summaryNothingYet', {}) };
  const keptFrom = plan.keptFrom;
  const trial: CompactionRecord = { ...emptyBoundary(), trigger: 'auto', summary: '', keptFrom, ...todosAsOf(canonical) };
  const keptTokens = view.estimateTokens(buildLiveView(canonical, { boundary: trial, edits: view.live.edits }, view.transcriptPath));
  const restoredTokens = restoreEstimateTokens(canonical, keptFrom, view.restoreLimits);
  const summaryMaxTokens = Math.max(1, Math.min(view.settings.summaryMaxTokens, view.budget.outputReserve));
  const low = keptTokens + restoredTokens;
  return {
    possible: true,
    messagesSummarized: keptFrom - (view.live.boundary?.keptFrom ?? 0),
    messagesKept: canonical.length - keptFrom,
    keptTokens,
    restoredTokens,
    summaryMaxTokens,
    tokensAfter: { min: low, max: low + summaryMaxTokens },
    frees: { min: Math.max(0, usedBefore - low - summaryMaxTokens), max: Math.max(0, usedBefore - low) },
  };
}

const PREVIEW_BLOCKED: Readonly<Record<CompactionBlocker, UserText>> = {
  empty: userText('context.conversationEmpty', {}),
  waiting: userText('context.compactWhenTurnEnds', {}),
  nothing: NOTHING_TO_COMPACT,
};

/**
 * What `compact(focus, 'manual')` would do now — kept verbatim, summarized, restored, tokens
 * before -> after — without a request or a transcript entry ("Compact Conversation" shows it first).
 */
export function previewCompaction(view: PlanningView, focus?: string): CompactionPreview {
  const canonical = view.canonical;
  const messages = view.liveView();
  const tokensBefore = view.estimateTokens(messages);
  const summaryMaxTokens = Math.max(1, Math.min(view.settings.summaryMaxTokens, view.budget.outputReserve));
  const nothing = (blocker: CompactionBlocker): CompactionPreview => ({
    ok: false,
    blocker,
    message: PREVIEW_BLOCKED[blocker],
    focus,
    tokensBefore,
    summarized: { messages: 0, tokens: 0 },
    kept: { messages: canonical.length, tokens: tokensBefore },
    restoredFiles: [],
    summaryMaxTokens,
    tokensAfter: tokensBefore,
  });
  const plan = planCompaction(view, true);
  if (!plan.ok) return nothing(plan.blocker);
  const keptFrom = plan.keptFrom;
  const ratio = view.tokensPerChar;
  const perFileTokens = view.settings.restoreFileTokens;
  let restoreBudget = view.workspace ? view.restoreLimits.budgetTokens : 0;
  const restoredFiles: CompactionPreview['restoredFiles'] = [];
  for (const candidate of view.workspace ? restoreCandidates(canonical, keptFrom, view.restoreLimits) : []) {
    // The newest read's size stands in for the file's (it is re-read from disk when the summary lands).
    const tokens = Math.min(perFileTokens, restoreBudget, Math.ceil(candidate.readChars * ratio));
    if (tokens * view.settings.charsPerToken < view.settings.restoreMinChars) continue;
    restoredFiles.push({ path: candidate.path, tokens });
    restoreBudget -= tokens;
  }
  const keptOnly: CompactionRecord = { ...emptyBoundary(), trigger: 'manual', keptFrom, ...todosAsOf(canonical) };
  const keptView = buildLiveView(canonical, { boundary: keptOnly, edits: view.live.edits }, view.transcriptPath);
  const withKept = view.estimateTokens(keptView);
  const baseTokens = Math.round(view.accounting.baseChars * ratio);
  const restoredTokens = restoredFiles.reduce((sum, file) => sum + file.tokens, 0);
  const summarizedMessages = keptFrom - (view.live.boundary?.keptFrom ?? 0);
  const tokensAfter = withKept + restoredTokens;
  return {
    ok: true,
    message: userText('context.compactPreview', { before: tokensBefore, after: tokensAfter, summarized: summarizedMessages, kept: canonical.length - keptFrom, restored: restoredFiles.length }),
    focus,
    tokensBefore,
    summarized: { messages: summarizedMessages, tokens: Math.max(0, tokensBefore - withKept) },
    kept: { messages: canonical.length - keptFrom, tokens: Math.max(0, withKept - baseTokens) },
    restoredFiles,
    summaryMaxTokens,
    tokensAfter,
  };
}

/**
 * The deterministic drop after a refused prompt: the boundary that keeps the fewest newest rounds
 * (never splitting a tool pair) that fit the auto-compact threshold, the user's dropped words carried
 * verbatim; undefined (and logged) when no older round is left to drop. Nothing is recorded here.
 */
export function planDrop(view: PlanningView): CompactionRecord | undefined {
  const canonical = view.canonical;
  const target = view.budget.threshold;
  const previous = view.live.boundary;
  const from = previous?.keptFrom ?? 0;
  const last = canonical.at(-1);
  const maxK = !last ? 0 : last.role === 'user' ? (isCleanStart(last) ? canonical.length - 1 : canonical.length - 2) : canonical.length;
  // The user's own words in the dropped range travel along verbatim: a drop never loses a request.
  const carryBudget = Math.floor(view.budget.effective * view.settings.keepVerbatimShare / view.tokensPerChar);
  const carried = (until: number) => boundedCarry([...(previous?.userMessages ?? []), ...userTexts(canonical.slice(from, until))], carryBudget);
  // The dropped rounds' tool calls stay listed by id: each result is one `recall` away.
  const dropped = (until: number) => droppedCallsOf(previous?.droppedCalls, canonical.slice(from, until));
  let keptFrom: number | undefined;
  for (let index = from + 1; index <= Math.min(maxK, canonical.length - 1); index++) {
    if (!isCleanStart(canonical[index]!)) continue;
    keptFrom = index;
    const trial: LiveState = { boundary: { ...(previous ?? emptyBoundary()), keptFrom, userMessages: carried(index), droppedCalls: dropped(index) }, edits: view.live.edits };
    if (view.estimateTokens(buildLiveView(canonical, trial, view.transcriptPath)) <= target) break;
  }
  if (keptFrom === undefined) {
    view.logger.error('prompt too long and no older round is left to drop');
    return undefined;
  }
  const tokensBefore = view.estimateTokens(view.liveView());
  const record: CompactionRecord = {
    id: randomUUID(),
    trigger: 'drop',
    ...(previous?.summary !== undefined ? { summary: previous.summary } : {}),
    ...(previous?.focus ? { focus: previous.focus } : {}),
    keptFrom,
    restoredFiles: previous?.restoredFiles ?? [],
    ...(carried(keptFrom).length > 0 ? { userMessages: carried(keptFrom) } : {}),
    ...(dropped(keptFrom).calls.length > 0 ? { droppedCalls: dropped(keptFrom) } : {}),
    ...todosAsOf(canonical),
    stats: { tokensBefore, tokensAfter: 0, messagesSummarized: keptFrom - from, messagesKept: canonical.length - keptFrom, summaryRequests: 0 },
  };
  record.stats.tokensAfter = view.estimateTokens(buildLiveView(canonical, { boundary: record, edits: view.live.edits }, view.transcriptPath));
  view.logger.warn(`dropped the ${keptFrom - from} oldest message(s) from the live view to fit the window (~${tokensBefore} -> ~${record.stats.tokensAfter} tokens)`);
  return record;
}

/** How many recently read files a summary restores, and within what budget. */
export function restoreLimitsFor(settings: ContextDefaults, budget: ContextBudget, live: LiveState, tokensPerChar: number, toolTraits: ToolTraitsLookup | undefined): RestoreLimits {
  const budgetTokens = Math.min(settings.restoreFiles * settings.restoreFileTokens, Math.floor(budget.effective * settings.keepVerbatimShare));
  return { from: live.boundary?.keptFrom ?? 0, files: settings.restoreFiles, fileTokens: settings.restoreFileTokens, budgetTokens, tokensPerChar, minChars: settings.restoreMinChars, toolTraits };
}

/** A drop lists at most this many dropped tool calls (the newest); the rest are counted, and found with `recall {query}`. */
export const DROPPED_CALLS_LISTED = 200;

/** The tool calls an earlier drop listed plus those in `messages`, newest kept within the bound. */
export function droppedCallsOf(earlier: CompactionRecord['droppedCalls'], messages: readonly MessageParam[]): NonNullable<CompactionRecord['droppedCalls']> {
  const all = [...(earlier?.calls ?? []), ...messages.flatMap((message) => toolUsesOf(message).map((use) => ({ id: use.id, name: use.name })))];
  const keep = all.slice(-DROPPED_CALLS_LISTED);
  return { calls: keep, omitted: (earlier?.omitted ?? 0) + all.length - keep.length };
}

/**
 * Compaction planning, read-only: what a summary would free (the breakdown's tier 4), what a manual
 * compaction would do (its preview), and which boundary a deterministic drop sets after a refused
 * prompt. Each works on a snapshot of the engine's state (PlanningView) and records nothing; the
 * engine commits what it decides.
 */
import { randomUUID } from 'node:crypto';
import type { MessageParam } from '../model/messages';
import type { Logger } from '../logger';
import type { CompactionRecord } from '../storage/transcript';
import type { Workspace } from '../tools/workspace';
import { allToolUsesAnswered, boundedCarry, emptyBoundary, todosAsOf, userTexts } from './compactionHelpers';
import type { CompactionPreview } from './compactionPreview';
import type { ContextDefaults } from './defaults';
import type { ContextBudget } from './gauge';
import { buildLiveView, isCleanStart, type LiveState } from './liveView';
import { restoreCandidates, restoreEstimateTokens, type RestoreLimits } from './restoreFiles';
import type { TierSavings } from './tierSavings';

/** The engine's state a plan reads (taken at one moment: nothing changes while a plan runs). */
export interface PlanningView {
  canonical: readonly MessageParam[];
  live: LiveState;
  settings: ContextDefaults;
  budget: ContextBudget;
  tokensPerChar: number;
  /** Characters of the system prompt and tools (sent with every request). */
  baseChars: number;
  transcriptPath: string | undefined;
  /** The workspace files are restored from; undefined when restoring is off. */
  workspace: Workspace | undefined;
  restoreLimits: RestoreLimits;
  logger: Logger;
  liveView(): MessageParam[];
  estimateTokens(messages: readonly MessageParam[]): number;
  chooseKeptFrom(canonical: readonly MessageParam[], keepShare?: number): number | undefined;
}

/**
 * Tier 4 as automatic compaction would run now: the kept messages verbatim plus the recently read
 * files it restores (estimated from their last reads), and a summary of up to its reply budget.
 */
export function summarySavings(view: PlanningView, canonical: readonly MessageParam[], usedBefore: number): TierSavings['summary'] {
  if (!allToolUsesAnswered(canonical)) return { possible: false, reason: 'a tool call is waiting for its result' };
  const keptFrom = view.chooseKeptFrom(canonical);
  if (keptFrom === undefined) return { possible: false, reason: 'nothing to summarize yet' };
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

/**
 * What `compact(focus, 'manual')` would do now — kept verbatim, summarized, restored, tokens
 * before -> after — without a request or a transcript entry ("Compact Conversation" shows it first).
 */
export function previewCompaction(view: PlanningView, focus?: string): CompactionPreview {
  const canonical = view.canonical;
  const messages = view.liveView();
  const tokensBefore = view.estimateTokens(messages);
  const summaryMaxTokens = Math.max(1, Math.min(view.settings.summaryMaxTokens, view.budget.outputReserve));
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
  const keptFrom = view.chooseKeptFrom(canonical, 0);
  if (keptFrom === undefined) return nothing('Nothing to compact yet: every message is already as short as it can be.');
  const ratio = view.tokensPerChar;
  const perFileTokens = view.settings.restoreFileTokens;
  let restoreBudget = view.workspace ? view.restoreLimits.budgetTokens : 0;
  const restoredFiles: CompactionPreview['restoredFiles'] = [];
  for (const candidate of view.workspace ? restoreCandidates(canonical, keptFrom, view.restoreLimits) : []) {
    // The newest read's size stands in for the file's (it is re-read from disk when the summary lands).
    const tokens = Math.min(perFileTokens, restoreBudget, Math.ceil(candidate.readChars * ratio));
    if (tokens * view.settings.charsPerToken < 200) continue;
    restoredFiles.push({ path: candidate.path, tokens });
    restoreBudget -= tokens;
  }
  const keptOnly: CompactionRecord = { ...emptyBoundary(), trigger: 'manual', keptFrom, ...todosAsOf(canonical) };
  const keptView = buildLiveView(canonical, { boundary: keptOnly, edits: view.live.edits }, view.transcriptPath);
  const withKept = view.estimateTokens(keptView);
  const baseTokens = Math.round(view.baseChars * ratio);
  const restoredTokens = restoredFiles.reduce((sum, file) => sum + file.tokens, 0);
  const preview: CompactionPreview = {
    ok: true,
    message: '',
    focus,
    tokensBefore,
    summarized: { messages: keptFrom - (view.live.boundary?.keptFrom ?? 0), tokens: Math.max(0, tokensBefore - withKept) },
    kept: { messages: canonical.length - keptFrom, tokens: Math.max(0, withKept - baseTokens) },
    restoredFiles,
    summaryMaxTokens,
    tokensAfter: withKept + restoredTokens,
  };
  preview.message = `Compact: ~${tokensBefore.toLocaleString('en-US')} -> ~${preview.tokensAfter.toLocaleString('en-US')} tokens + the summary; ${preview.summarized.messages} message(s) summarized, ${preview.kept.messages} kept verbatim, ${restoredFiles.length} file(s) restored.`;
  return preview;
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
  let keptFrom: number | undefined;
  for (let index = from + 1; index <= Math.min(maxK, canonical.length - 1); index++) {
    if (!isCleanStart(canonical[index]!)) continue;
    keptFrom = index;
    const trial: LiveState = { boundary: { ...(previous ?? emptyBoundary()), keptFrom, userMessages: carried(index) }, edits: view.live.edits };
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
    ...todosAsOf(canonical),
    stats: { tokensBefore, tokensAfter: 0, messagesSummarized: keptFrom - from, messagesKept: canonical.length - keptFrom, summaryRequests: 0 },
  };
  record.stats.tokensAfter = view.estimateTokens(buildLiveView(canonical, { boundary: record, edits: view.live.edits }, view.transcriptPath));
  view.logger.warn(`dropped the ${keptFrom - from} oldest message(s) from the live view to fit the window (~${tokensBefore} -> ~${record.stats.tokensAfter} tokens)`);
  return record;
}

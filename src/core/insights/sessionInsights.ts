/**
 * Session insights (issue 33): the series the insights panel draws, built from a transcript alone.
 * Pure and one pass over the entries (plus prefix sums), so a 10,000-request session builds in
 * milliseconds (bench/insights.ts).
 *
 * - Requests: the session's own model requests (usage entries with a request mark, or, in
 *   transcripts written before marks, those answered by a message). A subagent's requests and the
 *   summary requests of a compaction are not requests of the conversation: their cost goes into
 *   the cumulative cost where it was spent, and the summaries' into their compaction.
 * - Actions: what shrank or changed the context between two requests (a tier's edits, a saved
 *   output, a compaction, its undo, a failed compaction, a learned window, a checkpoint restore),
 *   each in the user's words, with what it removed and what re-reading that would have cost.
 * - A restore (rewind) leaves the requests it discarded in the series, marked: they were sent and
 *   paid for (`rewoundEntries`, agent/fold.ts, is the one rule of what a rewind discards).
 */
import { rewoundEntries } from '../agent/fold';
import { contextBudget } from '../context/gauge';
import { windowInUse } from '../context/learnedWindow';
import { editTier } from '../context/tiers';
import type { ModelPrice } from '../model/models';
import { promptTokensFromUsage } from '../model/usage';
import type { TranscriptEntry } from '../storage/transcript';
import type { InsightTexts } from '../texts/insights';
import { userText, type UserText } from '../texts/userText';
import type { InsightsActionKind } from './actionKinds';

export type { InsightsActionKind } from './actionKinds';

/** The context budget the session's engine worked with (`ContextEngineOptions`: the window before any learned one, the reply limit, the auto-compact setting). */
export interface InsightsBudget {
  window: number;
  maxOutputTokens: number;
  autoCompactPercent?: number;
}

export interface InsightsOptions {
  budget: InsightsBudget;
  /** A model's price, for what re-reading removed tokens would have cost; undefined: unknown. */
  priceOf(model: string): ModelPrice | undefined;
}

/** One column per field, one row per request of the conversation (columns clone and post cheaply). */
export interface InsightsRequests {
  count: number;
  /** When the reply's usage was recorded (ms since the epoch; NaN when the entry's time was unreadable). */
  atMs: number[];
  model: string[];
  /** What was sent: uncached input + cache write + cache read. */
  promptTokens: number[];
  /** The window in effect (a window learned from the server shrinks it). */
  window: number[];
  /** Where automatic compaction starts, for that window. */
  threshold: number[];
  uncached: number[];
  cacheWrite: number[];
  cacheRead: number[];
  output: number[];
  /** This request's cost (0 when its model had no known price). */
  costUsd: number[];
  priceUnknown: boolean[];
  /** Everything spent up to and including this request: subagents' requests and summaries too. */
  cumulativeCostUsd: number[];
  /** A later checkpoint restore discarded it from the conversation (it was still sent and paid). */
  rewound: boolean[];
}

export interface InsightsAction {
  kind: InsightsActionKind;
  /** The request it came before (0-based; `requests.count` when no request followed it). */
  atRequest: number;
  atMs: number;
  /** One line ("Cleared 12 old tool results"), for a front end to word. */
  label: UserText;
  /** What happened in full, for the hover and the table. */
  detail: UserText;
  /** The context's size before and after, when the action changed it (estimates, as the engine recorded them). */
  tokensBefore?: number;
  tokensAfter?: number;
  /** Tokens it took out of every later request (0 when it removed nothing). */
  removedTokens: number;
  /** Requests that would have read the removed tokens again: up to the next compaction, restore or the session's end (and its own undo). */
  rereadRequests: number;
  /** What those re-reads would have cost at each request's cache-read price. */
  rereadCostUsd: number;
  /** Some of those requests' models had no known price: `rereadCostUsd` counts only the priced ones. */
  rereadPartial: boolean;
  /** What the action itself cost (a compaction's summary requests); 0 for the free ones. */
  costUsd: number;
}

export interface InsightsTotals {
  requests: number;
  /** Every usage entry of the transcript: requests, subagents, summaries (what foldTranscript's totals say). */
  costUsd: number;
  subagentCostUsd: number;
  summaryCostUsd: number;
  /** Requests (of any kind) whose model had no known price. */
  unpricedRequests: number;
  removedTokens: number;
  rereadCostUsd: number;
  rereadPartial: boolean;
  /** The largest share of the window a request used. */
  peakUtilization: number;
  compactions: number;
}

export interface SessionInsights {
  requests: InsightsRequests;
  actions: InsightsAction[];
  totals: InsightsTotals;
}

/** A kind of the insights with its data (src/core/texts/insights.ts). */
const sizes = (before: number, after: number) => ({ before: Math.round(before), after: Math.round(after) });
type Trigger = Extract<TranscriptEntry, { type: 'compaction_failed' }>['trigger'] | Extract<TranscriptEntry, { type: 'compaction' }>['compaction']['trigger'];
const triggerText = (trigger: Trigger): UserText => userText(`insights.trigger.${trigger}`, {});
type EditTierName = Parameters<typeof editTier>[0];
const TIER_KIND = { budget: 'trim', snip: 'snip', microcompact: 'clear' } as const satisfies Record<EditTierName, InsightsActionKind>;
const TIER_LABEL = { budget: 'insights.trimmed', snip: 'insights.snipped', microcompact: 'insights.cleared' } as const satisfies Record<EditTierName, keyof InsightTexts>;

type Usage = Extract<TranscriptEntry, { type: 'usage' }>;

/** For each entry, whether the next message, compaction or failed compaction after it is a message (an unmarked usage entry of an old transcript was a request then). */
function answeredByMessage(entries: readonly TranscriptEntry[]): boolean[] {
  const answered = new Array<boolean>(entries.length).fill(false);
  let next = false;
  for (let index = entries.length - 1; index >= 0; index--) {
    answered[index] = next;
    const type = entries[index]!.type;
    if (type === 'message') next = true;
    else if (type === 'compaction' || type === 'compaction_failed') next = false;
  }
  return answered;
}

function emptyRequests(): InsightsRequests {
  return { count: 0, atMs: [], model: [], promptTokens: [], window: [], threshold: [], uncached: [], cacheWrite: [], cacheRead: [], output: [], costUsd: [], priceUnknown: [], cumulativeCostUsd: [], rewound: [] };
}

/** An action as its entry describes it; where it sits and what it saved are added after. */
type ActionDraft = Pick<InsightsAction, 'kind' | 'label' | 'detail' | 'removedTokens'> & Partial<Pick<InsightsAction, 'tokensBefore' | 'tokensAfter'>>;

/** What an entry that changed the context did, in the user's words; undefined for the other entries. */
function describeAction(entry: TranscriptEntry): ActionDraft | undefined {
  switch (entry.type) {
    case 'tier_edit': {
      const label = userText(TIER_LABEL[entry.tier], { count: entry.edits.length });
      const { tokensBefore, tokensAfter } = entry;
      const detail = userText('insights.tierEditDetail', { label, tier: userText(`insights.tier.${entry.tier}`, {}), ...sizes(tokensBefore, tokensAfter) });
      return { kind: TIER_KIND[entry.tier], label, detail, tokensBefore, tokensAfter, removedTokens: Math.max(0, tokensBefore - tokensAfter) };
    }
    case 'persisted_output': {
      const { tokensBefore, tokensAfter } = entry;
      // Transcripts from before the note's figures were recorded say only the size on disk.
      const sized = tokensBefore !== undefined && tokensAfter !== undefined;
      const output = { tool: entry.toolName, count: entry.lines, file: entry.file };
      return {
        kind: 'saved',
        label: userText('insights.saved', { tool: entry.toolName }),
        detail: sized ? userText('insights.savedDetailSized', { ...output, ...sizes(tokensBefore, tokensAfter) }) : userText('insights.savedDetail', output),
        ...(sized ? { tokensBefore, tokensAfter } : {}),
        removedTokens: sized ? Math.max(0, tokensBefore - tokensAfter) : 0,
      };
    }
    case 'compaction': {
      const { stats, trigger, restoredFiles, focus } = entry.compaction;
      const drop = trigger === 'drop';
      const label = userText(drop ? 'insights.dropped' : 'insights.summarized', { count: stats.messagesSummarized });
      const what = { label, trigger: triggerText(trigger), kept: userText('insights.messages', { count: stats.messagesKept }), ...sizes(stats.tokensBefore, stats.tokensAfter) };
      const detail = restoredFiles.length ? userText('insights.compactionDetailRestored', { ...what, files: userText('insights.files', { count: restoredFiles.length }) }) : userText('insights.compactionDetail', what);
      return {
        kind: drop ? 'drop' : 'compaction',
        label,
        detail: focus ? userText('insights.withFocus', { detail, focus: focus.replace(/\s+/g, ' ').slice(0, 200) }) : detail,
        tokensBefore: stats.tokensBefore,
        tokensAfter: stats.tokensAfter,
        removedTokens: Math.max(0, stats.tokensBefore - stats.tokensAfter),
      };
    }
    case 'compaction_undo':
      return { kind: 'undo', label: userText('insights.undo', {}), detail: userText('insights.undoDetail', sizes(entry.tokensBefore, entry.tokensAfter)), tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter, removedTokens: 0 };
    case 'compaction_failed':
      return { kind: 'failed', label: userText('insights.failed', {}), detail: userText('insights.failedDetail', { trigger: triggerText(entry.trigger), reason: entry.reason.replace(/\s+/g, ' ').slice(0, 300) }), removedTokens: 0 };
    case 'window_learned':
      return { kind: 'window', label: userText('insights.window', { window: Math.round(entry.window) }), detail: userText('insights.windowDetail', { window: Math.round(entry.window), assumed: Math.round(entry.assumed) }), removedTokens: 0 };
    case 'rewind':
      return { kind: 'restore', label: userText('insights.restore', { checkpoint: String(entry.checkpoint) }), detail: userText(entry.files === 'restored' ? 'insights.restoreDetailWithFiles' : 'insights.restoreDetailFilesKept', { checkpoint: String(entry.checkpoint) }), removedTokens: 0 };
    default:
      return undefined;
  }
}

/** A request of the conversation, appended to the columns. */
function pushRequest(requests: InsightsRequests, entry: Usage, budget: InsightsBudget, learned: number | undefined, cumulativeCostUsd: number, rewound: boolean): number {
  const window = windowInUse(budget.window, learned);
  const prompt = promptTokensFromUsage(entry.usage);
  requests.atMs.push(Date.parse(entry.ts));
  requests.model.push(entry.model);
  requests.promptTokens.push(prompt);
  requests.window.push(window);
  requests.threshold.push(contextBudget(window, budget.maxOutputTokens, budget.autoCompactPercent).threshold);
  requests.uncached.push(entry.usage.inputTokens);
  requests.cacheWrite.push(entry.usage.cacheWriteTokens);
  requests.cacheRead.push(entry.usage.cacheReadTokens);
  requests.output.push(entry.usage.outputTokens);
  requests.costUsd.push(entry.costUsd);
  requests.priceUnknown.push(entry.priceUnknown === true);
  requests.cumulativeCostUsd.push(cumulativeCostUsd);
  requests.rewound.push(rewound);
  requests.count++;
  return prompt / Math.max(1, window);
}

/** An action whose re-read window is still open: it ends at the next compaction or restore, or at its own undo. */
interface Open {
  action: InsightsAction;
  compactionId?: string;
}

export function buildSessionInsights(entries: readonly TranscriptEntry[], options: InsightsOptions): SessionInsights {
  const kept = new Set(rewoundEntries(entries).kept);
  const answered = answeredByMessage(entries);
  const requests = emptyRequests();
  const actions: InsightsAction[] = [];
  /** Index into `requests` where each action's re-read window ends (exclusive). */
  const rereadEnd = new Map<InsightsAction, number>();
  let open: Open[] = [];
  const totals: InsightsTotals = { requests: 0, costUsd: 0, subagentCostUsd: 0, summaryCostUsd: 0, unpricedRequests: 0, removedTokens: 0, rereadCostUsd: 0, rereadPartial: false, peakUtilization: 0, compactions: 0 };
  let learned: number | undefined;
  /** Summary requests since the last compaction (or failed one): that compaction's own cost. */
  let summaryCost = 0;
  const closeWhere = (ends: (item: Open) => boolean) => {
    open = open.filter((item) => {
      if (!ends(item)) return true;
      rereadEnd.set(item.action, requests.count);
      return false;
    });
  };

  for (const [index, entry] of entries.entries()) {
    if (entry.type === 'usage') {
      totals.costUsd += entry.costUsd;
      if (entry.priceUnknown) totals.unpricedRequests++;
      if (entry.childId !== undefined) {
        totals.subagentCostUsd += entry.costUsd;
      } else if (entry.request === undefined && !answered[index]) {
        // A summary request (a compaction's, or a failed one's).
        totals.summaryCostUsd += entry.costUsd;
        summaryCost += entry.costUsd;
      } else {
        totals.peakUtilization = Math.max(totals.peakUtilization, pushRequest(requests, entry, options.budget, learned, totals.costUsd, !kept.has(entry)));
      }
      continue;
    }
    const draft = describeAction(entry);
    if (!draft) continue;
    // What was removed before a compaction or a restore would have been summarized or discarded there anyway.
    if (entry.type === 'compaction' || entry.type === 'rewind') closeWhere(() => true);
    if (entry.type === 'compaction_undo') closeWhere((item) => item.compactionId === entry.compactionId);
    if (entry.type === 'window_learned') learned = windowInUse(learned ?? entry.window, entry.window);
    if (entry.type === 'compaction' && entry.compaction.trigger !== 'drop') totals.compactions++;
    const summarized = entry.type === 'compaction' || entry.type === 'compaction_failed';
    const ownCost = summarized ? summaryCost : 0;
    if (summarized) summaryCost = 0;
    const action: InsightsAction = { ...draft, atRequest: requests.count, atMs: Date.parse(entry.ts), rereadRequests: 0, rereadCostUsd: 0, rereadPartial: false, costUsd: ownCost };
    actions.push(action);
    if (action.removedTokens > 0) open.push({ action, ...(entry.type === 'compaction' ? { compactionId: entry.compaction.id } : {}) });
  }
  closeWhere(() => true);
  totals.requests = requests.count;
  priceRereads(requests, actions, rereadEnd, options, totals);
  return { requests, actions, totals };
}

/** Each action's re-read cost over its window, with prefix sums of the per-token cache-read price: O(requests + actions). */
function priceRereads(requests: InsightsRequests, actions: readonly InsightsAction[], ends: ReadonlyMap<InsightsAction, number>, options: InsightsOptions, totals: InsightsTotals): void {
  const priceSum = new Float64Array(requests.count + 1);
  const unknownSum = new Int32Array(requests.count + 1);
  const prices = new Map<string, ModelPrice | undefined>();
  for (let index = 0; index < requests.count; index++) {
    const model = requests.model[index]!;
    if (!prices.has(model)) prices.set(model, options.priceOf(model));
    const price = prices.get(model);
    priceSum[index + 1] = priceSum[index]! + (price ? price.cacheRead / 1_000_000 : 0);
    unknownSum[index + 1] = unknownSum[index]! + (price ? 0 : 1);
  }
  for (const action of actions) {
    if (action.removedTokens <= 0) continue;
    const end = ends.get(action) ?? requests.count;
    action.rereadRequests = Math.max(0, end - action.atRequest);
    action.rereadCostUsd = action.removedTokens * (priceSum[end]! - priceSum[action.atRequest]!);
    action.rereadPartial = unknownSum[end]! - unknownSum[action.atRequest]! > 0;
    totals.removedTokens += action.removedTokens;
    totals.rereadCostUsd += action.rereadCostUsd;
    totals.rereadPartial ||= action.rereadPartial;
  }
}

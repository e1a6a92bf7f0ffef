/**
 * When tiers 1-3 run (docs/architecture.md, "Context engine"): an edit to an old tool result
 * rewrites the prompt cache from that block on. With cache write w and read r (of the input
 * price), applying edits that free S tokens at a point with T cached tokens after it costs about
 * (w − r)·T − w·S once, and every request they wait costs r·S in reads of what they would free.
 * Edits are applied when the cache is cold anyway (idle past the TTL), when the context is over the
 * auto-compact threshold, or once those waiting reads add up to the rewrite's cost (the ski-rental
 * rule) — so the middle of the prompt changes rarely and each change has paid for itself.
 * Pure: it reads the engine's state and returns a decision; the engine records and applies it.
 */
import { blocksOf, toolResultText } from '../model/content';
import type { MessageParam } from '../model/messages';
import type { ToolResultEdit, TranscriptEntry } from '../storage/transcript';
import type { ToolTraitsLookup } from '../tools/types';
import type { TokenAccounting } from './accounting';
import type { ContextDefaults } from './defaults';
import type { ContextBudget } from './gauge';
import { liveIndexOf } from './liveView';
import { userText, type UserText } from '../texts/userText';
import type { EngineState } from './state';
import { collectToolResults, EDIT_TIERS, editTier, planTierEdits, type PlannedEdit, type TierName, type ToolResultRef } from './tiers';

export interface TierInput {
  state: EngineState;
  canonical: readonly MessageParam[];
  /** The live view now, and its estimated tokens. */
  messages: readonly MessageParam[];
  used: number;
  budget: ContextBudget;
  settings: ContextDefaults;
  accounting: TokenAccounting;
  nowMs: number;
  originalText(ref: ToolResultRef): string;
  /** What each tool declared about its results (absent: the built-in tools'). */
  toolTraits: ToolTraitsLookup | undefined;
}

/** One tier's edits, in the order they are applied (cheapest to lose first). */
export interface TierBatch {
  tier: TierName;
  edits: ToolResultEdit[];
  savedChars: number;
}

export type TierDecision =
  /** Nothing to edit: the batching account closes with the next request. */
  | { kind: 'none' }
  /** Edits wait; `pendingWaste` is the account once the next request has paid its reads. */
  | { kind: 'defer'; pendingWaste: number; edits: number; savedTokens: number; extraCost: number }
  /** `why`: the reason in English, for the log; `reason`: the same for the user's note. */
  | { kind: 'apply'; batches: TierBatch[]; why: string; reason: UserText };


export function isCacheCold(state: EngineState, nowMs: number, settings: ContextDefaults): boolean {
  return state.lastRequest !== undefined && nowMs - state.lastRequest.atMs > settings.cacheTtlMs;
}

export function scheduleTiers(input: TierInput): TierDecision {
  const { state, canonical, messages, used, budget, settings, accounting } = input;
  const keptFrom = state.live.boundary ? Math.min(state.live.boundary.keptFrom, canonical.length) : 0;
  const cacheCold = isCacheCold(state, input.nowMs, settings);
  const refs = collectToolResults(canonical, keptFrom, state.live.edits, input.toolTraits);
  const plan = planTierEdits(refs, used / Math.max(1, budget.effective), cacheCold, settings, input.originalText);
  if (plan.length === 0) return { kind: 'none' };
  const ratio = accounting.tokensPerChar(state.lastRequest);
  const savedTokens = plan.reduce((sum, item) => sum + item.savedChars, 0) * ratio;
  // The cached tokens after the first edited block: what the edit makes the API write again.
  const liveFirst = liveIndexOf(state.live, plan[0]!.ref.messageIndex, messages.length, canonical.length) ?? 0;
  const lastSent = state.lastRequest ? liveIndexOf(state.live, state.lastRequest.mark.canonicalCount - 1, messages.length, canonical.length) : undefined;
  const cachedUpTo = state.lastRequest ? Math.min(messages.length, (lastSent ?? -1) + 1) : 0;
  let suffixChars = 0;
  for (let index = liveFirst; index < cachedUpTo; index++) suffixChars += accounting.charsOf(messages[index]!);
  const { cacheWritePrice: write, cacheReadPrice: read } = settings;
  const extraCost = (write - read) * suffixChars * ratio - write * savedTokens;
  const overThreshold = used > budget.threshold;
  if (!cacheCold && !overThreshold && state.pendingWaste < extraCost) {
    return { kind: 'defer', pendingWaste: state.pendingWaste + read * savedTokens, edits: plan.length, savedTokens, extraCost };
  }
  const why = cacheCold ? 'the prompt cache is cold' : overThreshold ? 'the context is over the auto-compact threshold' : 'the reads they saved have paid for the cache rewrite';
  const reason = userText(cacheCold ? 'context.whyCacheCold' : overThreshold ? 'context.whyOverThreshold' : 'context.whyReadsPaid', {});
  return { kind: 'apply', batches: batchesOf(plan), why, reason };
}

function batchesOf(plan: readonly PlannedEdit[]): TierBatch[] {
  return EDIT_TIERS.flatMap(({ name: tier }) => {
    const items = plan.filter((item) => item.tier === tier);
    return items.length === 0 ? [] : [{ tier, edits: items.map((item) => item.edit), savedChars: items.reduce((sum, item) => sum + item.savedChars, 0) }];
  });
}

/** The transcript entry of one batch: `tokensAfter` is estimated before it takes effect (it is written first). */
export function tierEditEntry(batch: TierBatch, ts: string, tokensBefore: number, tokensPerChar: number): Extract<TranscriptEntry, { type: 'tier_edit' }> {
  const tokensAfter = Math.max(0, Math.round(tokensBefore - batch.savedChars * tokensPerChar));
  return { type: 'tier_edit', ts, tier: batch.tier, edits: batch.edits, tokensBefore, tokensAfter };
}

export function tierVerb(tier: TierName): string {
  return editTier(tier).verb;
}

const TIER_NOTE = { microcompact: 'context.cleared', snip: 'context.snipped', budget: 'context.trimmed' } as const satisfies Record<TierName, string>;

/** The chat's note of one applied batch: its tier's action, how many results, and why. */
export function tierNote(tier: TierName, count: number, reason: UserText): UserText {
  return userText(TIER_NOTE[tier], { count, reason });
}

/** The canonical (unedited) text of a tool result, as the tier planners read it. */
export function originalTextIn(canonical: readonly MessageParam[]): (ref: ToolResultRef) => string {
  return (ref) => {
    const message = canonical[ref.messageIndex];
    for (const block of message ? blocksOf(message) : []) {
      if (block.type === 'tool_result' && block.tool_use_id === ref.toolUseId) return toolResultText(block);
    }
    return '';
  };
}

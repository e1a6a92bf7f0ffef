/**
 * Tiers 1-3 as pure planning (docs/architecture.md, "Context engine"): given the live part of the history and the current
 * utilization, which old tool results to trim, snip or clear. The engine decides *when* a plan is
 * applied (cache economics); these functions only say *what*.
 */
import type { MessageParam } from '../model/messages';
import { blocksOf, toolResultText } from '../model/content';
import type { ToolResultEdit } from '../storage/transcript';
import { builtInToolTraits } from '../tools/registry';
import type { ToolContextTraits, ToolTraitsLookup } from '../tools/types';
import { normalizedPath } from './compactionHelpers';
import { editedResultText } from './liveView';

export interface ToolResultRef {
  toolUseId: string;
  name: string;
  input: unknown;
  /** What its tool declared to the engine (the default for an unknown tool). */
  traits: ToolContextTraits;
  /** Canonical index of the user message holding the result. */
  messageIndex: number;
  originalChars: number;
  /** Characters as currently sent (after any recorded edit). */
  currentChars: number;
  edit: ToolResultEdit | undefined;
}

export interface TierSettings {
  budgetSoftUtilization: number;
  budgetSoftChars: number;
  budgetHardUtilization: number;
  budgetHardChars: number;
  snipUtilization: number;
  snipKeepPerSearchKind: number;
  keepRecentResults: number;
  clearUtilization: number;
}

export type TierName = 'budget' | 'snip' | 'microcompact';

export interface PlannedEdit {
  tier: TierName;
  edit: ToolResultEdit;
  ref: ToolResultRef;
  /** Characters the edit frees relative to what is sent now. */
  savedChars: number;
}

/** Tool results from `from` on, in order, with the tool name, input and traits of their tool_use. */
export function collectToolResults(
  canonical: readonly MessageParam[],
  from: number,
  edits: ReadonlyMap<string, ToolResultEdit>,
  toolTraits: ToolTraitsLookup = builtInToolTraits,
): ToolResultRef[] {
  const calls = new Map<string, { name: string; input: unknown }>();
  const refs: ToolResultRef[] = [];
  for (let index = from; index < canonical.length; index++) {
    const message = canonical[index]!;
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_use') calls.set(block.id, { name: block.name, input: block.input });
      else if (block.type === 'tool_result') {
        const call = calls.get(block.tool_use_id);
        const text = toolResultText(block);
        const edit = edits.get(block.tool_use_id);
        const name = call?.name ?? 'unknown';
        refs.push({
          toolUseId: block.tool_use_id,
          name,
          input: call?.input,
          traits: toolTraits(name),
          messageIndex: index,
          originalChars: text.length,
          currentChars: edit ? editedResultText(text, edit).length : text.length,
          edit,
        });
      }
    }
  }
  return refs;
}

function isFinal(edit: ToolResultEdit | undefined): boolean {
  return edit !== undefined && edit.action !== 'trim';
}

/**
 * Which file part a read shows (its tool's declaration says), with the path as the user would name it.
 * Keyed by tool too: two tools may show one path differently (numbered lines, rendered text).
 */
function readKey(ref: ToolResultRef): { key: string; shown: string } | undefined {
  if (ref.traits.kind !== 'read') return undefined;
  const target = ref.traits.target(ref.input);
  if (!target) return undefined;
  const shown = normalizedPath(target.path);
  return { key: `${ref.name}\u0000${shown}\u0000${target.part ?? ''}`, shown };
}

function planned(tier: TierName, ref: ToolResultRef, edit: ToolResultEdit, originalText: (ref: ToolResultRef) => string): PlannedEdit | undefined {
  const after = editedResultText(originalText(ref), edit).length;
  const savedChars = ref.currentChars - after;
  return savedChars > 0 ? { tier, edit, ref, savedChars } : undefined;
}

/**
 * The edits tiers 1-3 would make now. `utilization` is used / effective window; `cacheCold` is
 * true when the prompt cache has expired. Tier 3 clears when the cache is cold or above
 * `clearUtilization` (the engine then batches by cache economics). The newest
 * `keepRecentResults` are never touched.
 */
export function planTierEdits(
  refs: readonly ToolResultRef[],
  utilization: number,
  cacheCold: boolean,
  settings: TierSettings,
  originalText: (ref: ToolResultRef) => string,
): PlannedEdit[] {
  const candidates = refs.slice(0, Math.max(0, refs.length - settings.keepRecentResults));
  const byId = new Map<string, PlannedEdit>();
  const propose = (candidate: PlannedEdit | undefined) => {
    if (!candidate) return;
    const existing = byId.get(candidate.ref.toolUseId);
    if (!existing || candidate.savedChars > existing.savedChars) byId.set(candidate.ref.toolUseId, candidate);
  };

  if (cacheCold || utilization > settings.clearUtilization) {
    for (const ref of candidates) {
      if (ref.traits.clearable === false || ref.edit?.action === 'clear') continue;
      propose(planned('microcompact', ref, { toolUseId: ref.toolUseId, action: 'clear' }, originalText));
    }
  }

  if (utilization > settings.snipUtilization) {
    const newestRead = new Map<string, string>();
    const searchesSeen = new Map<string, number>();
    // Walk newest first: the first read of a key and the first N searches of a kind survive.
    for (let index = refs.length - 1; index >= 0; index--) {
      const ref = refs[index]!;
      const isCandidate = index < candidates.length;
      if (ref.traits.kind === 'read') {
        const read = readKey(ref);
        if (read === undefined) continue;
        if (!newestRead.has(read.key)) {
          newestRead.set(read.key, ref.toolUseId);
          continue;
        }
        if (isCandidate && !isFinal(ref.edit)) {
          const shown = read.shown;
          propose(planned('snip', ref, { toolUseId: ref.toolUseId, action: 'snip', reason: `an older read of ${shown}, superseded by a later read of the same file` }, originalText));
        }
      } else if (ref.traits.kind === 'search') {
        const seen = (searchesSeen.get(ref.name) ?? 0) + 1;
        searchesSeen.set(ref.name, seen);
        if (seen > settings.snipKeepPerSearchKind && isCandidate && !isFinal(ref.edit)) {
          propose(planned('snip', ref, { toolUseId: ref.toolUseId, action: 'snip', reason: `an older ${ref.name} result (only the ${settings.snipKeepPerSearchKind} newest are kept); run it again if needed` }, originalText));
        }
      }
    }
  }

  const limit =
    utilization > settings.budgetHardUtilization ? settings.budgetHardChars : utilization > settings.budgetSoftUtilization ? settings.budgetSoftChars : undefined;
  if (limit !== undefined) {
    for (const ref of candidates) {
      if (isFinal(ref.edit) || ref.currentChars <= limit) continue;
      propose(planned('budget', ref, { toolUseId: ref.toolUseId, action: 'trim', maxChars: limit }, originalText));
    }
  }
  return [...byId.values()].sort((a, b) => a.ref.messageIndex - b.ref.messageIndex);
}

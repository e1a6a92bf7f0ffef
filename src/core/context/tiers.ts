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
import { userText, type UserText } from '../texts/userText';

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

export type { TierName } from '../storage/transcript';
import type { TierName } from '../storage/transcript';

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
  // One lookup per tool, not per result: this runs before every request over the whole live history.
  const traitsByName = new Map<string, ToolContextTraits>();
  const traitsOf = (name: string): ToolContextTraits => {
    let traits = traitsByName.get(name);
    if (!traits) traitsByName.set(name, (traits = toolTraits(name)));
    return traits;
  };
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
          traits: traitsOf(name),
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

/** What a tier's planner reads: the results, the newest ones held back, and the current numbers. */
export interface TierPlanInput {
  refs: readonly ToolResultRef[];
  /** The results it may edit: all but the newest `keepRecentResults`. */
  candidates: readonly ToolResultRef[];
  utilization: number;
  cacheCold: boolean;
  settings: TierSettings;
  originalText: (ref: ToolResultRef) => string;
}

/**
 * One tier of tool-result edits: everything the engine, the breakdown and the chat need to know of
 * it. Adding a tier means a row here, its name in storage/transcript.ts (TIER_NAMES), its numbers
 * in defaults.ts, and its title and `when` kinds (texts/context.ts, frontends/words/context.ts); the
 * scheduler, the preview and the documents read this table.
 */
export interface EditTier {
  name: TierName;
  /** 1, 2, 3: the numbers the breakdown and the docs use. */
  level: number;
  /** What it does, as the breakdown names the step. */
  title: UserText;
  /** Its chat note's verb ("trimmed 3 old tool results"). */
  verb: string;
  /** Its edits now, its gate included. */
  plan(input: TierPlanInput): Array<PlannedEdit | undefined>;
  /** For the preview: its gate forced open, whether the gate is met now, and when it runs (a kind with its numbers). */
  preview(settings: TierSettings, utilization: number, cacheCold: boolean): { forced: Partial<TierSettings>; due: boolean; when: UserText };
}

const ALWAYS = -1;
const percent = (share: number) => Math.round(share * 100);

const microcompact: EditTier = {
  name: 'microcompact',
  level: 3,
  title: userText('context.tierClearTitle', {}),
  verb: 'cleared',
  plan: ({ candidates, utilization, cacheCold, settings, originalText }) =>
    cacheCold || utilization > settings.clearUtilization
      ? candidates.filter((ref) => ref.traits.clearable !== false && ref.edit?.action !== 'clear').map((ref) => planned('microcompact', ref, { toolUseId: ref.toolUseId, action: 'clear' }, originalText))
      : [],
  preview: (settings, utilization, cacheCold) => ({
    forced: { clearUtilization: ALWAYS },
    due: cacheCold || utilization > settings.clearUtilization,
    when: userText('context.tierClearWhen', { percent: percent(settings.clearUtilization), keep: settings.keepRecentResults }),
  }),
};

const snip: EditTier = {
  name: 'snip',
  level: 2,
  title: userText('context.tierSnipTitle', {}),
  verb: 'snipped',
  plan: ({ refs, candidates, utilization, settings, originalText }) => {
    if (!(utilization > settings.snipUtilization)) return [];
    const edits: Array<PlannedEdit | undefined> = [];
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
          edits.push(planned('snip', ref, { toolUseId: ref.toolUseId, action: 'snip', reason: `an older read of ${read.shown}, superseded by a later read of the same file` }, originalText));
        }
      } else if (ref.traits.kind === 'search') {
        const seen = (searchesSeen.get(ref.name) ?? 0) + 1;
        searchesSeen.set(ref.name, seen);
        if (seen > settings.snipKeepPerSearchKind && isCandidate && !isFinal(ref.edit)) {
          edits.push(planned('snip', ref, { toolUseId: ref.toolUseId, action: 'snip', reason: `an older ${ref.name} result (only the ${settings.snipKeepPerSearchKind} newest are kept)` }, originalText));
        }
      }
    }
    return edits;
  },
  preview: (settings, utilization) => ({ forced: { snipUtilization: ALWAYS }, due: utilization > settings.snipUtilization, when: userText('context.tierSnipWhen', { percent: percent(settings.snipUtilization) }) }),
};

const budget: EditTier = {
  name: 'budget',
  level: 1,
  title: userText('context.tierTrimTitle', {}),
  verb: 'trimmed',
  plan: ({ candidates, utilization, settings, originalText }) => {
    const limit = utilization > settings.budgetHardUtilization ? settings.budgetHardChars : utilization > settings.budgetSoftUtilization ? settings.budgetSoftChars : undefined;
    if (limit === undefined) return [];
    return candidates.filter((ref) => !isFinal(ref.edit) && ref.currentChars > limit).map((ref) => planned('budget', ref, { toolUseId: ref.toolUseId, action: 'trim', maxChars: limit }, originalText));
  },
  preview: (settings, utilization) => {
    // It trims to the size the current utilization selects (the soft size below the hard gate).
    const hard = utilization > settings.budgetHardUtilization;
    return {
      forced: { budgetSoftUtilization: ALWAYS, ...(hard ? { budgetHardUtilization: ALWAYS } : {}) },
      due: utilization > settings.budgetSoftUtilization,
      when: userText('context.tierTrimWhen', {
        soft: percent(settings.budgetSoftUtilization),
        hard: percent(settings.budgetHardUtilization),
        chars: hard ? settings.budgetHardChars : settings.budgetSoftChars,
      }),
    };
  },
};

/** Every edit tier, in the order their edits are applied and recorded (cheapest to lose first). */
export const EDIT_TIERS: readonly EditTier[] = [microcompact, snip, budget];

export function editTier(name: TierName): EditTier {
  return EDIT_TIERS.find((tier) => tier.name === name)!;
}

/**
 * The edits tiers 1-3 would make now. `utilization` is used / effective window; `cacheCold` is
 * true when the prompt cache has expired. Where two tiers would edit one result, the edit that
 * frees more wins. The newest `keepRecentResults` are never touched.
 */
export function planTierEdits(
  refs: readonly ToolResultRef[],
  utilization: number,
  cacheCold: boolean,
  settings: TierSettings,
  originalText: (ref: ToolResultRef) => string,
): PlannedEdit[] {
  const input: TierPlanInput = { refs, candidates: refs.slice(0, Math.max(0, refs.length - settings.keepRecentResults)), utilization, cacheCold, settings, originalText };
  const byId = new Map<string, PlannedEdit>();
  for (const tier of EDIT_TIERS) {
    for (const candidate of tier.plan(input)) {
      if (!candidate) continue;
      const existing = byId.get(candidate.ref.toolUseId);
      if (!existing || candidate.savedChars > existing.savedChars) byId.set(candidate.ref.toolUseId, candidate);
    }
  }
  return [...byId.values()].sort((a, b) => a.ref.messageIndex - b.ref.messageIndex);
}

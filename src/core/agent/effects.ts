/**
 * What the session does with a tool call's effects (tools/types.ts, `ToolEffect`): one handler per
 * kind. A tool states what happened; only here does the session act on it. A feature whose tool
 * only informs the session (a mode change, memory written, a hook's extra context) adds a kind to
 * `ToolEffect` and its handler here; TypeScript refuses a kind without one.
 *
 * When an effect arrives: with the result, after tier 0 and the `tool_call_finished` event, so a
 * handler sees the result as it is recorded; or during the run through `ctx.report`, which the tool
 * waits for (a file about to be replaced). Each handler is told which.
 */
import type { Logger } from '../logger';
import type { RecalledSlice } from '../tools/recallTypes';
import type { ToolEffect, ToolEffectKind } from '../tools/types';
import type { AgentEvent } from './events';

/** Where an effect comes from. */
export interface EffectSite {
  turnId: string;
  toolUseId: string;
  /** The call's result as the history records it (redacted, through tier 0); undefined while the call still runs (`ctx.report`). */
  recorded: string | undefined;
  /** The folders this round's calls read, which the session gives their instruction files after the round's results. */
  foldersRead: string[];
  /** The turn ends after this round (its results recorded): the user has something to decide. */
  endTurn(): void;
}

type EffectOf<K extends ToolEffectKind> = Extract<ToolEffect, { kind: K }>;

/** Exactly one handler for each kind of effect. */
export type EffectHandlers = { readonly [K in ToolEffectKind]: (effect: EffectOf<K>, site: EffectSite) => void | Promise<void> };

/** What the session's handlers work with. */
export interface SessionEffectsHost {
  emit(event: AgentEvent): void;
  /** Recall results the next recorded message stores as references, by tool-use id. */
  pendingRecalls: Map<string, RecalledSlice>;
  /** The turn's checkpoint keeps a file's bytes before a write replaces them (absent: no checkpoints). */
  recordWrite: ((absolutePath: string, prior: Buffer | undefined) => Promise<void>) | undefined;
  logger: Logger;
}

export function sessionEffectHandlers(host: SessionEffectsHost): EffectHandlers {
  return {
    todos_changed: (effect, site) => host.emit({ type: 'todos', turnId: site.turnId, items: [...effect.items] }),
    folders_read: (effect, site) => void site.foldersRead.push(...effect.folders),
    // A reference holds only while the recorded text is exactly the slice (not redacted, not cut by tier 0).
    recalled: (effect, site) => void (site.recorded === effect.content && host.pendingRecalls.set(site.toolUseId, effect.slice)),
    // The write goes on when its checkpoint record fails (logged): that file alone cannot be restored.
    file_will_change: async (effect) => {
      await host.recordWrite?.(effect.path, effect.prior).catch((error: unknown) => host.logger.error(`could not keep ${effect.path}'s content for its checkpoint`, error));
    },
    // The plan card; the turn ends so the user can build it or keep planning (agent/modes.ts takes the decision).
    plan_proposed: (effect, site) => {
      host.emit({ type: 'plan_proposed', turnId: site.turnId, toolUseId: site.toolUseId, plan: effect.plan.markdown, steps: effect.plan.steps.map((step) => ({ ...step })) });
      site.endTurn();
    },
  };
}

/** Hands each effect to its handler, in order (a handler may wait, e.g. for the checkpoint's disk). */
export async function dispatchEffects(handlers: EffectHandlers, effects: readonly ToolEffect[], site: EffectSite): Promise<void> {
  for (const effect of effects) await dispatchEffect(handlers, effect, site);
}

function dispatchEffect<K extends ToolEffectKind>(handlers: EffectHandlers, effect: EffectOf<K>, site: EffectSite): void | Promise<void> {
  const handler: (effect: EffectOf<K>, site: EffectSite) => void | Promise<void> = handlers[effect.kind];
  return handler(effect, site);
}

/**
 * What the user decided about a plan the model proposed with `exit_plan_mode` (issue 28): Build it
 * (its steps become the task list and the agent mode goes on with it) or Keep planning (with a
 * note). The decision reaches the model as one text block at the start of the user's next message,
 * so it is part of the recorded history: the task list, the chat's replay and a compaction read it
 * from there like everything else. The block is never the user's own words, which always come last
 * in a user message.
 */
import { blocksOf } from '../model/content';
import type { ContentBlockParam, MessageParam } from '../model/messages';
import { proposedPlan, type PlanProposal } from './planSteps';
import type { TodoItem } from './todos';

export const EXIT_PLAN_MODE_TOOL = 'exit_plan_mode';

export type PlanDecisionKind = 'build' | 'keep_planning';

/** Opens a decision block; the words after it say which decision and which call. */
export const PLAN_DECISION_MARK = '[Plan decision: ';

const DECISION_WORDS: Readonly<Record<PlanDecisionKind, string>> = { build: 'build', keep_planning: 'keep planning' };

export interface PlanDecision {
  kind: PlanDecisionKind;
  /** The exit_plan_mode call whose plan it decides. */
  toolUseId: string;
}

/** The block that tells the model what the user decided (Build it: with the steps that are now the task list). */
export function planDecisionText(decision: PlanDecision, steps: readonly TodoItem[]): string {
  const head = `${PLAN_DECISION_MARK}${DECISION_WORDS[decision.kind]}] (exit_plan_mode call ${decision.toolUseId})`;
  if (decision.kind === 'keep_planning') {
    return `${head} The user did not build this plan and asks you to keep planning; their note follows. Stay in plan mode: research what the note asks and propose a revised plan with exit_plan_mode.`;
  }
  const list = steps.length > 0 ? ` Its steps are now the task list:\n${steps.map((step) => `- [${step.status === 'done' ? 'done' : 'pending'}] ${step.id}: ${step.text}`).join('\n')}\n` : ' It had no list of steps, so the task list is unchanged. ';
  return `${head} The user approved the plan and chose to build it.${list}Carry it out step by step, and keep the task list current with todo_write as steps start and finish.`;
}

const DECISION_LINE = /^\[Plan decision: (build|keep planning)\] \(exit_plan_mode call ([A-Za-z0-9_-]+)\)/;

/** The decision a text block records, or undefined when it is no decision block. */
export function planDecisionOf(text: string): PlanDecision | undefined {
  if (!text.startsWith(PLAN_DECISION_MARK)) return undefined;
  const match = DECISION_LINE.exec(text);
  if (!match) return undefined;
  return { kind: match[1] === 'build' ? 'build' : 'keep_planning', toolUseId: match[2]! };
}

/** The decision blocks of a user message: text blocks before its last one (the user's own words are always last). */
export function decisionsIn(message: MessageParam): PlanDecision[] {
  if (message.role !== 'user') return [];
  const texts = blocksOf(message).filter((block): block is Extract<ContentBlockParam, { type: 'text' }> => block.type === 'text');
  return texts.slice(0, -1).flatMap((block) => planDecisionOf(block.text) ?? []);
}

/** A user message that opens a turn: it has the user's words, not only tool results. */
export function opensTurn(message: MessageParam): boolean {
  return message.role === 'user' && !blocksOf(message).some((block) => block.type === 'tool_result');
}

/**
 * The plan the user can still decide on: an exit_plan_mode call in the newest reply, answered without
 * an error, with no turn opened after it (a message typed instead of a decision moves the conversation on).
 */
export function pendingPlan(messages: readonly MessageParam[]): { toolUseId: string; plan: PlanProposal } | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (opensTurn(message)) return undefined;
    if (message.role !== 'assistant') continue;
    // The newest reply must be the one that proposed it: a reply after it (a retry) moved the conversation on.
    const call = blocksOf(message).filter((block) => block.type === 'tool_use' && block.name === EXIT_PLAN_MODE_TOOL).at(-1);
    if (!call || call.type !== 'tool_use') return undefined;
    const answer = messages[index + 1];
    const result = answer ? blocksOf(answer).find((block) => block.type === 'tool_result' && block.tool_use_id === call.id) : undefined;
    const plan = planOfInput(call.input);
    if (!result || result.type !== 'tool_result' || result.is_error === true || plan === undefined) return undefined;
    return { toolUseId: call.id, plan: proposedPlan(plan) };
  }
  return undefined;
}

/** The plan an exit_plan_mode call's recorded input holds (undefined when it holds none). */
export function planOfInput(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const plan = (input as Record<string, unknown>).plan;
  return typeof plan === 'string' && plan.trim() !== '' ? plan : undefined;
}

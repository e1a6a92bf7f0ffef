/**
 * Modes in the terminal (issue 28): the lines the text output gives a mode change, a proposed plan
 * and a decision, and how a plan is built from the command line (`--resume ID --build-plan`).
 * Everything the model wrote (the plan) is escaped like the rest of its text.
 */
import type { WordedEvent as AgentEvent } from '../frontends/words/wordEvent';
import { pendingPlan } from '../core/todos/planDecision';
import type { MessageParam } from '../core/model/messages';
import { escapeLine, escapeText } from './terminalText';

type ModeEvent = Extract<AgentEvent, { type: 'mode_changed' | 'mode_notice' | 'plan_proposed' | 'plan_decided' }>;

const MODE_EVENTS: ReadonlySet<AgentEvent['type']> = new Set(['mode_changed', 'mode_notice', 'plan_proposed', 'plan_decided']);

export function isModeEvent(event: AgentEvent): event is ModeEvent {
  return MODE_EVENTS.has(event.type);
}

/** What the text output shows for a mode event: the plan on stdout (it is the answer of a plan run), the rest on stderr. */
export function modeEventText(event: ModeEvent): { stdout?: string; stderr?: string } {
  switch (event.type) {
    case 'mode_changed':
      return { stderr: `  ⇄ mode: ${escapeLine(event.mode)}${event.reason === 'build' ? ' (building the plan)' : ''}\n` };
    case 'mode_notice':
      return { stderr: `${event.level === 'warning' ? 'warning' : 'note'}: ${escapeLine(event.message)}\n` };
    case 'plan_proposed':
      return { stdout: `\n${escapeText(event.plan.trimEnd())}\n`, stderr: `  ☐ plan proposed: ${event.steps.length} step${event.steps.length === 1 ? '' : 's'}\n` };
    case 'plan_decided':
      return { stderr: `  ☑ plan: ${event.decision === 'build' ? 'building it' : 'planning on'}\n` };
  }
}

/** After a turn: how to build the plan it proposed, or keep planning (undefined when no plan waits). */
export function planHint(history: readonly MessageParam[], sessionId: string): string | undefined {
  if (!pendingPlan(history)) return undefined;
  return `The plan waits for your decision. Build it: evergreen --resume ${sessionId} --build-plan; keep planning: evergreen --resume ${sessionId} -p "what to change".`;
}

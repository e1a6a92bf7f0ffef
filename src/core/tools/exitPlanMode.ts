/**
 * `exit_plan_mode` (`{ "plan": "<markdown>" }`): how the model ends planning. The call changes
 * nothing: it states the plan as a `plan_proposed` effect, on which the session ends the turn and
 * the front end shows the plan as a card (Build it: the agent mode with the plan's steps as the task
 * list, todos/planSteps.ts; Keep planning: a note back; todos/planDecision.ts words either).
 */
import { EXIT_PLAN_MODE_TOOL } from '../todos/planDecision';
import { planSteps, proposedPlan } from '../todos/planSteps';
import * as z from '../zod';
import { defineTool, nonBlankString, refuse } from './toolInput';
import type { ToolDefinition } from './types';

import { verbatim, userText } from '../texts/userText';

export { EXIT_PLAN_MODE_TOOL } from '../todos/planDecision';

/** A plan longer than this is refused (the model is asked to shorten it): the card and the saved session stay readable. */
export const MAX_PLAN_CHARS = 50_000;

const exitPlanModeInput = z
  .object({
    plan: nonBlankString()
      .superRefine((plan, ctx) => {
        if (plan.length > MAX_PLAN_CHARS) refuse(ctx, `The plan is ${plan.length} characters long; at most ${MAX_PLAN_CHARS}. Keep the plan to decisions and steps, and leave details for the work itself.`);
      })
      .describe('The plan, in Markdown, with a numbered list of steps.'),
  })
  // The model is told no other parameter exists; one it adds anyway is dropped.
  .meta({ additionalProperties: false });

export type ExitPlanModeInput = z.output<typeof exitPlanModeInput>;

export function createExitPlanModeTool(): ToolDefinition<ExitPlanModeInput> {
  return defineTool({
    name: EXIT_PLAN_MODE_TOOL,
    kind: 'meta',
    context: { kind: 'other', clearable: false },
    description:
      'End planning: present your plan to the user for approval. Call it once you have researched enough to propose a concrete plan. ' +
      '`plan` is Markdown: what will change and why, the risks, and a numbered list of steps (one line each; they become the task list when the user builds the plan). ' +
      'The user either builds it (the session switches to agent mode and you carry it out) or asks you to keep planning with a note. After calling it, stop and wait.',
    input: exitPlanModeInput,
    headline(input) {
      const first = input.plan.split('\n').map((line) => line.replace(/^#+\s*/, '').trim()).find((line) => line !== '') ?? '';
      const steps = planSteps(input.plan).length;
      return steps > 0 ? userText('tool.planSteps', { title: first, count: steps }) : verbatim(first);
    },
    async run(input) {
      const plan = proposedPlan(input.plan);
      const steps = plan.steps.length;
      return {
        effects: [{ kind: 'plan_proposed', plan }],
        content:
          `The plan was shown to the user${steps > 0 ? ` (${steps} step${steps === 1 ? '' : 's'} for the task list)` : ' (no list of steps was found in it, so building it leaves the task list as it is)'}. ` +
          'Stop here and wait: the user will build it (the session then switches to agent mode) or ask you to keep planning.',
      };
    },
  });
}

// The `task` tool: hands a self-contained piece of work to a subagent (a child session with its
// own context) and returns only the child's final report. The tool itself is thin: the agent
// provides `ctx.runSubagent` (src/core/agent/subagents.ts), which builds and runs the child.
import { userText } from '../texts/userText';
import * as z from '../zod';
import { RECALL_TOOL } from './recallRef';
import { SUBAGENT_TYPES, type TaskInput } from './taskInput';
import { defineTool, nonBlankString } from './toolInput';
import type { ToolDefinition } from './types';

export const TASK_TOOL_NAME = 'task';

/** The tools an explore child gets: it can look, never change anything. */
export const EXPLORE_TOOL_NAMES: readonly string[] = ['read_file', 'list_files', 'grep_search', RECALL_TOOL];

/** Bounds on what the model writes, so one call cannot flood the child's first request or a card. */
export const MAX_TASK_DESCRIPTION_CHARS = 200;
export const MAX_TASK_PROMPT_CHARS = 50_000;

/** A bound on the trimmed text, worded as the end of 'Parameter "x" …'. */
function atMost(max: number, tooLong: (length: number) => string) {
  return (text: string, ctx: z.RefinementCtx<string>): void => {
    const length = text.trim().length;
    if (length > max) ctx.addIssue({ code: 'custom', message: tooLong(length), input: text });
  };
}

const taskInput = z
  .object({
    description: nonBlankString()
      .superRefine(atMost(MAX_TASK_DESCRIPTION_CHARS, (length) => `must be a short label (at most ${MAX_TASK_DESCRIPTION_CHARS} characters, got ${length}); put the details in "prompt"`))
      .describe('A short (3-10 words) label of the task, shown to the user.'),
    prompt: nonBlankString()
      .superRefine(atMost(MAX_TASK_PROMPT_CHARS, (length) => `is too long (${length} characters, at most ${MAX_TASK_PROMPT_CHARS}); point the subagent at files instead of pasting them`))
      .describe('The complete brief for the subagent: the task, the context it needs, and what its report must contain.'),
    // Required, with no default: a call that does not say it wants writes must not get them.
    agent_type: z.enum(SUBAGENT_TYPES).describe('"explore" (read-only) or "general" (all your tools except task).'),
  })
  // The model is told no other parameter exists; a call that adds one anyway still runs (the extra is dropped), as it always has.
  .meta({ additionalProperties: false })
  .transform(({ description, prompt, agent_type }): TaskInput => ({ description: description.trim(), prompt: prompt.trim(), agentType: agent_type }));

export function createTaskTool(): ToolDefinition<TaskInput> {
  return defineTool({
    name: TASK_TOOL_NAME,
    kind: 'meta',
    context: { kind: 'subagent' },
    parallel: true,
    description:
      'Launch a subagent: a fresh agent with its own context window that works on one self-contained task and returns only a concise report. ' +
      'Use it for work that would flood your context (exploring many files, broad searches, a side investigation) or for independent pieces you can run in parallel: ' +
      'several task calls in one response run at the same time. The subagent sees nothing of this conversation, so the prompt must say everything it needs ' +
      '(goal, relevant paths, what to report). agent_type "explore" can only read (read_file, list_files, grep_search); "general" has your other tools, and its edits and commands ' +
      'are approved like yours. Subagents cannot launch subagents. Its full transcript stays on disk; the result names it.',
    input: taskInput,
    headline: (input) => userText('tool.task', { agentType: input.agentType, description: input.description }),
    async run(input, ctx) {
      if (!ctx.runSubagent) return { content: 'Subagents are not available here (a subagent cannot launch another one).', isError: true };
      const allowed = ctx.restrictions?.subagentTypes;
      if (allowed && !allowed.includes(input.agentType)) {
        return { content: `A "${input.agentType}" subagent cannot be started in this mode; only ${allowed.map((type) => `"${type}"`).join(' or ')}. Plan mode changes nothing: use an "explore" subagent to look.`, isError: true };
      }
      // A capability, not an effect: the child works during the call, under its signal, and its report is the result.
      return ctx.runSubagent(input);
    },
  });
}

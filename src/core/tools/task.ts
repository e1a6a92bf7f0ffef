// The `task` tool: hands a self-contained piece of work to a subagent (a child session with its
// own context) and returns only the child's final report. The tool itself is thin: the agent
// provides `ctx.runSubagent` (src/core/agent/subagents.ts), which builds and runs the child.
import { Args } from './args';
import { RECALL_TOOL } from './recallRef';
import { SUBAGENT_TYPES, type SubagentType, type TaskInput } from './taskInput';
import type { ToolDefinition } from './types';
import { ToolInputError } from '../errors';


export const TASK_TOOL_NAME = 'task';

/** The tools an explore child gets: it can look, never change anything. */
export const EXPLORE_TOOL_NAMES: readonly string[] = ['read_file', 'list_files', 'grep_search', RECALL_TOOL];

/** Bounds on what the model writes, so one call cannot flood the child's first request or a card. */
export const MAX_TASK_DESCRIPTION_CHARS = 200;
export const MAX_TASK_PROMPT_CHARS = 50_000;

export function parseTaskInput(input: unknown): TaskInput {
  const args = Args.from(input, ['description', 'prompt', 'agent_type']);
  const description = args.requiredString('description', { nonEmpty: true }).trim();
  const prompt = args.requiredString('prompt', { nonEmpty: true }).trim();
  // Required, with no default: a call that does not say it wants writes must not get them.
  const agentType = args.requiredString('agent_type');
  if (!(SUBAGENT_TYPES as readonly string[]).includes(agentType)) {
    throw new ToolInputError(`Parameter "agent_type" must be one of ${SUBAGENT_TYPES.map((type) => `"${type}"`).join(', ')}, got ${JSON.stringify(agentType.slice(0, 40))}.`);
  }
  if (description.length > MAX_TASK_DESCRIPTION_CHARS) {
    throw new ToolInputError(`Parameter "description" must be a short label (at most ${MAX_TASK_DESCRIPTION_CHARS} characters, got ${description.length}); put the details in "prompt".`);
  }
  if (prompt.length > MAX_TASK_PROMPT_CHARS) {
    throw new ToolInputError(`Parameter "prompt" is too long (${prompt.length} characters, at most ${MAX_TASK_PROMPT_CHARS}); point the subagent at files instead of pasting them.`);
  }
  return { description, prompt, agentType: agentType as SubagentType };
}

export function createTaskTool(): ToolDefinition<TaskInput> {
  return {
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
    inputSchema: {
      type: 'object',
      properties: {
        description: { type: 'string', description: 'A short (3-10 words) label of the task, shown to the user.' },
        prompt: { type: 'string', description: 'The complete brief for the subagent: the task, the context it needs, and what its report must contain.' },
        agent_type: { type: 'string', enum: [...SUBAGENT_TYPES], description: '"explore" (read-only) or "general" (all your tools except task).' },
      },
      required: ['description', 'prompt', 'agent_type'],
      additionalProperties: false,
    },
    parse: parseTaskInput,
    headline: (input) => `${input.agentType}: ${input.description}`,
    async run(input, ctx) {
      if (!ctx.runSubagent) return { content: 'Subagents are not available here (a subagent cannot launch another one).', isError: true };
      return ctx.runSubagent(input);
    },
  };
}

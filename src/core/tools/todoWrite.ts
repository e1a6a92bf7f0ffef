import * as z from '../zod';
import { userText } from '../texts/userText';
import { parseTodoList, TODO_DEFAULTS, TODO_STATUSES, TODO_WRITE_TOOL, todoCounts, todoCountsText, type TodoLimits } from '../todos/todos';
import { defineTool, refuse, schemaPerSetting } from './toolInput';
import type { ToolDefinition } from './types';

/**
 * The list is checked by todos/ (parseTodoList, which replay uses too: ids that are whole numbers
 * are taken, whitespace collapses, the limits hold, every problem is listed); the item schema
 * gives its type and what the model is told.
 */
const todoWriteInput = schemaPerSetting(JSON.stringify, (limits: TodoLimits) => {
  const item = z.object({
    id: z.string().describe('A short unique id ("1", "tests").'),
    text: z.string().describe('The step, in one line.'),
    status: z.enum(TODO_STATUSES),
  });
  const checked = (value: unknown, ctx: z.RefinementCtx): unknown => {
    if (value === undefined) return void refuse(ctx, 'Missing required parameter "todos": the complete task list, an array of {id, text, status}.');
    const parsed = parseTodoList(value, limits);
    if (parsed.ok) return parsed.items;
    refuse(ctx, parsed.problem);
    return value;
  };
  return z.object({
    todos: z.preprocess(checked, z.array(item)).describe('The complete task list, in order.'),
  });
});

export type TodoWriteInput = z.output<ReturnType<typeof todoWriteInput>>;

/**
 * `todo_write`: replaces the session's task list whole (like Claude Code's TodoWrite). It touches
 * no file, so it needs no approval; the session turns its `todos_changed` effect into a `todos` event.
 * Several items may be in progress at once (parallel subagents work on several steps).
 */
export function createTodoWriteTool(limits: TodoLimits = TODO_DEFAULTS): ToolDefinition<TodoWriteInput> {
  return defineTool({
    name: TODO_WRITE_TOOL,
    kind: 'meta',
    context: { kind: 'other' },
    description:
      'Write the task list for the current work: the plan as steps, each pending, in_progress or done. ' +
      'Each call replaces the whole list, so always send every item (with updated statuses). ' +
      'Use it for tasks of several steps: write the plan first, mark a step in_progress when you start it and done as soon as it is finished. ' +
      'The list is shown to the user and kept in your context after the conversation is summarized, so it is how you keep track of a long task. ' +
      `At most ${limits.maxItems} items of at most ${limits.maxTextChars} characters; ids must be unique. Send an empty list to clear it.`,
    input: todoWriteInput(limits),
    headline(input) {
      const counts = todoCounts(input.todos);
      const current = input.todos.find((item) => item.status === 'in_progress');
      const done = { done: counts.done, total: input.todos.length };
      return current ? userText('tool.todosCurrent', { ...done, current: current.text }) : userText('tool.todos', done);
    },
    async run(input) {
      const summary = input.todos.length === 0 ? 'Task list cleared.' : `Task list updated: ${todoCountsText(input.todos)}.`;
      return { content: summary, effects: [{ kind: 'todos_changed', items: input.todos }] };
    },
  });
}

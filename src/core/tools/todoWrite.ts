import { Args } from './args';
import { parseTodoList, TODO_DEFAULTS, TODO_STATUSES, TODO_WRITE_TOOL, todoCounts, todoCountsText, type TodoItem, type TodoLimits } from '../todos/todos';
import type { ToolDefinition } from './types';
import { ToolInputError } from '../errors';

export interface TodoWriteInput {
  todos: TodoItem[];
}

/**
 * `todo_write`: replaces the session's task list whole (like Claude Code's TodoWrite). It touches
 * no file, so it needs no approval; the session turns its result's `todos` into a `todos` event.
 * Several items may be in progress at once (parallel subagents work on several steps).
 */
export function createTodoWriteTool(limits: TodoLimits = TODO_DEFAULTS): ToolDefinition<TodoWriteInput> {
  return {
    name: TODO_WRITE_TOOL,
    kind: 'meta',
    context: { kind: 'other' },
    description:
      'Write the task list for the current work: the plan as steps, each pending, in_progress or done. ' +
      'Each call replaces the whole list, so always send every item (with updated statuses). ' +
      'Use it for tasks of several steps: write the plan first, mark a step in_progress when you start it and done as soon as it is finished. ' +
      'The list is shown to the user and kept in your context after the conversation is summarized, so it is how you keep track of a long task. ' +
      `At most ${limits.maxItems} items of at most ${limits.maxTextChars} characters; ids must be unique. Send an empty list to clear it.`,
    inputSchema: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          description: 'The complete task list, in order.',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string', description: 'A short unique id ("1", "tests").' },
              text: { type: 'string', description: 'The step, in one line.' },
              status: { type: 'string', enum: [...TODO_STATUSES] },
            },
            required: ['id', 'text', 'status'],
          },
        },
      },
      required: ['todos'],
    },
    parse(input) {
      Args.from(input, ['todos']); // throws a clear error when the input is no object
      const raw = (input as Record<string, unknown>).todos;
      if (raw === undefined || raw === null) throw new ToolInputError('Missing required parameter "todos": the complete task list, an array of {id, text, status}.');
      const parsed = parseTodoList(raw, limits);
      if (!parsed.ok) throw new ToolInputError(parsed.problem);
      return { todos: parsed.items };
    },
    headline(input) {
      const counts = todoCounts(input.todos);
      const current = input.todos.find((item) => item.status === 'in_progress');
      return `${counts.done}/${input.todos.length} done${current ? ` · ${current.text}` : ''}`;
    },
    async run(input) {
      const summary = input.todos.length === 0 ? 'Task list cleared.' : `Task list updated: ${todoCountsText(input.todos)}.`;
      return { content: summary, todos: input.todos };
    },
  };
}

/**
 * The task list as it stands in a history: the newest accepted `todo_write` call's list, or the
 * steps of a plan the user built (planDecision.ts), whichever came last. A compaction copies it
 * next to its summary; the chat's replay rebuilds it the same way.
 */
import { blocksOf } from '../model/content';
import type { MessageParam } from '../model/messages';
import { decisionsIn, EXIT_PLAN_MODE_TOOL, planOfInput } from './planDecision';
import { planSteps } from './planSteps';
import { TODO_WRITE_TOOL, todosOfInput, type TodoItem } from './todos';

/**
 * The current list: the input of the newest `todo_write` call whose result is not an error (a
 * rejected, cancelled or never-answered call changed nothing), or the steps of the newest built plan
 * when that came later. Undefined when there is neither (a built plan without steps changes nothing).
 */
export function latestTodos(messages: readonly MessageParam[]): TodoItem[] | undefined {
  const failed = new Set<string>();
  const answered = new Set<string>();
  const built = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    for (const decision of decisionsIn(message)) if (decision.kind === 'build') built.add(decision.toolUseId);
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_result') {
        answered.add(block.tool_use_id);
        if (block.is_error) failed.add(block.tool_use_id);
      }
    }
    if (message.role !== 'assistant') continue;
    const blocks = blocksOf(message);
    for (let b = blocks.length - 1; b >= 0; b--) {
      const block = blocks[b]!;
      if (block.type !== 'tool_use' || !answered.has(block.id) || failed.has(block.id)) continue;
      const items = block.name === TODO_WRITE_TOOL ? todosOfInput(block.input) : block.name === EXIT_PLAN_MODE_TOOL && built.has(block.id) ? builtSteps(block.input) : undefined;
      if (items) return items;
    }
  }
  return undefined;
}

/** A built plan's steps as the task list; undefined when it has none. */
export function builtSteps(input: unknown): TodoItem[] | undefined {
  const plan = planOfInput(input);
  const steps = plan === undefined ? [] : planSteps(plan);
  return steps.length > 0 ? steps : undefined;
}

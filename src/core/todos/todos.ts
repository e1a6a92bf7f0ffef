/**
 * The session's task list (the `todo_write` tool). The list is state derived from the transcript:
 * each accepted `todo_write` call replaces it whole, so the newest accepted call's input is the
 * list (`latestTodos`, taskList.ts, which also knows a built plan's steps), a rejected call changes
 * nothing, and resume rebuilds it with the rest of the fold. A compaction copies the list into its boundary so it reaches the context next to the
 * summary (`todoListText`).
 */

export type TodoStatus = 'pending' | 'in_progress' | 'done';
export const TODO_STATUSES: readonly TodoStatus[] = ['pending', 'in_progress', 'done'];

export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
}

export const TODO_WRITE_TOOL = 'todo_write';

/** Limits of one list: a plan, not a dump (every item reaches the context after each compaction). */
export const TODO_DEFAULTS = {
  /** Items in one list. */
  maxItems: 100,
  /** Characters of one item's text (whitespace collapsed). */
  maxTextChars: 500,
  /** Characters of one id. */
  maxIdChars: 64,
  /** The task-list block restored after a compaction: past this, done items are counted, not listed. */
  contextBlockChars: 8_000,
} as const;

export interface TodoLimits {
  maxItems: number;
  maxTextChars: number;
  maxIdChars: number;
}

/** Replaying recorded calls: a call accepted once stays accepted when the limits change later. */
const NO_LIMITS: TodoLimits = { maxItems: Number.POSITIVE_INFINITY, maxTextChars: Number.POSITIVE_INFINITY, maxIdChars: Number.POSITIVE_INFINITY };

export type TodoParse = { ok: true; items: TodoItem[] } | { ok: false; problem: string };

/** Problems listed in one error, so the model can fix them in one go without an unbounded message. */
const MAX_PROBLEMS_LISTED = 10;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/**
 * Validates a whole list (the `todos` parameter). Everything wrong is reported at once; an
 * invalid list is rejected whole, so the current list is never half replaced.
 */
export function parseTodoList(value: unknown, limits: TodoLimits = TODO_DEFAULTS): TodoParse {
  if (!Array.isArray(value)) return { ok: false, problem: `"todos" must be an array of {id, text, status} items, got ${describe(value)}.` };
  if (value.length > limits.maxItems) {
    return {
      ok: false,
      problem: `"todos" has ${value.length} items; a task list holds at most ${limits.maxItems}. Keep it to the plan's steps (merge small steps, drop finished ones you no longer need).`,
    };
  }
  const problems: string[] = [];
  const items: TodoItem[] = [];
  const seen = new Map<string, number>();
  const duplicates = new Set<string>();
  value.forEach((raw, index) => {
    const where = `todos[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push(`${where} must be an object {id, text, status}, got ${describe(raw)}`);
      return;
    }
    const item = raw as Record<string, unknown>;
    let id: string | undefined;
    // Models often number their steps: an integer id is taken as its decimal string. Whitespace
    // collapses as in the text, so an id cannot forge lines of the restored block either.
    if (typeof item.id === 'number' && Number.isSafeInteger(item.id)) id = String(item.id);
    else if (typeof item.id === 'string' && item.id.trim() !== '') id = item.id.replace(/\s+/g, ' ').trim();
    else problems.push(`${where}.id must be a non-empty string, got ${item.id === undefined ? 'nothing' : describe(item.id)}`);
    if (id !== undefined && id.length > limits.maxIdChars) {
      problems.push(`${where}.id is ${id.length} characters long; at most ${limits.maxIdChars}`);
      id = undefined;
    }
    // One line per item: a newline in the text must not forge list lines in the context block.
    const text = typeof item.text === 'string' ? item.text.replace(/\s+/g, ' ').trim() : undefined;
    if (text === undefined || text === '') problems.push(`${where}.text must be a non-empty string, got ${typeof item.text === 'string' ? 'an empty one' : item.text === undefined ? 'nothing' : describe(item.text)}`);
    else if (text.length > limits.maxTextChars) problems.push(`${where}.text is ${text.length} characters long; at most ${limits.maxTextChars} (keep the step short; details belong in files or messages)`);
    const status = item.status;
    const validStatus = typeof status === 'string' && (TODO_STATUSES as readonly string[]).includes(status);
    if (!validStatus) problems.push(`${where}.status must be one of ${TODO_STATUSES.join(', ')}, got ${typeof status === 'string' ? shown(status) : status === undefined ? 'nothing' : describe(status)}`);
    if (id !== undefined) {
      if (seen.has(id)) duplicates.add(id);
      seen.set(id, index);
    }
    if (id !== undefined && text !== undefined && text !== '' && text.length <= limits.maxTextChars && validStatus) items.push({ id, text, status: status as TodoStatus });
  });
  if (duplicates.size > 0) problems.unshift(`duplicate id${duplicates.size > 1 ? 's' : ''} ${[...duplicates].map(shown).join(', ')}: every item needs its own id`);
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_PROBLEMS_LISTED);
    const more = problems.length > listed.length ? `\n- … and ${problems.length - listed.length} more` : '';
    return { ok: false, problem: `The task list was not changed:\n- ${listed.join('\n- ')}${more}` };
  }
  return { ok: true, items };
}

/** A list read back from the transcript (accepted once, so no limits apply); undefined when its shape is wrong. */
export function recordedTodos(value: unknown): TodoItem[] | undefined {
  const parsed = parseTodoList(value, NO_LIMITS);
  return parsed.ok ? parsed.items : undefined;
}

/** The list a recorded (accepted) `todo_write` input holds; undefined when it does not parse. */
export function todosOfInput(input: unknown): TodoItem[] | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  return recordedTodos((input as Record<string, unknown>).todos);
}

export function todoCounts(items: readonly TodoItem[]): Record<TodoStatus, number> {
  const counts: Record<TodoStatus, number> = { pending: 0, in_progress: 0, done: 0 };
  for (const item of items) counts[item.status]++;
  return counts;
}

/** "3 items: 1 done, 1 in progress, 1 pending" */
export function todoCountsText(items: readonly TodoItem[]): string {
  const counts = todoCounts(items);
  return `${items.length} item${items.length === 1 ? '' : 's'}: ${counts.done} done, ${counts.in_progress} in progress, ${counts.pending} pending`;
}

/** Opens the task-list block in the live view; the breakdown counts it with the summaries. */
export const TASK_LIST_MARK = 'Current task list';

const STATUS_LABEL: Record<TodoStatus, string> = { pending: 'pending', in_progress: 'in progress', done: 'done' };

/**
 * The block placed next to a compaction's summary: the list as of that compaction, in order, with
 * statuses in words. Over `maxChars` the done items are only counted (what is left to do matters
 * most); a list still too long is cut, with a note (the full list is in the transcript).
 */
export function todoListText(items: readonly TodoItem[], maxChars: number = TODO_DEFAULTS.contextBlockChars): string {
  const head = `${TASK_LIST_MARK} (as of this summary, written with todo_write; a later todo_write call replaces it, so send the whole list when you update it):`;
  const line = (item: TodoItem) => `- [${STATUS_LABEL[item.status]}] ${item.id}: ${item.text}`;
  const full = `${head}\n${items.map(line).join('\n')}`;
  if (full.length <= maxChars) return full;
  const open = items.filter((item) => item.status !== 'done');
  const done = items.length - open.length;
  const compact = `${head}\n${open.map(line).join('\n')}${done > 0 ? `\n- (${done} done item${done === 1 ? '' : 's'} not listed to save context)` : ''}`;
  if (compact.length <= maxChars) return compact;
  return `${compact.slice(0, Math.max(head.length, maxChars))}\n[... task list cut to save context; the full list is in the newest todo_write call of the session transcript ...]`;
}

/**
 * A plan's steps as a task list: the model proposes a plan in Markdown (exit_plan_mode) and Build it
 * makes its steps the session's task list (todos.ts's shape). The steps are read by a real
 * Markdown parser, so a list inside a code block is never taken for them.
 */
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { parseTodoList, TODO_DEFAULTS, type TodoItem } from './todos';

export interface PlanProposal {
  markdown: string;
  /** The plan's steps, all pending (or done where a checkbox says so), ids "1", "2", …: what Build it makes the task list. */
  steps: TodoItem[];
}

/** A heading that introduces the steps: the list under it is the plan's list. */
const STEPS_HEADING = /\b(steps?|implementation|plan|tasks?|to-?dos?|changes|approach)\b/i;

interface ListFound {
  ordered: boolean;
  heading: string | undefined;
  items: string[];
}

const markdown = new MarkdownIt('commonmark');

/** An item's words: its first paragraph's text and code, without the Markdown around them. */
function inlineText(token: Token): string {
  return (token.children ?? [])
    .map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : child.type === 'softbreak' || child.type === 'hardbreak' ? ' ' : ''))
    .join('');
}

/** The top-level lists of a document, each with the heading above it and its items' first lines. */
function topLevelLists(tokens: readonly Token[]): ListFound[] {
  const lists: ListFound[] = [];
  let heading: string | undefined;
  let depth = 0;
  let current: ListFound | undefined;
  let awaitingItemText = false;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.type === 'heading_open' && depth === 0) heading = inlineText(tokens[index + 1]!);
    if (token.type === 'bullet_list_open' || token.type === 'ordered_list_open') {
      if (depth === 0) {
        current = { ordered: token.type === 'ordered_list_open', heading, items: [] };
        lists.push(current);
      }
      depth++;
    }
    if (token.type === 'bullet_list_close' || token.type === 'ordered_list_close') depth--;
    if (token.type === 'list_item_open' && depth === 1) awaitingItemText = true;
    if (token.type === 'inline' && awaitingItemText && current) {
      current.items.push(inlineText(token));
      awaitingItemText = false;
    }
  }
  return lists;
}

function chooseList(lists: readonly ListFound[]): ListFound | undefined {
  const underHeading = lists.filter((list) => list.heading !== undefined && STEPS_HEADING.test(list.heading));
  return underHeading.find((list) => list.ordered) ?? underHeading[0] ?? lists.find((list) => list.ordered) ?? lists[0];
}

/** The steps of a plan in Markdown: the list under a "Steps"-like heading, else its first numbered list, else its first list. */
export function planSteps(plan: string): TodoItem[] {
  const chosen = chooseList(topLevelLists(markdown.parse(plan, {})));
  if (!chosen) return [];
  const raw = chosen.items
    .map((text) => {
      const box = /^\[([ xX])\]\s+/.exec(text);
      const words = (box ? text.slice(box[0].length) : text).replace(/\s+/g, ' ').trim();
      const cut = words.length > TODO_DEFAULTS.maxTextChars ? `${words.slice(0, TODO_DEFAULTS.maxTextChars - 1)}…` : words;
      return { text: cut, status: box && box[1] !== ' ' ? 'done' : 'pending' };
    })
    .filter((item) => item.text !== '')
    .slice(0, TODO_DEFAULTS.maxItems)
    .map((item, index) => ({ id: String(index + 1), ...item }));
  const parsed = parseTodoList(raw);
  return parsed.ok ? parsed.items : [];
}

/** A proposed plan as the card and Build it need it. */
export function proposedPlan(markdown: string): PlanProposal {
  return { markdown, steps: planSteps(markdown) };
}


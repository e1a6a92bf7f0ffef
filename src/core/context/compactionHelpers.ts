/**
 * Pure helpers over message lists that compaction uses: fitting the summary request into the window
 * (instruction, shrunk tool results, dropped rounds with the user's words carried), and the small
 * path/boundary helpers of a new boundary. No engine state: each takes what it needs.
 */
import type { ContentBlockParam, MessageParam } from '../model/messages';
import { blocksOf, textsOf, toolResultsOf, toolResultText, toolUsesOf } from '../model/content';
import type { CompactionRecord } from '../storage/transcript';
import { latestTodos } from '../todos/taskList';
import { isCleanStart } from './liveView';
import { SUMMARY_MARK } from './summary';
import { NESTED_INSTRUCTIONS_MARK } from '../instructions/instructionFiles';
import { HOOK_NOTE_MARK } from '../hooks/notes';
import { headTail } from './text';

/** The task list as of a new boundary, for its record (the live view shows it next to the summary). */
export function todosAsOf(canonical: readonly MessageParam[]): Pick<CompactionRecord, 'todos'> {
  const todos = latestTodos(canonical);
  return todos && todos.length > 0 ? { todos } : {};
}

export function emptyBoundary(): CompactionRecord {
  return { id: '', trigger: 'drop', keptFrom: 0, restoredFiles: [], stats: { tokensBefore: 0, tokensAfter: 0, messagesSummarized: 0, messagesKept: 0, summaryRequests: 0 } };
}

/** `./a.ts` and `a.ts` (and either path separator) name one file when reads are compared. */
export function normalizedPath(value: string): string {
  return value.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/+/g, '/');
}

/** True when no assistant tool_use at the end waits for its result. */
export function allToolUsesAnswered(canonical: readonly MessageParam[]): boolean {
  const last = canonical.at(-1);
  return !last || toolUsesOf(last).length === 0;
}

/**
 * The summary instruction appended to the conversation: as a text block after the last user
 * message's blocks (tool_results stay first), or as a new user message after an assistant reply.
 */
export function withInstruction(messages: readonly MessageParam[], instruction: string): { messages: MessageParam[]; breakpoints: number[] } {
  const out = messages.slice();
  const last = out.at(-1);
  if (last && last.role === 'user') {
    out[out.length - 1] = { role: 'user', content: [...blocksOf(last), { type: 'text', text: instruction }] };
  } else {
    out.push({ role: 'user', content: [{ type: 'text', text: instruction }] });
  }
  // The API looks back up to 20 blocks from a breakpoint for a cached prefix, so one on the
  // newest block reads the conversation written by the previous request.
  return { messages: out, breakpoints: [out.length - 1] };
}

/** The text a user typed in these messages (tool results and summaries excluded). */
export function userTexts(messages: readonly MessageParam[]): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    for (const text of textsOf(message)) {
      // A subfolder's instructions came with tool results, and a hook's text from the hook: not from the user.
      if (text.startsWith(SUMMARY_MARK) || text.startsWith(NESTED_INSTRUCTIONS_MARK) || text.startsWith(HOOK_NOTE_MARK)) continue;
      // Words carried by an earlier drop are carried again (one by one), never lost.
      if (text.startsWith(CARRIED_MARK)) texts.push(...text.split('\n- ').slice(1));
      else texts.push(text);
    }
  }
  return texts;
}

export const OMITTED_RESULT_TEXT = '[Tool result left out of this summary request to fit the window; the full output is in the transcript.]';
const CARRIED_MARK = 'Earlier messages of the user';
/** One carried user message at most this long (head + tail); the full text stays in the transcript. */
const CARRIED_MESSAGE_CHARS = 4_000;

/**
 * The user's carried words within a budget (characters): each message cut head + tail, and when
 * they still do not fit, the oldest go first — an unbounded carry could itself outgrow the window.
 */
export function boundedCarry(texts: readonly string[], budgetChars: number): string[] {
  const cut = texts.map((text) => headTail(text, Math.min(CARRIED_MESSAGE_CHARS, Math.max(200, budgetChars)), 'a long user message, cut; the full text is in the transcript'));
  const kept: string[] = [];
  let used = 0;
  for (let index = cut.length - 1; index >= 0; index--) {
    used += cut[index]!.length;
    if (used > budgetChars && kept.length > 0) break;
    kept.unshift(cut[index]!);
  }
  return kept;
}

/** Old tool results replaced by a short note, the newest `keep` trimmed to `maxChars`: the summary request's first way to fit. */
export function shrinkToolResults(messages: readonly MessageParam[], keep: number, maxChars: number): MessageParam[] {
  let total = 0;
  for (const message of messages) if (message.role === 'user') total += toolResultsOf(message).length;
  let seen = 0;
  return messages.map((message) => {
    if (message.role !== 'user' || typeof message.content === 'string' || toolResultsOf(message).length === 0) return message;
    const content = message.content.map((block): ContentBlockParam => {
      if (block.type !== 'tool_result') return block;
      seen++;
      const text = seen <= total - keep ? OMITTED_RESULT_TEXT : headTail(toolResultText(block), maxChars, 'trimmed to fit the summary request');
      return { type: 'tool_result', tool_use_id: block.tool_use_id, content: text, ...(block.is_error ? { is_error: true } : {}) };
    });
    return { role: 'user', content };
  });
}

/**
 * Drops the oldest rounds (never splitting a tool pair) until the estimate is at most `target`;
 * a leading summary message is kept, and what the user wrote in the dropped rounds is carried
 * verbatim. The result starts with a user message.
 */
export function dropOldestRounds(messages: readonly MessageParam[], estimate: (messages: readonly MessageParam[]) => number, target: number): MessageParam[] {
  const keepHead = messages[0] && blocksOf(messages[0]).some((block) => block.type === 'text' && block.text.startsWith(SUMMARY_MARK)) ? 1 : 0;
  const carryBudget = Math.max(2_000, Math.floor(JSON.stringify(messages).length * 0.1));
  const lastUser = messages.length - 1;
  let best: MessageParam[] = messages.slice();
  for (let cut = keepHead + 1; cut < lastUser; cut++) {
    if (!isCleanStart(messages[cut]!)) continue;
    const dropped = boundedCarry(userTexts(messages.slice(keepHead, cut)), carryBudget);
    const carry: ContentBlockParam[] = dropped.length > 0 ? [{ type: 'text', text: `${CARRIED_MARK} (older rounds were left out to fit; kept verbatim):\n\n${dropped.map((text) => `- ${text}`).join('\n')}` }] : [];
    const rest = messages.slice(cut);
    const first = rest[0]!;
    let head: MessageParam[];
    if (keepHead) {
      const summary = messages[0]!;
      head = first.role === 'user' ? [{ role: 'user', content: [...blocksOf(summary), ...carry, ...blocksOf(first)] }] : [{ role: 'user', content: [...blocksOf(summary), ...carry] }, first];
    } else if (first.role === 'assistant') {
      head = [{ role: 'user', content: [{ type: 'text', text: '[Earlier messages omitted to fit the context window.]' }, ...carry] }, first];
    } else {
      head = [{ role: 'user', content: [...carry, ...blocksOf(first)] }];
    }
    best = [...head, ...rest.slice(1)];
    if (estimate(best) <= target) return best;
  }
  return best;
}

/**
 * `recall` (issue 20): the model's way back to anything the context engine removed from its view.
 * `{id}` returns an earlier tool result exactly (paged by characters when large); `{query}` searches
 * the session's whole history. The history itself is read by a `RecallSource` the agent provides
 * (recall/recallIndex.ts reads the transcript): this tool only checks input and words the answer.
 */
import * as z from '../zod';
import { RECALL_TOOL } from './recallRef';
import type { RecallQuery, RecallSearchOutcome, RecallSource } from './recallTypes';
import { defineTool, refuse } from './toolInput';
import type { ToolDefinition, ToolResult } from './types';
import { ToolInputError } from '../errors';

import { verbatim, userText } from '../texts/userText';

export interface RecallToolOptions {
  /** Characters a page holds at most (asked per call: the persist threshold, which shrinks with a learned window). */
  maxPageChars?: number | (() => number);
}

export const RECALL_DEFAULTS = { maxPageChars: 30_000, defaultResults: 10, maxResults: 50, maxQueryChars: 1_000 } as const;

/** Two calls in one: `{id}` (an earlier result, paged by offset and limit) or `{query}` (a search, limit = matches). */
const recallInput = z
  .object({
    id: z.string().optional().describe('The tool_use id of an earlier tool call whose result you want back exactly (placeholders and notes name it).'),
    query: z
      .string()
      .optional()
      .describe('Search the history: plain text (case-insensitive), or a JavaScript regular expression written /pattern/flags (flags i, m, s, u). Matches are counted per line.'),
    offset: z.int().min(0).optional().describe('With id: the character offset to start from (default 0); a paged result names the next offset.'),
    limit: z
      .int()
      .min(1)
      .optional()
      .describe(
        `With id: characters per page (default and maximum: the page size, about ${RECALL_DEFAULTS.maxPageChars.toLocaleString('en-US')}). With query: how many matches to return (default ${RECALL_DEFAULTS.defaultResults}, at most ${RECALL_DEFAULTS.maxResults}).`,
      ),
  })
  .superRefine(({ id, query, offset, limit }, ctx) => {
    if ((id === undefined) === (query === undefined)) return refuse(ctx, 'Pass exactly one of "id" (an earlier tool result, exactly) or "query" (a search of the history).');
    if (id !== undefined) {
      if (id.trim() === '') ctx.addIssue({ code: 'custom', message: 'must not be empty: give the tool_use id of an earlier call', path: ['id'], input: id });
      return;
    }
    if (offset !== undefined) refuse(ctx, '"offset" pages a result recalled by id; a query takes only "limit" (how many matches).');
    if (query!.trim() === '') ctx.addIssue({ code: 'custom', message: 'must not be empty', path: ['query'], input: query });
    if (query!.length > RECALL_DEFAULTS.maxQueryChars) refuse(ctx, `The query is longer than ${RECALL_DEFAULTS.maxQueryChars} characters: search for a distinctive part of it.`);
    if (limit !== undefined && limit > RECALL_DEFAULTS.maxResults) ctx.addIssue({ code: 'too_big', origin: 'int', maximum: RECALL_DEFAULTS.maxResults, inclusive: true, path: ['limit'], input: limit });
  })
  .transform(({ id, query, offset = 0, limit }) =>
    id !== undefined ? { id: id.trim(), offset, ...(limit !== undefined ? { limit } : {}) } : { query: query!, limit: limit ?? RECALL_DEFAULTS.defaultResults },
  );

export type RecallInput = z.output<typeof recallInput>;

/**
 * A query written `/pattern/flags` (flags among g, i, m, s, u, y) is a regular expression; g and y mean nothing
 * here and are dropped. Anything else, a path such as `/src/app` included, is plain text.
 */
export function parseRecallQuery(raw: string): RecallQuery {
  const regex = /^\/(.+)\/([gimsuy]*)$/s.exec(raw);
  if (!regex) return { kind: 'text', text: raw };
  const pattern = regex[1]!;
  const flags = [...new Set(regex[2]!.replace(/[gy]/g, ''))].join('');
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolInputError(`Invalid regular expression ${raw}: ${error instanceof Error ? error.message : String(error)}. Fix it, or leave out the enclosing slashes to search plain text.`);
  }
  return { kind: 'regex', pattern, flags };
}

export function createRecallTool(options: RecallToolOptions = {}): ToolDefinition<RecallInput> {
  const budget = options.maxPageChars ?? RECALL_DEFAULTS.maxPageChars;
  const maxPageChars = (): number => Math.max(1_000, typeof budget === 'function' ? budget() : budget);
  return defineTool({
    name: RECALL_TOOL,
    kind: 'read',
    // A recalled result is a normal result: tiers may clear it again (it can be recalled again). It pages
    // itself at the persist threshold, and saving a page again to tool-results/ would only copy it.
    context: { kind: 'other', persist: 'never' },
    description:
      'Bring back what is no longer in view: this session\'s full history is kept on disk, including everything before a summary, ' +
      'cleared or trimmed tool results, saved (persisted) outputs and subagents\' work. ' +
      'recall {"id": "<tool_use_id>"} returns that earlier tool result exactly and completely (paged by characters: offset/limit). ' +
      'recall {"query": "..."} searches the whole history (messages, tool calls with their inputs, tool results, summaries) and returns the best matches, ' +
      'each with its tool-use id or message position, time and an excerpt. Use it instead of re-running a command whose output may have changed, ' +
      'or when a summary left out a detail. Pass exactly one of id or query.',
    input: recallInput,
    headline: (input) => ('id' in input ? (input.offset > 0 ? userText('tool.recallFrom', { id: input.id, offset: String(input.offset) }) : verbatim(input.id)) : verbatim(input.query)),
    async run(input, ctx) {
      if (!ctx.recall) return { content: 'recall is not available here: this session keeps no transcript on disk.', isError: true };
      if ('id' in input) return recallById(ctx.recall, input, Math.min(input.limit ?? maxPageChars(), maxPageChars()), ctx.signal);
      const query = parseRecallQuery(input.query);
      const outcome = await ctx.recall.search(query, input.limit, ctx.signal);
      return { content: searchText(input.query, query, outcome) };
    },
  });
}

async function recallById(source: RecallSource, input: { id: string; offset: number }, pageChars: number, signal: AbortSignal): Promise<ToolResult> {
  const found = await source.lookup(input.id, signal);
  if (found.kind === 'missing') return { content: found.message, isError: true };
  const total = found.text.length;
  if (input.offset > 0 && input.offset >= total) {
    return { content: `The result of ${found.toolUseId} has ${total.toLocaleString('en-US')} characters: offset ${input.offset} is past its end.`, isError: true };
  }
  // A page never splits a surrogate pair: its halves would not survive JSON to the model.
  const start = alignToChar(found.text, input.offset);
  const end = alignToChar(found.text, Math.min(total, start + pageChars));
  const paged = start > 0 || end < total;
  const notes = found.notes.map((note) => `[${note}]\n`).join('');
  const head =
    notes +
    (paged
      ? `[${found.toolUseId}${found.toolName ? ` (${found.toolName})` : ''}: characters ${start.toLocaleString('en-US')}-${end.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}]\n`
      : '');
  const tail = end < total ? `\n[${(total - end).toLocaleString('en-US')} more characters: recall {"id":${JSON.stringify(found.toolUseId)},"offset":${end}}]` : '';
  const content = head + found.text.slice(start, end) + tail;
  return { content, effects: [{ kind: 'recalled', slice: { source: found.source, start, end, head, tail }, content }] };
}

function alignToChar(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

function searchText(raw: string, query: RecallQuery, outcome: RecallSearchOutcome): string {
  const how = query.kind === 'text' ? 'plain text, case-insensitive' : 'regular expression';
  const problems = outcome.problems.length > 0 ? `\n[${count(outcome.problems.length, 'transcript line')} could not be read and ${outcome.problems.length === 1 ? 'was' : 'were'} skipped: ${outcome.problems.slice(0, 3).join('; ')}${outcome.problems.length > 3 ? '; …' : ''}]` : '';
  if (outcome.hits.length === 0) return `No match for ${JSON.stringify(raw)} (${how}) in this session's history.${problems}`;
  const lines = [
    `${count(outcome.totalMatches, 'matching line')} in ${count(outcome.totalPlaces, 'place')} for ${JSON.stringify(raw)} (${how}); ${outcome.hits.length === outcome.totalPlaces ? 'all' : `the best ${outcome.hits.length}`}, best first:`,
  ];
  outcome.hits.forEach((hit, index) => {
    const what = hit.toolName ? `${hit.what} of ${hit.toolName}` : hit.what;
    const where = hit.subagent ? ` in subagent ${hit.subagent}` : '';
    lines.push(`${index + 1}. ${hit.ref} · ${what}${where} · ${hit.ts} · ${count(hit.matches, 'line')}`, `   ${hit.excerpt}`);
  });
  const more = outcome.totalPlaces - outcome.hits.length;
  if (more > 0) lines.push(`${count(more, 'more place')} not shown: narrow the query, or raise "limit" (at most ${RECALL_DEFAULTS.maxResults}).`);
  lines.push('recall {"id": "<id>"} returns a tool result whole.');
  return lines.join('\n') + problems;
}

/** "1 place", "2,000 places": counts here can be large, so they are grouped. */
function count(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : `${word}s`}`;
}

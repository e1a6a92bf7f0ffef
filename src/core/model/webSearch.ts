/**
 * Anthropic's server-side web search as a request offers it: the tool version, how many searches
 * one request may run, and the domains results may (or may not) come from. The API runs the
 * searches; the reply holds `server_tool_use` and `web_search_tool_result` blocks that must go back
 * exactly (context/liveView.ts decides when they go back at all).
 */
import type { ContentBlockParam, ServerTools } from './messages';

/** The tool's type: the version whose wire format the fake models (test/fake-anthropic). */
export const WEB_SEARCH_TOOL_TYPE = 'web_search_20250305';

export interface WebSearchToolParam {
  type: typeof WEB_SEARCH_TOOL_TYPE;
  name: 'web_search';
  max_uses: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
}

/** The API refuses both lists at once; allowed domains win when a caller gives both. */
export function webSearchTool(search: NonNullable<ServerTools['webSearch']>): WebSearchToolParam {
  const allowed = search.allowedDomains?.length ? { allowed_domains: [...search.allowedDomains] } : undefined;
  const blocked = !allowed && search.blockedDomains?.length ? { blocked_domains: [...search.blockedDomains] } : undefined;
  return { type: WEB_SEARCH_TOOL_TYPE, name: 'web_search', max_uses: search.maxUses, ...allowed, ...blocked };
}

/** Opens the note that stands for a web search of a completed turn. */
export const SEARCH_NOTE_MARK = '[Web search';

/**
 * A completed turn's web searches, cleared the way the API accepts: each call goes together with its
 * result (a result without its call, or a call without its result, is refused), replaced by one
 * line with the query and the result URLs (web_fetch reads any of them again), and the text's
 * citations go too (they point into the results). The reply's words stay. Within its own turn a
 * search goes back exactly as it came; a compaction drops whole messages, so whole pairs.
 */
export function withSearchesAsNotes(content: readonly ContentBlockParam[]): ContentBlockParam[] {
  // Also where a back end cannot take the blocks at all (the OpenAI-compatible one, after a switch of provider).
  const results = new Map<string, Extract<ContentBlockParam, { type: 'web_search_tool_result' }>>();
  for (const block of content) if (block.type === 'web_search_tool_result') results.set(block.tool_use_id, block);
  const out: ContentBlockParam[] = [];
  for (const block of content) {
    if (block.type === 'web_search_tool_result') continue;
    if (block.type === 'server_tool_use') {
      out.push({ type: 'text', text: searchNote(block, results.get(block.id)) });
      continue;
    }
    if (block.type === 'text' && block.citations !== undefined) {
      out.push({ type: 'text', text: block.text });
      continue;
    }
    out.push(block);
  }
  return out;
}

function searchNote(call: Extract<ContentBlockParam, { type: 'server_tool_use' }>, result: Extract<ContentBlockParam, { type: 'web_search_tool_result' }> | undefined): string {
  const query = typeof call.input.query === 'string' ? JSON.stringify(call.input.query) : '(no query)';
  const content = result?.content;
  if (!Array.isArray(content)) return `${SEARCH_NOTE_MARK} ${query}: ${content ? `failed (${content.error_code})` : 'no result'}; not sent again.]`;
  return `${SEARCH_NOTE_MARK} ${query}: ${content.length} result${content.length === 1 ? '' : 's'}, not sent again (web_fetch reads any of them): ${content.map((item) => item.url).join(' ')}]`;
}

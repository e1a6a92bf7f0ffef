/**
 * The fake's model of Anthropic's server-side web search (`web_search_20250305`): the tool as a
 * request declares it, the blocks a scripted reply turns into (`server_tool_use`,
 * `web_search_tool_result` with opaque `encrypted_content`, text with `web_search_result_location`
 * citations carrying an opaque `encrypted_index`), and what the API refuses when they come back:
 * a call without its result or a result without its call, an edited encrypted_content or
 * encrypted_index, either block in a user message, a search tool declared wrongly.
 */
import { createHmac } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';

export const WEB_SEARCH_TYPE = 'web_search_20250305';
/** Anthropic's price: USD per 1,000 searches (the fake only reports the count; clients price it). */
export const WEB_SEARCH_USD_PER_THOUSAND = 10;

const KEY = 'fake-anthropic-web-search-key';

export interface ScriptedSearchResult {
  url: string;
  title: string;
  page_age?: string | null;
}

function seal(kind: string, payload: object): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64');
  const mac = createHmac('sha256', KEY).update(`${kind}\u0000${body}`).digest('base64');
  return `${kind}.${body}.${mac}`;
}

function opened(kind: string, sealed: unknown): Record<string, unknown> | undefined {
  if (typeof sealed !== 'string') return undefined;
  const [k, body, mac] = sealed.split('.');
  if (k !== kind || body === undefined || mac === undefined) return undefined;
  if (createHmac('sha256', KEY).update(`${kind}\u0000${body}`).digest('base64') !== mac) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The opaque content of one result (it carries the page's text in the real API; here its URL and title). */
export function encryptedContent(result: ScriptedSearchResult): string {
  return seal('wsr', { url: result.url, title: result.title, text: `Page text of ${result.url}.` });
}

export function encryptedIndex(url: string, citedText: string): string {
  return seal('wsi', { url, cited: citedText });
}

/** The two blocks one scripted search becomes. */
export function searchBlocks(id: string, query: string, results: readonly ScriptedSearchResult[] | { error_code: Anthropic.WebSearchToolResultErrorCode }): [Anthropic.ServerToolUseBlock, Anthropic.WebSearchToolResultBlock] {
  const content: Anthropic.WebSearchToolResultBlockContent = Array.isArray(results)
    ? results.map((result) => ({ type: 'web_search_result', url: result.url, title: result.title, encrypted_content: encryptedContent(result), page_age: result.page_age ?? null }))
    : { type: 'web_search_tool_result_error', error_code: (results as { error_code: Anthropic.WebSearchToolResultErrorCode }).error_code };
  return [
    { type: 'server_tool_use', id, name: 'web_search', input: { query }, caller: { type: 'direct' } },
    { type: 'web_search_tool_result', tool_use_id: id, content, caller: { type: 'direct' } },
  ];
}

export function citation(url: string, title: string | null, citedText: string): Anthropic.CitationsWebSearchResultLocation {
  return { type: 'web_search_result_location', url, title, encrypted_index: encryptedIndex(url, citedText), cited_text: citedText };
}

/** The request's web search tool, checked as the API checks it; undefined when it declares none. */
export function webSearchToolProblem(tools: readonly unknown[]): { declared: boolean; maxUses: number | undefined; problem?: string } {
  const search = tools.filter((tool): tool is Record<string, unknown> => typeof tool === 'object' && tool !== null && typeof (tool as { type?: unknown }).type === 'string' && String((tool as { type: string }).type).startsWith('web_search_'));
  if (search.length === 0) return { declared: false, maxUses: undefined };
  if (search.length > 1) return { declared: true, maxUses: undefined, problem: 'tools: Tool names must be unique.' };
  const tool = search[0]!;
  const allowedKeys = new Set(['type', 'name', 'max_uses', 'allowed_domains', 'blocked_domains', 'user_location', 'cache_control']);
  for (const key of Object.keys(tool)) if (!allowedKeys.has(key)) return { declared: true, maxUses: undefined, problem: `tools.0.${key}: Extra inputs are not permitted` };
  if (tool.type !== WEB_SEARCH_TYPE) return { declared: true, maxUses: undefined, problem: `tools: Input tag '${String(tool.type)}' found using 'type' does not match any of the expected tags` };
  if (tool.name !== 'web_search') return { declared: true, maxUses: undefined, problem: `tools: web search tool name must be 'web_search'` };
  if (tool.max_uses !== undefined && tool.max_uses !== null && !(Number.isInteger(tool.max_uses) && (tool.max_uses as number) > 0)) return { declared: true, maxUses: undefined, problem: 'tools: max_uses: Input should be greater than 0' };
  if (Array.isArray(tool.allowed_domains) && Array.isArray(tool.blocked_domains)) return { declared: true, maxUses: undefined, problem: 'tools: Cannot specify both allowed_domains and blocked_domains' };
  for (const key of ['allowed_domains', 'blocked_domains'] as const) {
    const list = tool[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || list.some((entry) => typeof entry !== 'string' || /^https?:\/\//.test(entry))) return { declared: true, maxUses: undefined, problem: `tools: ${key} must be a list of domains without a scheme` };
  }
  return { declared: true, maxUses: typeof tool.max_uses === 'number' ? tool.max_uses : undefined };
}

/**
 * The web search blocks of a request's messages, checked as the API checks them; the first
 * problem in the API's words, or undefined.
 */
export function webSearchHistoryProblem(messages: readonly Anthropic.MessageParam[]): string | undefined {
  const seen = new Set<string>();
  for (const [m, message] of messages.entries()) {
    if (typeof message.content === 'string') continue;
    const calls = new Map<string, number>();
    for (const [b, block] of message.content.entries()) {
      const where = `messages.${m}.content.${b}`;
      if (block.type === 'server_tool_use' || block.type === 'web_search_tool_result') {
        if (message.role !== 'assistant') return `${where}: \`${block.type}\` blocks can only be in \`assistant\` messages`;
      }
      if (block.type === 'server_tool_use') {
        if (seen.has(block.id)) return `${where}: \`server_tool_use\` ids must be unique`;
        seen.add(block.id);
        calls.set(block.id, b);
      } else if (block.type === 'web_search_tool_result') {
        if (!calls.has(block.tool_use_id)) return `${where}: \`web_search_tool_result\` block with id \`${block.tool_use_id}\` was found without a corresponding \`web_search\` tool use block before it`;
        calls.delete(block.tool_use_id);
        if (Array.isArray(block.content)) {
          for (const [r, result] of block.content.entries()) {
            const sealed = opened('wsr', result.encrypted_content);
            if (!sealed || sealed.url !== result.url) return `${where}.content.${r}.encrypted_content: Invalid \`encrypted_content\` for the web search result; it must be passed back exactly as it was returned`;
          }
        }
      } else if (block.type === 'text' && Array.isArray(block.citations)) {
        for (const [c, cite] of block.citations.entries()) {
          if (cite.type !== 'web_search_result_location') continue;
          const sealed = opened('wsi', cite.encrypted_index);
          if (!sealed || sealed.url !== cite.url || sealed.cited !== cite.cited_text) return `${where}.citations.${c}.encrypted_index: Invalid \`encrypted_index\` in citation; it must be passed back exactly as it was returned`;
        }
      }
    }
    const [open] = calls.keys();
    if (open !== undefined) return `messages.${m}: \`web_search\` tool use with id \`${open}\` was found without a corresponding \`web_search_tool_result\` block`;
  }
  return undefined;
}

/**
 * A paused turn (`stop_reason: "pause_turn"`): the API paused its server-side tool loop between two
 * iterations and the client continues the turn by sending the reply back as it is, as the last
 * message. The fake models it strictly: only a request that declared the search tool can pause,
 * a paused reply holds no client tool call (those end with `tool_use`) and ends after a search (the
 * loop's iteration), and on models that refuse a prefill a final assistant message is accepted only
 * when it ends with a paused reply exactly as it was sent (an edited one is a prefill, refused).
 */
export function pausedReplyProblem(reply: { content: readonly { type: string }[]; stop_reason?: string | null }, searchDeclared: boolean): string | undefined {
  if (reply.stop_reason !== 'pause_turn') return undefined;
  if (!searchDeclared) return 'the scripted reply pauses the turn (pause_turn) but the request declared no server tool; only the API\'s own tool loop pauses.';
  if (reply.content.some((block) => block.type === 'tool_use')) return 'the scripted reply pauses the turn (pause_turn) but calls a client tool; a reply that calls one ends with tool_use.';
  if (reply.content.at(-1)?.type !== 'web_search') return 'the scripted reply pauses the turn (pause_turn) but does not end with a web_search; the loop pauses between its searches.';
  return undefined;
}

/**
 * What identifies each block of a reply when it comes back (the client may drop fields the API
 * added, like `caller`, and must drop whitespace-only text, which the API refuses in a request).
 */
export function replyBlockKeys(blocks: readonly unknown[]): string[] {
  const keys: string[] = [];
  for (const block of blocks) {
    if (typeof block !== 'object' || block === null) {
      keys.push('?');
      continue;
    }
    const b = block as Record<string, unknown>;
    switch (b['type']) {
      case 'text':
        if (String(b['text']).trim() !== '') keys.push(`text:${String(b['text'])}:${(Array.isArray(b['citations']) ? b['citations'] : []).map((cite) => String((cite as Record<string, unknown>)['encrypted_index'])).join(',')}`);
        break;
      case 'server_tool_use':
        keys.push(`server_tool_use:${String(b['id'])}`);
        break;
      case 'web_search_tool_result':
        keys.push(`web_search_tool_result:${String(b['tool_use_id'])}`);
        break;
      case 'thinking':
        keys.push(`thinking:${String(b['signature'])}`);
        break;
      case 'redacted_thinking':
        keys.push(`redacted_thinking:${String(b['data'])}`);
        break;
      default:
        keys.push(`${String(b['type'])}:${JSON.stringify(b)}`);
    }
  }
  return keys;
}

/** Whether `blocks` (a final assistant message) end with one of the paused replies, block for block. */
export function continuesPausedReply(blocks: readonly unknown[], paused: readonly (readonly string[])[]): boolean {
  const keys = replyBlockKeys(blocks);
  return paused.some((reply) => reply.length > 0 && reply.length <= keys.length && reply.every((key, i) => keys[keys.length - reply.length + i] === key));
}

/**
 * Web search on back ends without a server-side search: a SearXNG instance's JSON API
 * (`GET /search?q=…&format=json`), which users can run themselves. The instance is the user's own
 * choice (a setting or flag), so it is reached where it is, private address included; the query is
 * all it receives, plus the user's key as a bearer token when one is set (for a proxy in front).
 */
import { WEB_LIMITS, WEB_USER_AGENT } from './limits';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** The SearXNG base URL as given (http or https, no query); or what is wrong with it. */
export function parseSearxngUrl(text: string): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { problem: `"${text}" is not a URL (e.g. http://localhost:8888)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `"${text}" is not an http(s) URL` };
  if (url.username || url.password) return { problem: 'put no user name or password in the URL; set the key instead' };
  url.search = '';
  url.hash = '';
  return { url: url.href.replace(/\/+$/, '') };
}

/** What a search answer may be at most: SearXNG's JSON for one page of results is a few dozen KB. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export class SearchError extends Error {
  override name = 'SearchError';
}

/** One search; throws SearchError with a next step when the instance cannot answer. */
export async function searchSearxng(baseUrl: string, query: string, options: { key?: string; signal: AbortSignal; timeoutMs?: number }): Promise<SearchResult[]> {
  const url = `${baseUrl}/search?${new URLSearchParams({ q: query, format: 'json' }).toString()}`;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs ?? WEB_LIMITS.timeoutMs)]);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'error', headers: { accept: 'application/json', 'user-agent': WEB_USER_AGENT, ...(options.key ? { authorization: `Bearer ${options.key}` } : {}) } });
  } catch (error) {
    if (options.signal.aborted) throw error;
    throw new SearchError(`The SearXNG instance at ${baseUrl} did not answer (${error instanceof Error ? error.message : String(error)}). Check evergreen.web.searxngUrl (or --searxng-url) and that it runs.`);
  }
  if (response.status === 403 || response.status === 401) throw new SearchError(`The SearXNG instance at ${baseUrl} refused the search (HTTP ${response.status}). Its JSON API must be on ("search: formats: [html, json]" in its settings.yml), and a key, if it needs one, set.`);
  if (!response.ok) throw new SearchError(`The SearXNG instance at ${baseUrl} answered HTTP ${response.status}.`);
  const text = await boundedText(response, signal);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SearchError(`The SearXNG instance at ${baseUrl} did not answer with JSON: is its JSON format on ("search: formats: [html, json]")?`);
  }
  const results = (body as { results?: unknown }).results;
  if (!Array.isArray(results)) throw new SearchError(`The SearXNG answer has no results list.`);
  return results
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && typeof (entry as { url?: unknown }).url === 'string')
    .slice(0, WEB_LIMITS.searchResults)
    .map((entry) => ({ title: String(entry.title ?? '').slice(0, 300), url: String(entry.url).slice(0, 2000), snippet: String(entry.content ?? '').slice(0, 1000) }));
}

async function boundedText(response: Response, signal: AbortSignal): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new SearchError(`The SearXNG answer was larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

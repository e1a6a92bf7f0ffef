/** The web tools' numbers, each defined once (docs/web.md quotes them). */
export const WEB_LIMITS = {
  /** Bytes of a response body read (after decompression); the rest is never read. */
  maxBodyBytes: 10 * 1024 * 1024,
  /** One fetch, every redirect and the whole body included. */
  timeoutMs: 30_000,
  /** Turning one page's HTML into markdown (in a worker, htmlConversion.ts): a page that takes longer is not shown. */
  conversionTimeoutMs: 60_000,
  /** Redirects followed before the fetch gives up (each target is checked again). */
  maxRedirects: 5,
  /** The same URL fetched again within this long in one session is answered from the session's cache. */
  cacheTtlMs: 15 * 60_000,
  /** Pages the session's cache holds at most (oldest dropped first). */
  cacheEntries: 100,
  /** Searches the model may run in one request (Anthropic's `max_uses`). */
  searchMaxUses: 5,
  /** Results one SearXNG search returns to the model. */
  searchResults: 10,
} as const;

/** Who is asking, in every web request: servers see that an agent fetched, and which one. */
export const WEB_USER_AGENT = 'Evergreen-Agent/0.1 (a coding agent fetching a page its user approved)';

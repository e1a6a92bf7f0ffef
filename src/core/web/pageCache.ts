/**
 * The session's fetched pages: the same URL within WEB_LIMITS.cacheTtlMs is answered from here and
 * not fetched again (a model that re-reads a page costs the server nothing, and the answer is the
 * one the model saw). Bounded in entries; the oldest goes first.
 */
import { WEB_LIMITS } from './limits';

export interface CachedPage<T> {
  value: T;
  fetchedAt: number;
}

export class PageCache<T> {
  private readonly pages = new Map<string, CachedPage<T>>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = WEB_LIMITS.cacheTtlMs,
    private readonly maxEntries: number = WEB_LIMITS.cacheEntries,
  ) {}

  get(url: string): CachedPage<T> | undefined {
    const entry = this.pages.get(url);
    if (!entry) return undefined;
    if (this.now() - entry.fetchedAt >= this.ttlMs) {
      this.pages.delete(url);
      return undefined;
    }
    return entry;
  }

  set(url: string, value: T): void {
    this.pages.delete(url);
    this.pages.set(url, { value, fetchedAt: this.now() });
    while (this.pages.size > this.maxEntries) this.pages.delete(this.pages.keys().next().value as string);
  }
}

/**
 * Automatic prefix caching, as the real API documents it: no breakpoints; a prompt of at least
 * 1024 tokens reuses the longest prefix it shares with a recent request, counted in whole
 * 128-token blocks (1024, 1152, 1280, …); entries expire after a while without use.
 */

export const MIN_CACHED_TOKENS = 1024;
export const CACHE_BLOCK_TOKENS = 128;
/** Recent prompts kept for matching (bounded, oldest dropped first). */
const MAX_ENTRIES = 32;

interface Entry {
  ids: readonly number[];
  expiresAt: number;
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export class PrefixCache {
  private entries: Entry[] = [];

  constructor(private readonly ttlMs: number) {}

  clear(): void {
    this.entries = [];
  }

  /** cached_tokens for a prompt, and the prompt remembered for the requests after it. */
  account(ids: readonly number[], now: number): number {
    this.entries = this.entries.filter((e) => e.expiresAt > now);
    let best = 0;
    let hit: Entry | undefined;
    if (ids.length >= MIN_CACHED_TOKENS) {
      for (const e of this.entries) {
        const n = commonPrefix(ids, e.ids);
        if (n > best) {
          best = n;
          hit = e;
        }
      }
    }
    const cached = best >= MIN_CACHED_TOKENS ? Math.floor(best / CACHE_BLOCK_TOKENS) * CACHE_BLOCK_TOKENS : 0;
    if (hit && cached > 0) hit.expiresAt = now + this.ttlMs;
    if (ids.length >= MIN_CACHED_TOKENS) {
      this.entries.push({ ids, expiresAt: now + this.ttlMs });
      if (this.entries.length > MAX_ENTRIES) this.entries.shift();
    }
    return cached;
  }
}

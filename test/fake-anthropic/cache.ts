/**
 * Prompt-cache simulation.
 *
 * A cache entry is the chained hash of every segment (block) up to and including a breakpoint
 * (a block with `cache_control`, or the last block when the request has top-level
 * `cache_control`). On a request:
 *  - read: the longest previously written, unexpired entry that matches this request at a block
 *    boundary at or before a breakpoint, looking back at most `lookback` blocks from each
 *    breakpoint (the real API checks ~20 blocks). A hit refreshes the entry's TTL.
 *  - write: every breakpoint beyond the hit whose prefix reaches the model's minimum cacheable
 *    length gets an entry; cache_creation = tokens of the furthest written prefix − tokens read.
 *  - input_tokens = total − read − creation.
 */
import type { Segment } from './tokens';
import { REQUEST_OVERHEAD } from './tokens';

const FIVE_MINUTES = 5 * 60 * 1000;
const ONE_HOUR = 60 * 60 * 1000;

interface Entry {
  tokens: number;
  expiresAt: number;
  ttlMs: number;
}

export interface CacheAccounting {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  ephemeral_5m_input_tokens: number;
  ephemeral_1h_input_tokens: number;
}

export class PromptCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly lookback: number) {}

  clear(): void {
    this.entries.clear();
  }

  size(now: number): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.expiresAt > now) n++;
    return n;
  }

  /**
   * Account one request and update the cache. `autoBreakpoint` is the top-level
   * `cache_control` (applies to the last block).
   */
  account(
    segments: readonly Segment[],
    total: number,
    minCacheable: number,
    now: number,
    autoBreakpoint: { ttl?: string } | undefined,
  ): CacheAccounting {
    const prefix: number[] = [];
    let running = REQUEST_OVERHEAD;
    for (const s of segments) {
      running += s.tokens;
      prefix.push(running);
    }
    const breakpoints: Array<{ index: number; ttlMs: number }> = [];
    segments.forEach((s, i) => {
      if (s.cacheControl) breakpoints.push({ index: i, ttlMs: s.cacheControl.ttl === '1h' ? ONE_HOUR : FIVE_MINUTES });
    });
    if (autoBreakpoint && segments.length > 0) {
      const last = segments.length - 1;
      if (!breakpoints.some((b) => b.index === last)) {
        breakpoints.push({ index: last, ttlMs: autoBreakpoint.ttl === '1h' ? ONE_HOUR : FIVE_MINUTES });
      }
    }

    // Longest hit.
    let hitIndex = -1;
    for (const bp of breakpoints) {
      const lowest = Math.max(0, bp.index - this.lookback + 1);
      for (let i = bp.index; i >= lowest && i > hitIndex; i--) {
        const seg = segments[i];
        if (!seg) continue;
        const e = this.entries.get(seg.hash);
        if (e && e.expiresAt > now) {
          hitIndex = i;
          break;
        }
      }
    }
    let read = 0;
    if (hitIndex >= 0) {
      const seg = segments[hitIndex];
      const e = seg ? this.entries.get(seg.hash) : undefined;
      if (e && seg) {
        e.expiresAt = now + e.ttlMs;
        read = prefix[hitIndex] ?? 0;
      }
    }

    // Writes beyond the hit.
    let covered = read;
    let creation5m = 0;
    let creation1h = 0;
    for (const bp of breakpoints.sort((a, b) => a.index - b.index)) {
      if (bp.index <= hitIndex) continue;
      const tokens = prefix[bp.index] ?? 0;
      if (tokens < minCacheable) continue;
      const seg = segments[bp.index];
      if (!seg) continue;
      this.entries.set(seg.hash, { tokens, expiresAt: now + bp.ttlMs, ttlMs: bp.ttlMs });
      const delta = tokens - covered;
      if (bp.ttlMs === ONE_HOUR) creation1h += delta;
      else creation5m += delta;
      covered = tokens;
    }
    const creation = creation5m + creation1h;
    return {
      input_tokens: total - read - creation,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: creation,
      ephemeral_5m_input_tokens: creation5m,
      ephemeral_1h_input_tokens: creation1h,
    };
  }
}

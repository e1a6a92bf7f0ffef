/**
 * What a saved output may contain, kept instead of its text (recallIndex.ts): the three-character
 * sequences that occur in it, so a plain-text search skips the files that cannot match without
 * reading them, and the index holds kilobytes per file, not the file.
 *
 * Characters are folded as a case-insensitive JavaScript regex (no `u` flag) compares them: ASCII
 * letters to lower case, and every other UTF-16 code unit to one class. Such a regex never matches
 * an ASCII character with a non-ASCII one (Canonicalize in the spec), so a match in the text has
 * every folded trigram of the query among the text's: the filter may say "maybe" wrongly, never
 * "no" wrongly. Distinct trigrams are few (at most 129³), so the filter is sized by their count: a
 * Bloom filter of two hashes and 10 bits a trigram (under 5% false positives a trigram), or, when
 * that would be larger, the exact set.
 */

const CLASSES = 129;
const KEYS = CLASSES * CLASSES * CLASSES;
const BITS_PER_TRIGRAM = 10;

export interface TrigramFilter {
  bits: Uint8Array;
  /** Exact: `bits` is indexed by the trigram itself; else by two hashes of it into `bits.length * 8` (a power of two). */
  exact: boolean;
}

function fold(code: number): number {
  if (code >= 128) return 128;
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/** The set while a filter is built: one bit per possible trigram (268 KB, reused). */
let scratch: Uint8Array | undefined;

export function trigramFilter(text: string): TrigramFilter {
  const seen = (scratch ??= new Uint8Array(Math.ceil(KEYS / 8)));
  const keys: number[] = [];
  let a = 0;
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const c = fold(text.charCodeAt(i));
    if (i >= 2) {
      const key = (a * CLASSES + b) * CLASSES + c;
      const mask = 1 << (key & 7);
      if ((seen[key >>> 3]! & mask) === 0) {
        seen[key >>> 3]! |= mask;
        keys.push(key);
      }
    }
    a = b;
    b = c;
  }
  const bloomBits = Math.max(1024, 2 ** Math.ceil(Math.log2(Math.max(1, keys.length * BITS_PER_TRIGRAM))));
  if (bloomBits >= KEYS) {
    const bits = seen.slice();
    seen.fill(0);
    return { bits, exact: true };
  }
  for (const key of keys) seen[key >>> 3] = 0;
  const bits = new Uint8Array(bloomBits / 8);
  for (const key of keys) {
    for (const position of hashes(key, bloomBits)) bits[position >>> 3]! |= 1 << (position & 7);
  }
  return { bits, exact: false };
}

function hashes(key: number, size: number): [number, number] {
  // Two multiplicative hashes; `size` is a power of two, so the mask keeps the low bits of the mixed value.
  const mask = size - 1;
  return [(Math.imul(key, 0x9e3779b1) >>> 7) & mask, (Math.imul(key ^ 0x5bd1e995, 0x85ebca77) >>> 11) & mask];
}

function has(filter: TrigramFilter, key: number): boolean {
  if (filter.exact) return (filter.bits[key >>> 3]! & (1 << (key & 7))) !== 0;
  return hashes(key, filter.bits.length * 8).every((position) => (filter.bits[position >>> 3]! & (1 << (position & 7))) !== 0);
}

/** False only when `needle` cannot occur in the text, compared case-insensitively (see the header). */
export function mayContain(filter: TrigramFilter, needle: string): boolean {
  for (let i = 2; i < needle.length; i++) {
    const key = (fold(needle.charCodeAt(i - 2)) * CLASSES + fold(needle.charCodeAt(i - 1))) * CLASSES + fold(needle.charCodeAt(i));
    if (!has(filter, key)) return false;
  }
  return true;
}

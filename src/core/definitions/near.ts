/**
 * Near names for a mistyped one (an unknown command, skill or mode), with fuzzysort: fuzzy matches
 * of the name, and of the name with two neighbouring letters swapped, which a subsequence matcher
 * misses on its own ("mdoe" for "mode").
 */
import fuzzysort from 'fuzzysort';

const MAX_SUGGESTIONS = 3;
/** fuzzysort's score (0 to 1) a suggestion needs: low, since a one-letter typo of a short name scores about 0.35. */
const SUGGESTION_THRESHOLD = 0.2;

export function nearNames(name: string, names: readonly string[]): string[] {
  const variants = [name];
  for (let index = 0; index + 1 < name.length; index++) variants.push(name.slice(0, index) + name[index + 1] + name[index] + name.slice(index + 2));
  const best = new Map<string, number>();
  for (const variant of variants) {
    for (const result of fuzzysort.go(variant, names, { threshold: SUGGESTION_THRESHOLD, limit: MAX_SUGGESTIONS })) {
      best.set(result.target, Math.max(best.get(result.target) ?? 0, result.score));
    }
  }
  return [...best.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS)
    .map(([target]) => target);
}

/** "a", "a or b", "a, b or c" (or "and"). */
export function wordList(items: readonly string[], conjunction: 'or' | 'and' = 'or'): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

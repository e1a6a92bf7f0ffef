/** An id recall does not know: the ones the model most likely meant (recallIndex.ts names them in its answer). */

/**
 * The `count` ids closest to `id` by edit distance (ties: the newer first). A small DP is enough: ids are
 * short, there are at most a few thousand, and this runs only when the model names an id that is not here.
 */
export function nearestIds(id: string, ids: readonly string[], count: number): string[] {
  const scored = ids.map((candidate, index) => ({ candidate, index, distance: editDistance(id, candidate) }));
  scored.sort((a, b) => a.distance - b.distance || b.index - a.index);
  return scored.slice(0, count).map((item) => item.candidate);
}

function editDistance(a: string, b: string): number {
  const x = a.slice(0, 200);
  const y = b.slice(0, 200);
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[y.length]!;
}

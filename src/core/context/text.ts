/** Text cutting shared by the tiers: one way to keep a head and a tail with a visible mark. */

export function headTail(text: string, maxChars: number, why: string): string {
  if (text.length <= maxChars) return text;
  const marker = (omitted: number) => `\n\n[... ${omitted} characters omitted from the middle (${why}) ...]\n\n`;
  const room = Math.max(0, maxChars - marker(text.length).length);
  const headChars = Math.ceil(room / 2);
  const tailChars = Math.floor(room / 2);
  const omitted = text.length - headChars - tailChars;
  return text.slice(0, headChars) + marker(omitted) + (tailChars > 0 ? text.slice(text.length - tailChars) : '');
}

/** Head and tail by lines and characters: at most `maxLines` lines and `maxChars` characters. */
export function previewLines(text: string, maxLines: number, maxChars: number): { preview: string; cut: boolean } {
  const lines = text.split('\n');
  if (lines.length <= maxLines && text.length <= maxChars) return { preview: text, cut: false };
  const half = Math.max(1, Math.floor(maxLines / 2));
  const charHalf = Math.max(1, Math.floor((maxChars - 64) / 2)); // room for the omission mark
  const take = (source: string[], fromEnd: boolean): string[] => {
    const kept: string[] = [];
    let used = 0;
    for (let i = 0; i < Math.min(half, source.length); i++) {
      const line = source[fromEnd ? source.length - 1 - i : i]!;
      const clipped = line.length > charHalf - used ? line.slice(0, Math.max(0, charHalf - used)) : line;
      if (clipped.length === 0 && used >= charHalf) break;
      kept.push(clipped);
      used += clipped.length + 1;
      if (used >= charHalf) break;
    }
    return fromEnd ? kept.reverse() : kept;
  };
  const head = take(lines, false);
  const tail = take(lines.slice(head.length), true);
  const omitted = lines.length - head.length - tail.length;
  return { preview: `${head.join('\n')}\n[... ${omitted} lines omitted ...]\n${tail.join('\n')}`, cut: true };
}

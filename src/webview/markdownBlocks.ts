/**
 * Cuts a streaming reply's markdown into top-level blocks, so the panel renders again only the
 * block still being written while earlier blocks keep their DOM (a long reply streamed at 200
 * deltas/s would otherwise be parsed, sanitized and laid out whole every frame; bench/webview.ts).
 * Pure, so it is unit-tested in node.
 *
 * A block ends at a blank line outside a code fence that is followed by a line starting in column
 * 0: an indented line after a blank one may continue a list item, so it stays in the same block.
 * The cut is only for streaming: a loose list or a reference link split across blocks renders a
 * little differently until the reply ends, when the whole text is rendered once more as one.
 */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence: { char: string; length: number } | undefined;
  let previousBlank = false;
  let at = 0;
  while (at < text.length) {
    const newline = text.indexOf('\n', at);
    const end = newline === -1 ? text.length : newline + 1;
    const line = text.slice(at, newline === -1 ? text.length : newline);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!fence && previousBlank && at > start && /^\S/.test(line)) {
      blocks.push(text.slice(start, at));
      start = at;
    }
    if (marker && !fence) fence = { char: marker[0]!, length: marker.length };
    else if (marker && fence && marker[0] === fence.char && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    previousBlank = !fence && line.trim() === '';
    at = end;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks;
}

/**
 * How recall searches one document's text without splitting it into a string per line
 * (recallIndex.ts): lines are the text split at "\n", and a line matches with its first (leftmost)
 * match, as `regex.exec(line)` finds it. A plain query has no newline (a query of several lines is
 * searched by its longest one), so a match never crosses a line: one global scan of the whole text
 * finds the same first matches as a scan line by line, and skips to the next line after each.
 */

/** The line of a plain query that is searched: lines never contain a newline, so a query that spans lines is searched by its longest line. */
export function queryLine(text: string): string {
  return text.includes('\n') ? text.split('\n').reduce((a, b) => (b.length > a.length ? b : a)) : text;
}

/** A case-insensitive regex for the literal `needle` (global: firstMatchPerLine scans with it). */
export function plainTextRegex(needle: string): RegExp {
  return new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
}

/**
 * Calls `onLine` with the start of each line of `text` that `regex` (global, and never matching a
 * newline) matches, and where in that line its first match starts and how long it is.
 */
export function firstMatchPerLine(text: string, regex: RegExp, onLine: (lineStart: number, start: number, length: number) => void): void {
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    const lineStart = match.index === 0 ? 0 : text.lastIndexOf('\n', match.index - 1) + 1;
    onLine(lineStart, match.index - lineStart, match[0].length);
    const lineEnd = text.indexOf('\n', match.index + match[0].length);
    if (lineEnd < 0) return;
    regex.lastIndex = lineEnd + 1;
  }
}

/** The line of `text` that starts at `lineStart`. */
export function lineAt(text: string, lineStart: number): string {
  const end = text.indexOf('\n', lineStart);
  return end < 0 ? text.slice(lineStart) : text.slice(lineStart, end);
}

/**
 * `text` cut into runs of whole lines of at most `maxChars` characters each (a longer line is a run
 * alone), for the regex worker: the runs joined with "\n" are the text, so splitting each at "\n"
 * gives exactly the text's lines.
 */
export function linesSegments(text: string, maxChars: number): string[] {
  const segments: string[] = [];
  for (let from = 0; ; ) {
    if (text.length - from <= maxChars) {
      segments.push(from === 0 ? text : text.slice(from));
      return segments;
    }
    let cut = text.lastIndexOf('\n', from + maxChars);
    if (cut < from) cut = text.indexOf('\n', from + maxChars);
    if (cut < 0) {
      segments.push(text.slice(from));
      return segments;
    }
    segments.push(text.slice(from, cut));
    from = cut + 1;
  }
}

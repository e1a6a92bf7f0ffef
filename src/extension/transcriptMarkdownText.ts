/**
 * Markdown for the archived-transcript tab that model text cannot break out of: fences and code
 * spans longer than any backtick run inside, escaped link labels, and no `command:` link however
 * it is written (the tab's links are clickable).
 */
import { pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';

/** A fence longer than any backtick run in the text, so no content can close it early. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.matchAll(/`{3,}/g)) longest = Math.max(longest, run[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

export function fenced(text: string, info = ''): string {
  const fence = fenceFor(text);
  return `${fence}${info}\n${text}\n${fence}`;
}

/** Link text is escaped so a file name cannot break out of the link. */
export function fileLink(label: string, file: string, line?: number): string {
  const href = pathToFileURL(file).href + (line !== undefined ? `#L${line}` : '');
  return `[${label.replace(/[[\]\\]/g, '\\$&')}](${href})`;
}

/** A code span whose backtick run is longer than any in the text, so the text cannot close it and go on as markdown. */
export function inlineCode(text: string): string {
  const clean = text.replace(/\s+/g, ' ');
  let longest = 0;
  for (const run of clean.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  if (longest === 0) return `\`${clean}\``;
  const ticks = '`'.repeat(longest + 1);
  return `${ticks} ${clean} ${ticks}`;
}

/** A link to another document; the target in angle brackets, so spaces or parentheses in it cannot end it early. */
export function markdownLink(label: string, href: string): string {
  return `[${label.replace(/[[\]\\]/g, '\\$&')}](<${href.replace(/[<>\n\r]/g, encodeURIComponent)}>)`;
}

// The tab is a markdown document, and VS Code opens a document link of the `command:` scheme
// (Ctrl+click in the editor, a click in its preview) by running that command with the link's
// arguments: model text that formed one would be a button that runs any command, e.g. typing into
// a terminal. Parsers decode character references and backslash escapes in link destinations
// (`&#99;ommand:`, `command&#58;`, `command\:`), a link opener may percent-decode, schemes are
// case-insensitive, and URL parsers drop tabs and line breaks: the check reads the text as the
// most lenient of them would. Prose that could form such a link, in any markdown form (inline,
// reference, autolink, raw HTML), is shown as a code block instead, where nothing is a link.
const markdownUtils = new MarkdownIt().utils;
/**
 * `command:` where a URI scheme starts (not inside a longer scheme name), followed by what can
 * start a command id, or opened as a link target (<, (, a quote or =) whatever follows. Prose such
 * as "**Command:** `npm test`" or "this command: npm" is none of these.
 */
const COMMAND_SCHEME = /(?<![a-z0-9+.-])command:(?:(?=[\p{L}\p{N}_$./\\-])|(?<=[<("'=]\s*command:))/iu;

/** Whether markdown `text` could form a link that runs a command, however it is written. */
export function mayFormCommandLink(text: string): boolean {
  if (!/c/i.test(text)) return false;
  const decoded = markdownUtils
    .unescapeAll(text)
    .replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/[\t\n\r]/g, '');
  return COMMAND_SCHEME.test(decoded);
}

/** A line of prose (a title, a focus) kept as written, unless it could form a `command:` link: then without markup of its own. */
export function proseLine(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return mayFormCommandLink(line) ? escapeInline(line) : line;
}

/** Model-written text on one line of prose: no markup of its own. */
export function escapeInline(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>#|~]/g, '\\$&');
}

/** Nested under the parent's call: every line in a blockquote (code fences inside stay fences). */
export function quoted(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}

/**
 * Session titles as people typed them, and as file names (the transcript tab's label). A title
 * keeps its punctuation: the characters no file system or URI path segment accepts are swapped
 * for look-alikes ("Turn 1/1: fix a\b" reads the same), never dropped or blanked.
 */

/**
 * Characters Windows, macOS or Linux refuse in a file name (and '/' splits the tab's URI path), each
 * with a look-alike that common UI fonts draw (a missing glyph would show as a box).
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '/': '\u2215', // ∕ division slash
  '\\': '\u2216', // ∖ set minus
  ':': '\u2236', // ∶ ratio
  '*': '\u2217', // ∗ asterisk operator
  '?': '\uFF1F', // ？ fullwidth question mark (CJK fonts, which desktop systems ship; minimal Linux images may lack it)
  '"': '\u201D', // ” right double quotation mark
  '<': '\u2039', // ‹
  '>': '\u203A', // ›
  '|': '\u2223', // ∣ divides
};

/** A session's title is its first message up to this many characters (user-perceived, so an emoji is never cut in half). */
export const SESSION_TITLE_MAX = 80;

/** `text` cut to at most `max` graphemes; a cut one ends in '…'. Emoji sequences (flags, ZWJ families) stay whole. */
export function cutGraphemes(text: string, max: number): string {
  const graphemes = Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (part) => part.segment);
  if (graphemes.length <= max) return text;
  return `${graphemes.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
}

/** The title a session gets from its first message: one line, cut at SESSION_TITLE_MAX. */
export function sessionTitle(text: string): string {
  return cutGraphemes(text.replace(/\s+/g, ' ').trim(), SESSION_TITLE_MAX);
}

/**
 * `title` as a file name stem: look-alikes for the refused characters, control and bidi-override
 * characters (which could disguise the name) and lone surrogates removed, one line, cut at
 * SESSION_TITLE_MAX graphemes; `fallback` when nothing is left.
 */
export function fileNameTitle(title: string, fallback = 'transcript'): string {
  const safe = title
    .replace(/[/\\:*?"<>|]/g, (char) => LOOK_ALIKES[char] ?? ' ')
    // Controls (newlines, tabs, NUL), bidi embeddings/overrides/isolates, and halves of broken emoji.
    .replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069\p{Cs}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    // A leading dot would hide the file on Unix; trailing dots vanish on Windows.
    .replace(/^\.+|\.+$/g, '')
    .trim();
  return safe ? cutGraphemes(safe, SESSION_TITLE_MAX) : fallback;
}

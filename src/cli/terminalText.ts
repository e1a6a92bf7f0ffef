/**
 * Text from the model (and from servers) made safe to print on a terminal. A raw control
 * character can rewrite what the user reads: `rm -rf x\r git status` shows as `git status`,
 * ESC sequences erase or move lines and set the window title, U+202E and friends reorder a
 * line, zero-width characters hide inside a word. Each such character is shown as a visible
 * escape instead, one character at a time, so text streamed in chunks is safe whatever the
 * chunk boundaries (a sequence split across chunks is still escaped piece by piece).
 *
 * Backslashes are left alone: doubling them would make every ordinary command read differently
 * from what runs, and a literal `\x1b` typed by the model is as harmless as the one shown for a
 * real ESC (nothing is hidden either way).
 */

// Controls (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width characters,
// soft hyphen, BOM, tags) and the Unicode line and paragraph separators.
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const UNSAFE_KEEPING_LINES = /[^\P{Cc}\n\t]|[\p{Cf}\u2028\u2029]/gu;

function visible(char: string): string {
  switch (char) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default: {
      const code = char.codePointAt(0) ?? 0;
      if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
      if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
      return `\\u{${code.toString(16)}}`;
    }
  }
}

/** For one-line displays (a command, a path, a tool name, an error): newlines and tabs are escaped too. */
export function escapeLine(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** For multi-line text (model replies, diffs): newlines and tabs stay, every other control is escaped. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE_KEEPING_LINES, visible);
}

/**
 * One JSON line for stream-json. Programs get the exact text back from JSON.parse; only the
 * characters JSON.stringify leaves raw (DEL, C1, format characters, U+2028/2029) are written as
 * \u escapes, so a terminal showing the stream cannot be steered by them either.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (char) => {
    let out = '';
    for (let index = 0; index < char.length; index++) out += `\\u${char.charCodeAt(index).toString(16).padStart(4, '0')}`;
    return out;
  });
}

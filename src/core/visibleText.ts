/**
 * Untrusted text (a command, a path, model text) shown so that what the user reads is what is
 * there. One definition for the terminal (src/cli/terminalText.ts) and the chat panel (through
 * src/protocol.ts): pure string code, no node or browser API.
 *
 * A raw control character can rewrite what the user reads: `rm -rf x\r git status` shows as
 * `git status`, ESC sequences erase or move lines and set the window title, U+202E and friends
 * reorder a line, zero-width characters hide inside a word. Each such character is shown as a
 * visible escape instead, one character at a time, so text streamed in chunks is safe whatever
 * the chunk boundaries (a sequence split across chunks is still escaped piece by piece).
 *
 * Backslashes are left alone: doubling them would make every ordinary command read differently
 * from what runs, and a literal `\x1b` typed by the model is as harmless as the one shown for a
 * real ESC (nothing is hidden either way).
 */

// Controls (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width characters,
// soft hyphen, BOM, tags) and the Unicode line and paragraph separators (global: for replace()).
export const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const UNSAFE_KEEPING_LINES = /[^\P{Cc}\n\t]|[\p{Cf}\u2028\u2029]/gu;

// CSI / OSC / single-character escape sequences, as emitted by colored CLIs and progress bars
// (secrets.ts looks through them for keys too; run_shell strips them from output).
// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** The visible escape for one unsafe character (`\n`, `\x1b`, `\u202e`, `\u{e0041}`). */
export function visibleEscape(char: string): string {
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
  return text.replace(UNSAFE, visibleEscape);
}

/** For multi-line text (model replies, diffs): newlines and tabs stay, every other control is escaped. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE_KEEPING_LINES, visibleEscape);
}

/**
 * Runs of one blank or invisible character at least this long are padding: 20,000 spaces (or
 * zero-width spaces) would push the rest of a command off the screen or out of the card.
 */
export const PADDING_RUN = 32;
const PADDING = new RegExp(`([\\p{Zs}\\p{Cc}\\p{Cf}\\u2028\\u2029])\\1{${PADDING_RUN - 1},}`, 'gu');

function paddingMarker(run: string): string {
  const char = String.fromCodePoint(run.codePointAt(0) ?? 0x20);
  const count = [...run].length.toLocaleString('en-US');
  if (char === ' ') return `⟨${count} spaces⟩`;
  if (char === '\t') return `⟨${count} tabs⟩`;
  return `⟨${count} × ${visibleEscape(char)}⟩`;
}

/**
 * One line of a command as shown for approval: padding folded to a marker that says how much is
 * there (`⟨20,000 spaces⟩`), every control, bidi or zero-width character escaped (a newline too:
 * callers split on newlines first, or pass a one-line form on purpose).
 */
export function visibleCommandLine(line: string): string {
  let out = '';
  let last = 0;
  for (const match of line.matchAll(PADDING)) {
    out += escapeLine(line.slice(last, match.index)) + paddingMarker(match[0]);
    last = match.index + match[0].length;
  }
  return out + escapeLine(line.slice(last));
}

/** Where a command has a real newline: shown at the end of the line, so two lines never read as one command. */
export const NEWLINE_MARKER = '⏎';

/** How an approval introduces the run_shell `description`: the model chose these words, nothing checked them. */
export const MODEL_DESCRIPTION_LABEL = "The model's description (its words, not a check):";

/** The description as an approval shows it: one line, made visible, at most 300 characters (it is no more than a label). */
export function visibleDescription(description: string): string {
  const points = [...description];
  return visibleCommandLine(points.slice(0, 300).join('')) + (points.length > 300 ? '…' : '');
}

/** What an approval shows of a command: its lines made visible, and how big the real text is. */
export interface CommandView {
  /** One entry per line of the command (split at `\n` only; a `\r` is shown as `\r`). */
  lines: string[];
  /** Characters (code points) of the command as it will run. */
  chars: number;
}

export function commandView(command: string): CommandView {
  return { lines: command.split('\n').map(visibleCommandLine), chars: [...command].length };
}

/** How a long command is cut for a first look: whole lines, up to both limits (at least one line). */
export const COMMAND_PREVIEW = { lines: 20, chars: 2000 } as const;

/**
 * The lines shown before "+N more lines", and how much is held back behind it. A single line
 * longer than the character limit is cut too, so one 100,000-character line cannot fill the view.
 */
export function commandPreview(view: CommandView, limits: { lines: number; chars: number } = COMMAND_PREVIEW): { shown: string[]; hiddenLines: number; hiddenChars: number } {
  const shown: string[] = [];
  let chars = 0;
  let hiddenChars = 0;
  for (const line of view.lines) {
    if (shown.length >= limits.lines || chars + line.length > limits.chars) {
      if (shown.length === 0) {
        const points = [...line];
        shown.push(points.slice(0, limits.chars).join(''));
        hiddenChars = points.length - limits.chars;
      }
      break;
    }
    shown.push(line);
    chars += line.length;
  }
  return { shown, hiddenLines: view.lines.length - shown.length, hiddenChars };
}

/** "+48 more lines", "+18,000 more characters": what a preview holds back, in words. */
export function hiddenText(preview: { hiddenLines: number; hiddenChars: number }): string {
  const parts: string[] = [];
  if (preview.hiddenChars > 0) parts.push(`+${preview.hiddenChars.toLocaleString('en-US')} more ${preview.hiddenChars === 1 ? 'character' : 'characters'}`);
  if (preview.hiddenLines > 0) parts.push(`+${preview.hiddenLines.toLocaleString('en-US')} more ${preview.hiddenLines === 1 ? 'line' : 'lines'}`);
  return parts.join(', ');
}

/** "3 lines, 1,234 characters": the size of what runs, said before the user answers. */
export function commandSize(view: CommandView): string {
  const lines = view.lines.length;
  return `${lines.toLocaleString('en-US')} ${lines === 1 ? 'line' : 'lines'}, ${view.chars.toLocaleString('en-US')} ${view.chars === 1 ? 'character' : 'characters'}`;
}

/**
 * Untrusted text on one line of a prompt or list (a skill's description, a memory file's first
 * line): every run of whitespace, control or format characters becomes one space, so it cannot
 * start a line of its own or hide characters; cut to `maxChars` with an ellipsis.
 */
export function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(/[\s\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/**
 * The composer's / picker as data (issue 28): when the message being typed is a command name, the
 * rows the host's commands make, and the message once one is chosen. Pure, so the rules are tested
 * without a browser; slashPicker.ts draws it.
 */
import type { CommandOption } from '../protocol';
import type { ListboxRow } from './listbox';

export interface SlashRow extends ListboxRow {
  name: string;
}

/**
 * The command name being typed: the message starts with `/` and the caret is in its first word.
 * `//` (text that starts with a slash) and a word that goes on past the name (`/usr/bin`) are none.
 */
export function slashQueryAt(text: string, caret: number): { query: string; end: number } | undefined {
  if (text.startsWith('//')) return undefined;
  const match = /^\/([A-Za-z0-9_.:-]*)/.exec(text);
  if (!match) return undefined;
  const end = match[0].length;
  if (end < text.length && !/\s/.test(text[end]!)) return undefined;
  return caret >= 1 && caret <= end ? { query: match[1]!, end } : undefined;
}

/** A row for each command: `/name`, then whether it is a skill, what it takes, what it does and, for a file's or skill's, where it comes from. */
export function slashRows(options: readonly CommandOption[]): SlashRow[] {
  return options.map((option) => ({
    name: option.name,
    label: `/${option.name}`,
    detail: `${option.skill ? 'skill · ' : ''}${option.argumentHint ? `${option.argumentHint} · ` : ''}${option.description}${option.source === 'built-in' ? '' : ` (${option.source})`}`,
  }));
}

/** The message with the typed name replaced by the chosen one and a space after it, and where the caret goes (after the space). */
export function completeSlash(text: string, end: number, name: string): { text: string; caret: number } {
  const rest = text.slice(end);
  const head = `/${name}${/^\s/.test(rest) ? '' : ' '}`;
  const caret = head.length + (/^\s/.test(rest) ? 1 : 0);
  return { text: head + rest, caret };
}

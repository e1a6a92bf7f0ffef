/**
 * Words for what the core says (issue 27 item 6): every kind of UserText (src/core/userText.ts)
 * has an English template here, passed through @vscode/l10n, so the extension shows it in the
 * user's language (its bundle is configured at activation) and the CLI in English. The templates
 * are keys of l10n/bundle.l10n.json like every other message (scripts/l10n.ts adds them).
 */
import * as l10n from '@vscode/l10n';
import { userTextForLog, type UserText, type UserTextKinds, type UserTextValue } from '../../core/userText';
import { wordsFor, type Template, type WordsFor } from './template';

const VERBATIM_WORDS = wordsFor<Pick<UserTextKinds, 'verbatim'>>()({ verbatim: '{text}' });

/** One template per kind; a subsystem's table is spread in here. */
export const USER_TEXT_WORDS: WordsFor<UserTextKinds> = { ...VERBATIM_WORDS };

let locale = 'en';

/**
 * The extension's language and message bundle (vscode.l10n.bundle; none for English). The CLI
 * never calls this and words in English. Numbers and lists follow `locale`.
 */
export function configureWords(options: { locale: string; bundle?: Record<string, string> }): void {
  locale = options.locale;
  l10n.config({ contents: options.bundle ?? {} });
}

/** Every English template, for the message bundle. */
export function userTextTemplates(): string[] {
  return Object.values(USER_TEXT_WORDS).flatMap((template: Template) => (typeof template === 'string' ? [template] : [template.one, template.other]));
}

/** A UserText in the front end's words. */
export function word(text: UserText): string {
  return wordFrom(USER_TEXT_WORDS, text);
}

/** `word` with a table of one's own (the tests' tables). */
export function wordFrom(table: Readonly<Partial<Record<string, Template>>>, text: UserText): string {
  // A record from a newer Evergreen may hold a kind this one cannot word: its kind and data then.
  const template = table[text.kind];
  if (template === undefined) return userTextForLog(text);
  const data = text.data as Readonly<Record<string, UserTextValue>>;
  const message = typeof template === 'string' ? template : data.count === 1 ? template.one : template.other;
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) if (value !== undefined) args[key] = wordValue(table, value);
  return l10n.t(message, args);
}

function wordValue(table: Readonly<Partial<Record<string, Template>>>, value: Exclude<UserTextValue, undefined>): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return new Intl.NumberFormat(locale).format(value);
  if (typeof value === 'boolean') return String(value);
  if (isStringList(value)) return new Intl.ListFormat(locale, { type: 'conjunction' }).format(value);
  return wordFrom(table, value);
}

function isStringList(value: readonly string[] | UserText): value is readonly string[] {
  return Array.isArray(value);
}

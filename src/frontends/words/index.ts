/**
 * Words for what the core says (issue 27 item 6): every kind of UserText (src/core/texts/userText.ts)
 * has an English template here, passed through @vscode/l10n, so the extension shows it in the
 * user's language (its bundle is configured at activation) and the CLI in English. The templates
 * are keys of l10n/bundle.l10n.json like every other message (scripts/l10n.ts adds them).
 */
import * as l10n from '@vscode/l10n';
import { userTextForLog, type NestedText, type UserText, type UserTextKinds, type UserTextValue } from '../../core/texts/userText';
import { cliFlag, SETTINGS, SETTINGS_SECTION, settingName, type SettingKey } from '../settingsTable';
import { START_WORDS } from './start';
import { HOOK_WORDS } from './hooks';
import { INSTRUCTION_WORDS } from './instructions';
import { GAUGE_WORDS } from './gauge';
import { INSIGHT_WORDS } from './insights';
import { SUBAGENT_WORDS } from './subagents';
import { WORKTREE_WORDS } from './worktrees';
import { CUSTOMIZATION_WORDS } from './customization';
import { CONTEXT_WORDS } from './context';
import { MODEL_WORDS } from './model';
import { TURN_WORDS } from './turns';
import { APPROVAL_WORDS } from './approvals';
import { BUILTIN_WORDS } from './builtins';
import { wordsFor, type Template, type VoicedTemplate, type Voice, type WordsFor } from './template';

const VERBATIM_WORDS = wordsFor<Pick<UserTextKinds, 'verbatim' | 'setting'>>()({ verbatim: '{text}', setting: '{key}' });

/** One template per kind; a subsystem's table is spread in here. */
export const USER_TEXT_WORDS: WordsFor<UserTextKinds> = {
  ...VERBATIM_WORDS,
  ...START_WORDS,
  ...HOOK_WORDS,
  ...INSTRUCTION_WORDS,
  ...GAUGE_WORDS,
  ...INSIGHT_WORDS,
  ...SUBAGENT_WORDS,
  ...WORKTREE_WORDS,
  ...CUSTOMIZATION_WORDS,
  ...CONTEXT_WORDS,
  ...MODEL_WORDS,
  ...TURN_WORDS,
  ...APPROVAL_WORDS,
  ...BUILTIN_WORDS,
};

let voice: Voice = 'cli';
// Built once per configuration, not per number or list: the gauge is worded on every update.
let numbers = new Intl.NumberFormat('en');
let lists = new Intl.ListFormat('en', { type: 'conjunction' });

/**
 * The extension's language and message bundle (vscode.l10n.bundle; none for English). The CLI
 * never calls this and words in English. Numbers and lists follow `locale`.
 */
export function configureWords(options: { locale: string; voice: Voice; bundle?: Record<string, string> }): void {
  voice = options.voice;
  numbers = new Intl.NumberFormat(options.locale);
  lists = new Intl.ListFormat(options.locale, { type: 'conjunction' });
  l10n.config({ contents: options.bundle ?? {} });
}

/** Every English template the extension may show, for the message bundle (the CLI's own words are not translated). */
export function userTextTemplates(): string[] {
  const forms = (template: Template): string[] => (typeof template === 'string' ? [template] : [template.one, template.other]);
  return Object.values(USER_TEXT_WORDS).flatMap((template: VoicedTemplate) => forms(isVoiced(template) ? template.extension : template));
}

function isVoiced(template: VoicedTemplate): template is { readonly extension: Template; readonly cli: Template } {
  return typeof template === 'object' && 'extension' in template;
}

/** A setting as this front end names it: its id in VS Code, its flag in the CLI (when it has one). */
function settingNameHere(key: string): string {
  if (!Object.hasOwn(SETTINGS, key)) return `${SETTINGS_SECTION}.${key}`;
  const setting = key as SettingKey;
  return (voice === 'cli' ? cliFlag(setting) : undefined) ?? settingName(setting);
}

/** A UserText in the front end's words. */
export function word(text: UserText): string {
  return wordFrom(USER_TEXT_WORDS, text);
}

/** `word` with a table of one's own (the tests' tables). */
export function wordFrom(table: Readonly<Partial<Record<string, VoicedTemplate>>>, text: UserText): string {
  if (text.kind === 'setting') return settingNameHere(String(text.data.key));
  // A record from a newer Evergreen (or a damaged one) may hold a kind this one cannot word: its kind and data then.
  const voiced = Object.hasOwn(table, text.kind) ? table[text.kind] : undefined;
  if (voiced === undefined) return userTextForLog(text);
  const template = isVoiced(voiced) ? voiced[voice] : voiced;
  const data = text.data as Readonly<Record<string, UserTextValue>>;
  const message = typeof template === 'string' ? template : data.count === 1 ? template.one : template.other;
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) if (value !== undefined) args[key] = wordValue(table, value);
  return l10n.t(message, args);
}

function wordValue(table: Readonly<Partial<Record<string, VoicedTemplate>>>, value: Exclude<UserTextValue, undefined>): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numbers.format(value);
  if (typeof value === 'boolean') return String(value);
  if (isStringList(value)) return lists.format(value);
  // Any kind with its data, as every text is: a kind this table lacks reads as its kind and data.
  if (isNestedText(value)) return wordFrom(table, value as UserText);
  // Only a damaged record holds anything else (it passed no type check): shown, never thrown on.
  return JSON.stringify(value) ?? String(value);
}

function isNestedText(value: unknown): value is NestedText {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string' && typeof (value as { data?: unknown }).data === 'object' && (value as { data?: unknown }).data !== null;
}

function isStringList(value: readonly string[] | NestedText): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * YAML frontmatter of a Markdown definition file (`---` on the first line, a mapping, `---` or
 * `...` to close it), parsed with the `yaml` library under limits an untrusted file cannot get past
 * (few aliases, so no alias bomb; unique keys; YAML 1.2 core schema, so no custom tags run). Then
 * readers for the field shapes the tools that write these files accept.
 */
import { parseDocument } from 'yaml';
import { userText, type UserText } from '../texts/userText';
import { oneLine } from '../visibleText';

export type Frontmatter =
  /** No frontmatter: the whole text is the body. */
  | { kind: 'none'; body: string }
  | { kind: 'ok'; fields: Record<string, unknown>; body: string }
  /** Present but unusable; `problem` says where and why. */
  | { kind: 'invalid'; problem: UserText; body: string };

/** At most this many alias uses in one frontmatter: enough for any real file, too few for an exponential one. */
const MAX_ALIASES = 16;

const OPENING = /^---[ \t]*\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;

/** Splits and parses a file's frontmatter; never throws. */
export function parseFrontmatter(raw: string): Frontmatter {
  const text = raw.replace(/\r\n/g, '\n');
  const opening = OPENING.exec(text);
  if (!opening) return { kind: 'none', body: text };
  const rest = text.slice(opening[0].length);
  const lines = rest.split('\n');
  const closeAt = lines.findIndex((line) => CLOSING.test(line));
  if (closeAt < 0) return { kind: 'invalid', problem: userText('customization.frontmatterNotClosed', {}), body: text };
  const yamlText = lines.slice(0, closeAt).join('\n');
  const body = lines.slice(closeAt + 1).join('\n');
  const parsed = parseYamlMapping(yamlText) ?? parseYamlMapping(quoteUnparsableValues(yamlText));
  if (parsed === undefined) return { kind: 'invalid', problem: firstProblem(yamlText), body };
  if ('problem' in parsed) return { kind: 'invalid', problem: parsed.problem, body };
  return { kind: 'ok', fields: parsed.fields, body };
}

/** The mapping's fields; a problem when the YAML parses but is not a mapping; undefined when it does not parse. */
function parseYamlMapping(yamlText: string): { fields: Record<string, unknown> } | { problem: UserText } | undefined {
  // A leading newline makes the library's line numbers the file's (the YAML starts on line 2).
  const doc = parseDocument(`\n${yamlText}`, { schema: 'core', uniqueKeys: true, stringKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) return undefined;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch {
    return undefined; // too many aliases
  }
  if (value === null || value === undefined) return { fields: {} };
  if (typeof value !== 'object' || Array.isArray(value)) return { problem: userText(Array.isArray(value) ? 'customization.frontmatterList' : 'customization.frontmatterValue', {}) };
  return { fields: value as Record<string, unknown> };
}

function firstProblem(yamlText: string): UserText {
  const doc = parseDocument(`\n${yamlText}`, { schema: 'core', uniqueKeys: true, stringKeys: true, prettyErrors: true });
  const error = doc.errors[0];
  // The parser's own words name the line and what it expected: data inside our sentence.
  if (error) return userText('customization.frontmatterNotYaml', { error: error.message.split('\n')[0]! });
  return userText('customization.frontmatterAliases', { limit: MAX_ALIASES });
}

/**
 * Claude Code's own documentation writes `argument-hint: [pr-number] [priority]`, which is not
 * YAML (a list followed by more text). Files like that are common, so a second pass quotes each
 * top-level value of that shape (a bracketed group followed by more text) that does not parse on
 * its own; any other error stays an error.
 */
function quoteUnparsableValues(yamlText: string): string {
  return yamlText
    .split('\n')
    .map((line) => {
      const match = /^([A-Za-z_][\w-]*):[ \t]+(\[[^[\]]*\]\s*\S.*?)\s*$/.exec(line);
      if (!match || parseDocument(match[2]!, { schema: 'core' }).errors.length === 0) return line;
      return `${match[1]}: ${JSON.stringify(match[2])}`;
    })
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// Field readers. Each returns the value, or a problem (the caller names the file).

export type FieldRead<T> = { value: T | undefined; problem?: UserText };

/** What a field holds instead of what it should. */
function describe(value: unknown): UserText {
  if (value === null) return userText('customization.gotNull', {});
  if (Array.isArray(value)) return userText('customization.gotList', {});
  if (typeof value === 'number') return userText('customization.gotNumber', {});
  if (typeof value === 'boolean') return userText('customization.gotBoolean', {});
  if (typeof value === 'string') return userText('customization.gotText', {});
  return userText('customization.gotMapping', {});
}

/** A one-line text field; numbers and booleans are taken as their text (YAML reads `version: 2` as a number). */
export function textField(fields: Record<string, unknown>, key: string): FieldRead<string> {
  const value = fields[key];
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value === 'string') return { value: value.trim() === '' ? undefined : value.trim() };
  if (typeof value === 'number' || typeof value === 'boolean') return { value: String(value) };
  return { value: undefined, problem: userText('customization.fieldNotText', { field: key, got: describe(value) }) };
}

/**
 * A list of names: a YAML list, or one string of entries separated by commas or spaces. Spaces and
 * commas inside parentheses stay in their entry (`Bash(git add:*)`).
 */
export function listField(fields: Record<string, unknown>, key: string): FieldRead<string[]> {
  const value = fields[key];
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value === 'string') return { value: splitEntries(value) };
  if (Array.isArray(value)) {
    const bad = value.filter((entry) => typeof entry !== 'string');
    if (bad.length > 0) return { value: undefined, problem: userText('customization.fieldNotNames', { field: key, got: describe(bad[0]) }) };
    return { value: (value as string[]).flatMap(splitEntries) };
  }
  return { value: undefined, problem: userText('customization.fieldNotList', { field: key, got: describe(value) }) };
}

function splitEntries(text: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current !== '') entries.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current !== '') entries.push(current);
  return entries;
}

/** `argument-hint: [message]` parses as a list in YAML; the hint is its text as written. */
export function hintField(fields: Record<string, unknown>, key: string): FieldRead<string> {
  const value = fields[key];
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string' || typeof entry === 'number')) return { value: `[${value.join(', ')}]` };
  return textField(fields, key);
}

/** A model, or (Copilot) a list of models to try in order. */
export function modelField(fields: Record<string, unknown>, key: string): FieldRead<string[]> {
  const value = fields[key];
  if (Array.isArray(value)) {
    const names = value.filter((entry): entry is string => typeof entry === 'string' && entry.trim() !== '').map((entry) => entry.trim());
    if (names.length !== value.length) return { value: undefined, problem: userText('customization.fieldNotModels', { field: key }) };
    return { value: names.length > 0 ? names : undefined };
  }
  const text = textField(fields, key);
  return text.value === undefined ? { value: undefined, ...(text.problem ? { problem: text.problem } : {}) } : { value: [text.value] };
}

/** A description for a file without one: its body's first non-empty line (a heading's words), on one line. */
export function firstLineOf(body: string, maxChars = 120): string | undefined {
  for (const line of body.split('\n')) {
    const words = oneLine(line.replace(/^\s*#+\s*/, ''), maxChars);
    if (words !== '') return words;
  }
  return undefined;
}

/**
 * A command's prompt with its arguments filled in.
 *
 * Claude Code's placeholders (in Claude Code's and Evergreen's files): `$ARGUMENTS` is everything
 * after the command name as typed; `$1`–`$9` are the arguments one by one, counted from 1 like the
 * shell and Claude Code's command files (newer Claude Code skills count `$0` from 0; `$0` is left as
 * written here); `$ARGUMENTS[N]` counts from 0 as Claude Code does. A placeholder with no argument
 * stays as written. `\$1` is a literal `$1` (a single backslash escapes; `\\$1` keeps both and
 * substitutes).
 *
 * Arguments split at whitespace; a quote at the start of a word (or just after `=`) groups up to the
 * matching quote at the end of a word, so `"hello world"` is one argument while the apostrophe in
 * `don't` is just a character. Nothing else is interpreted: no `$`, no globbing, no escapes.
 *
 * Copilot's variables (in Copilot's and Evergreen's files): `${input:name}` and
 * `${input:name:placeholder}` take `name=value` arguments (as VS Code's chat does); `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, and, when the front end knows the editor, `${file}`,
 * `${fileBasename}`, `${fileDirname}`, `${fileBasenameNoExtension}`, `${selection}`, `${selectedText}`.
 * One with no value stays as written and is reported.
 *
 * When the prompt has no placeholder at all, arguments are appended as `ARGUMENTS: …` (Claude Code's rule).
 */
import * as path from 'node:path';
import type { DefinitionFormat } from '../definitions/types';

/** What the front end knows of the editor when the command is sent (absent in the CLI). */
export interface EditorContext {
  /** The active file's absolute path. */
  file?: string;
  /** The selected text. */
  selection?: string;
}

export interface SubstitutionContext {
  workspaceFolder?: string;
  editor?: EditorContext;
}

export interface Substituted {
  text: string;
  /** Placeholders left as written for want of a value, as written (`$2`, `${input:name}`, `${selection}`). */
  unfilled: string[];
}

/** The arguments one by one (see the header for the quoting). */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  let index = 0;
  const isSpace = (char: string | undefined) => char !== undefined && /\s/.test(char);
  while (index < args.length) {
    while (isSpace(args[index])) index++;
    if (index >= args.length) break;
    let word = '';
    while (index < args.length && !isSpace(args[index])) {
      const char = args[index]!;
      const opensGroup = (char === '"' || char === "'") && (word === '' || word.endsWith('='));
      const close = opensGroup ? findClosingQuote(args, index) : -1;
      if (close > index) {
        word += args.slice(index + 1, close);
        index = close + 1;
      } else {
        word += char;
        index++;
      }
    }
    out.push(word);
  }
  return out;
}

/** The matching quote that ends a word (followed by whitespace or the end); -1 when there is none. */
function findClosingQuote(args: string, open: number): number {
  const quote = args[open]!;
  for (let index = open + 1; index < args.length; index++) {
    if (args[index] === quote && (index + 1 === args.length || /\s/.test(args[index + 1]!))) return index;
  }
  return -1;
}

const CLAUDE_PLACEHOLDER = /(\\*)\$(ARGUMENTS\[(\d+)\]|ARGUMENTS(?![A-Za-z0-9_[])|([1-9])(?!\d))/g;
const COPILOT_VARIABLE = /\$\{(input:([A-Za-z_][\w-]*)(?::[^}]*)?|[A-Za-z]+)\}/g;

/** Whether a prompt takes arguments anywhere (else they are appended). */
export function hasArgumentPlaceholder(body: string, format: DefinitionFormat): boolean {
  const claude = format !== 'copilot' && [...body.matchAll(CLAUDE_PLACEHOLDER)].some((match) => match[1]!.length !== 1);
  const copilot = format !== 'claude' && /\$\{input:/.test(body);
  return claude || copilot;
}

function editorValue(name: string, context: SubstitutionContext): string | undefined {
  const file = context.editor?.file;
  switch (name) {
    case 'workspaceFolder':
      return context.workspaceFolder;
    case 'workspaceFolderBasename':
      return context.workspaceFolder === undefined ? undefined : path.basename(context.workspaceFolder);
    case 'selection':
    case 'selectedText':
      return context.editor?.selection;
    case 'file':
      return file;
    case 'fileBasename':
      return file === undefined ? undefined : path.basename(file);
    case 'fileDirname':
      return file === undefined ? undefined : path.dirname(file);
    case 'fileBasenameNoExtension':
      return file === undefined ? undefined : path.basename(file, path.extname(file));
    default:
      return undefined;
  }
}

const KNOWN_VARIABLES = new Set(['workspaceFolder', 'workspaceFolderBasename', 'selection', 'selectedText', 'file', 'fileBasename', 'fileDirname', 'fileBasenameNoExtension']);

/** Fills a command's prompt (see the header). */
export function substituteArguments(body: string, args: string, format: DefinitionFormat, context: SubstitutionContext = {}): Substituted {
  const typed = args.trim();
  const words = splitArguments(typed);
  const unfilled: string[] = [];
  let text = body;
  if (format !== 'copilot') {
    text = text.replace(CLAUDE_PLACEHOLDER, (whole: string, slashes: string, token: string, index: string | undefined, digit: string | undefined) => {
      if (slashes.length === 1) return `$${token}`;
      const value = index !== undefined ? words[Number(index)] : digit !== undefined ? words[Number(digit) - 1] : typed;
      if (value === undefined) {
        unfilled.push(`$${token}`);
        return whole;
      }
      return `${slashes}${value}`;
    });
  }
  if (format !== 'claude') {
    const inputs = new Map<string, string>();
    for (const word of words) {
      const equals = word.indexOf('=');
      if (equals > 0) inputs.set(word.slice(0, equals), word.slice(equals + 1));
    }
    text = text.replace(COPILOT_VARIABLE, (whole: string, inner: string, input: string | undefined) => {
      const value = input !== undefined ? inputs.get(input) : editorValue(inner, context);
      if (value === undefined && (input !== undefined || KNOWN_VARIABLES.has(inner))) unfilled.push(whole);
      return value ?? whole;
    });
  }
  if (typed !== '' && !hasArgumentPlaceholder(body, format)) text = `${text.trimEnd()}\n\nARGUMENTS: ${typed}`;
  return { text, unfilled };
}

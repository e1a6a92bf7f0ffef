// Static bash analysis for the shell allow-list.
//
// This is an ALLOW-list of understood syntax, not a deny-list of known attacks: the tokenizer
// accepts plain words (unquoted literals, '...', "..." without expansions, $'...' with simple
// escapes, backslash escapes), the operators ; && || | |& & and newlines, input redirection and
// output redirection to /dev/null or to another descriptor. Everything else bash would expand or
// interpret ($ in any form, backticks, globs that may produce options, braces, parentheses,
// here-docs, assignments, keywords, eval-like builtins, wrappers, programs that execute commands
// through options) is reported as a hazard, so the command is asked about instead of
// auto-approved. When unsure, report a hazard: a false "ask" costs a click, a false "auto" runs code.
//
// Pathname expansion happens after this analysis and can turn an approved word into any file
// name in the directory (a file named `config` turns `git co*` into `git config`), so the
// program rules (shellProgramRules.ts) never see globs: a glob in the arguments of a program that has rules, in
// the command word, or in the first argument (subcommand position) unless a `/` precedes it is a
// hazard; elsewhere a glob is accepted only within the working directory and in the last path
// component (src/*.ts).
//
// Other processes' state is off limits: /proc (environ, cmdline, fd of the extension host hold
// the API key) and /dev/fd are hazards wherever they appear in a word, and so are paths that can
// reach them: globs outside the working directory, the root or a chain of `..` (a recursive grep
// from there walks /proc), and `cd` out of the working directory (relative paths after it are
// no longer checked). /sys is not guarded: it describes the kernel and hardware, not processes'
// secrets.
//
// What it cannot see: what an allow-listed program itself does with its (literal) arguments,
// configuration (.gitconfig, package.json scripts, Makefiles), the inherited environment, and
// symlinks in the workspace (a link to /proc reads like any other file name).

import { HAZARD_COMMANDS, INTERPRETER, OPTION_RULES, PRIVILEGED_ANYWHERE, processStateHazard, SINKS } from './shellProgramRules';
import { readOnlyHazard } from './readOnlyPrograms';
import { commandName, tokenize, type Word } from './shellTokenizer';

export interface ShellSegment {
  /** Words after quote removal, redirections removed. */
  words: string[];
  /** Per word: true when bash still expands it (unquoted glob or tilde), so the program may receive other or more arguments than `words[i]`. */
  expands: boolean[];
  /** True when this simple command reads from a pipe (`a | b`: b). */
  afterPipe: boolean;
}

export interface ShellAnalysis {
  segments: ShellSegment[];
  /** Reasons the command must never be auto-approved by the allow-list (empty = none). */
  hazards: string[];
}

export interface AllowListMatch {
  allowed: boolean;
  /** Why not, for the approval UI ("contains command substitution", "`rm -rf /` is not allowed"). */
  reason: string;
}

interface Segment {
  words: Word[];
  afterPipe: boolean;
  redirections: number;
}

const OUTPUT_REDIRS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time', 'coproc', '!', '{', '}', '[[', ']]']);


/** `asEntry`: an allow-list entry, which is a command prefix (`cd` allows `cd src`): the program rules judge whole commands only. */
function analyze(command: string, asEntry = false): { segments: Segment[]; hazards: Set<string> } {
  const { tokens, hazards } = tokenize(command);
  const segments: Segment[] = [];
  let current: Segment = { words: [], afterPipe: false, redirections: 0 };
  let pendingRedir: string | undefined;
  const close = (nextAfterPipe: boolean): void => {
    if (pendingRedir !== undefined) hazards.add('incomplete redirection');
    pendingRedir = undefined;
    if (current.words.length > 0) segments.push(current);
    else if (nextAfterPipe || current.afterPipe) hazards.add('empty command in a pipeline');
    else if (current.redirections > 0) hazards.add('redirection without a command');
    current = { words: [], afterPipe: nextAfterPipe, redirections: 0 };
  };
  const checkWord = (word: Word): void => {
    // Wildcard injection: a file named `--pre=x` turns `rg foo *` into an option.
    const prefix = word.globPrefix;
    if (prefix !== undefined && (prefix === '' || prefix.startsWith('-'))) hazards.add(`unquoted glob ${word.raw} (may expand to an option)`);
    const pathHazard = processStateHazard(word);
    if (pathHazard !== undefined) hazards.add(pathHazard);
  };
  for (const token of tokens) {
    if (token.kind === 'op') {
      close(token.value === '|');
    } else if (token.kind === 'redir') {
      if (pendingRedir !== undefined) hazards.add('incomplete redirection');
      pendingRedir = token.value;
      current.redirections++;
    } else if (pendingRedir !== undefined) {
      checkWord(token.word);
      const target = token.word.globPrefix === undefined && !token.word.tilde ? token.word.value : '';
      if (OUTPUT_REDIRS.has(pendingRedir) && !SINKS.has(target)) hazards.add('output redirection to a file');
      if (pendingRedir === '>&' && !/^(\d+|-)$/.test(target) && !SINKS.has(target)) hazards.add('output redirection to a file');
      if (pendingRedir === '<&' && !/^(\d+|-)$/.test(target)) hazards.add('unsupported redirection <&');
      if (pendingRedir === '<' && /^\/dev\/(tcp|udp)\//.test(token.word.value)) hazards.add('network redirection /dev/tcp');
      pendingRedir = undefined;
    } else {
      checkWord(token.word);
      current.words.push(token.word);
    }
  }
  close(false);

  for (const segment of segments) {
    const first = segment.words[0] as Word;
    const values = segment.words.map((w) => w.value);
    const name = commandName(first.value);
    if (first.globPrefix !== undefined) hazards.add(`glob in the command name ${first.raw}`);
    // The rules below judge words as written; bash expands globs first (`git co*` -> `git config`).
    const globbed = segment.words.slice(1).find((w) => w.globPrefix !== undefined);
    if (globbed !== undefined && OPTION_RULES.has(name)) hazards.add(`glob ${globbed.raw} in the arguments of ${name} (expands before the rules apply)`);
    // Any program may take a subcommand there; a `/` in the literal part keeps every expansion a path.
    const firstArg = segment.words[1];
    if (firstArg?.globPrefix !== undefined && !firstArg.globPrefix.includes('/')) hazards.add(`glob ${firstArg.raw} in the first argument of ${name} (may expand to a subcommand)`);
    // Env/shell variables change what an allow-listed program executes (PAGER, GIT_SSH_COMMAND, LD_PRELOAD, PATH).
    if (first.value.includes('=')) hazards.add(`variable assignment ${first.raw}`);
    if (KEYWORDS.has(first.value)) hazards.add(`shell keyword ${first.value}`);
    const commandHazard = HAZARD_COMMANDS.get(name);
    if (commandHazard !== undefined) hazards.add(`\`${name}\` ${commandHazard}`);
    const optionHazard = asEntry ? undefined : OPTION_RULES.get(name)?.(values.slice(1));
    if (optionHazard !== undefined) hazards.add(optionHazard);
    if (values.slice(1).some((w) => PRIVILEGED_ANYWHERE.has(w))) hazards.add('sudo or eval as an argument');
    if (segment.afterPipe && INTERPRETER.test(name)) hazards.add('pipes into a shell or interpreter');
  }
  return { segments, hazards };
}

export function analyzeShellCommand(command: string): ShellAnalysis {
  const { segments, hazards } = analyze(command);
  return { segments: segments.map((s) => ({ words: s.words.map((w) => w.value), expands: s.words.map((w) => w.globPrefix !== undefined || w.tilde), afterPipe: s.afterPipe })), hazards: [...hazards] };
}

/** An entry's words, or why it is not one plain command prefix (such an entry is ignored rather than guessed). */
function parseEntry(entry: unknown): { words: Word[] } | { problem: string } {
  if (typeof entry !== 'string' || entry.trim() === '') return { problem: 'it is empty' };
  const { segments, hazards } = analyze(entry, true);
  const segment = segments[0];
  if (hazards.size > 0) return { problem: `it contains ${[...hazards].join('; ')}` };
  if (segments.length !== 1 || segment === undefined) return { problem: 'it is more than one command' };
  if (segment.redirections > 0) return { problem: 'it has a redirection' };
  if (segment.words.some((w) => w.globPrefix !== undefined)) return { problem: 'it has a glob' };
  return { words: segment.words };
}

/** Why an allow-list entry would be ignored (the CLI refuses it), or undefined for one plain command prefix. */
export function allowListEntryProblem(entry: string): string | undefined {
  const parsed = parseEntry(entry);
  return 'problem' in parsed ? parsed.problem : undefined;
}

function allowListEntries(allowList: readonly string[]): Word[][] {
  return allowList.flatMap((entry) => {
    const parsed = parseEntry(entry);
    return 'words' in parsed ? [parsed.words] : [];
  });
}

/** Same argument as the entry's: equal value and no expansion that could make them differ. */
function sameWord(entry: Word, word: Word): boolean {
  return word.globPrefix === undefined && entry.value === word.value && entry.tilde === word.tilde;
}

export interface AllowListOptions {
  /**
   * The sandbox is off: approve only programs and words known to be read-only (readOnlyPrograms.ts),
   * whatever the entries say, since nothing else keeps an allow-listed writer from the disk.
   */
  readOnly?: boolean;
}

export function matchShellAllowList(command: string, allowList: readonly string[], options: AllowListOptions = {}): AllowListMatch {
  const { segments, hazards } = analyze(command);
  const entries = allowListEntries(allowList);
  const outside = segments.find((segment) => !entries.some((entry) => entry.length <= segment.words.length && entry.every((w, i) => sameWord(w, segment.words[i] as Word))));
  const writers = options.readOnly ? segments.flatMap((segment) => readOnlyHazard(segment.words[0]?.value ?? '', segment.words.slice(1).map((w) => w.value)) ?? []) : [];
  // Both reasons when both apply: the prompt should name the command that is not allow-listed even if it also has a hazard.
  const reasons = [
    ...(hazards.size > 0 ? [`contains ${[...hazards].join('; ')}`] : []),
    ...(outside ? [`\`${outside.words.map((w) => w.value).join(' ')}\` is not in the allow-list`] : []),
    ...(writers.length > 0 ? [`with the sandbox off the allow-list approves only read-only commands: ${writers.join('; ')}`] : []),
  ];
  if (reasons.length > 0) return { allowed: false, reason: reasons.join('; and ') };
  if (segments.length === 0) return { allowed: false, reason: 'empty command' };
  return { allowed: true, reason: 'every command matches the allow-list' };
}

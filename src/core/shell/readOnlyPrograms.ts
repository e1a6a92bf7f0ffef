// The programs the shell allow-list may approve while the OS sandbox is off (issue 26). With the
// sandbox on the kernel confines what an allow-listed command writes, so the allow-list trusts the
// user's entries (shellProgramRules.ts still refuses options that run code). With it off nothing
// else stands between the command and the disk: an entry approves a command only when its program
// is in this table and its words are read-only ones — `uniq IN` but not `uniq IN OUT`, `date +%s`
// but not `date -s …`, `ps aux` but not `ps auxe` (other processes' environments, where a key may be).
// Everything else asks, whatever the allow-list says. Add a program only with every option that
// writes, sets system state or shows secrets listed against it.

import { SINKS } from './shellProgramRules';

/** Why a program's words are not read-only, or undefined when they are. */
type ReadOnlyCheck = (args: readonly string[]) => string | undefined;

interface ParsedArgs {
  /** Words that are not options or option values (after `--`, everything). */
  operands: string[];
  options: string[];
}

/**
 * GNU getopt's view of `args`: `valued` short letters take the rest of their cluster or the next
 * word, `longValued` names take the next word when written without `=`. An option this does not
 * know to take a value leaves its value counted as an operand: counting too many only asks more.
 */
function parseArgs(args: readonly string[], valued = '', longValued: readonly string[] = []): ParsedArgs {
  const parsed: ParsedArgs = { operands: [], options: [] };
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (word === '--') {
      parsed.operands.push(...args.slice(index + 1));
      break;
    }
    if (word.startsWith('--')) {
      parsed.options.push(word);
      if (!word.includes('=') && longValued.includes(word)) index++;
    } else if (word.startsWith('-') && word !== '-') {
      parsed.options.push(word);
      const at = [...word.slice(1)].findIndex((letter) => valued.includes(letter));
      if (at === word.length - 2) index++;
    } else {
      parsed.operands.push(word);
    }
  }
  return parsed;
}

/** A long option equal to, or a GNU abbreviation of, one of `names`; or a short cluster holding one of `letters` (values in the cluster count too). */
function optionIn(word: string, names: readonly string[], letters: string): boolean {
  if (word.startsWith('--')) {
    const name = word.split('=', 1)[0] as string;
    return name.length > 2 && names.some((listed) => listed.startsWith(name));
  }
  return /^-[^-]/.test(word) && [...word.slice(1)].some((letter) => letters.includes(letter));
}

/** Refuses the options that write; the rest of the program's options only read. */
function refuses(long: readonly string[], short: string, what: string): ReadOnlyCheck {
  return (args) => {
    const hit = parseArgs(args).options.find((word) => optionIn(word, long, short));
    return hit === undefined ? undefined : `${what} (${hit})`;
  };
}

/** At most `max` operands: one more is the file the program writes (`uniq IN OUT`). */
function readsAtMost(max: number, valued: string, longValued: readonly string[], program: string): ReadOnlyCheck {
  return (args) => {
    const { operands } = parseArgs(args, valued, longValued);
    return operands.length > max ? `${program} writes its output to the file named after ${max === 1 ? 'its input' : `${max} inputs`} (${operands.at(-1)})` : undefined;
  };
}

function teeCheck(args: readonly string[]): string | undefined {
  const file = parseArgs(args).operands.find((operand) => !SINKS.has(operand));
  return file === undefined ? undefined : `tee writes the file ${file}`;
}

/** xxd reads its own options (`-ps` is one option, `-cols 8` takes a value): only exact words are trusted to take one. */
const XXD_VALUED = new Set(['-c', '-cols', '-g', '-groupsize', '-l', '-len', '-n', '-name', '-o', '-offset', '-s', '-seek', '-R']);
function xxdCheck(args: readonly string[]): string | undefined {
  const operands: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    // xxd takes any word beginning with -r for -r (-revert): it turns a dump back into bytes and patches files.
    if (word.startsWith('-r')) return `xxd ${word} writes bytes back into a file`;
    if (XXD_VALUED.has(word)) index++;
    else if (!word.startsWith('-') || word === '-') operands.push(word);
  }
  return operands.length > 1 ? `xxd writes its dump to the second file it is given (${operands.at(-1)})` : undefined;
}

function dateCheck(args: readonly string[]): string | undefined {
  const { options, operands } = parseArgs(args, 'dfr', ['--date', '--file', '--reference', '--rfc-3339']);
  const set = options.find((word) => optionIn(word, ['--set'], 's'));
  if (set !== undefined) return `date ${set} sets the clock`;
  const clock = operands.find((operand) => !operand.startsWith('+'));
  return clock === undefined ? undefined : `date ${clock} sets the clock (only +FORMAT is read-only)`;
}

const HOSTNAME_SHOW = new Set(['--alias', '--all-fqdns', '--domain', '--fqdn', '--long', '--ip-address', '--all-ip-addresses', '--short', '--yp', '--nis', '--help', '--version']);
function hostnameCheck(args: readonly string[]): string | undefined {
  const other = args.find((word) => !HOSTNAME_SHOW.has(word) && !/^-[aAdfiIsyhV]+$/.test(word));
  return other === undefined ? undefined : `hostname ${other} sets the host name (only the options that show it are read-only)`;
}

// Unix-style options of ps that take the next word as their value (a list of pids, users, a format …).
const PS_VALUED = new Set(['-o', '-O', '-p', '-q', '-u', '-U', '-g', '-G', '-s', '-t', '-C', '--sort', '--format', '--pid', '--ppid', '--quick-pid', '--user', '--User', '--group', '--Group', '--sid', '--tty', '--cols', '--columns', '--lines', '--rows', '--width']);
/** BSD-style option letters that only choose processes and columns; `e` (environment) and anything unknown ask. */
const PS_BSD_SAFE = /^[auxwfjlvmrTHSchn]+$/;
function psCheck(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (PS_VALUED.has(word)) index++;
    else if (!word.startsWith('-') && !PS_BSD_SAFE.test(word)) {
      return word.includes('e') ? `ps ${word} shows other processes' environments (where an API key may be)` : `ps ${word}: an option not known to be read-only`;
    }
  }
  return undefined;
}

// git: subcommands that only read the repository. Its option rules (shellProgramRules.ts) still
// refuse --output, --ext-diff and the global options that point git elsewhere.
const GIT_READS = new Set(['status', 'diff', 'log', 'show', 'blame', 'annotate', 'ls-files', 'ls-tree', 'rev-parse', 'rev-list', 'describe', 'shortlog', 'cat-file', 'merge-base', 'show-ref', 'for-each-ref', 'name-rev', 'grep', 'whatchanged', 'show-branch', 'count-objects', 'check-ignore', 'check-attr', 'cherry', 'range-diff', 'diff-tree', 'diff-files', 'diff-index', 'version']);
/** Subcommands whose listing form reads and whose other forms write: the listing's words, the operand form (patterns) only with --list. */
const GIT_LISTS: Readonly<Record<string, { flags: RegExp; valued: readonly string[] }>> = {
  branch: { flags: /^(?:-[arvil]+|--(?:all|remotes|verbose|list|show-current|ignore-case|no-color|no-column|omit-empty)|--(?:color|column|abbrev|sort|format|contains|no-contains|merged|no-merged|points-at)=.*)$/, valued: ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'] },
  tag: { flags: /^(?:-[li]+|-n\d*|--(?:list|ignore-case|no-color|no-column|omit-empty)|--(?:color|column|sort|format|contains|no-contains|merged|no-merged|points-at)=.*)$/, valued: ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'] },
};
/** Subcommands with read-only sub-subcommands (the first word after them); none given reads too for these. */
const GIT_READ_FORMS: Readonly<Record<string, { forms: ReadonlySet<string>; bare: boolean }>> = {
  stash: { forms: new Set(['list', 'show']), bare: false },
  worktree: { forms: new Set(['list']), bare: false },
  reflog: { forms: new Set(['show']), bare: true },
  remote: { forms: new Set(['-v', '--verbose', 'get-url']), bare: true },
};

function gitListCheck(sub: string, args: readonly string[]): string | undefined {
  const spec = GIT_LISTS[sub] as { flags: RegExp; valued: readonly string[] };
  let list = false;
  const operands: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (spec.valued.includes(word)) {
      index++;
      continue;
    }
    if (word.startsWith('-')) {
      if (!spec.flags.test(word)) return `git ${sub} ${word}: only its listing options are read-only`;
      list ||= word === '--list' || /^-[a-z]*l/.test(word);
    } else operands.push(word);
  }
  return operands.length > 0 && !list ? `git ${sub} ${operands[0]} creates or changes a ${sub} (only listing is read-only)` : undefined;
}

function gitCheck(args: readonly string[]): string | undefined {
  // Global options git's own rules allow (--no-pager, …) come first.
  const at = args.findIndex((word) => !word.startsWith('-'));
  if (at < 0) return undefined;
  const sub = args[at] as string;
  const rest = args.slice(at + 1);
  if (GIT_READS.has(sub)) return undefined;
  if (Object.hasOwn(GIT_LISTS, sub)) return gitListCheck(sub, rest);
  const forms = Object.hasOwn(GIT_READ_FORMS, sub) ? GIT_READ_FORMS[sub] : undefined;
  if (forms && (rest.length === 0 ? forms.bare : forms.forms.has(rest[0] as string))) return undefined;
  return `git ${[sub, ...rest.slice(0, forms ? 1 : 0)].join(' ')} is not known to be read-only`;
}

const ANY_OPTION = (): undefined => undefined;

/**
 * Program -> what makes its words not read-only. ANY_OPTION: none of its options writes (GNU
 * coreutils' readers, grep, jq, …); programs with option rules in shellProgramRules.ts (find, rg,
 * sed, printf, test, cd, …) are judged by those rules as well, which run for every command.
 */
export const READ_ONLY_PROGRAMS: ReadonlyMap<string, ReadOnlyCheck> = new Map<string, ReadOnlyCheck>([
  ...['cat', 'head', 'tail', 'wc', 'nl', 'tac', 'rev', 'cut', 'paste', 'join', 'comm', 'fold', 'expand', 'unexpand', 'column', 'tr', 'grep', 'egrep', 'fgrep', 'rg', 'ls', 'dir', 'vdir', 'du', 'df', 'stat', 'realpath', 'readlink', 'basename', 'dirname', 'pwd', 'echo', 'true', 'false', ':', 'seq', 'expr', 'whoami', 'id', 'groups', 'uname', 'arch', 'nproc', 'printenv', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'base64', 'base32', 'basenc', 'od', 'hexdump', 'strings', 'jq', 'diff', 'cmp', 'which', 'sleep', 'numfmt', 'factor', 'find', 'fd', 'fdfind', 'sed', 'printf', 'test', '[', 'cd', 'pushd'].map((name): [string, ReadOnlyCheck] => [name, ANY_OPTION]),
  ['uniq', readsAtMost(1, 'fsw', ['--skip-fields', '--skip-chars', '--check-chars'], 'uniq')],
  ['tee', teeCheck],
  ['xxd', xxdCheck],
  ['shuf', refuses(['--output'], 'o', 'shuf writes a file')],
  ['iconv', refuses(['--output'], 'o', 'iconv writes a file')],
  ['sort', refuses(['--output', '--compress-program', '--temporary-directory'], 'oT', 'sort writes a file or runs a program')],
  ['tree', refuses(['--output'], 'oR', 'tree writes a file')],
  ['file', refuses(['--compile'], 'C', 'file writes a compiled magic file')],
  ['date', dateCheck],
  ['hostname', hostnameCheck],
  ['ps', psCheck],
  ['git', gitCheck],
]);

/** Why a simple command is not known to be read-only (with the sandbox off), or undefined when it is. */
export function readOnlyHazard(commandWord: string, args: readonly string[]): string | undefined {
  // A path runs whatever file is there (a workspace script named `ls`); only a bare name is the program in this table.
  if (commandWord.includes('/')) return `\`${commandWord}\` is a path, not a program known to be read-only`;
  const check = READ_ONLY_PROGRAMS.get(commandWord);
  if (check === undefined) return `\`${commandWord}\` is not known to be read-only`;
  return check(args);
}

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
// program rules below never see globs: a glob in the arguments of a program that has rules, in
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

import * as path from 'node:path';

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

interface Word {
  /** After quote removal (what the program receives, unless `glob` or `tilde` expand it). */
  value: string;
  /** As written, for messages. */
  raw: string;
  /** Value before the first unquoted * ? [ (undefined: no pathname expansion). */
  globPrefix: string | undefined;
  /** Contains an unquoted ~ (tilde expansion may change the value). */
  tilde: boolean;
}

interface Segment {
  words: Word[];
  afterPipe: boolean;
  redirections: number;
}

type Token = { kind: 'word'; word: Word } | { kind: 'op'; value: string } | { kind: 'redir'; value: string };

// Control characters (except tab and newline), format/bidi controls, odd spaces: they make the
// command read differently from what runs (display spoofing), and are never needed in a command.
const INVISIBLE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}]|[^\S \t\n]/u;
// Unquoted characters with no special meaning to bash (# only mid-word; `!` is literal in
// non-interactive shells, and as a command word it is the `!` keyword, rejected below).
const UNQUOTED_LITERAL = /[A-Za-z0-9_\-./,:@%+=~^\]!#]/;
// $'...' escapes we decode exactly; others (\x \u \c octal) are rejected rather than guessed.
const ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};
const OUTPUT_REDIRS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time', 'coproc', '!', '{', '}', '[[', ']]']);

function dollarHazard(next: string | undefined, afterNext: string | undefined): string {
  if (next === '(') return afterNext === '(' ? 'arithmetic expansion $((...))' : 'command substitution $(...)';
  if (next === '{') return 'parameter expansion ${...}';
  if (next === '[') return 'arithmetic expansion $[...]';
  if (next === '"') return 'locale translation $"..."';
  return 'variable expansion $';
}

/** The `[` command: a lone unquoted `[` is not a valid pattern, so bash keeps it literally. */
function isLoneBracket(command: string, i: number, inWord: boolean): boolean {
  const after = command[i + 1];
  return !inWord && (after === undefined || after === ' ' || after === '\t' || after === '\n');
}

function tokenize(command: string): { tokens: Token[]; hazards: Set<string> } {
  const tokens: Token[] = [];
  const hazards = new Set<string>();
  let word = '';
  let raw = '';
  let inWord = false;
  let globPrefix: string | undefined;
  let tilde = false;
  const endWord = (): void => {
    if (inWord) tokens.push({ kind: 'word', word: { value: word, raw, globPrefix, tilde } });
    word = '';
    raw = '';
    inWord = false;
    globPrefix = undefined;
    tilde = false;
  };
  const literal = (value: string, written: string): void => {
    word += value;
    raw += written;
    inWord = true;
  };
  if (INVISIBLE.test(command)) hazards.add('control or invisible characters');
  const n = command.length;
  let i = 0;
  while (i < n) {
    const c = command[i] as string;
    const next = command[i + 1];
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '\n') {
      endWord();
      tokens.push({ kind: 'op', value: ';' });
      i++;
    } else if (c === '#' && !inWord) {
      while (i < n && command[i] !== '\n') i++;
    } else if (c === '\\') {
      if (next === '\n') {
        i += 2; // line continuation: joins the surrounding text into one word
      } else if (next === undefined) {
        hazards.add('trailing backslash');
        i++;
      } else {
        literal(next, c + next);
        i += 2;
      }
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) {
        hazards.add('unterminated quote');
        break;
      }
      literal(command.slice(i + 1, end), command.slice(i, end + 1));
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let value = '';
      let closed = false;
      while (j < n) {
        const d = command[j] as string;
        if (d === '\\' && j + 1 < n) {
          const e = command[j + 1] as string;
          value += '"\\$`\n'.includes(e) ? (e === '\n' ? '' : e) : d + e;
          j += 2;
          continue;
        }
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '`') hazards.add('command substitution `...`');
        if (d === '$') hazards.add(dollarHazard(command[j + 1], command[j + 2]));
        value += d;
        j++;
      }
      if (!closed) {
        hazards.add('unterminated quote');
        break;
      }
      literal(value, command.slice(i, j + 1));
      i = j + 1;
    } else if (c === '$' && next === "'") {
      let j = i + 2;
      let value = '';
      let closed = false;
      while (j < n) {
        const d = command[j] as string;
        if (d === "'") {
          closed = true;
          break;
        }
        if (d === '\\') {
          const e = command[j + 1];
          const decoded = e === undefined ? undefined : ANSI_C_ESCAPES[e];
          if (decoded === undefined) hazards.add(`$'...' escape \\${e ?? ''} (only simple escapes are decoded)`);
          value += decoded ?? '';
          j += 2;
          continue;
        }
        value += d;
        j++;
      }
      if (!closed) {
        hazards.add('unterminated quote');
        break;
      }
      literal(value, command.slice(i, j + 1));
      i = j + 1;
    } else if (c === '$') {
      hazards.add(dollarHazard(next, command[i + 2]));
      literal(c, c);
      i++;
    } else if (c === '`') {
      hazards.add('command substitution `...`');
      literal(c, c);
      i++;
    } else if ((c === '<' || c === '>') && next === '(') {
      hazards.add('process substitution <(...) / >(...)');
      endWord();
      i += 2;
    } else if (c === '<' || c === '>') {
      // A pure unquoted number right before the operator is its file descriptor (2>), not a word.
      if (inWord && /^\d+$/.test(raw)) {
        word = '';
        raw = '';
        inWord = false;
      } else endWord();
      let op: string = c;
      const rest = command.slice(i + 1, i + 3);
      if (c === '>' && (rest.startsWith('>') || rest.startsWith('|') || rest.startsWith('&'))) op += rest[0];
      else if (c === '<' && rest.startsWith('<<')) op = '<<<';
      else if (c === '<' && (rest.startsWith('<') || rest.startsWith('>') || rest.startsWith('&'))) op += rest[0];
      if (op === '<<<') hazards.add('here-string <<<');
      if (op === '<<') hazards.add('here-document <<');
      tokens.push({ kind: 'redir', value: op });
      i += op.length;
    } else if (c === '|') {
      endWord();
      if (next === '|') {
        tokens.push({ kind: 'op', value: '||' });
        i += 2;
      } else {
        tokens.push({ kind: 'op', value: '|' });
        i += next === '&' ? 2 : 1;
      }
    } else if (c === '&') {
      endWord();
      if (next === '&') {
        tokens.push({ kind: 'op', value: '&&' });
        i += 2;
      } else if (next === '>') {
        const append = command[i + 2] === '>';
        tokens.push({ kind: 'redir', value: append ? '&>>' : '&>' });
        i += append ? 3 : 2;
      } else {
        tokens.push({ kind: 'op', value: '&' });
        i++;
      }
    } else if (c === ';') {
      endWord();
      if (next === ';' || next === '&') hazards.add('case terminator ;; / ;&');
      tokens.push({ kind: 'op', value: ';' });
      i++;
    } else if (c === '(' || c === ')') {
      if (c === '(' && next === '(' && !inWord) hazards.add('arithmetic command ((...))');
      else if (c === '(' && inWord && /[@!+?*]$/.test(raw)) hazards.add('extended glob @(...)');
      else if (c === '(' && inWord && next === ')') hazards.add('function definition');
      else hazards.add('subshell or grouping ( )');
      endWord();
      tokens.push({ kind: 'op', value: ';' });
      i++;
    } else if (c === '{' || c === '}') {
      hazards.add('brace expansion or group { }');
      literal(c, c);
      i++;
    } else if (c === '[' && isLoneBracket(command, i, inWord)) {
      literal(c, c);
      i++;
    } else if (c === '*' || c === '?' || c === '[') {
      if (globPrefix === undefined) globPrefix = word;
      literal(c, c);
      i++;
    } else if (UNQUOTED_LITERAL.test(c) || c.charCodeAt(0) >= 0x80) {
      if (c === '~') tilde = true;
      literal(c, c);
      i++;
    } else {
      hazards.add(`unsupported character ${JSON.stringify(c)}`);
      literal(c, c);
      i++;
    }
  }
  endWord();
  return { tokens, hazards };
}

function commandName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash >= 0 ? word.slice(slash + 1) : word;
}

// ---------------------------------------------------------------------------------------------
// Commands and options. One table, GTFOBins-style: programs that run code, change what later
// commands run, or write files through their arguments. Applied whatever the allow-list says.

const WRAPPER = 'runs another program (its command is not checked)';
const SHELL_STATE = 'evaluates code or changes shell state (variables, functions, options)';
const INTERACTIVE = 'can run shell commands interactively';
const HAZARD_COMMANDS: ReadonlyMap<string, string> = new Map<string, string>([
  ...['eval', 'exec', 'source', '.', 'builtin', 'command', 'let', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'read', 'mapfile', 'readarray', 'getopts', 'trap', 'alias', 'unalias', 'enable', 'hash', 'bind', 'complete', 'compgen', 'compopt', 'fc', 'shopt', 'set'].map((name): [string, string] => [name, SHELL_STATE]),
  ...['sudo', 'doas', 'pkexec', 'su', 'runuser', 'sg', 'newgrp'].map((name): [string, string] => [name, 'runs a command with other privileges']),
  ...['env', 'nice', 'nohup', 'timeout', 'xargs', 'stdbuf', 'watch', 'parallel', 'ionice', 'chrt', 'taskset', 'setsid', 'flock', 'unbuffer', 'script', 'chroot', 'strace', 'ltrace', 'gdb', 'valgrind', 'unshare', 'nsenter', 'firejail', 'systemd-run', 'busybox', 'rlwrap', 'sshpass', 'expect', 'screen', 'tmux', 'caffeinate'].map(
    (name): [string, string] => [name, WRAPPER],
  ),
  ...['less', 'more', 'most', 'pg', 'man', 'vi', 'vim', 'nvim', 'view', 'vimdiff', 'gvim', 'rvim', 'emacs', 'ed', 'red', 'ex', 'nano', 'pico', 'mg', 'joe'].map((name): [string, string] => [name, INTERACTIVE]),
  ...['awk', 'gawk', 'mawk', 'nawk'].map((name): [string, string] => [name, 'awk programs can run commands (system(), |getline) and write files']),
  ...['ssh', 'scp', 'sftp', 'telnet', 'socat'].map((name): [string, string] => [name, 'runs commands remotely or through options (ProxyCommand, EXEC:)']),
  ['wget', 'writes the download to a file and runs wgetrc commands (-e)'],
  ['patch', 'can run ed scripts'],
]);

/** A long option (`--name` or `--name=value`) equal to, or an abbreviation of, a listed one (GNU getopt and git accept unique prefixes). */
function longOptionHit(word: string, names: readonly string[]): boolean {
  if (!word.startsWith('--') || word.length < 3) return false;
  const name = word.split('=', 1)[0] as string;
  return names.some((listed) => listed === name || (name.length > 2 && listed.startsWith(name)));
}

/** A short-option cluster (`-abc`) containing one of `letters` (conservative: values in the cluster count too). */
function shortOptionHit(word: string, letters: string): boolean {
  return /^-[^-]/.test(word) && [...word.slice(1)].some((ch) => letters.includes(ch));
}

function optionRule(long: readonly string[], short: string, what: string): (args: string[]) => string | undefined {
  return (args) => {
    const hit = args.find((w) => longOptionHit(w, long) || shortOptionHit(w, short));
    return hit === undefined ? undefined : `${what} (${hit})`;
  };
}

const GIT_SAFE_GLOBAL = new Set(['--no-pager', '-P', '-p', '--paginate', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--no-advice', '--version', '--help', '-h']);
// Subcommands that run configured/argument programs or rewrite configuration.
const GIT_HAZARD_SUBCOMMANDS = new Set(['config', 'filter-branch', 'difftool', 'mergetool', 'bisect', 'submodule', 'send-email', 'daemon', 'instaweb', 'web--browse', 'hook', 'credential', 'upload-pack', 'receive-pack', 'shell', 'imap-send']);
const GIT_HAZARD_LONG = ['--upload-pack', '--receive-pack', '--exec', '--ext-diff', '--output', '--output-directory', '--open-files-in-pager', '--extcmd', '--template', '--config', '--config-env', '--tool', '--exec-path', '--git-dir', '--work-tree'];
const GIT_HAZARD_SHORT: Readonly<Record<string, string>> = { clone: 'uc', rebase: 'x', grep: 'O', 'format-patch': 'o' };

function gitHazard(args: string[]): string | undefined {
  let i = 0;
  // Global options (-c, -C, --git-dir, --exec-path ...) can point git at other code or config.
  for (; i < args.length && (args[i] as string).startsWith('-'); i++) {
    if (!GIT_SAFE_GLOBAL.has(args[i] as string)) return `git global option ${args[i]}`;
  }
  const sub = args[i];
  if (sub === undefined) return undefined;
  if (GIT_HAZARD_SUBCOMMANDS.has(sub)) return `git ${sub} runs programs or changes configuration`;
  const short = Object.hasOwn(GIT_HAZARD_SHORT, sub) ? (GIT_HAZARD_SHORT[sub] as string) : '';
  const hit = args.slice(i + 1).find((w) => longOptionHit(w, GIT_HAZARD_LONG) || shortOptionHit(w, short));
  return hit === undefined ? undefined : `git option ${hit} runs a program or writes a file`;
}

function tarHazard(args: string[]): string | undefined {
  const long = ['--to-command', '--use-compress-program', '--checkpoint-action', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command', '--index-file', '--volno-file', '--listed-incremental', '--extract', '--get', '--create', '--append', '--update', '--delete', '--catenate', '--concatenate'];
  // Extract/create/append (x c r u A g) write files; -I / -F run programs. The first word may be a dash-less bundle (`tar xzf a.tgz`).
  const letters = 'IFxcruAg';
  const first = args[0];
  if (first !== undefined && !first.startsWith('-') && [...first].some((ch) => letters.includes(ch))) return `tar ${first} writes files or runs programs`;
  const hit = args.find((w) => longOptionHit(w, long) || shortOptionHit(w, letters));
  if (hit !== undefined) return `tar ${hit} writes files or runs programs`;
  // host:file archives are opened through rsh/ssh.
  if (args.some((w) => w.includes(':'))) return 'tar with a remote (host:) archive';
  return undefined;
}

// Any npm config can be set from the command line, and several name programs npm runs
// (--script-shell, --git, --node-options ...); before `--`, only these harmless ones.
const NPM_SAFE_OPTIONS = new Set(['-s', '--silent', '-q', '--quiet', '--if-present', '--verbose', '--json', '--workspaces', '--ws', '-w', '--workspace', '--depth', '--all', '-a', '--long', '-l', '--parseable', '--omit', '--include', '--production', '--dev']);

function npmHazard(args: string[]): string | undefined {
  for (const w of args) {
    if (w === '--') return undefined;
    if (w.startsWith('-') && !NPM_SAFE_OPTIONS.has(w.split('=', 1)[0] as string)) return `package-manager option ${w} (options can name programs it runs)`;
  }
  return undefined;
}

const SED_SAFE_LONG = new Set(['--quiet', '--silent', '--regexp-extended', '--posix', '--null-data', '--zero-terminated', '--separate', '--unbuffered', '--sandbox', '--debug']);

/** Only line-oriented read-only scripts: addresses, p d = q n N g G h H x l P D z F, and s/// / y/// without the e and w flags. */
function sedScriptSafe(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipBlanks = (): void => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
  };
  // A delimited part of s/// or y///: escapes are kept whole; ends at the delimiter.
  // GNU sed skips delimiters inside a regex bracket expression (s/[/]/x/); rather than mirror
  // its bracket parsing, brackets are not understood.
  const part = (delim: string): boolean => {
    while (i < n && script[i] !== delim) {
      if (script[i] === '\n' || script[i] === '[') return false;
      i += script[i] === '\\' ? 2 : 1;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (/\d/.test(script[i] ?? '')) {
      while (/\d/.test(script[i] ?? '')) i++;
      if (script[i] === '~') {
        i++;
        if (!/\d/.test(script[i] ?? '')) return false;
        while (/\d/.test(script[i] ?? '')) i++;
      }
      return true;
    }
    if (script[i] === '$') {
      i++;
      return true;
    }
    if (script[i] === '/') {
      i++;
      if (!part('/')) return false;
      while (script[i] === 'I' || script[i] === 'M') i++;
      return true;
    }
    return false;
  };
  while (i < n) {
    skipBlanks();
    if (i >= n) break;
    if (script[i] === ';' || script[i] === '\n') {
      i++;
      continue;
    }
    if (address()) {
      skipBlanks();
      if (script[i] === ',') {
        i++;
        skipBlanks();
        if (script[i] === '+' || script[i] === '~') i++;
        if (!address()) return false;
      }
      skipBlanks();
      if (script[i] === '!') i++;
      skipBlanks();
    }
    const cmd = script[i];
    if (cmd === undefined) return false;
    i++;
    if ('pdqQ=nNgGhHxlPDzF'.includes(cmd)) {
      if (cmd === 'q' || cmd === 'Q') while (/\d/.test(script[i] ?? '')) i++;
    } else if (cmd === 's' || cmd === 'y') {
      const delim = script[i];
      if (delim === undefined || !'/|#:,@%'.includes(delim)) return false;
      i++;
      if (!part(delim) || !part(delim)) return false;
      if (cmd === 's') while (/[gpiImM0-9]/.test(script[i] ?? '')) i++;
    } else return false;
    skipBlanks();
    if (i < n && script[i] !== ';' && script[i] !== '\n') return false;
  }
  return true;
}

function sedHazard(args: string[]): string | undefined {
  const scripts: string[] = [];
  let positionalScript = true;
  let firstOperand: string | undefined;
  let endOfOptions = false;
  for (let k = 0; k < args.length; k++) {
    const w = args[k] as string;
    if (!endOfOptions && w === '--') {
      endOfOptions = true;
    } else if (!endOfOptions && w.startsWith('--')) {
      // GNU getopt permutes: options count wherever they are.
      const [name, value] = [w.split('=', 1)[0] as string, w.includes('=') ? w.slice(w.indexOf('=') + 1) : undefined];
      if (name === '--expression') {
        const script = value ?? args[++k];
        if (script === undefined) return undefined;
        scripts.push(script);
        positionalScript = false;
      } else if (!SED_SAFE_LONG.has(name)) return `sed option ${w} (writes files or reads scripts)`;
    } else if (!endOfOptions && w.startsWith('-') && w !== '-') {
      for (let c = 1; c < w.length; c++) {
        const ch = w[c] as string;
        if (ch === 'e') {
          const script = c + 1 < w.length ? w.slice(c + 1) : args[++k];
          if (script !== undefined) scripts.push(script);
          positionalScript = false;
          break;
        }
        if (!'nErsuz'.includes(ch)) return `sed option -${ch} (writes files or reads scripts)`;
      }
    } else if (firstOperand === undefined) {
      firstOperand = w;
    }
  }
  if (positionalScript && firstOperand !== undefined) scripts.push(firstOperand);
  const bad = scripts.find((script) => !sedScriptSafe(script));
  return bad === undefined ? undefined : `sed script ${JSON.stringify(bad)} (only p, d, q, s/// without e/w flags ... are understood)`;
}

const FIND_HAZARDS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const makeOption = optionRule(['--file', '--makefile', '--directory', '--eval', '--include-dir'], 'fCEI', 'make option reads another makefile');
// make VAR=value overrides SHELL and recipes.
const makeHazard = (args: string[]): string | undefined => (args.some((w) => w.includes('=')) ? 'make variable override (VAR=value)' : makeOption(args));

/** `cd` deeper into the working directory only, so relative paths in later commands stay inside it. */
function cdHazard(args: string[]): string | undefined {
  const operands = args.filter((w) => w !== '--' && !/^-[LPe@]+$/.test(w));
  const target = operands[0];
  const leaves = target === undefined || /^[-+/~]/.test(target) || /(?:^|\/)\.\.(?:\/|$)/.test(target);
  return leaves ? `cd ${target ?? '(home)'} leaves the working directory (relative paths after it are not checked)` : undefined;
}

// Every program with a rule here also gets its globs refused (see the segment loop in analyze).
const OPTION_RULES: ReadonlyMap<string, (args: string[]) => string | undefined> = new Map<string, (args: string[]) => string | undefined>([
  ['find', (args) => (args.some((w) => FIND_HAZARDS.has(w)) ? 'find -exec / -delete / -fprint' : undefined)],
  ['cd', cdHazard],
  ['pushd', cdHazard],
  // bash evaluates the array subscript in printf -v 'a[$(id)]' even when it is single-quoted.
  ['printf', (args) => (args.some((w) => /^-[^-]*v/.test(w)) ? '`printf -v` assigns to a variable (subscripts are evaluated)' : undefined)],
  ['test', (args) => (args.some((w) => w === '-v' || w === '-R') ? '`test -v` / `-R` evaluates array subscripts' : undefined)],
  ['[', (args) => (args.some((w) => w === '-v' || w === '-R') ? '`[ -v` / `-R` evaluates array subscripts' : undefined)],
  ['wait', (args) => (args.some((w) => shortOptionHit(w, 'p')) ? '`wait -p` assigns to a variable' : undefined)],
  ['fd', optionRule(['--exec', '--exec-batch'], 'xX', 'fd runs a command')],
  ['fdfind', optionRule(['--exec', '--exec-batch'], 'xX', 'fd runs a command')],
  ['rg', optionRule(['--pre', '--hostname-bin'], '', 'rg runs a program')],
  ['git', gitHazard],
  ['sort', optionRule(['--compress-program', '--output'], 'o', 'sort runs a program or writes a file')],
  ['tar', tarHazard],
  ['zip', optionRule(['--unzip-command', '--test'], 'T', 'zip runs a program')],
  ['rsync', optionRule(['--rsh', '--rsync-path'], 'e', 'rsync runs a program')],
  ['nc', optionRule(['--exec', '--sh-exec', '--lua-exec'], 'ec', 'netcat runs a program')],
  ['ncat', optionRule(['--exec', '--sh-exec', '--lua-exec'], 'ec', 'netcat runs a program')],
  ['netcat', optionRule(['--exec', '--sh-exec', '--lua-exec'], 'ec', 'netcat runs a program')],
  [
    'curl',
    (args) => {
      const write = ['--output', '--output-dir', '--remote-name', '--remote-name-all', '--remote-header-name', '--create-dirs', '--dump-header', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--config', '--libcurl', '--upload-file', '--etag-save', '--hsts', '--alt-svc', '--write-out', '--cookie', '--unix-socket', '--abstract-unix-socket'];
      // -b/--cookie FILE sends a local cookie file; --unix-socket reaches local daemons (docker.sock).
      const hit = args.find((w) => longOptionHit(w, write) || shortOptionHit(w, 'oOJDcKTwb'));
      if (hit !== undefined) return `curl ${hit} writes or reads local files`;
      // @file / <file values upload local files (-d @f, -F x=@f, -H @f).
      const upload = args.find((w) => (w.includes('@') && !w.includes('://')) || w.startsWith('<') || w.includes('=<'));
      return upload === undefined ? undefined : `curl ${upload} may send a local file`;
    },
  ],
  ['make', makeHazard],
  ['gmake', makeHazard],
  ['npm', npmHazard],
  ['pnpm', npmHazard],
  ['yarn', npmHazard],
  ['sdiff', optionRule(['--diff-program'], '', 'sdiff runs a program')],
  ['diff3', optionRule(['--diff-program'], '', 'diff3 runs a program')],
  ['tee', (args) => (args.some((w) => !w.startsWith('-') && !SINKS.has(w)) ? 'tee writes files' : undefined)],
  ['sed', sedHazard],
]);

// Privilege escalation / run-a-string-as-code as ANY word: an allow-listed program may run its arguments.
const PRIVILEGED_ANYWHERE = new Set(['sudo', 'doas', 'pkexec', 'eval']);
// Things that run their input as code: piping into them runs arbitrary commands.
const INTERPRETER =
  /^(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|busybox|python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|luajit|r|rscript|tclsh|wish|pwsh|powershell|osascript|awk|gawk|mawk|nawk|xargs|parallel|env|nohup|nice|time|timeout|stdbuf|command|builtin|watch|script|ssh|source|\.)$/i;

const PROCESS_STATE = /\/proc(?:\/|$)|\/dev\/fd(?:\/|$)|\/dev\/(?:[^/]*\/)*\.\.(?:\/|$)/;
const PARENT_SEGMENT = /(?:^|\/)\.\.(?:\/|$)/;

/** Names `/` or a directory above the working directory (`..`, `src/../..`), from which a recursive search reaches /proc. */
function reachesRoot(p: string): boolean {
  if (p === '') return false;
  const normalized = path.posix.normalize(p);
  return normalized === '/' || /^\.\.(?:\/\.\.)*\/?$/.test(normalized);
}

/** Words that read other processes' state (the API key is in the extension host's /proc/PID/environ). */
function processStateHazard(word: Word): string | undefined {
  // `//` and `/./` spell the same path; `..` under /dev can climb out of the /dev/fd -> /proc/self/fd symlink.
  const value = word.value.replace(/\/+/g, '/').replace(/\/(?:\.\/)+/g, '/');
  if (PROCESS_STATE.test(value)) return `${word.raw} reads other processes' state (/proc, /dev/fd)`;
  // --directory=/ names it too; other words with `=` (sed s/a/=/) are rarely paths.
  const assigned = value.startsWith('-') && value.includes('=') ? value.slice(value.indexOf('=') + 1) : undefined;
  if (reachesRoot(value) || (assigned !== undefined && reachesRoot(assigned)) || (word.tilde && PARENT_SEGMENT.test(value))) {
    return `${word.raw} names the root or a parent directory (a recursive search there reads /proc)`;
  }
  const prefix = word.globPrefix;
  if (prefix === undefined) return undefined;
  // Bash expands these against the whole file system; `*/` in the pattern can expand to `..` levels.
  if (prefix.startsWith('/') || word.tilde || PARENT_SEGMENT.test(prefix) || word.value.slice(prefix.length).includes('/')) {
    return `unquoted glob ${word.raw} outside the working directory or across directories (may expand to /proc)`;
  }
  return undefined;
}

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

function allowListEntries(allowList: readonly string[]): Word[][] {
  const entries: Word[][] = [];
  for (const entry of allowList) {
    if (typeof entry !== 'string' || entry.trim() === '') continue;
    const { segments, hazards } = analyze(entry, true);
    // An entry must be one plain command prefix; anything fancier is ignored rather than guessed.
    const segment = segments[0];
    if (hazards.size > 0 || segments.length !== 1 || segment === undefined || segment.redirections > 0) continue;
    if (segment.words.some((w) => w.globPrefix !== undefined)) continue;
    entries.push(segment.words);
  }
  return entries;
}

/** Same argument as the entry's: equal value and no expansion that could make them differ. */
function sameWord(entry: Word, word: Word): boolean {
  return word.globPrefix === undefined && entry.value === word.value && entry.tilde === word.tilde;
}

export function matchShellAllowList(command: string, allowList: readonly string[]): AllowListMatch {
  const { segments, hazards } = analyze(command);
  const entries = allowListEntries(allowList);
  const outside = segments.find((segment) => !entries.some((entry) => entry.length <= segment.words.length && entry.every((w, i) => sameWord(w, segment.words[i] as Word))));
  // Both reasons when both apply: the prompt should name the command that is not allow-listed even if it also has a hazard.
  const reasons = [...(hazards.size > 0 ? [`contains ${[...hazards].join('; ')}`] : []), ...(outside ? [`\`${outside.words.map((w) => w.value).join(' ')}\` is not in the allow-list`] : [])];
  if (reasons.length > 0) return { allowed: false, reason: reasons.join('; and ') };
  if (segments.length === 0) return { allowed: false, reason: 'empty command' };
  return { allowed: true, reason: 'every command matches the allow-list' };
}

import * as path from 'node:path';
import type { Word } from './shellTokenizer';

// What known programs do with their words, apart from how the words are parsed (shellTokenizer.ts)
// and how the allow-list is matched (shellAnalysis.ts): the table grows with every program learnt.

// Targets that write nowhere: allowed for output redirections (shellAnalysis.ts) and tee.
export const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

// ---------------------------------------------------------------------------------------------
// Commands and options. One table, GTFOBins-style: programs that run code, change what later
// commands run, or write files through their arguments. Applied whatever the allow-list says.

const WRAPPER = 'runs another program (its command is not checked)';
const SHELL_STATE = 'evaluates code or changes shell state (variables, functions, options)';
const INTERACTIVE = 'can run shell commands interactively';
export const HAZARD_COMMANDS: ReadonlyMap<string, string> = new Map<string, string>([
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
export const OPTION_RULES: ReadonlyMap<string, (args: string[]) => string | undefined> = new Map<string, (args: string[]) => string | undefined>([
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
export const PRIVILEGED_ANYWHERE = new Set(['sudo', 'doas', 'pkexec', 'eval']);
// Things that run their input as code: piping into them runs arbitrary commands.
export const INTERPRETER =
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
export function processStateHazard(word: Word): string | undefined {
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

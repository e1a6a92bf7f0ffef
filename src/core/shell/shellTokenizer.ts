// The bash tokenizer of the shell allow-list analysis (see shellAnalysis.ts for what is accepted
// and why): quoting, operators and redirections into words, with a hazard for anything bash would
// expand or interpret. Kept apart from the per-program rules, which judge the words it produces.

export interface Word {
  /** After quote removal (what the program receives, unless `glob` or `tilde` expand it). */
  value: string;
  /** As written, for messages. */
  raw: string;
  /** Value before the first unquoted * ? [ (undefined: no pathname expansion). */
  globPrefix: string | undefined;
  /** Contains an unquoted ~ (tilde expansion may change the value). */
  tilde: boolean;
}

export type Token = { kind: 'word'; word: Word } | { kind: 'op'; value: string } | { kind: 'redir'; value: string };

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

// A lexer: one branch per character class, read like a table-shaped switch; split, its shared state would scatter.
// eslint-disable-next-line max-lines-per-function
export function tokenize(command: string): { tokens: Token[]; hazards: Set<string> } {
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

export function commandName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash >= 0 ? word.slice(slash + 1) : word;
}

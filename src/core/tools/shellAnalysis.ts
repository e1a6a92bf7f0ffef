// Static bash analysis for the shell allow-list (moved out of approval.ts unchanged).

// Static shell analysis (bash syntax, deliberately conservative: when unsure, it reports a hazard
// so the command is asked about rather than auto-approved).

export interface ShellSegment {
  /** Words after quote removal, redirections removed. */
  words: string[];
  /** True when this simple command reads from a pipe (`a | b`: b). */
  afterPipe: boolean;
}

export interface ShellAnalysis {
  segments: ShellSegment[];
  /** Reasons the command must never be auto-approved by the allow-list (empty = none). */
  hazards: string[];
}

type Token = { kind: 'word'; value: string; raw: string } | { kind: 'op'; value: string } | { kind: 'redir'; value: string };

// Privilege escalation / run-a-string-as-code: refused as any word (`nice sudo x`, `x && eval y`).
const PRIVILEGED_ANYWHERE = new Set(['sudo', 'doas', 'pkexec', 'eval']);
// Only meaningful as the command word (`.` is also the current directory in `find . -name x`).
const PRIVILEGED_COMMAND = new Set(['su', 'exec', 'source', '.', 'builtin', 'command']);
// Things that run their input (or arguments) as code: piping into them runs arbitrary commands.
const INTERPRETER =
  /^(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|busybox|python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|luajit|r|rscript|tclsh|wish|pwsh|powershell|osascript|awk|gawk|mawk|nawk|xargs|parallel|env|nohup|nice|time|timeout|stdbuf|command|builtin|watch|script|ssh|source|\.)$/i;
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const OUTPUT_REDIRS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

function tokenize(command: string): { tokens: Token[]; hazards: Set<string> } {
  const tokens: Token[] = [];
  const hazards = new Set<string>();
  let word = '';
  let raw = '';
  let inWord = false;
  const endWord = (): void => {
    if (inWord) tokens.push({ kind: 'word', value: word, raw });
    word = '';
    raw = '';
    inWord = false;
  };
  const n = command.length;
  let i = 0;
  while (i < n) {
    const c = command[i] as string;
    const next = command[i + 1];
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '\n' || c === '\r') {
      endWord();
      tokens.push({ kind: 'op', value: ';' });
      i++;
    } else if (c === '#' && !inWord) {
      while (i < n && command[i] !== '\n') i++;
    } else if (c === '\\') {
      if (next === '\n') {
        i += 2; // line continuation
      } else {
        if (next !== undefined) word += next;
        raw += c + (next ?? '');
        inWord = true;
        i += 2;
      }
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) {
        hazards.add('unterminated quote');
        break;
      }
      word += command.slice(i + 1, end);
      raw += command.slice(i, end + 1);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const d = command[j] as string;
        if (d === '\\' && j + 1 < n) {
          const e = command[j + 1] as string;
          word += '"\\$`\n'.includes(e) ? (e === '\n' ? '' : e) : d + e;
          j += 2;
          continue;
        }
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '`' || (d === '$' && command[j + 1] === '(')) hazards.add('command substitution');
        word += d;
        j++;
      }
      if (!closed) {
        hazards.add('unterminated quote');
        break;
      }
      raw += command.slice(i, j + 1);
      inWord = true;
      i = j + 1;
    } else if (c === '`') {
      hazards.add('command substitution');
      word += c;
      raw += c;
      inWord = true;
      i++;
    } else if (c === '$' && next === '(') {
      hazards.add('command substitution');
      word += c;
      raw += c;
      inWord = true;
      i++;
    } else if (c === '$' && next === "'") {
      // ANSI-C quoting: content is literal apart from escapes; we only need to skip it safely.
      let j = i + 2;
      while (j < n && command[j] !== "'") j += command[j] === '\\' ? 2 : 1;
      if (j >= n) {
        hazards.add('unterminated quote');
        break;
      }
      word += command.slice(i + 2, j);
      raw += command.slice(i, j + 1);
      inWord = true;
      i = j + 1;
    } else if ((c === '<' || c === '>') && next === '(') {
      hazards.add('process substitution');
      endWord();
      i += 2;
    } else if (c === '<' || c === '>') {
      // A pure number right before the operator is its file descriptor (2>), not a word.
      if (inWord && /^\d+$/.test(raw)) {
        word = '';
        raw = '';
        inWord = false;
      } else endWord();
      let op = c;
      let j = i + 1;
      const rest = command.slice(j, j + 2);
      if (c === '>' && (rest.startsWith('>') || rest.startsWith('|') || rest.startsWith('&'))) op += rest[0];
      else if (c === '<' && rest.startsWith('<<')) op = '<<<';
      else if (c === '<' && (rest.startsWith('<') || rest.startsWith('>') || rest.startsWith('&'))) op += rest[0];
      j = i + op.length;
      tokens.push({ kind: 'redir', value: op });
      i = j;
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
      tokens.push({ kind: 'op', value: ';' });
      i += next === ';' ? 2 : 1;
    } else if (c === '(' || c === ')') {
      hazards.add('subshell or grouping');
      endWord();
      tokens.push({ kind: 'op', value: ';' });
      i++;
    } else {
      word += c;
      raw += c;
      inWord = true;
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

export function analyzeShellCommand(command: string): ShellAnalysis {
  const { tokens, hazards } = tokenize(command);
  const segments: ShellSegment[] = [];
  let current: ShellSegment = { words: [], afterPipe: false };
  let pendingRedir: string | undefined;
  const close = (nextAfterPipe: boolean): void => {
    if (pendingRedir !== undefined) hazards.add('incomplete redirection');
    pendingRedir = undefined;
    if (current.words.length > 0) segments.push(current);
    else if (nextAfterPipe || current.afterPipe) hazards.add('empty command in a pipeline');
    current = { words: [], afterPipe: nextAfterPipe };
  };
  for (const token of tokens) {
    if (token.kind === 'op') {
      close(token.value === '|');
    } else if (token.kind === 'redir') {
      if (pendingRedir !== undefined) hazards.add('incomplete redirection');
      if (token.value === '<<') hazards.add('here-document');
      pendingRedir = token.value;
    } else if (pendingRedir !== undefined) {
      const target = token.value;
      if (OUTPUT_REDIRS.has(pendingRedir) && target !== '/dev/null') hazards.add('output redirection to a file');
      if ((pendingRedir === '>&' || pendingRedir === '<&') && !/^(\d+|-)$/.test(target) && target !== '/dev/null') {
        hazards.add('output redirection to a file');
      }
      pendingRedir = undefined;
    } else {
      current.words.push(token.value);
    }
  }
  close(false);

  for (const segment of segments) {
    if (segment.words.some((w) => PRIVILEGED_ANYWHERE.has(w))) hazards.add('sudo, eval, exec or source');
    // Leading VAR=value assignments do not name the command.
    const first = segment.words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (first === undefined) continue;
    const name = commandName(first);
    if (PRIVILEGED_COMMAND.has(name)) hazards.add('sudo, eval, exec or source');
    if (segment.afterPipe && INTERPRETER.test(name)) hazards.add('pipes into a shell or interpreter');
    if (name === 'find' && segment.words.some((w) => FIND_EXEC.has(w))) hazards.add('find -exec / -delete');
  }
  return { segments, hazards: [...hazards] };
}

export interface AllowListMatch {
  allowed: boolean;
  /** Why not, for the approval UI ("contains command substitution", "`rm -rf /` is not allowed"). */
  reason: string;
}

function allowListEntries(allowList: readonly string[]): string[][] {
  const entries: string[][] = [];
  for (const entry of allowList) {
    if (typeof entry !== 'string' || entry.trim() === '') continue;
    const analysis = analyzeShellCommand(entry);
    // An entry must be one plain command prefix; anything fancier is ignored rather than guessed.
    if (analysis.hazards.length > 0 || analysis.segments.length !== 1) continue;
    const words = analysis.segments[0]?.words;
    if (words && words.length > 0) entries.push(words);
  }
  return entries;
}

export function matchShellAllowList(command: string, allowList: readonly string[]): AllowListMatch {
  const analysis = analyzeShellCommand(command);
  if (analysis.hazards.length > 0) return { allowed: false, reason: `contains ${analysis.hazards.join(', ')}` };
  if (analysis.segments.length === 0) return { allowed: false, reason: 'empty command' };
  const entries = allowListEntries(allowList);
  for (const segment of analysis.segments) {
    const ok = entries.some((entry) => entry.length <= segment.words.length && entry.every((w, i) => segment.words[i] === w));
    if (!ok) return { allowed: false, reason: `\`${segment.words.join(' ')}\` is not in the allow-list` };
  }
  return { allowed: true, reason: 'every command matches the allow-list' };
}

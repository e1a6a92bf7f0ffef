// grep_search: ripgrep when a binary is available (the VS Code layer passes VS Code's bundled
// rg, the CLI the one on PATH), else a pure JS search with the same output and the same
// .gitignore semantics.
import { userText } from '../texts/userText';
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import * as z from '../zod';
import { childProcessEnv } from '../secrets';
import { BINARY_SNIFF_BYTES } from '../workspace/fileio';
import { trackChildProcess } from '../shell/processGroup';
import { GitignoreFilter } from '../workspace/gitignore';
import { plural, truncateHeadTail } from '../text';
import { defineTool, inputCheck, schemaPerSetting } from './toolInput';
import type { ToolDefinition, ToolEffect } from './types';
import { ToolExecutionError, abortError } from '../errors';
import { checkGlobPattern, comparePaths, findFiles } from '../workspace/walk';
import { RegexTimeoutError, RegexWorker } from '../regexWorker';
import { isInside, isNodeError, openConfinedFile } from '../workspace/workspace';

const grepInput = schemaPerSetting(String, (defaultMaxResults: number) =>
  z
    .object({
      pattern: z
        .string()
        .refine((pattern) => pattern !== '', 'must not be empty')
        .describe('Regular expression to search for, e.g. "function\\s+\\w+".'),
      path: z.string().optional().describe('File or directory to search, relative to the workspace root (default: the root).'),
      glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts".'),
      case_insensitive: z.boolean().optional().describe('Ignore case (default false).'),
      max_results: z.int().min(1).max(MAX_RESULTS_LIMIT).optional().describe(`Maximum matching lines to return (default ${defaultMaxResults}).`),
    })
    .superRefine(inputCheck(({ glob }) => glob !== undefined && checkGlobPattern(glob, 'glob')))
    .transform(({ pattern, path: dir, glob, case_insensitive = false, max_results = defaultMaxResults }) => ({
      pattern,
      ...(dir !== undefined && dir.trim() !== '' ? { path: dir } : {}),
      ...(glob !== undefined ? { glob } : {}),
      case_insensitive,
      max_results,
    })),
);

export type GrepInput = z.output<ReturnType<typeof grepInput>>;

export interface GrepOptions {
  /** ripgrep binary; undefined = always use the JS implementation. */
  ripgrepPath?: string | undefined;
  defaultMaxResults?: number;
  maxLineChars?: number;
  maxOutputChars?: number;
  /** How long the JS fallback's regex may take on one batch of lines (default DEFAULT_REGEX_BUDGET_MS). */
  regexBudgetMs?: number;
}

export interface GrepMatch {
  /** Absolute path. */
  file: string;
  line: number;
  text: string;
}

export interface GrepParams {
  /** Real workspace root (.gitignore files apply from here down). */
  root: string;
  /** Real absolute file or directory to search. */
  target: string;
  targetIsFile: boolean;
  pattern: string;
  glob?: string | undefined;
  caseInsensitive: boolean;
  maxResults: number;
  signal: AbortSignal;
}

export interface GrepOutcome {
  matches: GrepMatch[];
  /** More matches exist than maxResults. */
  more: boolean;
}

const MAX_RESULTS_LIMIT = 2000;
/** Lines longer than this are matched only on their first part in the JS fallback (bounded memory). */
const JS_MAX_LINE_BYTES = 1024 * 1024;

/** The `rg` on PATH, for the CLI. */
export function findRipgrepOnPath(envPath: string | undefined = process.env['PATH']): string | undefined {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    for (const name of process.platform === 'win32' ? ['rg.exe', 'rg'] : ['rg']) {
      const candidate = path.join(dir, name);
      try {
        accessSync(candidate, fsConstants.X_OK);
        return candidate;
      } catch {
        // keep looking
      }
    }
  }
  return undefined;
}

function stripEol(text: string): string {
  return text.replace(/\r?\n$/, '').replace(/\r$/, '');
}

/** rg's `-g` semantics: a glob without '/' matches the file name at any depth. */
export function globForTinyglobby(glob: string | undefined): string {
  if (glob === undefined) return '**/*';
  return glob.includes('/') ? glob.replace(/^\.\//, '') : `**/${glob}`;
}

class RipgrepUnavailable extends Error {}

export async function grepWithRipgrep(rgPath: string, params: GrepParams): Promise<GrepOutcome> {
  const cwd = params.targetIsFile ? path.dirname(params.target) : params.target;
  const args = ['--json', '--no-config', '--hidden', '--no-require-git', '--no-ignore-dot', '--no-ignore-exclude', '--no-ignore-global', '--sort', 'path'];
  args.push(params.caseInsensitive ? '--ignore-case' : '--case-sensitive');
  if (params.glob !== undefined) args.push('--glob', params.glob);
  // Later globs win: these keep .git and node_modules out even if the user's glob matched them.
  args.push('--glob', '!.git', '--glob', '!node_modules');
  args.push('--regexp', params.pattern, '--', params.targetIsFile ? path.basename(params.target) : '.');

  const filter = new GitignoreFilter(isInside(params.target, params.root) ? params.root : cwd);
  const matches: GrepMatch[] = [];
  let more = false;
  let stderr = '';
  const child = spawn(rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, env: childProcessEnv(process.env) });
  const untrack = child.pid !== undefined ? trackChildProcess(child.pid, { group: false }) : () => undefined;
  let failure: Error | undefined;
  const exit = new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      failure = isNodeError(error) && (error.code === 'ENOENT' || error.code === 'EACCES') ? new RipgrepUnavailable(error.message) : error;
      resolve(null);
    });
    child.once('close', (code) => resolve(code));
  });
  const onAbort = (): void => {
    child.kill('SIGKILL');
  };
  params.signal.addEventListener('abort', onAbort, { once: true });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < 8000) stderr += chunk;
  });
  try {
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    for await (const line of lines) {
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      const match = toMatch(event, cwd);
      if (!match) continue;
      // rg lets a matching --glob override .gitignore for files; re-apply the ignore rules.
      if (!params.targetIsFile && filter.isIgnoredAbsolute(match.file, false)) continue;
      if (matches.length >= params.maxResults) {
        more = true;
        child.kill('SIGKILL');
        break;
      }
      matches.push(match);
    }
    const code = await exit;
    if (failure) throw failure;
    if (params.signal.aborted) throw abortError();
    // 0 = matches, 1 = none, 2 = error (also when some files were unreadable but others matched).
    if (code === 2 && matches.length === 0 && !more) {
      const message = stderr.trim().split('\n').slice(0, 20).join('\n');
      if (/regex|parse error|syntax/i.test(message)) throw new ToolExecutionError(`Invalid regular expression "${params.pattern}":\n${message}`);
      if (/glob/i.test(message)) throw new ToolExecutionError(`Invalid glob "${params.glob ?? ''}":\n${message}`);
      throw new ToolExecutionError(`ripgrep failed: ${message}`);
    }
    return { matches, more };
  } finally {
    params.signal.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    untrack();
  }
}

function toMatch(event: unknown, cwd: string): GrepMatch | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { type, data } = event as { type?: unknown; data?: unknown };
  if (type !== 'match' || typeof data !== 'object' || data === null) return undefined;
  const d = data as { path?: { text?: string; bytes?: string }; lines?: { text?: string; bytes?: string }; line_number?: number };
  const file = d.path?.text ?? (d.path?.bytes !== undefined ? Buffer.from(d.path.bytes, 'base64').toString('utf8') : undefined);
  const text = d.lines?.text ?? (d.lines?.bytes !== undefined ? Buffer.from(d.lines.bytes, 'base64').toString('utf8') : '');
  if (file === undefined || typeof d.line_number !== 'number') return undefined;
  return { file: path.resolve(cwd, file), line: d.line_number, text: stripEol(text) };
}

export function compileJsRegex(pattern: string, caseInsensitive: boolean): RegExp {
  try {
    return new RegExp(pattern, caseInsensitive ? 'i' : '');
  } catch (error) {
    throw new ToolExecutionError(`Invalid regular expression "${pattern}": ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The JS fallback tests lines in batches of at most this many lines / characters, each within the regex time budget. */
const JS_BATCH_LINES = 4096;
const JS_BATCH_CHARS = 4 * 1024 * 1024;
/** Default time one batch may take: a plain pattern scans 4 MB in milliseconds, a backtracking one never ends. */
export const DEFAULT_REGEX_BUDGET_MS = 5_000;

/** The JS search: the regex runs in a worker with a time budget per batch (core/regexWorker.ts), so it cannot hang its host. */
export async function grepWithJs(params: GrepParams, regexBudgetMs: number = DEFAULT_REGEX_BUDGET_MS): Promise<GrepOutcome> {
  const flags = params.caseInsensitive ? 'i' : '';
  compileJsRegex(params.pattern, params.caseInsensitive); // a syntax error is reported here, with the pattern
  const files = params.targetIsFile
    ? [params.target]
    : await findFiles({ root: params.root, dir: params.target, pattern: globForTinyglobby(params.glob), signal: params.signal });
  const matches: GrepMatch[] = [];
  let worker: RegexWorker | undefined;
  try {
    for (const file of files) {
      if (params.signal.aborted) throw abortError();
      let batch: { line: number; text: string }[] = [];
      let batchChars = 0;
      /** Tests the batch; false once maxResults is exceeded (more matches exist). */
      const flush = async (): Promise<boolean> => {
        if (batch.length === 0) return true;
        const lines = batch;
        batch = [];
        batchChars = 0;
        worker ??= await RegexWorker.start(params.pattern, flags, params.signal);
        let hits: number[];
        try {
          hits = await worker.test(
            lines.map((entry) => entry.text),
            regexBudgetMs,
            params.signal,
          );
        } catch (error) {
          if (error instanceof RegexTimeoutError) throw regexTimeoutMessage(params.pattern, error.budgetMs, isInside(file, params.root) ? path.relative(params.root, file).split(path.sep).join('/') : file, lines[0]!.line);
          throw error;
        }
        for (const index of hits) {
          if (matches.length >= params.maxResults) return false;
          const entry = lines[index]!;
          matches.push({ file, line: entry.line, text: stripEol(entry.text) });
        }
        return true;
      };
      try {
        const stop = await scanLines(params.targetIsFile ? path.dirname(params.target) : params.target, file, (line, text) => {
          batch.push({ line, text });
          batchChars += text.length;
          return batch.length >= JS_BATCH_LINES || batchChars >= JS_BATCH_CHARS ? flush() : true;
        }, params.signal);
        if (stop || !(await flush())) return { matches, more: true };
      } catch (error) {
        if (isNodeError(error) && (error.code === 'EACCES' || error.code === 'ENOENT' || error.code === 'EISDIR')) continue; // rg skips these too
        throw error;
      }
    }
    return { matches, more: false };
  } finally {
    worker?.close();
  }
}

function regexTimeoutMessage(pattern: string, budgetMs: number, file: string, line: number): ToolExecutionError {
  return new ToolExecutionError(
    `The regular expression /${pattern}/ ran longer than ${budgetMs / 1000} s on the lines of ${file} from line ${line} on, so the search was stopped. ` +
      'Without ripgrep the search uses JavaScript regular expressions, which can take exponential time on nested or overlapping repetition ' +
      'such as (a+)+ or (a|a)*. Rewrite the pattern without nested quantifiers (e.g. a+ instead of (a+)+), or narrow the search with path or glob.',
  );
}

/**
 * Skips binary files and anything but regular files. Calls onLine for every line (1-based; text without '\n', a '\r' kept as rg does), awaiting it when it returns a promise. Returns true
 * if onLine asked to stop. Lines are capped at JS_MAX_LINE_BYTES so memory stays bounded.
 */
async function scanLines(confineTo: string, file: string, onLine: (line: number, text: string) => boolean | Promise<boolean>, signal: AbortSignal): Promise<boolean> {
  // A FIFO or device would block forever; rg skips them in a walk too. Opened confined to the
  // search folder: a directory swapped for a symlink after the walk listed it leads nowhere.
  const handle = await openRegularFile(confineTo, file);
  if (!handle) return false;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    // Like rg: a NUL in the first 8 KB marks a binary file, which is skipped.
    const sniff = await handle.read(buffer, 0, BINARY_SNIFF_BYTES, 0);
    if (buffer.subarray(0, sniff.bytesRead).includes(0)) return false;
    let parts: Buffer[] = [];
    let size = 0;
    let pending = false;
    let lineNumber = 1;
    let position = 0;
    for (;;) {
      if (signal.aborted) throw abortError();
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      // Like rg: binary data found later in a file ends its search (and spares scanning e.g. GBs of NULs).
      if (buffer.subarray(0, bytesRead).includes(0)) return false;
      position += bytesRead;
      let start = 0;
      while (start < bytesRead) {
        const newline = buffer.indexOf(10, start);
        const end = newline < 0 || newline >= bytesRead ? bytesRead : newline;
        if (end > start) {
          pending = true;
          if (size < JS_MAX_LINE_BYTES) {
            const take = Math.min(end - start, JS_MAX_LINE_BYTES - size);
            parts.push(Buffer.from(buffer.subarray(start, start + take)));
            size += take;
          }
        }
        if (end === bytesRead) break;
        const go = onLine(lineNumber, Buffer.concat(parts, size).toString('utf8'));
        if (!(typeof go === 'boolean' ? go : await go)) return true;
        parts = [];
        size = 0;
        pending = false;
        lineNumber++;
        start = newline + 1;
      }
    }
    if (pending) {
      const go = onLine(lineNumber, Buffer.concat(parts, size).toString('utf8'));
      if (!(typeof go === 'boolean' ? go : await go)) return true;
    }
    return false;
  } finally {
    await handle.close();
  }
}

/** Opens race-free inside `root` without blocking on a FIFO; undefined unless it is a regular file. */
async function openRegularFile(root: string, file: string): Promise<fsp.FileHandle | undefined> {
  const handle = await openConfinedFile(root, file);
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return undefined;
}

export function formatGrepMatches(matches: readonly GrepMatch[], display: (absolute: string) => string, maxLineChars: number): string[] {
  return matches.map((m) => {
    const text = m.text.length > maxLineChars ? `${m.text.slice(0, maxLineChars)} [... line cut]` : m.text;
    return `${display(m.file)}:${m.line}:${text}`;
  });
}

export function createGrepSearchTool(options: GrepOptions = {}): ToolDefinition<GrepInput> {
  const defaultMaxResults = options.defaultMaxResults ?? 200;
  const maxLineChars = options.maxLineChars ?? 300;
  const maxOutputChars = options.maxOutputChars ?? 50_000;
  let ripgrepPath = options.ripgrepPath;
  return defineTool({
    name: 'grep_search',
    kind: 'read',
    context: { kind: 'search' },
    description:
      'Search file contents with a regular expression (ripgrep / Rust regex syntax; no look-around). Returns matching lines as ' +
      '"path:line:text", paths relative to the workspace root, sorted by path. Honours .gitignore, skips binary files, .git and node_modules. ' +
      'Narrow with "path" (a directory or file) and "glob" (e.g. "*.ts" matches at any depth, "src/**/*.{ts,tsx}" relative to path).',
    input: grepInput(defaultMaxResults),
    headline: (input) => (input.glob !== undefined ? userText('tool.grepGlob', { pattern: input.pattern, path: input.path ?? '.', glob: input.glob }) : userText('tool.grep', { pattern: input.pattern, path: input.path ?? '.' })),
    async run(input, ctx) {
      const target = await ctx.workspace.resolve(input.path ?? '.');
      const shownTarget = ctx.workspace.displayPath(target);
      const stat = await fsp.stat(target).catch(() => undefined);
      if (!stat) throw new ToolExecutionError(`Path not found: ${shownTarget}.`);
      // Opening a FIFO blocks until someone writes to it and a device may never end: rg would hang.
      if (!stat.isDirectory() && !stat.isFile()) {
        throw new ToolExecutionError(`${shownTarget} is not a regular file or directory (a pipe, socket or device); it cannot be searched.`);
      }
      const params: GrepParams = {
        root: ctx.workspace.root,
        target,
        targetIsFile: !stat.isDirectory(),
        pattern: input.pattern,
        glob: input.glob,
        caseInsensitive: input.case_insensitive,
        maxResults: input.max_results,
        signal: ctx.signal,
      };
      let outcome: GrepOutcome | undefined;
      if (ripgrepPath !== undefined) {
        try {
          outcome = await grepWithRipgrep(ripgrepPath, params);
        } catch (error) {
          if (!(error instanceof RipgrepUnavailable)) throw error;
          ripgrepPath = undefined; // remember: do not try a missing binary on every call
        }
      }
      outcome ??= await grepWithJs(params, options.regexBudgetMs);
      const where = shownTarget === '.' ? 'the workspace' : shownTarget;
      const effects: ToolEffect[] = [{ kind: 'folders_read', folders: [params.targetIsFile ? path.dirname(target) : target] }];
      if (outcome.matches.length === 0) {
        return { content: `No matches for /${input.pattern}/ in ${where}${input.glob !== undefined ? ` (glob ${input.glob})` : ''}.`, effects };
      }
      const sorted = [...outcome.matches].sort((a, b) => comparePaths(ctx.workspace.displayPath(a.file), ctx.workspace.displayPath(b.file)) || a.line - b.line);
      const lines = formatGrepMatches(sorted, (f) => ctx.workspace.displayPath(f), maxLineChars);
      let content = truncateHeadTail(lines.join('\n'), maxOutputChars);
      if (outcome.more) {
        content += `\n[Showing the first ${plural(outcome.matches.length, 'matching line')}; there are more. Narrow the pattern, path or glob, or raise max_results (up to ${MAX_RESULTS_LIMIT}).]`;
      }
      return { content, effects };
    },
  });
}

/**
 * How recall searches one document's text without splitting it into a string per line
 * (recallIndex.ts): lines are the text split at "\n", and a line matches with its first (leftmost)
 * match, as `regex.exec(line)` finds it. A plain query has no newline (a query of several lines is
 * searched by its longest one), so a match never crosses a line: one global scan of the whole text
 * finds the same first matches as a scan line by line, and skips to the next line after each. A
 * regular expression may (\s, lookbehind): it runs in the regex worker, line by line.
 */
import type { Logger } from '../logger';
import type { RecallQuery } from '../tools/recallTypes';
import { RegexTimeoutError, RegexWorker } from '../regexWorker';
import { ToolExecutionError } from '../errors';

/** A document that matched: how many of its lines, and its first match (the line, where in it). */
export interface Place {
  matches: number;
  line: string;
  start: number;
  length: number;
}

/** The line of a plain query that is searched: lines never contain a newline, so a query that spans lines is searched by its longest line. */
export function queryLine(text: string): string {
  return text.includes('\n') ? text.split('\n').reduce((a, b) => (b.length > a.length ? b : a)) : text;
}

/** A case-insensitive regex for the literal `needle` (global: firstMatchPerLine scans with it). */
export function plainTextRegex(needle: string): RegExp {
  return new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
}

/**
 * Calls `onLine` with the start of each line of `text` that `regex` (global, and never matching a
 * newline) matches, and where in that line its first match starts and how long it is.
 */
export function firstMatchPerLine(text: string, regex: RegExp, onLine: (lineStart: number, start: number, length: number) => void): void {
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    const lineStart = match.index === 0 ? 0 : text.lastIndexOf('\n', match.index - 1) + 1;
    onLine(lineStart, match.index - lineStart, match[0].length);
    const lineEnd = text.indexOf('\n', match.index + match[0].length);
    if (lineEnd < 0) return;
    regex.lastIndex = lineEnd + 1;
  }
}

/** The line of `text` that starts at `lineStart`. */
export function lineAt(text: string, lineStart: number): string {
  const end = text.indexOf('\n', lineStart);
  return end < 0 ? text.slice(lineStart) : text.slice(lineStart, end);
}

/**
 * `text` cut into runs of whole lines of at most `maxChars` characters each (a longer line is a run
 * alone), for the regex worker: the runs joined with "\n" are the text, so splitting each at "\n"
 * gives exactly the text's lines.
 */
export function linesSegments(text: string, maxChars: number): string[] {
  const segments: string[] = [];
  for (let from = 0; ; ) {
    if (text.length - from <= maxChars) {
      segments.push(from === 0 ? text : text.slice(from));
      return segments;
    }
    let cut = text.lastIndexOf('\n', from + maxChars);
    if (cut < from) cut = text.indexOf('\n', from + maxChars);
    if (cut < 0) {
      segments.push(text.slice(from));
      return segments;
    }
    segments.push(text.slice(from, cut));
    from = cut + 1;
  }
}

/** A document to search: its text in memory, or a saved output the worker reads (`text`: its preview, if it is gone). */
export interface SearchedDoc {
key: number;
text: string;
saved?: { file: string; bytes: number };
}

/**
 * A regular expression's first match on each line of each document, in the regex worker within the
 * time budgets (a catastrophic pattern is stopped with a clear error, never freezes the host): texts
 * in memory in runs of whole lines, saved outputs as paths the worker reads itself.
 */
export async function findRegexPlaces(
  query: Extract<RecallQuery, { kind: 'regex' }>,
  docs: readonly SearchedDoc[],
  options: { limits: { batchBudgetMs: number; searchBudgetMs: number; batchChars: number }; logger: Logger },
  signal: AbortSignal,
): Promise<Map<number, Place>> {
  const { limits, logger } = options;
  const byKey = new Map(docs.map((doc) => [doc.key, doc]));
  const worker = await RegexWorker.start(query.pattern, query.flags, signal);
  const started = Date.now();
  const found = new Map<number, Place>();
  const budget = (chars: number): number => {
    const left = limits.searchBudgetMs - (Date.now() - started);
    if (left <= 0) throw new RegexTimeoutError(limits.searchBudgetMs);
    return Math.min(limits.batchBudgetMs * Math.max(1, Math.ceil(chars / limits.batchChars)), left);
  };
  const note = (doc: number, line: string, start: number, length: number): void => {
    const place = found.get(doc);
    if (place) place.matches++;
    else found.set(doc, { matches: 1, line, start, length });
  };
  // Texts in memory go to the worker in runs of whole lines; saved outputs as paths, read there (off this thread).
  let texts: Array<{ doc: number; text: string }> = [];
  let textChars = 0;
  let files: Array<{ doc: number; file: string }> = [];
  let fileBytes = 0;
  const sendTexts = async (): Promise<void> => {
    const batch = texts;
    texts = [];
    const hits = await worker.find(batch.map((segment) => segment.text), budget(textChars), signal);
    textChars = 0;
    for (let i = 0; i < hits.length; i += 4) {
      const { doc, text } = batch[hits[i]!]!;
      note(doc, lineAt(text, hits[i + 1]!), hits[i + 2]!, hits[i + 3]!);
    }
  };
  const addText = async (doc: number, body: string): Promise<void> => {
    for (const text of linesSegments(body, limits.batchChars)) {
      if (textChars > 0 && textChars + text.length > limits.batchChars) await sendTexts();
      texts.push({ doc, text });
      textChars += text.length;
    }
  };
  const sendFiles = async (): Promise<void> => {
    const batch = files;
    files = [];
    const results = await worker.findInFiles(batch.map((entry) => entry.file), budget(fileBytes), signal);
    fileBytes = 0;
    for (const [i, result] of results.entries()) {
      const { doc, file } = batch[i]!;
      if ('error' in result) {
        // Gone or unreadable since it was indexed: its preview is searched instead, as lookup returns it.
        if (result.error !== 'ENOENT') logger.warn(`recall: cannot read the saved output ${file}: ${result.error}`);
        await addText(doc, byKey.get(doc)!.text);
        continue;
      }
      for (let h = 0; h < result.hits.length; h += 3) note(doc, result.first ?? '', result.hits[h + 1]!, result.hits[h + 2]!);
    }
  };
  try {
    for (const { key: doc, text, saved } of docs) {
      if (!saved) {
        await addText(doc, text);
        continue;
      }
      if (fileBytes > 0 && fileBytes + saved.bytes > limits.batchChars) await sendFiles();
      files.push({ doc, file: saved.file });
      fileBytes += saved.bytes;
    }
    if (files.length > 0) await sendFiles();
    if (texts.length > 0) await sendTexts();
  } catch (error) {
    if (error instanceof RegexTimeoutError) {
      throw new ToolExecutionError(
        `The regular expression /${query.pattern}/${query.flags} ran longer than ${error.budgetMs.toLocaleString('en-US')} ms and was stopped: ` +
          'it backtracks catastrophically (nested quantifiers such as (a+)+) or is too slow for this history. Simplify it, or search plain text (no slashes).',
      );
    }
    throw error;
  } finally {
    worker.close();
  }
  // In the documents' order, as a search from the first found them (ties in the ranking keep it).
  return new Map(docs.flatMap(({ key }) => (found.has(key) ? [[key, found.get(key)!] as const] : [])));
}

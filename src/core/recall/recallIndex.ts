/**
 * The history `recall` reads (tools/recall.ts): the session's transcript, its subagents' transcripts
 * and its saved outputs, as an index built once per session and extended as the files grow.
 *
 * Why an index and not ripgrep over the JSONL: a transcript line is JSON, so text with a quote, a
 * backslash or a newline is escaped there and a plain query would miss it, and a match would be a
 * whole line of up to megabytes. The index holds the decoded texts (one document per message text,
 * tool call, tool result and summary), each as one string (a string per line would cost more than
 * the text); each call reads only the bytes appended since the last one. A saved output (tier 0's
 * file) is not held: it is on disk already, and a session's saved outputs can be many times its
 * transcript. The index keeps its trigram filter (trigramFilter.ts) and reads the file when a search
 * may match it. A plain-text query runs on the calling thread (an escaped literal cannot backtrack;
 * recallSearch.ts); a regular expression runs in the regex worker (core/regexWorker.ts) with a time
 * budget, so a catastrophic one ends with a clear error instead of freezing the host. Either way a
 * match is a line's first one, and lines are the text split at newlines.
 */
import { isAscii } from 'node:buffer';
import { promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { errorMessage, silentLogger, type Logger } from '../logger';
import { blocksOf, toolResultText } from '../model/content';
import { RECALL_TOOL } from '../tools/recallRef';
import type { RecallHit, RecallLookup, RecallQuery, RecallSearchOutcome, RecallSource } from '../tools/recallTypes';
import { throwIfAborted } from '../errors';
import { recalledText, savedOutputIn } from '../storage/recalledEntries';
import { parseTranscriptEntry, type RecallReference, type TranscriptEntry } from '../storage/transcript';
import { TranscriptFile } from '../storage/transcriptTail';
import { nearestIds } from './nearestIds';
import { findRegexPlaces, firstMatchPerLine, lineAt, plainTextRegex, queryLine, type Place } from './recallSearch';
import { mayContain, trigramFilter, type TrigramFilter } from './trigramFilter';

export const RECALL_INDEX_LIMITS = {
  /** A regex's time on one batch of lines, and on the whole search. */
  batchBudgetMs: 2_000,
  searchBudgetMs: 10_000,
  /** Bytes of a transcript read at once (a longer line is read whole): what is parsed at a time, so the build's peak stays small. */
  readChunkBytes: 4 * 1024 * 1024,
  /** Characters sent to the worker at once (whole lines; a longer line goes alone). */
  batchChars: 2_000_000,
  /** Characters of an excerpt around its match. */
  excerptBefore: 80,
  excerptChars: 240,
  /** Saved outputs larger than this are searched by their preview only (the id still returns them whole). */
  maxIndexedFileBytes: 32 * 1024 * 1024,
  /** Bytes of other sessions' transcripts read to tell "an id from another session" from "an unknown id". */
  otherSessionsScanBytes: 256 * 1024 * 1024,
} as const;

export type RecallIndexLimits = Record<keyof typeof RECALL_INDEX_LIMITS, number>;

interface ResultRecord {
  toolUseId: string;
  ts: string;
  /** The tool_result's text as the transcript holds it (a saved output's preview; a referenced recall's stub). */
  text: string;
  /** tier 0 saved the whole output here (a path inside the transcript's own folder). */
  file?: string;
  /** A recall result stored as a reference, with the results read before it (to resolve it). */
  reference?: RecallReference;
  /** Which transcript: undefined for the session's own, else the subagent's child id. */
  subagent?: string;
  /** Its entry's index in its transcript (what a rewind's `toEntry` counts). */
  entry: number;
}

type DocWhat = RecallHit['what'];

interface Doc {
  ref: string;
  toolUseId?: string;
  what: DocWhat;
  toolName?: string;
  subagent?: string;
  ts: string;
  /** What is searched; for a saved output, the transcript's preview (searched if the file can no longer be read). */
  text: string;
  /** A saved output: searched from its file (`bytes` when indexed), which the filter says may hold a plain query. */
  saved?: { file: string; bytes: number; filter: TrigramFilter };
  entry: number;
}

export interface TranscriptRecallOptions {
  /** The session's folder: transcript.jsonl, tool-results/, subagents/<childId>/. */
  sessionDir: string;
  logger?: Logger;
  limits?: Partial<RecallIndexLimits>;
}

/** The session's whole history for `recall`, read from disk (see the header). */
export class TranscriptRecall implements RecallSource {
  private readonly files = new Map<string, TranscriptFile>();
  private readonly results = new Map<string, ResultRecord>();
  private readonly calls = new Map<string, { name: string; ts: string; entry: number }>();
  /**
   * The session's own entries a checkpoint restore took back (the fold's `rewoundEntries`): by the rewind's entry
   * index, the range [from, to) it discarded. Recall leaves them out, as the conversation does.
   */
  private readonly rewound = new Map<number, { from: number; to: number }>();
  private lastMessageEntry = -1;
  private readonly docs: Doc[] = [];
  private readonly problems: string[] = [];
  private refreshing: Promise<void> | undefined;
  private readonly logger: Logger;
  private readonly limits: RecallIndexLimits;

  constructor(private readonly options: TranscriptRecallOptions) {
    this.logger = options.logger ?? silentLogger;
    this.limits = { ...RECALL_INDEX_LIMITS, ...options.limits };
  }

  async lookup(toolUseId: string, signal: AbortSignal): Promise<RecallLookup> {
    await this.refresh(signal);
    const record = this.results.get(toolUseId);
    if (!record) return { kind: 'missing', message: await this.missingMessage(toolUseId) };
    if (this.isRewound(record.entry, record.subagent)) {
      return { kind: 'missing', message: `The result of ${toolUseId} belongs to a part of the conversation that was restored away (a checkpoint restore took it back): it is no longer part of this session's history.` };
    }
    const toolName = this.calls.get(toolUseId)?.name;
    const base = { kind: 'found' as const, toolUseId, ...(toolName ? { toolName } : {}), ts: record.ts };
    if (record.file) {
      try {
        const text = await fsp.readFile(record.file, 'utf8');
        // A subagent's saved output lives in its own folder, which the parent's transcript does not resolve: copied.
        return { ...base, text, source: record.subagent ? { kind: 'copy' } : { kind: 'file', file: record.file }, notes: [] };
      } catch (error) {
        const gone = (error as NodeJS.ErrnoException).code === 'ENOENT';
        if (!gone) this.logger.warn(`recall: cannot read the saved output ${record.file}: ${errorMessage(error)}`);
        const why = gone ? 'is no longer on disk (deleted)' : `cannot be read (${errorMessage(error)})`;
        return {
          ...base,
          text: record.text,
          source: record.subagent ? { kind: 'copy' } : { kind: 'message', toolUseId },
          notes: [`The saved output ${record.file} of this result ${why}. What follows is the transcript's copy: the preview the context got (head and tail), not the whole output.`],
        };
      }
    }
    if (record.reference) {
      const earlier = new Map<string, string>();
      if (record.reference.source.kind === 'message') {
        const source = this.results.get(record.reference.source.toolUseId);
        if (source) earlier.set(source.toolUseId, source.text);
      }
      const text = await recalledText(record.reference, earlier, this.fileOf(record.subagent).dir);
      return { ...base, text, source: { kind: 'copy' }, notes: [] };
    }
    return { ...base, text: record.text, source: record.subagent ? { kind: 'copy' } : { kind: 'message', toolUseId }, notes: [] };
  }

  async search(query: RecallQuery, limit: number, signal: AbortSignal): Promise<RecallSearchOutcome> {
    await this.refresh(signal);
    // What a checkpoint restore took back is left out before anything is read.
    const docs = this.docs.map((_, doc) => doc).filter((doc) => !this.isRewound(this.docs[doc]!.entry, this.docs[doc]!.subagent));
    const places = query.kind === 'text' ? await this.findText(query.text, docs, signal) : await this.findRegex(query, docs, signal);
    let totalMatches = 0;
    for (const place of places.values()) totalMatches += place.matches;
    const exact = query.kind === 'text' ? query.text : undefined;
    const newest = Math.max(1, this.docs.length - 1);
    const scored = [...places].map(([doc, place]) => {
      const d = this.docs[doc]!;
      // More matching lines count, with diminishing weight; what people and tools said outranks echoes of it
      // (the call's input, the summary); an exact-case match and recency break ties.
      const caseBonus = exact !== undefined && place.line.slice(place.start, place.start + place.length) === exact ? 0.5 : 0;
      return { doc, place, score: Math.log2(1 + place.matches) + WHAT_WEIGHT[d.what] + caseBonus + doc / newest };
    });
    scored.sort((a, b) => b.score - a.score);
    const hits = scored.slice(0, limit).map(({ doc, place }): RecallHit => {
      const d = this.docs[doc]!;
      return {
        ref: d.ref,
        ...(d.toolUseId ? { toolUseId: d.toolUseId } : {}),
        what: d.what,
        ...(d.toolName ? { toolName: d.toolName } : {}),
        ...(d.subagent ? { subagent: d.subagent } : {}),
        ts: d.ts,
        matches: place.matches,
        excerpt: this.excerpt(place.line, place.start, place.length),
      };
    });
    return { totalMatches, totalPlaces: places.size, hits, problems: this.currentProblems() };
  }

  // ---- reading ---------------------------------------------------------------------------------

  /** Reads what was appended to every transcript since the last call (one refresh at a time). */
  private async refresh(signal: AbortSignal): Promise<void> {
    while (this.refreshing) await this.refreshing;
    throwIfAborted(signal);
    this.refreshing = this.readAll().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
  }

  private async readAll(): Promise<void> {
    await this.readFile(this.fileOf(undefined));
    const children = await fsp.readdir(path.join(this.options.sessionDir, 'subagents')).catch(() => [] as string[]);
    for (const child of children.sort()) await this.readFile(this.fileOf(child));
  }

  private fileOf(subagent: string | undefined): TranscriptFile {
    const file = subagent === undefined ? path.join(this.options.sessionDir, 'transcript.jsonl') : path.join(this.options.sessionDir, 'subagents', subagent, 'transcript.jsonl');
    let known = this.files.get(file);
    if (!known) {
      known = new TranscriptFile(file, subagent);
      this.files.set(file, known);
    }
    return known;
  }

  private async readFile(file: TranscriptFile): Promise<void> {
    for (let more = true; more; ) {
      let read;
      try {
        read = await file.newLines(this.limits.readChunkBytes);
      } catch (error) {
        this.report(`${this.label(file)}: cannot be read (${errorMessage(error)})`);
        return;
      }
      more = read.more;
      for (const { line, text } of read.lines) {
        if (!text.trim()) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          this.report(`${this.label(file)} line ${line}: not valid JSON (cut off by a crash or a full disk)`);
          continue;
        }
        const result = parseTranscriptEntry(parsed);
        if ('problem' in result) {
          this.report(`${this.label(file)} line ${line}: ${result.problem}`);
          continue;
        }
        await this.add(file, result.entry);
      }
    }
  }

  /** A problem is reported once however often it is met (an unreadable file is met on every call). */
  private report(problem: string): void {
    if (!this.problems.includes(problem)) this.problems.push(problem);
  }

  private label(file: TranscriptFile): string {
    return file.subagent ? `subagent ${file.subagent}'s transcript` : 'the transcript';
  }

  private currentProblems(): string[] {
    const torn = [...this.files.values()].filter((file) => file.tornTail).map((file) => `${this.label(file)}: its last line is incomplete`);
    return [...this.problems, ...torn];
  }

  private async add(file: TranscriptFile, entry: TranscriptEntry): Promise<void> {
    const index = file.entries++;
    const subagent = file.subagent;
    const where = { ...(subagent ? { subagent } : {}), entry: index };
    if (subagent === undefined) this.noteRewind(entry, index);
    if (entry.type === 'event' && entry.name === 'subagent_of' && typeof entry.data.toolUseId === 'string') file.parentCall = entry.data.toolUseId;
    if (entry.type === 'persisted_output') {
      file.saved.set(entry.toolUseId, savedOutputIn(file.dir, entry.file));
      return;
    }
    if (entry.type === 'compaction') {
      file.compactions++;
      if (entry.compaction.summary) this.docs.push({ ref: `summary #${file.compactions}`, what: 'summary', ts: entry.ts, text: entry.compaction.summary, ...where });
      return;
    }
    if (entry.type !== 'message') return;
    const position = `message #${++file.messages}`;
    const { message } = entry;
    const references = new Map((entry.recalls ?? []).map((ref) => [ref.toolUseId, ref]));
    for (const block of blocksOf(message)) {
      if (block.type === 'text') {
        if (block.text.trim()) this.docs.push({ ref: position, what: message.role === 'user' ? 'user' : 'assistant', ts: entry.ts, text: block.text, ...where });
      } else if (block.type === 'tool_use') {
        this.calls.set(block.id, { name: block.name, ts: entry.ts, entry: index });
        this.docs.push({ ref: block.id, toolUseId: block.id, what: 'tool call', toolName: block.name, ts: entry.ts, text: `${block.name} ${JSON.stringify(block.input)}`, ...where });
      } else if (block.type === 'tool_result') {
        const id = block.tool_use_id;
        const text = toolResultText(block);
        const file_ = file.saved.get(id);
        const reference = references.get(id);
        this.results.set(id, { toolUseId: id, ts: entry.ts, text, ...(file_ ? { file: file_ } : {}), ...(reference ? { reference } : {}), ...where });
        const toolName = this.calls.get(id)?.name;
        // A recall's result repeats an earlier one: searching it too would only double every hit.
        if (toolName === RECALL_TOOL) continue;
        const saved = file_ ? await this.savedFilter(file_) : undefined;
        this.docs.push({ ref: id, toolUseId: id, what: 'tool result', ...(toolName ? { toolName } : {}), ts: entry.ts, text, ...(saved ? { saved } : {}), ...where });
      }
    }
  }

  /** The fold's rule (agent/fold.ts, `rewoundEntries`), kept as the entries arrive: a rewind discards [toEntry, its index). */
  private noteRewind(entry: TranscriptEntry, index: number): void {
    if (entry.type === 'message') this.lastMessageEntry = index;
    else if (entry.type === 'rewind') this.rewound.set(index, { from: entry.toEntry, to: index });
    // An undo cancels its rewind only when no message came between them.
    else if (entry.type === 'rewind_undone' && this.lastMessageEntry < entry.rewindEntry) this.rewound.delete(entry.rewindEntry);
  }

  /** Whether an entry was taken back by a restore; a subagent's goes with the parent's task call that started it. */
  private isRewound(entry: number, subagent: string | undefined): boolean {
    if (this.rewound.size === 0) return false;
    if (subagent !== undefined) {
      const parentCall = this.fileOf(subagent).parentCall;
      const call = parentCall === undefined ? undefined : this.calls.get(parentCall);
      return call !== undefined && this.isRewound(call.entry, undefined);
    }
    for (const range of this.rewound.values()) if (entry >= range.from && entry < range.to) return true;
    return false;
  }

  /** A saved output read once for its filter; undefined when it is gone or huge (its preview stands in). */
  private async savedFilter(file: string): Promise<Doc['saved']> {
    const text = await this.savedText(file);
    return text === undefined ? undefined : { file, bytes: Buffer.byteLength(text), filter: trigramFilter(text) };
  }

  private async savedText(file: string): Promise<string | undefined> {
    try {
      const stat = await fsp.stat(file);
      if (stat.size > this.limits.maxIndexedFileBytes) return undefined;
      return await fsp.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.logger.warn(`recall: cannot read the saved output ${file}: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /**
   * What a search reads of a document: its text, or its saved output's (the preview if the file is gone since).
   * Read synchronously, as the plain search scans on the calling thread anyway: a saved output was written by
   * this session and is in the page cache, where one read costs less than the event loop's turns of an
   * asynchronous one. An ASCII file (most tool output) is decoded as Latin-1: the same string, decoded faster.
   */
  private textOf(doc: number): string {
    const d = this.docs[doc]!;
    if (!d.saved) return d.text;
    try {
      const bytes = readFileSync(d.saved.file);
      return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.logger.warn(`recall: cannot read the saved output ${d.saved.file}: ${errorMessage(error)}`);
      return d.text;
    }
  }

  // ---- searching -------------------------------------------------------------------------------

  /** Plain text, case-insensitive: each matching line's first match, by document. */
  private async findText(text: string, docs: readonly number[], signal: AbortSignal): Promise<Map<number, Place>> {
    const needle = queryLine(text);
    const regex = plainTextRegex(needle);
    const places = new Map<number, Place>();
    // A saved output whose filter rules the query out is never read.
    const candidates = docs.filter((doc) => !this.docs[doc]!.saved || mayContain(this.docs[doc]!.saved!.filter, needle));
    let scanned = 0;
    for (const doc of candidates) {
      const body = this.textOf(doc);
      // Checked about every million characters, as the search was before: cancel stops it soon.
      if ((scanned += body.length) > 1_000_000) {
        throwIfAborted(signal);
        scanned = 0;
      }
      let place: Place | undefined;
      firstMatchPerLine(body, regex, (lineStart, start, length) => {
        if (place) place.matches++;
        else place = { matches: 1, line: lineAt(body, lineStart), start, length };
      });
      if (place) places.set(doc, place);
    }
    return places;
  }

  private findRegex(query: Extract<RecallQuery, { kind: 'regex' }>, docs: readonly number[], signal: AbortSignal): Promise<Map<number, Place>> {
    const searched = docs.map((doc) => {
      const { text, saved } = this.docs[doc]!;
      return { key: doc, text, ...(saved ? { saved: { file: saved.file, bytes: saved.bytes } } : {}) };
    });
    return findRegexPlaces(query, searched, { limits: this.limits, logger: this.logger }, signal);
  }

  private excerpt(line: string, start: number, length: number): string {
    const from = Math.max(0, start - this.limits.excerptBefore);
    const to = Math.min(line.length, from + Math.max(this.limits.excerptChars, Math.min(length, this.limits.excerptChars) + this.limits.excerptBefore));
    const text = line.slice(from, to).replace(/\s+/g, ' ').trim();
    return `${from > 0 ? '…' : ''}${text}${to < line.length ? '…' : ''}`;
  }

  // ---- an id that is not here ------------------------------------------------------------------

  private async missingMessage(id: string): Promise<string> {
    const call = this.calls.get(id);
    if (call) return `The call ${id} (${call.name}) has no result yet: its result is recorded once the call has finished. Recall it in a later step.`;
    const other = await this.otherSessionWith(id);
    if (other) {
      return `${JSON.stringify(id)} is a tool call of ${other}, not of this session: recall reads only this session's history (and its subagents'). Search this one with recall {"query": "…"}.`;
    }
    const nearest = nearestIds(id, [...this.results.keys()], 3);
    const skipped = this.currentProblems();
    const hint = nearest.length > 0 ? ` The nearest ids: ${nearest.map((near) => `${near} (${this.calls.get(near)?.name ?? 'tool'}, ${this.results.get(near)?.ts ?? ''})`).join(', ')}.` : ' This session has no tool results yet.';
    const lost = skipped.length > 0 ? ` ${skipped.length} transcript line(s) could not be read (${skipped.slice(0, 2).join('; ')}); the result may have been on one.` : '';
    return `No tool result with id ${JSON.stringify(id)} in this session's history (${this.results.size} results, subagents' included).${hint}${lost} Placeholders and notes name ids as recall {"id": "…"}; to find a result by its content use recall {"query": "…"}.`;
  }

  /** Which other session (a sibling in the same sessions folder, or the parent of a subagent) holds `id`, if any. */
  private async otherSessionWith(id: string): Promise<string | undefined> {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
    const own = path.resolve(this.options.sessionDir);
    const sessionsDir = path.dirname(own);
    const candidates: Array<{ file: string; label: string }> = [];
    if (path.basename(sessionsDir) === 'subagents') candidates.push({ file: path.join(path.dirname(sessionsDir), 'transcript.jsonl'), label: "this subagent's parent session" });
    const siblings = await fsp.readdir(sessionsDir).catch(() => [] as string[]);
    for (const name of siblings) if (path.join(sessionsDir, name) !== own) candidates.push({ file: path.join(sessionsDir, name, 'transcript.jsonl'), label: `another session (${name})` });
    const needle = Buffer.from(`"tool_use_id":"${id}"`);
    let budget = this.limits.otherSessionsScanBytes;
    for (const candidate of candidates) {
      const size = await fsp.stat(candidate.file).then((stat) => stat.size, () => -1);
      if (size < 0 || size > budget) continue;
      budget -= size;
      const bytes = await fsp.readFile(candidate.file).catch(() => undefined);
      if (bytes?.includes(needle)) return candidate.label;
    }
    return undefined;
  }
}

const WHAT_WEIGHT: Record<DocWhat, number> = { 'tool result': 1, user: 1, assistant: 0.6, summary: 0.6, 'tool call': 0.4 };

/** A recall source for a session folder (the agent makes one per session). */
export function transcriptRecall(sessionDir: string, logger?: Logger): RecallSource {
  return new TranscriptRecall({ sessionDir, ...(logger ? { logger } : {}) });
}

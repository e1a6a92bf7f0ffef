import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { writeFileAtomic } from '../workspace/atomicWrite';
import { errorMessage, silentLogger, type Logger } from '../logger';
import { ATTACHMENT_OPEN, promptTitleText } from '../model/content';
import { sessionTitle } from './titles';
import type { UsageCounts } from '../model/models';
import { addUsage, zeroUsage } from '../model/usage';
import { parseTranscriptEntry, type TranscriptEntry } from './transcript';
import { resolveRecalls } from './recalledEntries';
import { userText } from '../texts/userText';
import { userTextForLog, type UserText } from '../texts/userText';

/**
 * Sessions on disk (docs/architecture.md, "Storage layout"):
 *   <root>/sessions/<id>/transcript.jsonl  append-only, one entry a line, never rewritten
 *   <root>/sessions/<id>/meta.json         replaced atomically
 *   <root>/sessions/<id>/tool-results/     persisted large outputs
 */

export interface SessionTotals extends UsageCounts {
  costUsd: number;
  /** Requests whose model had no known price (not in costUsd); absent when none. */
  unpricedRequests?: number;
}

export interface SessionMeta {
  id: string;
  title: string;
  model: string;
  workspace: string | undefined;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  /** Compaction boundaries with a summary (deterministic drops not counted); absent in metas written before it was kept. */
  compactions?: number;
  totals: SessionTotals;
}

export type { TranscriptEntry } from './transcript';

export interface TranscriptProblem {
  /** 1-based line number in transcript.jsonl. */
  line: number;
  reason: string;
}

export interface LoadedTranscript {
  entries: TranscriptEntry[];
  /** Lines that could not be used (a torn last line after a crash is the usual one). */
  skippedLines: number;
  problems: TranscriptProblem[];
  /** The file ends without a newline: the last write was cut off. */
  tornTail: boolean;
}

/** One line of transcript.jsonl as read: a checked entry or the reason it was skipped (1-based line numbers). */
export type TranscriptLine = { line: number; entry: TranscriptEntry } | { line: number; problem: string };

export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,100}$/;

export class SessionLockedError extends Error {
  constructor(readonly sessionId: string, readonly ownerPid: number) {
    super(`Session "${sessionId}" is open in another Evergreen window or process${ownerPid > 0 ? ` (pid ${ownerPid})` : ''}. Close it there first, or start a New Chat here; two writers would interleave its transcript.`);
    this.name = 'SessionLockedError';
  }
}

export class SessionNotFoundError extends Error {
  constructor(readonly sessionId: string, where: string) {
    super(`No session "${sessionId}" in ${where}.`);
    this.name = 'SessionNotFoundError';
  }
}

export function emptyTotals(): SessionTotals {
  return { ...zeroUsage(), costUsd: 0 };
}

/** The store of a session's subagents, given the session's folder (for the agent, which holds a handle, not the store). */
export function subagentStoreIn(sessionDir: string, logger: Logger = silentLogger): FileSessionStore {
  return new FileSessionStore(sessionDir, undefined, logger, path.join(sessionDir, 'subagents'));
}

export class FileSessionStore {
  readonly sessionsDir: string;

  constructor(
    readonly rootDir: string,
    private readonly now: () => Date = () => new Date(),
    readonly logger: Logger = silentLogger,
    /** Where the session folders go; a session's subagents live in <its dir>/subagents with the same layout. */
    sessionsDir?: string,
  ) {
    this.sessionsDir = sessionsDir ?? path.join(rootDir, 'sessions');
  }

  sessionDir(id: string): string {
    if (!SESSION_ID_PATTERN.test(id)) throw new Error(`Invalid session id "${id}": only letters, digits, "-" and "_" are allowed.`);
    return path.join(this.sessionsDir, id);
  }

  toolResultsDir(id: string): string {
    return path.join(this.sessionDir(id), 'tool-results');
  }

  transcriptPath(id: string): string {
    return path.join(this.sessionDir(id), 'transcript.jsonl');
  }

  /** The subagents of session `id`: the same layout under <its dir>/subagents (one level only). */
  subagentStore(id: string): FileSessionStore {
    return subagentStoreIn(this.sessionDir(id), this.logger);
  }

  async create(init: { model: string; workspace?: string; title?: string }): Promise<SessionHandle> {
    const created = this.now();
    const id = `${created.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${Math.random().toString(36).slice(2, 8)}`;
    const dir = this.sessionDir(id);
    // Storage that cannot be written (disk full, read-only) must not stop the chat: the session
    // runs in memory and its first append reports that the transcript is not being saved.
    const unwritable = await fs.promises.mkdir(path.join(dir, 'tool-results'), { recursive: true }).then(
      () => undefined,
      (error: unknown) => storageErrorMessage(error, dir),
    );
    if (unwritable) this.logger.error(userTextForLog(unwritable));
    const meta: SessionMeta = {
      id,
      title: init.title ?? 'New chat',
      model: init.model,
      workspace: init.workspace,
      createdAt: created.toISOString(),
      updatedAt: created.toISOString(),
      messageCount: 0,
      compactions: 0,
      totals: emptyTotals(),
    };
    const handle = new SessionHandle(this, meta, this.now, false);
    if (unwritable) {
      handle.failWrites(unwritable);
      return handle;
    }
    handle.acquireLock();
    await handle.flushMeta().catch((error: unknown) => this.logger.error(userTextForLog(storageErrorMessage(error, path.join(dir, 'meta.json')))));
    return handle;
  }

  async open(id: string): Promise<{ handle: SessionHandle; transcript: LoadedTranscript }> {
    const dir = this.sessionDir(id);
    const meta = await this.readMeta(id).catch(() => undefined);
    if (!meta) throw new SessionNotFoundError(id, this.sessionsDir);
    const transcript = await readTranscript(path.join(dir, 'transcript.jsonl'));
    // Metas from before the counter: count once here, where the transcript is read anyway.
    meta.compactions ??= transcript.entries.filter(isSummaryBoundary).length;
    const handle = new SessionHandle(this, meta, this.now, transcript.tornTail, transcript.entries.length);
    handle.acquireLock();
    for (const problem of transcript.problems) this.logger.warn(`transcript of ${id}, line ${problem.line}: ${problem.reason} (skipped)`);
    return { handle, transcript };
  }

  /** Removes a session's folder: a new session whose start failed (nothing in it is the user's yet). Close its handle first. */
  async discard(id: string): Promise<void> {
    if (!SESSION_ID_PATTERN.test(id)) throw new Error(`not a session id: ${JSON.stringify(id)}`);
    await fs.promises.rm(this.sessionDir(id), { recursive: true, force: true });
  }

  async readMeta(id: string): Promise<SessionMeta> {
    const raw = await fs.promises.readFile(path.join(this.sessionDir(id), 'meta.json'), 'utf8');
    const meta = JSON.parse(raw) as SessionMeta;
    if (typeof meta.title === 'string' && meta.title.startsWith(ATTACHMENT_OPEN)) meta.title = await this.wordsTitle(id, meta.title);
    return meta;
  }

  /** Titles re-derived from transcripts, by session id: a markup title never changes, so each transcript is read once. */
  private readonly derivedTitles = new Map<string, string>();

  /**
   * Sessions stored before titles skipped attachments are titled with an attachment's markup and
   * file text. Their title is derived again from the first user message, on read rather than by
   * rewriting meta.json: another window may hold the session and write its meta at any time, and
   * the open session's handle saves the derived title with its next write anyway.
   */
  private async wordsTitle(id: string, stored: string): Promise<string> {
    const known = this.derivedTitles.get(id);
    if (known !== undefined) return known;
    let title = stored;
    try {
      for await (const item of transcriptLines(this.transcriptPath(id))) {
        if (!('entry' in item) || item.entry.type !== 'message' || item.entry.message.role !== 'user') continue;
        const words = promptTitleText(item.entry.message);
        if (words) title = sessionTitle(words);
        break;
      }
    } catch (error) {
      this.logger.warn(`session ${id}: its title could not be derived from the transcript (${errorMessage(error)}); the stored one is shown`);
    }
    this.derivedTitles.set(id, title);
    return title;
  }

  /** Bytes the session takes on disk: transcript, meta and persisted outputs (stat only, nothing is read). */
  async diskUsage(id: string): Promise<number> {
    const dir = this.sessionDir(id);
    const size = (file: string) => fs.promises.stat(file).then((stat) => stat.size, () => 0);
    const results = await fs.promises.readdir(path.join(dir, 'tool-results')).catch(() => [] as string[]);
    const sizes = await Promise.all([size(path.join(dir, 'transcript.jsonl')), size(path.join(dir, 'meta.json')), ...results.map((name) => size(path.join(dir, 'tool-results', name)))]);
    return sizes.reduce((sum, value) => sum + value, 0);
  }

  /** Newest first; sessions whose meta cannot be read are left out rather than failing the list. */
  async list(): Promise<SessionMeta[]> {
    const names = await fs.promises.readdir(this.sessionsDir).catch(() => [] as string[]);
    const metas = await Promise.all(names.filter((name) => SESSION_ID_PATTERN.test(name)).map((name) => this.readMeta(name).catch(() => undefined)));
    return metas.filter((meta): meta is SessionMeta => meta !== undefined).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }
}

/** How many open handles of this process hold each session's owner file (the file names the process, not the handle). */
const heldLocks = new Map<string, number>();

/** One open session: appends transcript entries in order and keeps meta.json current. */
export class SessionHandle {
  private metaWrite: Promise<void> = Promise.resolve();
  private writeError: UserText | undefined;
  private lockHeld = false;
  private readonly writeErrorListeners: Array<(message: UserText) => void> = [];

  constructor(
    private readonly store: FileSessionStore,
    private currentMeta: SessionMeta,
    private readonly now: () => Date,
    /** The transcript ends in a cut-off line: the next append starts on a new line. */
    private tornTail: boolean,
    /** Valid entries already in the transcript (a rewind names its cut by this count). */
    private entries = 0,
  ) {}

  /** How many valid entries the transcript holds, counting this handle's appends: the index the next entry gets. */
  get entryCount(): number {
    return this.entries;
  }

  /** Set once an append failed: the agent goes on, but this transcript is no longer complete. */
  get transcriptWriteError(): UserText | undefined {
    return this.writeError;
  }

  /** The session folder could not be created: nothing will be saved; listeners hear why once. */
  failWrites(message: UserText): void {
    this.writeError ??= message;
  }

  onWriteError(listener: (message: UserText) => void): void {
    this.writeErrorListeners.push(listener);
    if (this.writeError) listener(this.writeError);
  }

  get transcriptPath(): string {
    return this.store.transcriptPath(this.id);
  }

  private get lockPath(): string {
    return path.join(this.dir, 'owner.lock');
  }

  /** One writer per session: an owner file with our pid; a stale one (dead pid) is taken over. */
  acquireLock(): void {
    const body = JSON.stringify({ pid: process.pid, host: os.hostname(), since: this.now().toISOString() });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(this.lockPath, body, { flag: 'wx' });
        this.holdLock();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          // A read-only storage dir cannot hold a lock either; the write warning covers it.
          this.store.logger.warn(`could not create the session lock ${this.lockPath}: ${errorMessage(error)}`);
          return;
        }
      }
      const owner = readLockOwner(this.lockPath);
      if (owner && owner.pid !== process.pid && owner.host === os.hostname() && processAlive(owner.pid)) throw new SessionLockedError(this.id, owner.pid);
      // Unreadable and fresh: another process is between creating and writing it.
      if (!owner && lockAgeMs(this.lockPath) < 5_000) throw new SessionLockedError(this.id, 0);
      if (owner && owner.pid === process.pid) {
        this.holdLock();
        return;
      }
      fs.rmSync(this.lockPath, { force: true });
    }
  }

  private holdLock(): void {
    this.lockHeld = true;
    heldLocks.set(this.lockPath, (heldLocks.get(this.lockPath) ?? 0) + 1);
  }

  /**
   * Releases the owner file (closing the session, switching chats, process exit) once no other
   * handle of this process holds it: a chat restarted on its own transcript opens the new handle
   * before the old one is closed.
   */
  close(): void {
    if (!this.lockHeld) return;
    this.lockHeld = false;
    const holders = (heldLocks.get(this.lockPath) ?? 1) - 1;
    if (holders > 0) {
      heldLocks.set(this.lockPath, holders);
      return;
    }
    heldLocks.delete(this.lockPath);
    try {
      const owner = readLockOwner(this.lockPath);
      if (owner?.pid === process.pid) fs.rmSync(this.lockPath, { force: true });
    } catch (error) {
      this.store.logger.warn(`could not release the session lock: ${errorMessage(error)}`);
    }
  }

  get id(): string {
    return this.currentMeta.id;
  }

  get meta(): Readonly<SessionMeta> {
    return this.currentMeta;
  }

  get dir(): string {
    return this.store.sessionDir(this.id);
  }

  get toolResultsDir(): string {
    return this.store.toolResultsDir(this.id);
  }

  /**
   * Synchronous append: entries land in order and are on disk before the next API call, so a
   * crash loses at most the line being written (skipped on read).
   */
  append(entry: TranscriptEntry): void {
    this.entries++;
    // After one failed write nothing more is written: a transcript with a hole in the middle would
    // resume into a different (even invalid) context, while a complete prefix resumes exactly.
    if (this.writeError) {
      this.updateMeta(entry);
      return;
    }
    try {
      fs.appendFileSync(this.store.transcriptPath(this.id), (this.tornTail ? '\n' : '') + JSON.stringify(entry) + '\n');
      this.tornTail = false;
    } catch (error) {
      // Never fatal: the conversation goes on in memory and the user is told once.
      this.tornTail = true;
      if (!this.writeError) {
        this.writeError = storageErrorMessage(error, this.store.transcriptPath(this.id));
        this.store.logger.error(userTextForLog(this.writeError));
        for (const listener of this.writeErrorListeners) listener(this.writeError);
      }
    }
    this.updateMeta(entry);
  }

  private updateMeta(entry: TranscriptEntry): void {
    if (entry.type === 'message') {
      this.currentMeta.messageCount++;
      if (this.currentMeta.title === 'New chat' && entry.message.role === 'user') {
        const text = promptTitleText(entry.message);
        if (text) this.currentMeta.title = sessionTitle(text);
      }
    } else if (isSummaryBoundary(entry)) {
      this.currentMeta.compactions = (this.currentMeta.compactions ?? 0) + 1;
    } else if (entry.type === 'usage') {
      const totals = addUsage(this.currentMeta.totals, entry.usage);
      totals.costUsd += entry.costUsd;
      if (entry.priceUnknown) totals.unpricedRequests = (totals.unpricedRequests ?? 0) + 1;
    }
    this.currentMeta.updatedAt = this.now().toISOString();
  }

  /** Atomic replace, serialized so an older snapshot never overwrites a newer one. */
  flushMeta(): Promise<void> {
    const snapshot = JSON.stringify(this.currentMeta, null, 2);
    const target = path.join(this.dir, 'meta.json');
    this.metaWrite = this.metaWrite.catch(() => undefined).then(() => writeFileAtomic(target, snapshot));
    return this.metaWrite;
  }
}

function isSummaryBoundary(entry: TranscriptEntry): boolean {
  return entry.type === 'compaction' && entry.compaction.trigger !== 'drop';
}

function readLockOwner(file: string): { pid: number; host: string } | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown; host?: unknown };
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? { pid: parsed.pid, host: parsed.host } : undefined;
  } catch {
    return undefined;
  }
}

function lockAgeMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Storage failures with their own words: disk full and read-only are not "file not found". */
export function storageErrorMessage(error: unknown, file: string): UserText {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return userText('start.storageDiskFull', { file });
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return userText('start.storageReadOnly', { code, file });
  return userText('start.storageUnwritable', { file, error: errorMessage(error) });
}

/**
 * Streams the JSONL file line by line (never one string of the whole file); every entry is
 * checked, and a bad line is yielded as a problem with its number, never fatal. A missing file
 * yields nothing.
 */
export async function* transcriptLines(file: string): AsyncGenerator<TranscriptLine> {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  try {
    await new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve());
      input.once('error', reject);
    });
  } catch (error) {
    input.destroy();
    // Only a missing file is an empty transcript; anything else would resume as an empty chat.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new Error(`Cannot read the transcript ${file}: ${errorMessage(error)}. Nothing was changed; check the file's permissions.`);
  }
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (!line.trim()) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        yield { line: lineNumber, problem: 'not valid JSON (a write cut off by a crash or a full disk)' };
        continue;
      }
      const result = parseTranscriptEntry(parsed);
      yield 'problem' in result ? { line: lineNumber, problem: result.problem } : { line: lineNumber, entry: result.entry };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

/** The whole transcript in memory (resume needs every entry); see transcriptLines for the checks. */
export async function readTranscript(file: string): Promise<LoadedTranscript> {
  const entries: TranscriptEntry[] = [];
  const problems: TranscriptProblem[] = [];
  let tornTail = false;
  try {
    const stat = await fs.promises.stat(file);
    if (stat.size > 0) {
      const handle = await fs.promises.open(file, 'r');
      try {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, stat.size - 1);
        tornTail = last[0] !== 0x0a;
      } finally {
        await handle.close();
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries, skippedLines: 0, problems, tornTail };
    throw new Error(`Cannot read the transcript ${file}: ${errorMessage(error)}. Nothing was changed; check the file's permissions.`);
  }
  for await (const item of transcriptLines(file)) {
    if ('entry' in item) entries.push(item.entry);
    else problems.push({ line: item.line, reason: item.problem });
  }
  // Recall results stored as references get their text back: the fold sees what the model saw.
  return { entries: await resolveRecalls(entries, path.dirname(file)), skippedLines: problems.length, problems, tornTail };
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import writeFileAtomic from 'write-file-atomic';
import type { MessageParam } from '../model/client';
import type { UsageCounts } from '../model/models';

/**
 * Sessions on disk (DESIGN.md §3):
 *   <root>/sessions/<id>/transcript.jsonl  append-only, one entry a line, never rewritten
 *   <root>/sessions/<id>/meta.json         replaced atomically
 *   <root>/sessions/<id>/tool-results/     persisted large outputs
 */

export interface SessionTotals extends UsageCounts {
  costUsd: number;
}

export interface SessionMeta {
  id: string;
  title: string;
  model: string;
  workspace: string | undefined;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  totals: SessionTotals;
}

export type TranscriptEntry =
  | { type: 'message'; ts: string; message: MessageParam }
  | { type: 'usage'; ts: string; model: string; usage: UsageCounts; costUsd: number }
  | { type: 'event'; ts: string; name: string; data: Record<string, unknown> };

export interface LoadedTranscript {
  entries: TranscriptEntry[];
  /** Lines that could not be parsed (a torn last line after a crash is the usual one). */
  skippedLines: number;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,100}$/;

export class SessionNotFoundError extends Error {
  constructor(readonly sessionId: string, where: string) {
    super(`No session "${sessionId}" in ${where}.`);
    this.name = 'SessionNotFoundError';
  }
}

export function emptyTotals(): SessionTotals {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
}

export class FileSessionStore {
  readonly sessionsDir: string;

  constructor(readonly rootDir: string, private readonly now: () => Date = () => new Date()) {
    this.sessionsDir = path.join(rootDir, 'sessions');
  }

  sessionDir(id: string): string {
    if (!SESSION_ID.test(id)) throw new Error(`Invalid session id "${id}": only letters, digits, "-" and "_" are allowed.`);
    return path.join(this.sessionsDir, id);
  }

  toolResultsDir(id: string): string {
    return path.join(this.sessionDir(id), 'tool-results');
  }

  transcriptPath(id: string): string {
    return path.join(this.sessionDir(id), 'transcript.jsonl');
  }

  async create(init: { model: string; workspace?: string; title?: string }): Promise<SessionHandle> {
    const created = this.now();
    const id = `${created.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${Math.random().toString(36).slice(2, 8)}`;
    const dir = this.sessionDir(id);
    await fs.promises.mkdir(path.join(dir, 'tool-results'), { recursive: true });
    const meta: SessionMeta = {
      id,
      title: init.title ?? 'New chat',
      model: init.model,
      workspace: init.workspace,
      createdAt: created.toISOString(),
      updatedAt: created.toISOString(),
      messageCount: 0,
      totals: emptyTotals(),
    };
    const handle = new SessionHandle(this, meta, this.now);
    await handle.flushMeta();
    return handle;
  }

  async open(id: string): Promise<{ handle: SessionHandle; transcript: LoadedTranscript }> {
    const dir = this.sessionDir(id);
    const meta = await this.readMeta(id).catch(() => undefined);
    if (!meta) throw new SessionNotFoundError(id, this.sessionsDir);
    const transcript = await readTranscript(path.join(dir, 'transcript.jsonl'));
    return { handle: new SessionHandle(this, meta, this.now), transcript };
  }

  async readMeta(id: string): Promise<SessionMeta> {
    const raw = await fs.promises.readFile(path.join(this.sessionDir(id), 'meta.json'), 'utf8');
    return JSON.parse(raw) as SessionMeta;
  }

  /** Newest first; sessions whose meta cannot be read are left out rather than failing the list. */
  async list(): Promise<SessionMeta[]> {
    const names = await fs.promises.readdir(this.sessionsDir).catch(() => [] as string[]);
    const metas = await Promise.all(names.filter((name) => SESSION_ID.test(name)).map((name) => this.readMeta(name).catch(() => undefined)));
    return metas.filter((meta): meta is SessionMeta => meta !== undefined).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }
}

/** One open session: appends transcript entries in order and keeps meta.json current. */
export class SessionHandle {
  private metaWrite: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: FileSessionStore,
    private currentMeta: SessionMeta,
    private readonly now: () => Date,
  ) {}

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
    fs.appendFileSync(this.store.transcriptPath(this.id), JSON.stringify(entry) + '\n');
    if (entry.type === 'message') {
      this.currentMeta.messageCount++;
      if (this.currentMeta.title === 'New chat' && entry.message.role === 'user') {
        const text = firstText(entry.message);
        if (text) this.currentMeta.title = text.replace(/\s+/g, ' ').trim().slice(0, 80);
      }
    } else if (entry.type === 'usage') {
      const totals = this.currentMeta.totals;
      totals.inputTokens += entry.usage.inputTokens;
      totals.outputTokens += entry.usage.outputTokens;
      totals.cacheReadTokens += entry.usage.cacheReadTokens;
      totals.cacheWriteTokens += entry.usage.cacheWriteTokens;
      totals.costUsd += entry.costUsd;
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

function firstText(message: MessageParam): string | undefined {
  if (typeof message.content === 'string') return message.content;
  for (const block of message.content) if (block.type === 'text') return block.text;
  return undefined;
}

/** Streams the JSONL file; unparsable lines are counted and skipped, never fatal. */
export async function readTranscript(file: string): Promise<LoadedTranscript> {
  const entries: TranscriptEntry[] = [];
  let skippedLines = 0;
  let input: fs.ReadStream;
  try {
    await fs.promises.access(file);
    input = fs.createReadStream(file, { encoding: 'utf8' });
  } catch {
    return { entries, skippedLines };
  }
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as TranscriptEntry;
      if (typeof entry === 'object' && entry !== null && typeof entry.type === 'string') entries.push(entry);
      else skippedLines++;
    } catch {
      skippedLines++;
    }
  }
  return { entries, skippedLines };
}

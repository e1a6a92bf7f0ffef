/**
 * A transcript as a readable, searchable markdown document (docs/architecture.md, "Storage layout"): the archived-transcript
 * editor tab. Built for huge transcripts: entries arrive one at a time (streamed from the JSONL),
 * the renderer yields to the event loop regularly, and large blocks are folded to their head and
 * tail with links to where the full text lives (the persisted output file, the raw JSONL line).
 * It lives in the extension, its only user, and imports only the core: it reads what every core layer
 * records (the agent's subagent events, the context engine's notes, storage's entries).
 */
import { escapeInline, fenced, fileLink, inlineCode, markdownLink, mayFormCommandLink, proseLine, quoted } from './transcriptMarkdownText';

export { mayFormCommandLink };
import { formatCost, priceUnknownHint } from '../core/model/cost';
import type { ContentBlockParam } from '../core/model/messages';
import { windowLearnedMessage } from '../core/context/learnedWindow';
import { blocksOf, toolResultText } from '../core/model/content';
import { imageText } from '../core/model/images';
import { promptTokensFromUsage } from '../core/model/usage';
import { estimateTokens } from '../core/context/gauge';
import type { SessionMeta, TranscriptLine, TranscriptProblem } from '../core/storage/sessionStore';
import type { CompactionRecord, TranscriptEntry } from '../core/storage/transcript';
import { subagentStatusEnglish } from '../frontends/words/subagents';
import { SUBAGENT_EVENT_NAMES, subagentEventFromRecord } from '../core/agent/subagentEvents';
import { TOOL_CARD_RECORD, toolCardFromRecord } from '../core/agent/toolCards';
import { recordedTodos, todoListText } from '../core/todos/todos';
import { nestedNoteFile } from '../core/instructions/instructionFiles';
import { hookNoteEvent } from '../core/hooks/notes';

import { saveSessionImage, sessionImagePath, type SessionImage } from '../core/storage/sessionImages';

/** Why the mode changed, as the transcript tab says it. */
const MODE_REASON_TEXT = { start: 'the session started in it', switch: 'the user switched to it', build: 'the user built the proposed plan' } as const;

export interface TranscriptRenderOptions {
  /** transcript.jsonl itself, for "full text" links to the line a folded block came from. */
  transcriptPath?: string;
  /** Tool inputs and outputs longer than this many lines are folded to head + tail; thinking (collapsed in the chat too) past thinkingFoldLines, to half of them + a quarter. */
  foldLines: number;
  thinkingFoldLines: number;
  /** User and assistant prose is folded only past this many lines (it is what people read). */
  proseFoldLines: number;
  headLines: number;
  tailLines: number;
  /** A longer line is cut (one 5 MB line of minified JSON must not become one editor line). */
  maxLineChars: number;
  /** Past this much output every fold gets tighter, so a 50 MB transcript stays an openable document. */
  tightAfterChars: number;
  /** Hard cap of the document; what follows is left to the raw JSONL, and the cut says so. */
  maxChars: number;
  /**
   * Where a link to another transcript's document goes (the host's read-only tab): a subagent's
   * from its parent's `task` call, the parent's from a subagent. Without it a subagent links to its
   * raw transcript.jsonl only, and a subagent's document names its parent without a link.
   */
  transcriptHref?: (target: { sessionId: string; childId?: string; title: string }) => string;
  /** The session's folder: the messages' images are saved there (storage/sessionImages.ts) and linked, so a click opens one. */
  sessionDir?: string;
  /** Yield to the event loop after this many entries or this many milliseconds, whichever comes first. */
  yieldEveryEntries: number;
  yieldEveryMs: number;
  signal?: AbortSignal;
}

export const TRANSCRIPT_RENDER_DEFAULTS: TranscriptRenderOptions = {
  foldLines: 60,
  thinkingFoldLines: 12,
  proseFoldLines: 400,
  headLines: 30,
  tailLines: 10,
  maxLineChars: 2_000,
  tightAfterChars: 8_000_000,
  maxChars: 24_000_000,
  yieldEveryEntries: 200,
  yieldEveryMs: 10,
};

export interface RenderedTranscript {
  text: string;
  /** 0-based document line of each compaction boundary's heading, in transcript order (drops included). */
  compactionLines: number[];
  entries: number;
  problems: TranscriptProblem[];
  foldedBlocks: number;
  /** The document stopped at maxChars; the rest is only in the raw JSONL. */
  cut: boolean;
  /** Images that could not be saved to the session folder, with why (their links open nothing). */
  unsavedImages: string[];
}

const fmt = (value: number) => value.toLocaleString('en-US');

/** Written first in a subagent's transcript (src/core/agent/subagents.ts): its parent, call, type and description. */
const SUBAGENT_OF_EVENT = 'subagent_of';

interface PersistedInfo {
  file: string;
  bytes: number;
  lines: number;
}

/** Incremental renderer: add() each transcript line in order, then finish(). Synchronous; the async driver yields. */
export class TranscriptMarkdownWriter {
  private readonly body: string[] = [];
  private bodyChars = 0;
  private bodyLines = 0;
  private readonly compactionLines: number[] = [];
  private readonly problems: TranscriptProblem[] = [];
  private readonly toolNames = new Map<string, string>();
  private readonly persisted = new Map<string, PersistedInfo>();
  /** Each boundary's time by compaction id: an undo names the boundary it took back. */
  private readonly compactionTimes = new Map<string, string>();
  private entries = 0;
  private foldedBlocks = 0;
  /** Images linked by the document, by the file they are saved to. */
  readonly images = new Map<string, SessionImage>();
  private cut = false;
  private skippedAfterCut = 0;
  private line: number | undefined;

  constructor(
    private readonly meta: SessionMeta,
    private readonly options: TranscriptRenderOptions = TRANSCRIPT_RENDER_DEFAULTS,
  ) {}

  add(item: TranscriptLine): void {
    if ('problem' in item) {
      this.problems.push({ line: item.line, reason: item.problem });
      return;
    }
    this.entries++;
    if (this.cut) {
      this.skippedAfterCut++;
      return;
    }
    this.line = item.line;
    this.entry(item.entry);
    if (this.bodyChars > this.options.maxChars) {
      this.cut = true;
      this.emit('', `*The document stops here: it reached ${fmt(this.options.maxChars)} characters. The rest is in the raw transcript${this.options.transcriptPath ? ` (${fileLink('transcript.jsonl', this.options.transcriptPath, item.line + 1)})` : ''}.*`);
    }
  }

  finish(): RenderedTranscript {
    const meta = this.meta;
    const header: string[] = [
      // A subagent's title is its description, written by the model.
      `# ${proseLine(meta.title)}`,
      '',
      `Session \`${meta.id}\` · model ${meta.model} · started ${meta.createdAt} · updated ${meta.updatedAt} · ${fmt(meta.messageCount)} messages · ${fmt(this.compactionLines.length)} compaction boundaries`,
      '',
      `Tokens: ${fmt(meta.totals.inputTokens)} input, ${fmt(meta.totals.outputTokens)} output, ${fmt(meta.totals.cacheReadTokens)} cache read, ${fmt(meta.totals.cacheWriteTokens)} cache write · cost ${formatCost(meta.totals.costUsd, meta.totals.unpricedRequests, 4)}${meta.totals.unpricedRequests ? ` (${priceUnknownHint(meta.totals.unpricedRequests)})` : ''}`,
      '',
      `*Read-only view of the transcript; large blocks are folded${this.options.transcriptPath ? ` — every entry is whole in ${fileLink('transcript.jsonl', this.options.transcriptPath)}` : ''}.*`,
    ];
    if (this.problems.length > 0) {
      const shown = this.problems.slice(0, 20).map((problem) => `line ${problem.line} (${problem.reason})`);
      header.push('', `*${this.problems.length} unreadable transcript line(s) were skipped: ${shown.join('; ')}${this.problems.length > shown.length ? '; …' : ''}.*`);
    }
    if (this.cut && this.skippedAfterCut > 0) this.body.push('', `*${fmt(this.skippedAfterCut)} more entries are not shown.*`);
    // The body's line 0 is the line right after the header.
    const offset = header.length;
    return {
      text: `${header.join('\n')}\n${this.body.join('\n')}\n`,
      compactionLines: this.compactionLines.map((line) => line + offset),
      entries: this.entries,
      problems: this.problems,
      foldedBlocks: this.foldedBlocks,
      cut: this.cut,
      unsavedImages: [],
    };
  }

  // ---- output ---------------------------------------------------------------------------------

  /** Each part is one or more lines; the body is joined with '\n' after the header. */
  private emit(...parts: string[]): void {
    for (const part of parts) {
      this.body.push(part);
      this.bodyChars += part.length + 1;
      let count = 1;
      for (let at = part.indexOf('\n'); at !== -1; at = part.indexOf('\n', at + 1)) count++;
      this.bodyLines += count;
    }
  }

  /** The document line the next emitted part starts on, relative to the body. */
  private get nextBodyLine(): number {
    return this.bodyLines;
  }

  private get tight(): boolean {
    return this.bodyChars > this.options.tightAfterChars;
  }

  /**
   * A block as it reads in the document: whole when short, else head + a note of what was folded
   * and where the full text is + tail. Over-long lines are cut either way.
   */
  private foldedBlock(text: string, kind: 'code' | 'prose' | 'thinking', info = '', fullText?: PersistedInfo): string {
    const options = this.options;
    const limit = Math.min(this.tight ? Math.min(options.foldLines, 12) : kind === 'prose' ? options.proseFoldLines : options.foldLines, kind === 'thinking' ? options.thinkingFoldLines : Infinity);
    const headCount = Math.min(this.tight ? Math.min(options.headLines, 6) : options.headLines, kind === 'thinking' ? Math.floor(limit / 2) : Infinity);
    const tailCount = Math.min(this.tight ? Math.min(options.tailLines, 3) : options.tailLines, kind === 'thinking' ? Math.floor(limit / 4) : Infinity);
    const maxLine = this.tight ? Math.min(options.maxLineChars, 300) : options.maxLineChars;
    const lines = text.split('\n');
    let cutLines = 0;
    const clip = (line: string) => {
      if (line.length <= maxLine) return line;
      cutLines++;
      return `${line.slice(0, maxLine)} … [${fmt(line.length - maxLine)} more characters]`;
    };
    // Prose that could form a `command:` link is shown as text (see mayFormCommandLink).
    const inert = kind === 'prose' && mayFormCommandLink(text);
    const wrap = (part: string[]) => (kind !== 'prose' || inert ? fenced(part.join('\n'), info) : part.join('\n'));
    const note = inert ? `*Shown as plain text: it holds a \`command:\` link, which this document never makes clickable.*\n\n` : '';
    if (lines.length <= limit) {
      const shown = lines.map(clip);
      if (cutLines === 0) return `${note}${wrap(shown)}`;
      this.foldedBlocks++;
      return `${note}${wrap(shown)}\n\n${this.whereFull(`${cutLines} long line(s) cut`, fullText)}`;
    }
    this.foldedBlocks++;
    const head = lines.slice(0, headCount).map(clip);
    const tail = lines.slice(lines.length - tailCount).map(clip);
    const folded = lines.length - head.length - tail.length;
    return `${note}${wrap(head)}\n\n${this.whereFull(`${fmt(folded)} lines folded`, fullText)}\n\n${wrap(tail)}`;
  }

  private whereFull(what: string, persisted?: PersistedInfo): string {
    const where: string[] = [];
    if (persisted) where.push(fileLink('saved output', persisted.file));
    if (this.options.transcriptPath) where.push(fileLink(this.line !== undefined ? `transcript.jsonl line ${this.line}` : 'transcript.jsonl', this.options.transcriptPath, this.line));
    return `*… ${what}${where.length > 0 ? ` — full text: ${where.join(' · ')}` : ''} …*`;
  }

  // ---- entries --------------------------------------------------------------------------------

  private entry(entry: TranscriptEntry): void {
    switch (entry.type) {
      case 'message':
        this.message(entry);
        return;
      case 'compaction':
        this.compaction(entry.ts, entry.compaction);
        return;
      case 'compaction_undo': {
        // The canonical history never changed, so the messages above stay; only what the model sees went back.
        const undone = this.compactionTimes.get(entry.compactionId);
        this.emit('', `*Compaction undone · ${entry.ts}: ${undone ? `the boundary of ${undone} no longer applies` : 'the newest boundary no longer applies'}; ~${fmt(entry.tokensBefore)} → ~${fmt(entry.tokensAfter)} tokens, the summarized messages are sent verbatim again.*`);
        return;
      }
      case 'tier_edit':
        this.emit('', `*Context ${entry.tier} · ${entry.ts}: ${entry.edits.length} old tool result(s) shortened in what the model sees (~${fmt(entry.tokensBefore)} → ~${fmt(entry.tokensAfter)} tokens); the originals in this document are unchanged.*`);
        return;
      case 'persisted_output':
        // Precedes its tool_result: noted there, with the link.
        this.persisted.set(entry.toolUseId, { file: entry.file, bytes: entry.bytes, lines: entry.lines });
        return;
      case 'repair':
        this.emit('', `*History repaired · ${entry.ts}: ${entry.repairs} fix(es) — ${entry.reason}.*`);
        return;
      case 'usage':
        return; // Totals are in the header.
      case 'system_prompt':
        return; // Shown in the header.
      case 'window_learned':
        this.emit('', `*${windowLearnedMessage(entry.window, entry.assumed)} · ${entry.ts}*`);
        return;
      case 'token_anchor':
        // Bookkeeping of the gauge's calibration: one quiet line, not a JSON dump.
        this.emit('', `*Context counted by the API: ${entry.anchor.promptTokens.toLocaleString('en-US')} tokens · ${entry.ts}*`);
        return;
      case 'compaction_failed':
        this.emit('', `*Compaction (${entry.trigger}) failed · ${entry.ts}: ${entry.reason}${entry.counts ? ' (counts toward pausing automatic compaction)' : ''}*`);
        return;
      case 'rewind':
        // The history above stays readable here; the conversation the model sees went back.
        this.emit('', `*Conversation rewound to checkpoint ${entry.checkpoint} · ${entry.ts}: the messages since then above are no longer sent to the model${entry.files === 'restored' ? '; the workspace files were restored too' : '; the workspace files were kept'}.*`);
        return;
      case 'rewind_undone':
        this.emit('', `*Rewind undone · ${entry.ts}: the conversation is as it was before it.*`);
        return;
      case 'compact_scheduled':
        this.emit('', `*The model asked for a compaction${entry.focus ? ` (focus: ${entry.focus})` : ''} · ${entry.ts}*`);
        return;
      case 'mode':
        // A custom mode's name is a file's text: shown as code, so it cannot break out of the line.
        this.emit('', `*Mode ${inlineCode(entry.mode)} · ${entry.ts}: ${MODE_REASON_TEXT[entry.reason]}; the model is told with the next message.*`);
        return;
      case 'event':
        if (SUBAGENT_EVENT_NAMES.has(entry.name) && this.subagent(entry)) return;
        if (entry.name === SUBAGENT_OF_EVENT && this.subagentOf(entry)) return;
        if (entry.name === TOOL_CARD_RECORD && this.toolCard(entry)) return;
        this.emit('', `*Event ${inlineCode(entry.name)} · ${entry.ts}*`, '', this.foldedBlock(JSON.stringify(entry.data, null, 2), 'code', 'json'));
        return;
      default: {
        // An entry kind newer than this renderer: shown by name rather than dropped silently.
        const other = entry as { type: string; ts: string };
        this.emit('', `*${inlineCode(String(other.type))} · ${other.ts}*`);
      }
    }
  }

  private message(entry: Extract<TranscriptEntry, { type: 'message' }>): void {
    const role = entry.message.role;
    const blocks = blocksOf(entry.message);
    // A subfolder's instructions ride with the results they came from: not the user's words.
    const onlyResults = role === 'user' && blocks.length > 0 && blocks.every((block) => block.type === 'tool_result' || (block.type === 'text' && (nestedNoteFile(block.text) !== undefined || hookNoteEvent(block.text) !== undefined)));
    // Who wrote a reply (recorded since the provider seam): a session may change provider on its way.
    const origin = role === 'assistant' && entry.model ? ` · ${inlineCode(entry.provider ? `${entry.provider}/${entry.model}` : entry.model)}` : '';
    this.emit('', onlyResults ? `### Tool results · ${entry.ts}` : `## ${role === 'user' ? 'User' : 'Assistant'} · ${entry.ts}${origin}`);
    for (const block of blocks) this.emit('', this.block(block, role));
  }

  private block(content: ContentBlockParam, role: 'user' | 'assistant'): string {
    switch (content.type) {
      case 'text': {
        const note = role === 'user' ? nestedNoteFile(content.text) : undefined;
        if (note !== undefined) return `**Instructions from ${inlineCode(note)}**, added for the folder\n\n${this.foldedBlock(content.text, 'prose')}`;
        // What a hook added for the model: its words, not the user's.
        const hook = role === 'user' ? hookNoteEvent(content.text) : undefined;
        if (hook !== undefined) return `**Added by a ${escapeInline(hook)} hook**\n\n${this.foldedBlock(content.text, 'code', 'text')}`;
        const text = this.foldedBlock(content.text, 'prose');
        return role === 'user' ? text.split('\n').map((line) => (line ? `> ${line}` : '>')).join('\n') : text;
      }
      case 'tool_use': {
        this.toolNames.set(content.id, content.name);
        return `**Tool call ${inlineCode(content.name)}** (${content.id})\n\n${this.toolInput(content.input)}`;
      }
      case 'tool_result': {
        const name = this.toolNames.get(content.tool_use_id);
        const persisted = this.persisted.get(content.tool_use_id);
        const saved = persisted ? ` · output too large for the context (${(persisted.bytes / 1024).toFixed(1)} KB, ${fmt(persisted.lines)} lines), saved in full: ${fileLink(persisted.file.split(/[\\/]/).slice(-2).join('/'), persisted.file)}` : '';
        const title = `**Result${name ? ` of ${inlineCode(name)}` : ''}${content.is_error ? ' (error)' : ''}** (${content.tool_use_id})${saved}`;
        return `${title}\n\n${this.foldedBlock(toolResultText(content), 'code', 'text', persisted)}`;
      }
      case 'thinking': // Model text in a fence (inert), folded sooner than tool output: it is collapsed in the chat too.
        return content.thinking === '' ? '*Thinking* · (empty)' : `*Thinking* · ~${fmt(estimateTokens(content.thinking))} tokens\n\n${this.foldedBlock(content.thinking, 'thinking', 'text')}`;
      case 'redacted_thinking': // Encrypted by the provider: its data stays in the JSONL.
        return '*Thinking* · (redacted)';
      case 'image': {
        // Named, never inlined (the bytes stay in the JSONL); linked to a copy in the session folder.
        const named = `*${escapeInline(imageText(content))}*`;
        if (content.source.type !== 'base64' || !this.options.sessionDir) return named;
        const image = { mediaType: content.source.media_type, data: content.source.data };
        const file = sessionImagePath(this.options.sessionDir, image);
        this.images.set(file, image);
        return `${named} (${fileLink('open image', file)})`;
      }
      default:
        return `*[${(content as { type: string }).type}]*`;
    }
  }

  /** Scalars as JSON; multi-line strings (file contents, patches) as their own readable blocks. */
  private toolInput(input: unknown): string {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return this.foldedBlock(JSON.stringify(input, null, 2), 'code', 'json');
    const scalars: Record<string, unknown> = {};
    const texts: Array<[string, string]> = [];
    for (const [key, value] of Object.entries(input)) {
      if (typeof value === 'string' && value.includes('\n')) texts.push([key, value]);
      else scalars[key] = value;
    }
    const parts = [this.foldedBlock(JSON.stringify(scalars, null, 2), 'code', 'json')];
    for (const [key, value] of texts) parts.push(`${inlineCode(key)}:\n\n${this.foldedBlock(value, 'code', 'text')}`);
    return parts.join('\n\n');
  }

  /**
   * A subagent under its parent's `task` call (its start and finish are recorded between the call
   * and its result): a link to the child's own document and, at the end, its outcome and report.
   * The child's transcript is never read here: a 50 MB parent renders the same with 100 children.
   */
  private subagent(entry: Extract<TranscriptEntry, { type: 'event' }>): boolean {
    const data = entry.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
    const event = subagentEventFromRecord(entry.name, data as Record<string, unknown>, '');
    if (!event) return false; // A malformed record is shown as it is (the generic event block).
    if (event.type === 'subagent_started') {
      const links: string[] = [];
      const href = this.options.transcriptHref?.({ sessionId: this.meta.id, childId: event.childId, title: event.description });
      if (href !== undefined) links.push(markdownLink('open its transcript', href));
      links.push(fileLink('raw JSONL', event.transcriptPath));
      this.emit('', quoted(`**Subagent** ${inlineCode(event.agentType)} · ${escapeInline(event.description)} · ${entry.ts}\n\nChild ${inlineCode(event.childId)}: ${links.join(' · ')}`));
      return true;
    }
    const usage = event.usage;
    const figures = [
      `${fmt(event.toolCalls)} tool call(s)`,
      `${(event.elapsedMs / 1000).toFixed(1)} s`,
      `${fmt(promptTokensFromUsage(usage))} input + ${fmt(usage.outputTokens)} output tokens`,
      formatCost(event.costUsd, event.unpricedRequests, 4),
    ];
    this.emit('', quoted(`**Subagent ${subagentStatusEnglish(event.status)}** (${inlineCode(event.childId)}) · ${figures.join(' · ')} · ${entry.ts}\n\n**Report**\n\n${this.foldedBlock(event.report || '(no report)', 'prose')}`));
    return true;
  }

  /** A fetched page's card (written when the call ended, before its result): where the page came from, its status and size. */
  private toolCard(entry: Extract<TranscriptEntry, { type: 'event' }>): boolean {
    const card = toolCardFromRecord(entry.data);
    if (!card) return false; // A malformed record is shown as it is (the generic event block).
    const { web } = card;
    const redirects = web.redirects?.length ? ` · after ${fmt(web.redirects.length)} redirect(s) from ${escapeInline(web.redirects[0]!)}` : '';
    this.emit('', `*Page fetched by ${inlineCode(card.toolUseId)}: ${escapeInline(web.url)} · HTTP ${web.status}${web.contentType ? ` · ${escapeInline(web.contentType)}` : ''} · ${fmt(web.bytes)} bytes${web.truncated ? ' (cut at the cap)' : ''}${redirects}${web.fromCache ? " · from the session's copy" : ''} · ${entry.ts}*`);
    return true;
  }

  /** A subagent's own document: whose child it is, with a link back to the parent's document. */
  private subagentOf(entry: Extract<TranscriptEntry, { type: 'event' }>): boolean {
    const data = entry.data as { parentId?: unknown; toolUseId?: unknown; description?: unknown; agentType?: unknown } | undefined;
    if (typeof data?.parentId !== 'string' || typeof data.toolUseId !== 'string') return false;
    const href = this.options.transcriptHref?.({ sessionId: data.parentId, title: 'transcript' });
    const what = [typeof data.agentType === 'string' ? inlineCode(data.agentType) : '', typeof data.description === 'string' ? escapeInline(data.description) : ''].filter(Boolean).join(' · ');
    const parent = href === undefined ? `session ${inlineCode(data.parentId)}` : markdownLink(`session ${data.parentId}`, href);
    this.emit('', `*Subagent${what ? ` ${what}` : ''}, launched by ${parent} (its \`task\` call ${inlineCode(data.toolUseId)}) · ${entry.ts}*`);
    return true;
  }

  private compaction(ts: string, record: CompactionRecord): void {
    const stats = record.stats;
    this.compactionTimes.set(record.id, ts);
    this.emit('', '---', '');
    this.compactionLines.push(this.nextBodyLine);
    const title = record.trigger === 'drop' ? 'Oldest rounds dropped (prompt too long)' : `Context compacted (${record.trigger})`;
    this.emit(`## ${title} · ${ts}`, '');
    this.emit(`~${fmt(stats.tokensBefore)} → ~${fmt(stats.tokensAfter)} tokens; ${fmt(stats.messagesSummarized)} message(s) ${record.trigger === 'drop' ? 'dropped' : 'summarized'}, ${fmt(stats.messagesKept)} kept verbatim${record.focus ? `; focus: ${proseLine(record.focus)}` : ''}.`);
    if (record.restoredFiles.length > 0) this.emit('', `Files restored: ${record.restoredFiles.map((file) => inlineCode(file.path)).join(', ')}`);
    if (record.summary !== undefined && record.trigger !== 'drop') this.emit('', '**Summary**', '', this.foldedBlock(record.summary, 'code', 'text'));
    // The list the model saw next to the summary (model text: in a code block, like the summary).
    const todos = record.todos === undefined ? undefined : recordedTodos(record.todos);
    if (todos && todos.length > 0) this.emit('', '**Task list**', '', this.foldedBlock(todoListText(todos, Number.POSITIVE_INFINITY), 'code', 'text'));
    this.emit('', '---');
  }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Renders entries as they arrive (a streamed transcript or an array), yielding to the event loop
 * every few entries or milliseconds so a 50 MB transcript never blocks its host.
 */
export async function renderTranscript(
  meta: SessionMeta,
  source: AsyncIterable<TranscriptLine> | Iterable<TranscriptLine>,
  options: Partial<TranscriptRenderOptions> = {},
): Promise<RenderedTranscript> {
  const settings = { ...TRANSCRIPT_RENDER_DEFAULTS, ...options };
  const writer = new TranscriptMarkdownWriter(meta, settings);
  let sinceYield = 0;
  let lastYield = Date.now();
  settings.signal?.throwIfAborted();
  for await (const item of source) {
    writer.add(item);
    if (++sinceYield >= settings.yieldEveryEntries || Date.now() - lastYield >= settings.yieldEveryMs) {
      await yieldToEventLoop();
      settings.signal?.throwIfAborted();
      sinceYield = 0;
      lastYield = Date.now();
    }
  }
  const rendered = writer.finish();
  const sessionDir = settings.sessionDir;
  if (sessionDir) {
    for (const [file, image] of writer.images) {
      await saveSessionImage(sessionDir, image).catch((error: unknown) => rendered.unsavedImages.push(`${file}: ${error instanceof Error ? error.message : String(error)}`));
    }
  }
  return rendered;
}

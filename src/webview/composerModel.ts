/**
 * The composer's attachments as data (issue 17): the chips, the @ picker's state and rows, and the
 * message's size before it is sent. Pure, so the keyboard rules are tested without a browser;
 * composerView.ts draws it.
 */
import { CHARS_PER_TOKEN, splitLineRange, MAX_ATTACHMENTS, type AttachmentOption, type AttachmentRequest, type WebviewStringKey } from '../protocol';
import { t } from './strings';

export interface Chip {
  request: AttachmentRequest;
  label: string;
  /** Known size in tokens (a file's bytes / 4); undefined: measured when sent. */
  tokens?: number;
  /** Added by the editor's selection, not by the user: it follows the selection until removed. */
  automatic?: boolean;
}

export interface PickerRow {
  request: AttachmentRequest;
  label: string;
  detail: string;
  tokens?: number;
}

/** The kinds the host gathers at send time, offered first in the picker. */
const GATHERED: readonly { kind: 'selection' | 'problems' | 'terminal' | 'git-changes'; detail: WebviewStringKey }[] = [
  { kind: 'selection', detail: 'composer.gatheredSelection' },
  { kind: 'problems', detail: 'composer.gatheredProblems' },
  { kind: 'terminal', detail: 'composer.gatheredTerminal' },
  { kind: 'git-changes', detail: 'composer.gatheredGitChanges' },
];

/** The `@query` just before the caret, or undefined (an @ inside a word, like an e-mail address, is not one). */
export function pickerQueryAt(text: string, caret: number): { start: number; query: string } | undefined {
  const match = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return match ? { start: caret - match[2]!.length - 1, query: match[2]! } : undefined;
}

/** "src/app.ts:10-40" asks for those lines of the file the host offered as src/app.ts; a backwards range is no range. */
function splitRange(query: string): { path: string; fromLine?: number; toLine?: number } {
  const { path, range } = splitLineRange(query);
  return range?.valid ? { path, fromLine: range.fromLine, toLine: range.toLine } : { path: query };
}

/** What the host is asked for: the query without its line range. */
export function pickerQueryPath(query: string): string {
  return splitLineRange(query).path;
}

export function chipLabel(request: AttachmentRequest): string {
  if (request.kind === 'file') return request.fromLine === undefined ? request.path : `${request.path}:${request.fromLine}-${request.toLine}`;
  if (request.kind === 'folder') return `${request.path}/`;
  if (request.kind === 'image') return `image: ${request.name}`;
  return request.kind;
}

/** The picker's rows for a query: matching gathered kinds, then the host's files and folders. */
export function pickerRows(query: string, options: readonly AttachmentOption[]): PickerRow[] {
  const lowered = query.toLowerCase();
  const range = splitRange(query);
  const rows: PickerRow[] = GATHERED.filter((kind) => kind.kind.startsWith(lowered)).map((kind) => ({ request: { kind: kind.kind }, label: `@${kind.kind}`, detail: t(kind.detail) }));
  for (const option of options) {
    const request: AttachmentRequest =
      option.kind === 'file' && range.fromLine !== undefined && option.path === range.path
        ? { kind: 'file', path: option.path, fromLine: range.fromLine, toLine: range.toLine! }
        : option.kind === 'file'
          ? { kind: 'file', path: option.path }
          : { kind: 'folder', path: option.path };
    rows.push({ request, label: chipLabel(request), detail: option.kind === 'folder' ? t('composer.rowFolder') : t('composer.rowFile'), ...(option.tokens !== undefined ? { tokens: option.tokens } : {}) });
  }
  return rows;
}

const sameRequest = (a: AttachmentRequest, b: AttachmentRequest): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Adds a chip unless the same one is there or the message is full; returns why not, or undefined. */
export function addChip(chips: Chip[], chip: Chip): string | undefined {
  if (chips.some((existing) => sameRequest(existing.request, chip.request))) return t('composer.alreadyAttached', chip.label);
  if (chips.length >= MAX_ATTACHMENTS) return t('composer.tooMany', MAX_ATTACHMENTS);
  chips.push(chip);
  return undefined;
}

/** "this message: ~N tokens" before sending; kinds gathered at send time are counted then. */
export function messageEstimate(text: string, chips: readonly Chip[]): string {
  const known = Math.ceil(text.length / CHARS_PER_TOKEN) + chips.reduce((sum, chip) => sum + (chip.tokens ?? 0), 0);
  const unmeasured = chips.filter((chip) => chip.tokens === undefined).length;
  const tokens = known >= 1000 ? `${(known / 1000).toFixed(known >= 10_000 ? 0 : 1)}k` : String(known);
  return unmeasured > 0 ? t('composer.estimateUnmeasured', tokens, unmeasured) : t('composer.estimate', tokens);
}

/**
 * Where VS Code puts the resources of a drag from the Explorer or an editor tab, by data type:
 * its own URI list, the standard one, the Explorer's JSON list and the editor tabs' JSON.
 */
const DROP_TYPES = ['application/vnd.code.uri-list', 'text/uri-list', 'resourceurls', 'codeeditors'] as const;

/**
 * The workspace-relative paths of the files dropped on the composer (local `file:` or, in a remote
 * window such as code-server, `vscode-remote:` URIs), and the dropped paths outside the workspace.
 * The host confines each path again when the message is sent.
 */
export function droppedPaths(getData: (type: string) => string, root: string): { inside: string[]; outside: string[] } {
  const uris = new Set<string>();
  for (const type of DROP_TYPES) {
    const data = getData(type).trim();
    if (data === '') continue;
    if (type === 'resourceurls' || type === 'codeeditors') {
      for (const entry of parseJsonList(data)) {
        const uri = typeof entry === 'string' ? entry : typeof entry === 'object' && entry !== null && 'resource' in entry ? entry.resource : undefined;
        if (typeof uri === 'string') uris.add(uri);
      }
    } else {
      for (const line of data.split(/\r?\n/)) if (line.trim() !== '' && !line.startsWith('#')) uris.add(line.trim());
    }
  }
  const inside = new Set<string>();
  const outside = new Set<string>();
  for (const uri of uris) {
    const file = filePathOf(uri);
    if (file === undefined) continue;
    const relative = file.startsWith(`${root}/`) ? file.slice(root.length + 1) : undefined;
    (relative ? inside : outside).add(relative ?? file);
  }
  return { inside: [...inside], outside: [...outside] };
}

function parseJsonList(data: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(data);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** A dropped URI's file path, for the schemes that name a file of this window's machine. */
function filePathOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    if (url.protocol !== 'file:' && url.protocol !== 'vscode-remote:') return undefined;
    return decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
}

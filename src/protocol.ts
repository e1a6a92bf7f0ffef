/**
 * The typed messages between the extension host and the chat webview — the only module both
 * sides import. Host -> webview messages carry agent events verbatim, so the webview renders
 * the same stream the CLI prints with `--output-format stream-json`.
 */
import type { AgentEvent, ErrorAction } from './core/agent/events';
import type { ContextGauge as GaugeState } from './core/context/gauge';
import { CONTEXT_DEFAULTS } from './core/context/defaults';

export type { AgentEvent, AttachmentChip } from './core/agent/events';
/** A subagent's outcome in words (one table for the chat and the archived transcript). */
export { SUBAGENT_STATUS_TEXT } from './core/agent/events';

/** How a cost reads, "price unknown" included (one definition for the core and the panel). */
export { formatCost } from './core/model/cost';
export { MCP_CALL_TOOL } from './core/mcp/deferredNames';
/** How a command is shown for approval, the same way the CLI shows it (escapes, padding, size); escapeText for model text shown as text (thinking). */
export { commandPreview, commandSize, commandView, escapeText, hiddenText, MODEL_DESCRIPTION_LABEL, NEWLINE_MARKER, visibleCommandLine, visibleDescription, type CommandView } from './core/visibleText';

/** Token gauge: where the context stands against the window (computed in the core). */
export type { ContextGauge as GaugeState } from './core/context/gauge';

export type SessionStatus = 'idle' | 'busy';

export interface ViewState {
  sessionId: string | undefined;
  model: string;
  /** Who serves the model, for people: "Anthropic" or "OpenAI" (any OpenAI-compatible server). */
  providerLabel: string;
  status: SessionStatus;
  hasApiKey: boolean;
  trusted: boolean;
  gauge: GaugeState | undefined;
  /** Events of the current session so far, replayed when the view is (re)created. */
  history: AgentEvent[];
}

/** Next steps the core offers for an error (rendered as buttons). */
export type { ErrorAction, ErrorKind } from './core/agent/events';

export type HostToWebview =
  | { type: 'state'; state: ViewState }
  | { type: 'agentEvent'; event: AgentEvent }
  | { type: 'gauge'; gauge: GaugeState }
  | { type: 'notice'; level: 'info' | 'error'; message: string }
  /** Edit and resend: the message's text goes back into the composer. */
  | { type: 'composerText'; text: string }
  | { type: 'attachmentOptions'; requestId: number; options: AttachmentOption[] }
  /** The active editor, for the composer's one-click chips (the file, and the selection when there is one). */
  | { type: 'editorContext'; root?: string; file?: string; selection?: { path: string; fromLine: number; toLine: number }; autoAttach: EditorAutoAttach }
  | { type: 'response'; requestId: number; ok: true }
  | { type: 'response'; requestId: number; ok: false; error: string; actions?: ErrorAction[] };

export type WebviewCommand = 'newChat' | 'compactConversation' | 'setApiKey' | 'showContextBreakdown' | 'cancel' | 'openSettings' | 'openFolder' | 'retry' | 'undoLastCompaction';

/** How each of the core's next steps shows (a button in the panel or a toast) and what it runs: one table for host and webview. */
export const ERROR_ACTION_COMMANDS: Readonly<Record<ErrorAction, { label: string; command: WebviewCommand }>> = {
  setApiKey: { label: 'Set API Key', command: 'setApiKey' },
  retry: { label: 'Retry', command: 'retry' },
  compact: { label: 'Compact', command: 'compactConversation' },
  newChat: { label: 'New Chat', command: 'newChat' },
  openSettings: { label: 'Open Settings', command: 'openSettings' },
  openFolder: { label: 'Open Folder', command: 'openFolder' },
};

/**
 * What the composer asks to attach (issue 17). Files and folders are read by the host's tools at
 * send time; the other kinds are gathered by the host at send time (the editor's selection, the
 * problems, the active terminal's last command, the working tree's diff). Lines are 1-based.
 */
export type AttachmentRequest =
  | { kind: 'file'; path: string; fromLine?: number; toLine?: number }
  | { kind: 'folder'; path: string }
  | { kind: 'selection' | 'problems' | 'terminal' | 'git-changes' }
  /** A pasted or dropped image, base64; the host checks its bytes against the providers' limits. */
  | { kind: 'image'; name: string; data: string };

/** One row of the composer's @ picker: a workspace file or folder matching what was typed. */
export interface AttachmentOption {
  kind: 'file' | 'folder';
  path: string;
  /** A rough size in tokens (files: bytes / 4), for "this message: ~N tokens". */
  tokens?: number;
}

/** What of the active editor a new message carries by itself (`evergreen.attachments.editorContext`); the rest is offered. */
export type EditorAutoAttach = 'selection' | 'fileAndSelection' | 'none';

/** Attachments one message may carry. */
export const MAX_ATTACHMENTS = 20;

/** How a path names lines of a file (`src/app.ts:10-40`), read the same in the CLI and the composer. */
export { splitLineRange } from './core/agent/lineRange';

/** The providers' image limits, for the composer's resizing of pasted images. */
export { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, NATIVE_LONG_EDGE } from './core/model/imageLimits';

/** The engine's characters-per-token estimate, for the composer's "this message: ~N tokens". */
export const CHARS_PER_TOKEN = CONTEXT_DEFAULTS.charsPerToken;

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'sendMessage'; requestId: number; text: string; attachments?: AttachmentRequest[] }
  /** The @ picker's query (what follows the @); answered by `attachmentOptions` with the same id. */
  | { type: 'attachmentQuery'; requestId: number; query: string }
  /** `always`: a web fetch's host is allowed for this workspace too (ignored for other approvals). */
  | { type: 'approvalDecision'; toolUseId: string; approved: boolean; always?: boolean }
  | { type: 'runCommand'; requestId: number; command: WebviewCommand }
  /** A divider's transcript link: the archived transcript of the current session at its `compactionIndex`-th compaction (0-based, drops included). */
  | { type: 'openTranscriptAt'; compactionIndex: number }
  /** A subagent card's "Open transcript": the child's transcript, looked up by the host among the current session's children only. */
  | { type: 'openSubagentTranscript'; childId: string }
  /** A click on a link in model text: the host opens web links (after asking) and workspace files only. */
  | { type: 'openLink'; href: string }
  /** A persist note's "saved output" link: the host opens `file` read-only, and only if it is in the current session's tool-results folder. */
  | { type: 'openSavedOutput'; file: string }
  /** A user message's "Restore…": the host asks what to restore (files, conversation, edit and resend) and confirms. */
  | { type: 'restoreCheckpoint'; checkpoint: number }
  /** "Edit" on the last user message: the conversation goes back to before it (files stay) and its text returns to the composer. */
  | { type: 'editMessage'; checkpoint: number };

/** Runtime guard for messages arriving from the webview: it is a separate, less trusted context. */
/**
 * What the host logs about a webview message it refused: its type only (never its text, which may
 * be the user's words), made printable and cut short, since the sender is less trusted.
 */
export function describeRejectedMessage(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `a ${value === null ? 'null' : typeof value} instead of a message object`;
  const type = (value as Record<string, unknown>).type;
  if (typeof type !== 'string') return 'a message without a string "type"';
  const printable = type.replace(/[^\x20-\x7e]/g, '?');
  return `a "${printable.length > 40 ? `${printable.slice(0, 40)}…` : printable}" message that is unknown or malformed`;
}

export function parseWebviewMessage(value: unknown): WebviewToHost | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'ready':
      return { type: 'ready' };
    case 'sendMessage': {
      if (typeof message.requestId !== 'number' || typeof message.text !== 'string') return undefined;
      if (message.attachments === undefined) return { type: 'sendMessage', requestId: message.requestId, text: message.text };
      const attachments = parseAttachmentRequests(message.attachments);
      return attachments ? { type: 'sendMessage', requestId: message.requestId, text: message.text, attachments } : undefined;
    }
    case 'attachmentQuery':
      return typeof message.requestId === 'number' && typeof message.query === 'string' && message.query.length <= MAX_LINK_CHARS
        ? { type: 'attachmentQuery', requestId: message.requestId, query: message.query }
        : undefined;
    case 'approvalDecision':
      return typeof message.toolUseId === 'string' && typeof message.approved === 'boolean'
        ? { type: 'approvalDecision', toolUseId: message.toolUseId, approved: message.approved, ...(message.always === true && message.approved ? { always: true } : {}) }
        : undefined;
    case 'openTranscriptAt': {
      const index = message.compactionIndex;
      return typeof index === 'number' && Number.isSafeInteger(index) && index >= 0 ? { type: 'openTranscriptAt', compactionIndex: index } : undefined;
    }
    case 'openSubagentTranscript':
      // An id, never a path: the host finds the child under the current session itself.
      return typeof message.childId === 'string' && CHILD_ID.test(message.childId) ? { type: 'openSubagentTranscript', childId: message.childId } : undefined;
    case 'runCommand':
      return typeof message.requestId === 'number' && isWebviewCommand(message.command)
        ? { type: 'runCommand', requestId: message.requestId, command: message.command }
        : undefined;
    case 'openLink':
      return typeof message.href === 'string' && message.href.length > 0 && message.href.length <= MAX_LINK_CHARS ? { type: 'openLink', href: message.href } : undefined;
    case 'openSavedOutput':
      // Shape only: where the file may be is the host's check (openSavedOutput in links.ts).
      return typeof message.file === 'string' && message.file.length > 0 && message.file.length <= MAX_LINK_CHARS ? { type: 'openSavedOutput', file: message.file } : undefined;
    case 'restoreCheckpoint':
    case 'editMessage': {
      const checkpoint = message.checkpoint;
      return typeof checkpoint === 'number' && Number.isSafeInteger(checkpoint) && checkpoint >= 1 ? { type: message.type, checkpoint } : undefined;
    }
    default:
      return undefined;
  }
}

const MAX_LINK_CHARS = 4096;

/** A pasted image larger than this never leaves the webview (the models take 5 MB of base64; the host says why when it is over). */
const MAX_IMAGE_CHARS = 32 * 1024 * 1024;
const GATHERED_KINDS = new Set(['selection', 'problems', 'terminal', 'git-changes']);
const isLine = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

/** Attachments as the webview sent them, or undefined when any is malformed (the whole message is refused). */
function parseAttachmentRequests(value: unknown): AttachmentRequest[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_ATTACHMENTS) return undefined;
  const parsed: AttachmentRequest[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { kind, path, fromLine, toLine } = item as Record<string, unknown>;
    if (kind === 'image') {
      const { name, data } = item as Record<string, unknown>;
      if (typeof name !== 'string' || name.length === 0 || name.length > 200 || typeof data !== 'string' || data.length > MAX_IMAGE_CHARS || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return undefined;
      parsed.push({ kind, name, data });
      continue;
    }
    if (typeof kind === 'string' && GATHERED_KINDS.has(kind)) {
      parsed.push({ kind: kind as 'selection' });
      continue;
    }
    // Shape only: the host's tools confine the path to the workspace.
    if ((kind !== 'file' && kind !== 'folder') || typeof path !== 'string' || path.length === 0 || path.length > MAX_LINK_CHARS) return undefined;
    if (kind === 'folder') {
      parsed.push({ kind, path });
      continue;
    }
    if (fromLine === undefined && toLine === undefined) parsed.push({ kind, path });
    else if (isLine(fromLine) && isLine(toLine) && toLine >= fromLine) parsed.push({ kind, path, fromLine, toLine });
    else return undefined;
  }
  return parsed;
}
/** A session id's characters (as the session store allows them), bounded. */
const CHILD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,100}$/;

const WEBVIEW_COMMANDS: readonly WebviewCommand[] = ['newChat', 'compactConversation', 'setApiKey', 'showContextBreakdown', 'cancel', 'openSettings', 'openFolder', 'retry', 'undoLastCompaction'];

function isWebviewCommand(value: unknown): value is WebviewCommand {
  return typeof value === 'string' && (WEBVIEW_COMMANDS as readonly string[]).includes(value);
}

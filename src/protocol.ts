/**
 * The typed messages between the extension host and the chat webview — the only module both
 * sides import. Host -> webview messages carry agent events verbatim, so the webview renders
 * the same stream the CLI prints with `--output-format stream-json`.
 */
import type { AgentEvent, ErrorAction } from './core/agent/events';
import type { ContextGauge as GaugeState } from './core/context/gauge';

export type { AgentEvent } from './core/agent/events';
/** A subagent's outcome in words (one table for the chat and the archived transcript). */
export { SUBAGENT_STATUS_TEXT } from './core/agent/events';

/** How a cost reads, "price unknown" included (one definition for the core and the panel). */
export { formatCost } from './core/model/cost';
/** How a command is shown for approval, the same way the CLI shows it (escapes, padding, size). */
export { commandPreview, commandSize, commandView, hiddenText, MODEL_DESCRIPTION_LABEL, NEWLINE_MARKER, visibleCommandLine, visibleDescription, type CommandView } from './core/visibleText';

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

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'sendMessage'; requestId: number; text: string }
  | { type: 'approvalDecision'; toolUseId: string; approved: boolean }
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
  | { type: 'restoreCheckpoint'; checkpoint: number };

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
    case 'sendMessage':
      return typeof message.requestId === 'number' && typeof message.text === 'string'
        ? { type: 'sendMessage', requestId: message.requestId, text: message.text }
        : undefined;
    case 'approvalDecision':
      return typeof message.toolUseId === 'string' && typeof message.approved === 'boolean'
        ? { type: 'approvalDecision', toolUseId: message.toolUseId, approved: message.approved }
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
    case 'restoreCheckpoint': {
      const checkpoint = message.checkpoint;
      return typeof checkpoint === 'number' && Number.isSafeInteger(checkpoint) && checkpoint >= 1 ? { type: 'restoreCheckpoint', checkpoint } : undefined;
    }
    default:
      return undefined;
  }
}

const MAX_LINK_CHARS = 4096;
/** A session id's characters (as the session store allows them), bounded. */
const CHILD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,100}$/;

const WEBVIEW_COMMANDS: readonly WebviewCommand[] = ['newChat', 'compactConversation', 'setApiKey', 'showContextBreakdown', 'cancel', 'openSettings', 'openFolder', 'retry', 'undoLastCompaction'];

function isWebviewCommand(value: unknown): value is WebviewCommand {
  return typeof value === 'string' && (WEBVIEW_COMMANDS as readonly string[]).includes(value);
}

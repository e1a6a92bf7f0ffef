/**
 * The typed messages between the extension host and the chat webview — the only module both
 * sides import. Host -> webview messages carry agent events as the host worded them (every
 * UserText of the core in the user's language, src/frontends/words), so the webview renders the
 * same stream the CLI prints with `--output-format stream-json`, in the user's words.
 */
import type { AgentEvent as CoreAgentEvent, ErrorAction } from './core/agent/events';
import type { Worded } from './core/texts/userText';
import { WEBVIEW_STRINGS } from './protocolStrings';
import type { ContextGauge } from './core/context/gauge';
import type { SessionInsights as CoreSessionInsights, InsightsAction as CoreInsightsAction } from './core/insights/sessionInsights';
import type { PlanDecisionKind } from './core/todos/planDecision';
import type { CommandOption } from './core/commands/slash';

export type { AttachmentChip, HookRunView } from './core/agent/events';
/** An agent event as the panel gets it: the core's kinds already in words (src/frontends/words/wordEvent.ts). */
export type AgentEvent = Worded<CoreAgentEvent>;
/** A card a tool has of its own (a memory write), from the call's input. */
export type { ToolCard } from './core/tools/types';
export type { PlanDecisionKind } from './core/todos/planDecision';

/** How a cost reads, "price unknown" included (one definition for the core and the panel). */
export { formatCost } from './core/model/cost';
export { MCP_CALL_TOOL } from './core/mcp/deferredNames';
/** How a command is shown for approval, the same way the CLI shows it (escapes, padding, size); escapeText for model text shown as text (thinking). */
export { commandPreview, commandSize, commandView, escapeText, hiddenText, MODEL_DESCRIPTION_LABEL, NEWLINE_MARKER, visibleCommandLine, visibleDescription, type CommandView } from './core/visibleText';

/** Token gauge: where the context stands against the window (computed in the core, worded by the host). */
export type GaugeState = Worded<ContextGauge>;
/** The gauge's hover as one text (its worded paragraphs joined). */
export { gaugeTooltipText } from './core/context/gaugeTooltip';

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
  /** The composer's mode picker: the mode on (or the next chat's), and every mode to pick from. */
  modes: ModePicker;
}

/** The modes a chat can be in (issue 28), as the composer's picker shows them. */
export interface ModePicker {
  current: string;
  options: ModeOption[];
}

export interface ModeOption {
  name: string;
  /** One line (the mode's description, or its file's first line). */
  description: string;
  /** Where a custom mode comes from (`.github/agents/reviewer.agent.md`); absent for agent and plan. */
  source?: string;
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
  /** The message box takes the focus: after a host dialog the panel opened (a key, a Restore, an Undo), or from "Focus Chat Input" (its keybinding, the walkthrough), which may type `insert` at the caret (`@` opens the picker). */
  | { type: 'focusInput'; insert?: string }
  /** The active editor, for the composer's one-click chips (the file, and the selection when there is one). */
  | { type: 'editorContext'; root?: string; file?: string; selection?: { path: string; fromLine: number; toLine: number }; autoAttach: EditorAutoAttach }
  /** The answer to the panel's request `requestId` (WebviewRequests). */
  | WebviewReply;

/** The commands the panel may run (its buttons and the errors' next steps); the host refuses any other. */
export const WEBVIEW_COMMANDS = ['newChat', 'compactConversation', 'setApiKey', 'showContextBreakdown', 'showSessionInsights', 'cancel', 'openSettings', 'openFolder', 'retry', 'undoLastCompaction', 'openMemory'] as const;
export type WebviewCommand = (typeof WEBVIEW_COMMANDS)[number];

/** How each of the core's next steps shows (a button in the panel or a toast) and what it runs: one table for host and webview. */
export const ERROR_ACTION_COMMANDS: Readonly<Record<ErrorAction, { label: string; command: WebviewCommand }>> = {
  setApiKey: { label: WEBVIEW_STRINGS['action.setApiKey'], command: 'setApiKey' },
  retry: { label: WEBVIEW_STRINGS['action.retry'], command: 'retry' },
  compact: { label: WEBVIEW_STRINGS['action.compact'], command: 'compactConversation' },
  newChat: { label: WEBVIEW_STRINGS['action.newChat'], command: 'newChat' },
  openSettings: { label: WEBVIEW_STRINGS['action.openSettings'], command: 'openSettings' },
  openFolder: { label: WEBVIEW_STRINGS['action.openFolder'], command: 'openFolder' },
};

/** The panel's words (src/protocolStrings.ts): English by key, sent by the host in the user's language. */
export { WEBVIEW_STRINGS, WEBVIEW_STRINGS_ELEMENT_ID, type WebviewStringKey, type WebviewStrings } from './protocolStrings';

/**
 * What the composer asks to attach (issue 17). Files and folders are read by the host's tools at
 * send time; the other kinds are gathered by the host at send time (the editor's selection, the
 * problems, the active terminal's last command, the working tree's diff). Lines are 1-based.
 */
export type AttachmentRequest =
  | { kind: 'file'; path: string; fromLine?: number; toLine?: number }
  | { kind: 'folder'; path: string }
  | { kind: GatheredAttachmentKind }
  /** A pasted or dropped image, base64; the host checks its bytes against the providers' limits. */
  | { kind: 'image'; name: string; data: string };

/** What the host gathers itself at send time: the editor's selection, the problems, the terminal's last command, the working tree's diff. */
export const GATHERED_ATTACHMENT_KINDS = ['selection', 'problems', 'terminal', 'git-changes'] as const;
export type GatheredAttachmentKind = (typeof GATHERED_ATTACHMENT_KINDS)[number];

/** One row of the composer's @ picker: a workspace file or folder matching what was typed. */
export interface AttachmentOption {
  kind: 'file' | 'folder';
  path: string;
  /** A rough size in tokens (files: bytes / 4), for "this message: ~N tokens". */
  tokens?: number;
}

/** One row of the composer's / picker (the host's answer to `commandQuery`). */
export type { CommandOption };

/** What of the active editor a new message carries by itself (`evergreen.attachments.editorContext`); the rest is offered. */
export type EditorAutoAttach = 'selection' | 'fileAndSelection' | 'none';

/** Attachments one message may carry. */
export const MAX_ATTACHMENTS = 20;

/** How a path names lines of a file (`src/app.ts:10-40`), read the same in the CLI and the composer. */
export { splitLineRange } from './core/agent/lineRange';

/** The providers' image limits, for the composer's resizing of pasted images. */
export { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, NATIVE_LONG_EDGE } from './core/model/imageLimits';

/**
 * The engine's characters-per-token estimate (CONTEXT_DEFAULTS.charsPerToken), for the composer's
 * "this message: ~N tokens"; taken from where it is defined, so the panel's bundle stays free of
 * the engine's settings parsing.
 */
export { DEFAULT_CHARS_PER_TOKEN as CHARS_PER_TOKEN } from './core/model/content';

/**
 * Every request the panel makes: what it carries, and the value the host answers with (continue's
 * `{ name: [request, reply] }` map). The panel sends `{ type, requestId, ...request }`; the host
 * answers each with exactly one `reply` of the same id: `ok: true` and the value, or `ok: false`
 * and the error with its next steps. The host checks every request against its schema
 * (extension/webviewRequests.ts), since the panel is the less trusted side; a request it refuses
 * is answered with an error too, when its id can be read.
 */
export interface WebviewRequests {
  /** The panel was (re)created: the host posts the state and the editor context. */
  ready: [Record<never, never>, void];
  /** Settled when the turn it started ends (a failure to start it is the error). */
  sendMessage: [{ text: string; attachments?: AttachmentRequest[] }, void];
  /** The @ picker's query (what follows the @): the matching workspace files and folders. */
  attachmentQuery: [{ query: string }, AttachmentOption[]];
  /** The / picker's query (what follows the /): the matching commands, built-in and from files. */
  commandQuery: [{ query: string }, CommandOption[]];
  /** `always`: a web fetch's host is allowed for this workspace too (ignored for other approvals). */
  approvalDecision: [{ toolUseId: string; approved: boolean; always?: boolean }, void];
  runCommand: [{ command: WebviewCommand }, void];
  /** A divider's transcript link: the archived transcript of the current session at its `compactionIndex`-th compaction (0-based, drops included). */
  openTranscriptAt: [{ compactionIndex: number }, void];
  /** A subagent card's "Open transcript": the child's transcript, looked up by the host among the current session's children only. */
  openSubagentTranscript: [{ childId: string }, void];
  /** A click on a link in model text: the host opens web links (after asking) and workspace files only. */
  openLink: [{ href: string }, void];
  /** A persist note's "saved output" link: the host opens `file` read-only, and only if it is in the current session's tool-results folder. */
  openSavedOutput: [{ file: string }, void];
  /** A user message's "Restore…": the host asks what to restore (files, conversation, edit and resend) and confirms. */
  restoreCheckpoint: [{ checkpoint: number }, void];
  /** "Edit" on the last user message: the conversation goes back to before it (files stay) and its text returns to the composer. */
  editMessage: [{ checkpoint: number }, void];
  /** The composer's mode picker: the chat's mode from now on (the next chat's, before one began); the answer is the picker as it now stands. */
  setMode: [{ mode: string }, ModePicker];
  /** A plan card's Build it or Keep planning (with the note typed on it): settled when the turn it starts ends. */
  planDecision: [{ toolUseId: string; decision: PlanDecisionKind; note?: string }, void];
}

export type WebviewRequestName = keyof WebviewRequests;

/** A request as the host's handlers take it (its id belongs to the channel, not to the handler). */
export type WebviewRequest<Name extends WebviewRequestName = WebviewRequestName> = { [N in Name]: { type: N } & WebviewRequests[N][0] }[Name];

/** A request on the wire, panel to host. */
export type WebviewToHost<Name extends WebviewRequestName = WebviewRequestName> = { [N in Name]: { type: N; requestId: number } & WebviewRequests[N][0] }[Name];

/** The host's answer to one request. */
export type WebviewReply<Name extends WebviewRequestName = WebviewRequestName> =
  | { type: 'reply'; requestId: number; ok: true; value: WebviewRequests[Name][1] }
  | { type: 'reply'; requestId: number; ok: false; error: string; actions?: ErrorAction[] };

/** How the panel asks the host: a request of one kind, settled by its reply. */
export type WebviewRequester = <Name extends WebviewRequestName>(type: Name, request: WebviewRequests[Name][0]) => Promise<WebviewReply<Name>>;

// ---- The session insights panel (issue 33): its own webview (extension/insightsPanel.ts,
// webview/insights/), its own few messages. The host checks what the panel sends (zod, there).

/** The session's insights as the host worded them (every action's label and detail in the user's words). */
export type SessionInsights = Worded<CoreSessionInsights>;
export type InsightsAction = Worded<CoreInsightsAction>;
export type { InsightsRequests, InsightsTotals } from './core/insights/sessionInsights';
export { INSIGHTS_ACTION_KINDS, type InsightsActionKind } from './core/insights/actionKinds';
/** How a token count reads (one definition for the core and both panels). */
export { formatTokens } from './core/model/usage';

/** What the insights panel shows: one session's series and the words around them. */
export interface InsightsView {
  sessionId: string;
  title: string;
  /** The chat open in the sidebar (Refresh reads its newest requests). */
  current: boolean;
  /** Where the window and the threshold come from, in words ("from the open chat", "assumed: …"). */
  budgetNote: string;
  insights: SessionInsights;
}

export type InsightsHostToWebview = { type: 'insights'; view: InsightsView } | { type: 'insightsLoading'; title: string } | { type: 'insightsError'; message: string };

/** The two tables the panel offers as CSV. */
export const INSIGHTS_CSV_TABLES = ['requests', 'actions'] as const;
export type InsightsCsvTable = (typeof INSIGHTS_CSV_TABLES)[number];

export type InsightsWebviewToHost = { type: 'ready' } | { type: 'refresh' } | { type: 'pickSession' } | { type: 'openCsv'; table: InsightsCsvTable };

// ---- The rendered archived transcript (extension/transcriptView.ts, webview/transcript/): the
// page is rendered by the host; the panel only reports clicks, which the host checks.

/** Where the tab should scroll: the heading on this 0-based line of the markdown source. */
export type TranscriptHostToWebview = { type: 'reveal'; line: number };

export type TranscriptWebviewToHost = { type: 'ready' } | { type: 'openLink'; href: string } | { type: 'openSource' } | { type: 'openRaw' };

/**
 * The typed messages between the extension host and the chat webview — the only module both
 * sides import. Host -> webview messages carry agent events verbatim, so the webview renders
 * the same stream the CLI prints with `--output-format stream-json`.
 */
import { SUBAGENT_STATUS_TEXT as SUBAGENT_STATUS_ENGLISH, type AgentEvent, type ErrorAction } from './core/agent/events';
import type { ContextGauge as GaugeState } from './core/context/gauge';
import type { SessionInsights } from './core/insights/sessionInsights';
import type { PlanDecisionKind } from './core/todos/planDecision';
import type { CommandOption } from './core/commands/slash';

export type { AgentEvent, AttachmentChip, HookRunView } from './core/agent/events';
/** A card a tool has of its own (a memory write), from the call's input. */
export type { ToolCard } from './core/tools/types';
export type { PlanDecisionKind } from './core/todos/planDecision';

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

export type { SessionInsights, InsightsAction, InsightsRequests, InsightsTotals } from './core/insights/sessionInsights';
export { INSIGHTS_ACTION_KINDS, INSIGHTS_ACTION_NAMES, type InsightsActionKind } from './core/insights/actionKinds';
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

// ---- The chat panel's words (issue 27 item 6). The panel never words a sentence itself: it
// looks each up by key, as the host gave it (extension/webviewStrings.ts passes every English text
// below through vscode.l10n.t and puts the table into the page), falling back to this English.
// `{0}`, `{1}` are filled by the panel (webview/strings.ts), so a language may reorder them.
// scripts/l10n.ts puts these texts into l10n/bundle.l10n.json; a text is its own key there, as
// for every vscode.l10n.t call.

export const WEBVIEW_STRINGS = {
  // The header: the gauge and its buttons.
  'gauge.meter': 'Context window usage',
  'gauge.empty': 'No conversation yet',
  'gauge.emptyTooltip': 'The context gauge fills in after the first message. Click for the breakdown.',
  'gauge.tooltip': '{0}\n\nClick (or Enter) for the breakdown document.',
  'gauge.ariaLabel': 'Context window usage: {0}. Open the context breakdown',
  'header.compact': 'Compact',
  'header.compactTitle': 'Summarize the conversation to free context',
  'header.compactAria': 'Compact conversation: summarize it to free context',
  'header.insightsTitle': 'Session insights: how full the context was, tokens and cost per request',
  'header.insightsAria': 'Show session insights',
  // The transcript and the welcome.
  'transcript.label': 'Conversation',
  'welcome.title': 'Evergreen',
  'welcome.tagline': 'A coding agent whose conversation never runs out of context.',
  'welcome.model': 'Model: {0} via {1}',
  'welcome.setApiKey': 'Set API Key',
  'welcome.needsKey': 'Set your API key to start.',
  'welcome.untrusted': 'This workspace is not trusted: Evergreen can read and answer, but will not write files or run commands.',
  // The composer.
  'composer.placeholder': 'Ask Evergreen to read, change or run something… (Enter to send, Shift+Enter for a new line)',
  'composer.inputLabel': 'Message to Evergreen',
  'composer.send': 'Send',
  'composer.cancel': 'Cancel',
  'composer.needsKey': 'Set your API key first',
  'composer.chips': 'Attached to this message',
  'composer.attachPicker': 'Attach',
  'composer.removed': 'Removed {0}.',
  'composer.removedUnnamed': 'Removed the attachment.',
  'composer.attachFailed': 'Could not attach {0}: {1}.',
  'composer.removeChip': 'Remove {0}',
  'composer.attachEditorFile': 'Attach the file open in the editor',
  'todos.label': 'Task list',
  'composer.gatheredSelection': "the active editor's selection",
  'composer.gatheredProblems': "the workspace's problems, errors first",
  'composer.gatheredTerminal': "the active terminal's last command and output",
  'composer.gatheredGitChanges': 'the working tree diff',
  'composer.rowFolder': 'folder (a listing)',
  'composer.rowFile': 'file',
  'composer.alreadyAttached': '{0} is attached already',
  'composer.tooMany': 'a message carries at most {0} attachments',
  'composer.estimate': 'this message: ~{0} tokens',
  'composer.estimateUnmeasured': 'this message: ~{0} tokens + {1} measured when sent',
  'composer.pastedImage': 'pasted image',
  'composer.outsideWorkspace': '{0} is outside the workspace; only workspace files can be attached.',
  'image.unreadable': 'the image could not be read',
  'image.noCanvas': 'this panel cannot draw images, so it cannot resize this one',
  'image.tooLarge': 'it stays over {0} MB even at {1}x{2}',
  // An error's next steps as buttons (the host's toasts use ERROR_ACTION_COMMANDS' English too).
  'action.setApiKey': ERROR_ACTION_COMMANDS.setApiKey.label,
  'action.retry': ERROR_ACTION_COMMANDS.retry.label,
  'action.compact': ERROR_ACTION_COMMANDS.compact.label,
  'action.newChat': ERROR_ACTION_COMMANDS.newChat.label,
  'action.openSettings': ERROR_ACTION_COMMANDS.openSettings.label,
  'action.openFolder': ERROR_ACTION_COMMANDS.openFolder.label,
  // Notices, notes and compaction dividers.
  'notice.dismiss': 'Dismiss',
  'notice.dismissAria': 'Dismiss this notice',
  'note.savedOutput': 'saved output',
  'note.savedOutputTitle': 'Open the full {0} output (read-only): {1}',
  'note.savedOutputAria': 'Open the saved {0} output, read-only',
  'divider.undone': '{0} — undone',
  'divider.summary': 'Summary',
  'divider.transcript': 'Transcript at this point',
  'divider.transcriptTitle': 'Open the archived transcript of this session at this compaction',
  'divider.undo': 'Undo',
  'divider.undoTitle': 'Send the conversation as it was before this compaction again (refused if it would no longer fit)',
  // What a screen reader is told.
  'announce.cancelled': 'Cancelled.',
  'announce.finished': 'Evergreen finished replying.',
  'announce.approval': 'Evergreen asks for approval. Ctrl+Enter goes to it.',
  'announce.error': 'Error: {0}',
  'announce.subagent': 'Subagent {0}.',
  'announce.plan': 'Evergreen proposes a plan: Build it, or keep planning.',
  // Approval cards.
  'approval.outsideWarning': 'It will run with your full permissions: any file, the network, your credentials.',
  'approval.outsideReason': "The model's reason (its words, not a check): {0}",
  'approval.mcpArguments': 'The server runs this call with whatever access it has; these are its arguments:',
  'approval.mcpHints': 'The server says (its claim, not a check): {0}',
  'approval.hookAsksBecause': 'A PreToolUse hook asks you to decide on this call: {0}',
  'approval.hookAsks': 'A PreToolUse hook asks you to decide on this call.',
  'approval.hookInput': 'Its input:',
  'approval.protectedFile': 'This file configures what commands run: {0}.',
  'approval.modelDescription': 'The model wrote this description; only the command below is what runs.',
  'approval.run': 'Run',
  'approval.call': 'Call',
  'approval.applyThem': 'Apply them',
  'approval.apply': 'Apply',
  'approval.decline': 'Decline',
  'approval.verbAria': '{0} {1}',
  'approval.declineAria': 'Decline {0}',
  'approval.showCommandFirst': 'Show the whole command first',
  'approval.moreCommand': '{0} not shown: show the whole command',
  'approval.subjectMcp': '{0} on the MCP server {1}',
  'approval.subjectHook': 'the {0} call a hook asked about',
  'approval.subjectSandbox': 'the {0} held changes to the workspace',
  'approval.subjectCommand': 'the command {0} ({1})',
  'approval.subjectWrite': 'the change to {0}',
  'approval.approved': 'Approved',
  'approval.declined': 'Declined',
  'approval.titleShellOutside': 'Run this command OUTSIDE the sandbox?',
  'approval.titleShell': 'Run this command?',
  'approval.titleMcp': 'Call {0} on the MCP server {1}?',
  'approval.titleSandboxChanges': 'Apply what this command wrote that would run outside the sandbox?',
  'approval.titleCreate': 'Create {0}?',
  'approval.titleChange': 'Change {0}?',
  'approval.titleWeb': 'Fetch a page from {0}?',
  'approval.titleHook': 'Run {0}? A hook asks you first.',
  'approval.webUrl': 'This whole URL goes to that server, its path and query included (check they carry nothing from your workspace); the page comes back as untrusted text for the model:',
  'approval.webUrlAria': 'The URL to fetch ({0})',
  'approval.webRedirect': 'The server of the page before sent the fetch here; it came from:',
  'approval.webAllowedAlways': 'Allowed, and from now on for {0} in this workspace',
  'approval.webAllowedOnce': 'Allowed once',
  'approval.webOnce': 'Allow once',
  'approval.webAlways': 'Always allow {0} here',
  'approval.webOnceAria': 'Allow this one fetch from {0}',
  'approval.webAlwaysAria': 'Allow fetches from {0} in this workspace from now on',
  'approval.webDeclineAria': 'Decline the fetch from {0}',
  'approval.showUrlFirst': 'Show the whole URL first',
  'approval.sandboxWarning':
    'The command ran in the sandbox, but these would make programs outside it (Git, VS Code, your shell) run commands. If you decline, they are kept aside in the session folder and the rest of what it wrote is applied.',
  'approval.sandboxWritten': 'Written by this command:',
  // A proposed plan's card.
  'plan.label': 'Proposed plan',
  'plan.titleNoSteps': 'Proposed plan · no list of steps',
  'plan.titleOneStep': 'Proposed plan · 1 step',
  'plan.titleSteps': 'Proposed plan · {0} steps',
  'plan.stateBuild': 'Building this plan: the agent mode is on and its steps are the task list.',
  'plan.stateKeepPlanning': 'Planning goes on with your note.',
  'plan.stateClosed': 'The conversation went on without a decision on this plan.',
  'plan.note': 'Note (what to change, or anything to keep in mind while building)',
  'plan.build': 'Build it',
  'plan.buildTitle': 'Switch to the agent mode and carry out the plan; its steps become the task list',
  'plan.keep': 'Keep planning',
  'plan.keepTitle': 'Stay in plan mode; the note tells the model what to change',
  // A user message's buttons and pictures.
  'user.restore': 'Restore…',
  'user.restoreTitle': 'Restore the files or the conversation to just before this message, or edit and resend it',
  'user.edit': 'Edit',
  'user.editTitle': 'Take this message back into the message box to change and send it again (the files stay as they are)',
  'user.imageTitle': '{0} (click to enlarge)',
  // A memory write's card: "Memory saved /memories/a.md".
  'memory.view': 'Memory read {0}',
  'memory.create': 'Memory saved {0}',
  'memory.str_replace': 'Memory updated {0}',
  'memory.insert': 'Memory added to {0}',
  'memory.delete': 'Memory deleted {0}',
  'memory.rename': 'Memory moved {0}',
  'memory.open': 'Open memory',
  'memory.openTitle': 'Review and edit what the agent keeps for this workspace (Evergreen: Open Memory)',
  // A subagent's card.
  'subagent.label': 'Subagent: {0}. {1}',
  'subagent.labelTyped': 'Subagent ({0}): {1}. {2}',
  'subagent.task': 'task',
  // The core's words for an outcome (one English for the CLI, the transcript and the panel).
  'subagent.done': SUBAGENT_STATUS_ENGLISH.done,
  'subagent.limit': SUBAGENT_STATUS_ENGLISH.limit,
  'subagent.error': SUBAGENT_STATUS_ENGLISH.error,
  'subagent.cancelled': SUBAGENT_STATUS_ENGLISH.cancelled,
  'subagent.needsApproval': 'needs approval',
  'subagent.running': 'running',
  'subagent.oneToolCall': '1 tool call',
  'subagent.toolCalls': '{0} tool calls',
  'subagent.tokensInContext': '{0} tokens in context',
  'subagent.lastTool': 'last: {0}',
  'subagent.noReport': '(no report)',
  'subagent.report': 'Report',
  'subagent.openTranscript': 'Open transcript',
  'subagent.openTranscriptTitle': 'Open everything this subagent did in the transcript tab',
  'subagent.openTranscriptAria': 'Open the transcript of the subagent: {0}',
  // The composer's pickers and file links in model text.
  'mode.label': 'Mode',
  'slash.picker': 'Commands',
  'fileReference.title': 'Open {0} at line {1}',
  // What a turn's end, a retry, a compaction or a lighter tier says in the transcript.
  'notice.cancelled': 'Cancelled.',
  'notice.refusal': 'The model declined to continue this request.',
  'notice.refusalHint': 'Rephrase the request or start a New Chat.',
  'notice.maxTokens': 'The reply hit the output token limit.',
  'notice.maxTokensHint': 'Say "continue" or raise evergreen.maxOutputTokens.',
  'notice.contextFull': 'The conversation filled the context window.',
  'notice.contextFullHint': 'Compact it, or start a New Chat; this transcript stays saved (Open Archived Transcript).',
  'notice.retrying': 'Retrying (attempt {0}) in {1}s: {2}',
  'compaction.drop': 'oldest messages dropped to fit the window',
  'compaction.trigger': '{0} summary',
  'compaction.divider': 'Context compacted ({0}): ~{1} → ~{2} tokens; {3} message(s) summarized, {4} kept',
  // Appended to compaction.divider when files came back or the user gave a focus.
  'compaction.restoredPart': ', {0} file(s) restored',
  'compaction.focusPart': '; focus: {0}',
  'compaction.undone': 'Compaction undone: ~{0} → ~{1} tokens; the summarized messages are sent verbatim again.',
  'tier.saved': 'saved ~{0} tokens (~{1} → ~{2})',
  'tier.movedOut': '{0} output moved out of the context',
  'tier.note': 'Context {0}: {1} — {2}',
  // The task list, tool cards and thinking.
  'todos.pending': 'pending',
  'todos.in_progress': 'in progress',
  'todos.done': 'done',
  'todos.summary': 'Tasks {0}/{1} done',
  'todos.summaryNow': 'Tasks {0}/{1} done · now: {2}',
  'tool.needsApproval': 'needs approval',
  'tool.failed': 'failed',
  'tool.done': 'done',
  'thinking.live': 'Thinking…',
  'thinking.label': 'Thinking',
  'thinking.oneToken': '~1 token',
  'thinking.tokens': '~{0} tokens',
  'thinking.redacted': '(redacted)',
  // A fetched page's card.
  'web.oneByte': '1 byte',
  'web.bytes': '{0} bytes',
  'web.http': 'HTTP {0}',
  'web.readCut': '{0} read, the rest cut',
  'web.fromCache': "from this session's copy",
  'web.label': 'Fetched page {0}: {1}',
  'web.redirectedFrom': 'Redirected from {0}',
  'web.fromUrl': 'The page came from this URL',
  'web.bytesRead': '{0} bytes read',
  'web.bytesReadCap': '{0} bytes read (the cap; the rest was not read)',
  'web.afterRedirect': 'after 1 redirect',
  'web.afterRedirects': 'after {0} redirects',
  'web.savedCopy': 'saved copy',
  'web.savedCopyTitle': 'Open the page as the model got it, whole (read-only): {0}',
  'web.savedCopyAria': 'Open the saved copy of the page, read-only',
  // A hook run's line: "PreToolUse hook … denied the call (exit 2)".
  'hook.ok': 'ok',
  'hook.blocked': 'blocked',
  'hook.denied': 'denied the call',
  'hook.asked': 'asked you',
  'hook.allowed': 'allowed the call',
  'hook.allow_refused': 'its allow was refused',
  'hook.stopped': 'stopped the agent',
  'hook.error': 'failed',
  'hook.timeout': 'timed out',
  'hook.too_large': 'too much output',
  'hook.not_started': 'did not run',
  'hook.cancelled': 'cancelled',
  'hook.exitCode': '{0} (exit {1})',
  'hook.event': '{0} hook',
  'hook.from': 'From {0}.',
  'hook.fromWorkspace': "From {0} (the workspace's, run in the sandbox).",
  'hook.noOutput': '(no output shown)',
  'hook.fullOutput': 'full output',
  'hook.fullOutputTitle': 'Open the whole output of this run (read-only): {0}',
} as const;

export type WebviewStringKey = keyof typeof WEBVIEW_STRINGS;
/** The panel's words in the user's language, by key (English where a language lacks one). */
export type WebviewStrings = Readonly<Record<WebviewStringKey, string>>;
/** The id of the page's JSON block that carries the table (a data block: CSP runs no script from it). */
export const WEBVIEW_STRINGS_ELEMENT_ID = 'evergreen-strings';

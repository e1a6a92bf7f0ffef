/**
 * Events the agent emits while it works. They are plain JSON so the same stream feeds the
 * webview (via src/protocol.ts), the CLI's `--output-format stream-json`, and tests.
 */

import type { ContextEvent } from '../context/engineTypes';
import type { ErrorHint } from '../model/errors';
import type { UsageCounts } from '../model/models';
import type { ApprovalRequest, SandboxChange } from '../approvals/approval';
import type { TodoItem } from '../todos/todos';
import type { PlanDecisionKind } from '../todos/planDecision';
import type { MODE_CHANGE_REASONS } from '../storage/transcript';
import type { ToolCard, WebFetchDetails } from '../tools/types';
import type { SubagentType } from '../tools/taskInput';
import type { ErrorAction, ErrorKind } from '../model/errorActions';
import type { ImageMediaType } from '../model/messages';
import type { HookEventName } from '../hooks/events';
import type { HookRunOutcome } from '../hooks/decisions';
import type { HookScope } from '../hooks/config';
import type { UserText } from '../texts/userText';

export type { ErrorAction, ErrorKind } from '../model/errorActions';

/** Why the mode changed: a session started in it, the user picked it, or the user built a plan. */
export type ModeChangeReason = (typeof MODE_CHANGE_REASONS)[number];

/** What the chat shows of an attachment: its kind and a short label ("src/app.ts:10-40"). */
export interface AttachmentChip {
  kind: string;
  label: string;
  /** An image attachment's picture, exactly as the model got it: the chat shows it as a thumbnail. */
  image?: { mediaType: ImageMediaType; data: string };
}

export type ApprovalSummary =
  /** `protectedReason`: why this file always asks (a kind of approval.protected…). */
  | { kind: 'write'; path: string; diff: string; isNew: boolean; protectedReason?: UserText }
  /** `description`: the model's own words for the command, shown labelled as such (never as a summary of it); `outsideReason`: the model asks to run this command outside the sandbox, in its own words. */
  | { kind: 'shell'; command: string; description?: string; outsideReason?: string }
  /** An MCP tool call: the server, its tool, the arguments (pretty JSON) and what the server claims about the tool (each claim a kind). */
  | { kind: 'mcp'; server: string; tool: string; arguments: string; serverHints?: UserText[] }
  /** What a sandboxed command wrote that would run outside the sandbox: each path, why, and the risky lines. */
  | { kind: 'sandbox_changes'; command: string; changes: SandboxChange[] }
  /** A PreToolUse hook answered "ask": the call (its tool and input as pretty JSON) runs only if the user agrees; `reasons`: the hooks' words. */
  | { kind: 'hook'; tool: string; input: string; reasons: string[] }
  /**
   * web_fetch asks to contact a host nobody allowed yet: `url` exactly as it will be requested,
   * `host` what "always" would allow in this workspace, `redirectedFrom` the page that sent it there.
   * The answers: once, always for `host` in this workspace, or decline.
   */
  | { kind: 'web'; url: string; host: string; redirectedFrom?: string };

/** What a UI shows of an approval request: the full new content of a write stays out of events, replays and stream-json. */
export function approvalSummaryOf(request: ApprovalRequest): ApprovalSummary {
  if (request.kind === 'write') return { kind: 'write', path: request.path, diff: request.diff, isNew: request.isNew, ...(request.protectedReason ? { protectedReason: request.protectedReason } : {}) };
  if (request.kind === 'mcp') return { kind: 'mcp', server: request.server, tool: request.tool, arguments: request.arguments, ...(request.serverHints?.length ? { serverHints: request.serverHints } : {}) };
  if (request.kind === 'sandbox_changes') return { kind: 'sandbox_changes', command: request.command, changes: request.changes.map((change) => ({ ...change })) };
  if (request.kind === 'hook') return { kind: 'hook', tool: request.tool, input: request.input, reasons: [...request.reasons] };
  if (request.kind === 'web') return { kind: 'web', url: request.url, host: request.host, ...(request.redirectedFrom !== undefined ? { redirectedFrom: request.redirectedFrom } : {}) };
  return {
    kind: 'shell',
    command: request.command,
    ...(request.description !== undefined ? { description: request.description } : {}),
    ...(request.isolation === 'outside' && request.outsideReason !== undefined ? { outsideReason: request.outsideReason } : {}),
  };
}

/** done: the child ended its turn; limit: it hit its step or time limit (the report is what it had); error: it failed; cancelled: the user stopped it. */
export type SubagentStatus = 'done' | 'error' | 'cancelled' | 'limit';


/**
 * Set on an approval or usage event that comes from a subagent: `childId` names the child,
 * `parentToolUseId` the parent's `task` call that launched it (the card the approval belongs to).
 * The approval's own `toolUseId` is the child's tool call, the key that resolves it.
 */
export interface SubagentOrigin {
  childId?: string;
  parentToolUseId?: string;
}

/** One hook run as the chat's small line shows it (event, command, time, outcome) and the output it opens. */
export interface HookRunView {
  event: HookEventName;
  /** The command line that ran, as written. */
  command: string;
  scope: HookScope;
  /** The file or setting it came from, as the user reads it (`.claude/settings.json`). */
  source: string;
  sandboxed: boolean;
  durationMs: number;
  outcome: HookRunOutcome;
  exitCode: number | null;
  /** What it wrote (stdout, then stderr), cut to a preview; absent when it wrote nothing or asked not to be shown (suppressOutput). */
  output?: string;
  /** All of it, in the session's tool-results folder (the line's link opens it). */
  outputFile?: string;
  /** What the sandbox said about the run (a write it kept aside). */
  sandboxNote?: string;
}

export type TurnStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'context_window_exceeded' | 'cancelled' | 'error';

export type AgentEvent =
  | { type: 'session_started'; sessionId: string; model: string; resumed: boolean }
  /** `userText` is '' for a retry, which sends no new user message. */
  /** `checkpoint`: the checkpoint taken before this message (absent where there are none). */
  | { type: 'turn_started'; turnId: string; userText: string; checkpoint?: number; attachments?: AttachmentChip[] }
  | { type: 'request_started'; turnId: string; requestIndex: number }
  | { type: 'text_delta'; turnId: string; text: string }
  | { type: 'thinking_delta'; turnId: string; text: string }
  /** A redacted thinking block (the provider encrypted it; it goes back to the model as it came): the chat shows "(redacted)". */
  | { type: 'thinking_redacted'; turnId: string }
  /** `headline`: the tool's own one-line description of the call, for its card; `card`: a card of the tool's own (memory). */
  | { type: 'tool_call_started'; turnId: string; toolUseId: string; name: string; input: unknown; headline?: UserText; card?: ToolCard }
  | { type: 'tool_call_progress'; turnId: string; toolUseId: string; chunk: string }
  | ({ type: 'approval_needed'; turnId: string; toolUseId: string; request: ApprovalSummary } & SubagentOrigin)
  /** `always`: the user allowed a web fetch's host for this workspace too, not just this once. */
  | ({ type: 'approval_resolved'; turnId: string; toolUseId: string; approved: boolean; always?: true } & SubagentOrigin)
  | {
      type: 'tool_call_finished';
      turnId: string;
      toolUseId: string;
      name: string;
      isError: boolean;
      /** What the model receives, possibly long; UIs show a preview. */
      content: string;
      durationMs: number;
      /** A web_fetch's final URL, status and size, for its card. */
      web?: WebFetchDetails;
    }
  /** A subagent's requests count in the parent's totals: they arrive as usage events carrying its `childId`. */
  /** `priceUnknown`: this request's model has no known price (costUsd 0); `sessionUnpricedRequests`: how many such requests the session made (absent: none). */
  /** `thinkingTokens`: the part of usage.outputTokens spent thinking, when the server says it (cost counts it as output already). */
  | ({ type: 'usage'; turnId: string; model: string; usage: UsageCounts; costUsd: number; priceUnknown?: true; thinkingTokens?: number; sessionCostUsd: number; sessionUnpricedRequests?: number } & SubagentOrigin)
  /**
   * Subagents (the `task` tool): `toolUseId` is the parent's task call; started and finished are
   * recorded in the parent's transcript and replay on resume, progress is live only.
   * `transcriptPath`: the child's own transcript (sessions/<parentId>/subagents/<childId>/transcript.jsonl).
   */
  | { type: 'subagent_started'; turnId: string; toolUseId: string; childId: string; description: string; agentType: SubagentType; transcriptPath: string }
  /** `tokens`: what the child's context holds now; `toolCalls`: calls it has made so far. */
  | { type: 'subagent_progress'; turnId: string; toolUseId: string; childId: string; toolCalls: number; tokens: number; elapsedMs: number; lastTool?: string }
  /** `report`: what the parent receives (the child's last text, with a note when it hit a limit or failed); `usage`/`costUsd`: the child's own totals. */
  | {
      type: 'subagent_finished';
      turnId: string;
      toolUseId: string;
      childId: string;
      status: SubagentStatus;
      report: string;
      usage: UsageCounts;
      costUsd: number;
      /** The child's requests with no known price (absent: none). */
      unpricedRequests?: number;
      toolCalls: number;
      elapsedMs: number;
    }
  | { type: 'retrying'; turnId: string; attempt: number; delayMs: number; reason: UserText }
  /** `actions`: next steps when the stop needs one (a full context window), chosen by the core. */
  | { type: 'turn_finished'; turnId: string; stopReason: TurnStopReason; actions?: ErrorAction[] }
  /**
   * `actions`: the next steps the core offers, in order (buttons in VS Code). `hint`: a next step
   * in words that hold on every front end; `errorHint`: one that names a front end's commands,
   * settings or flags, as a kind that each front end words (the extension fills `hint` from it
   * before the panel sees the event).
   */
  | { type: 'error'; turnId?: string; kind: ErrorKind; message: UserText; hint?: UserText; errorHint?: ErrorHint; actions: ErrorAction[] }
  /** Context engine: gauge updates, tier actions, compactions and their failures. */
  | (ContextEvent & { turnId?: string })
  /** The task list (`todo_write`) as it is now: after each accepted call, and replayed on resume. */
  | { type: 'todos'; turnId?: string; items: TodoItem[] }
  /** Transcripts cannot be written (disk full, read-only storage): the agent goes on, unsaved. */
  | { type: 'storage_warning'; message: UserText }
  /** Once per session start: the command sandbox is off or cannot run (the message says what follows and how to fix it). */
  | { type: 'sandbox_notice'; level: 'warning' | 'info'; message: UserText }
  /** At session start: web search is on but this back end cannot search (no SearXNG instance given), and what to set. */
  | { type: 'web_notice'; level: 'warning' | 'info'; message: UserText }
  /** At session start: MCP servers that failed, configurations with problems, workspace servers without consent (each says what to do). */
  | { type: 'mcp_notice'; level: 'warning' | 'info'; message: UserText }
  /**
   * Slash commands, skills and memory (issue 28): a command, mode or skill file that could not be
   * used as written (each message names the file and what to do), memory that cannot be read.
   */
  | { type: 'customization_notice'; turnId?: string; level: 'warning' | 'info'; message: UserText }
  /** Instruction files: at session start a file refused, cut or re-encoded (warning); during a turn, a subfolder's file added (info). */
  | { type: 'instructions_notice'; turnId?: string; level: 'warning' | 'info'; message: UserText }
  /**
   * Extended thinking (issue 21): at session start, a setting that could not be used as written
   * (model without thinking, budget lowered to fit, resumed thinking another model wrote); during a
   * turn, thinking turned off for the rest of it, or a server that refused reasoning_effort.
   */
  | { type: 'thinking_notice'; turnId?: string; level: 'warning' | 'info'; message: UserText }
  /**
   * Modes (issue 28): the session's mode from now on (`reason` as the transcript's `mode` entry
   * records it), live and replayed on resume. `description`: the mode's one line, when it is known.
   */
  | { type: 'mode_changed'; turnId?: string; mode: string; reason: ModeChangeReason; description?: UserText }
  /** At session start: custom mode files that could not be used, a mode's model that cannot be served here. */
  | { type: 'mode_notice'; level: 'warning' | 'info'; message: UserText }
  /** `exit_plan_mode` proposed `plan` (Markdown; `steps` its task list if built): the chat's plan card, replayed on resume. */
  | { type: 'plan_proposed'; turnId: string; toolUseId: string; plan: string; steps: TodoItem[] }
  /** The user decided on the plan of `toolUseId`: built it, or asked to keep planning (the note is the next message). */
  | { type: 'plan_decided'; turnId?: string; toolUseId: string; decision: PlanDecisionKind }
  /** A hook ran (issue 29): recorded in the transcript, so a resumed chat shows the same line. */
  | { type: 'hook_run'; turnId?: string; run: HookRunView }
  /** What the user should know about hooks: a failed or blocked run, a decision refused, settings with problems, hooks left out. */
  | { type: 'hook_notice'; turnId?: string; level: 'warning' | 'info'; message: UserText };

export type AgentEventListener = (event: AgentEvent) => void;

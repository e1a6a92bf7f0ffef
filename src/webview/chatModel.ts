/**
 * The chat as data: agent events folded into a list of display items. Pure, so it is unit-tested
 * in node; the DOM layer only renders items whose revision changed.
 */
import { CHARS_PER_TOKEN, MCP_CALL_TOOL, type AgentEvent, type AttachmentChip, type ErrorAction, type HookRunView, type ToolCard } from '../protocol';
import { applyChildApproval, applySubagentEvent, endWithParentResult, type SubagentCard } from './subagents';
import { t } from './strings';

/**
 * The name a tool card shows: the tool's, except for a deferred MCP call, whose card names the MCP
 * tool it calls (`mcp__<server>__<tool>`, so the server is named even when the headline is cut).
 * That name is the model's text, as every tool name is: the core refuses an unknown one.
 */
export function toolCardName(name: string, input: unknown): string {
  if (name !== MCP_CALL_TOOL || typeof input !== 'object' || input === null) return name;
  const tool = (input as { tool?: unknown }).tool;
  return typeof tool === 'string' && tool !== '' ? `${MCP_CALL_TOOL} ${tool}` : name;
}

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_needed' }>['request'];
/** A fetched page's card details: its final URL, status, type and size (web_fetch). */
export type WebPageFacts = NonNullable<Extract<AgentEvent, { type: 'tool_call_finished' }>['web']>;
export type TodoEntry = Extract<AgentEvent, { type: 'todos' }>['items'][number];

/** The task list above the composer: the newest `todos` event's items, and a revision for the view. */
export interface TodoPanel {
  items: TodoEntry[];
  rev: number;
}

export type ChatItem =
  /** `checkpoint`: what the message's Restore goes back to (absent where there are no checkpoints). */
  | { kind: 'user'; key: string; rev: number; text: string; checkpoint?: number; attachments?: AttachmentChip[] }
  /**
   * A reply's text and the thinking before it (shown collapsed). `redactedThinking`: thinking blocks
   * the provider encrypted, shown as "(redacted)". Thinking after text starts a new item, so a
   * turn's thinking, text and tool cards keep the order they came in.
   */
  | { kind: 'assistant'; key: string; rev: number; text: string; thinking: string; redactedThinking: number; streaming: boolean }
  | {
      kind: 'tool';
      key: string;
      rev: number;
      name: string;
      input: unknown;
      /** The tool's own one-line description of the call (from the core). */
      headline: string;
      status: 'running' | 'awaiting-approval' | 'done' | 'error';
      output: string;
      durationMs: number | undefined;
      /** `always`: the user allowed a web fetch's host for this workspace, not just once. */
      approval: { request: ApprovalRequest; decided: boolean | undefined; always?: true } | undefined;
      /** A `task` call's child (subagents.ts): its status, approvals and report, shown in this card. */
      subagent?: SubagentCard;
      /** A card of the tool's own (a memory write: what changed, a preview), from the call's input. */
      card?: ToolCard;
      /** A web_fetch's page (webCardView.ts shows it). */
      web?: WebPageFacts;
      /** Tier 0 saved this call's whole result to this file (the host opens it read-only). */
      savedOutput?: string;
    }
  | { kind: 'notice'; key: string; rev: number; level: 'info' | 'error'; text: string; hint: string | undefined; actions: ErrorAction[] }
  /** A compaction boundary: tokens before -> after, which tier, and the summary that replaced the history. */
  | {
      kind: 'divider';
      key: string;
      rev: number;
      text: string;
      summary: string | undefined;
      compactionId: string;
      /** 0-based among the session's compactions, drops included: where the archived transcript opens. */
      compactionIndex: number;
      /** Only the newest compaction can be undone, once, and never a drop. */
      undoable: boolean;
      undone: boolean;
    }
  /**
   * A quiet line: what a lighter tier saved, or that a compaction was undone. `savedOutput`: a
   * persisted result's file, shown as a short "saved output" link (the host opens it read-only).
   */
  | { kind: 'note'; key: string; rev: number; text: string; savedOutput?: { toolName: string; file: string } }
  /**
   * A plan the model proposed (exit_plan_mode): its Markdown and steps, and where the user's
   * decision stands: `pending` (Build it / Keep planning offered), decided, or `closed` (the
   * conversation went on without a decision, so it can no longer be built from here).
   */
  | { kind: 'plan'; key: string; rev: number; toolUseId: string; plan: string; steps: TodoEntry[]; state: PlanCardState }
  /** A hook ran: its small line (event, command, time, outcome) opens its output (hookView.ts). */
  | { kind: 'hook'; key: string; rev: number; run: HookRunView };

export type PlanCardState = 'pending' | 'build' | 'keep_planning' | 'closed';

export interface ChatModel {
  items: ChatItem[];
  busy: boolean;
  nextKey: number;
  /** Undefined until the session writes (or a replay restores) a task list. */
  todos: TodoPanel | undefined;
  /** The mode the newest mode_changed event named (the picker follows it); undefined: none since the state. */
  mode: string | undefined;
  /** Notices the user dismissed, by text: a chat rebuilt (Restore, Undo, a reload) says them again, and they stay dismissed. */
  dismissed?: Set<string>;
}

/** `dismissed`: the previous model's, when a new state replaces the chat. */
export function emptyChat(dismissed: Set<string> = new Set()): ChatModel {
  const model: ChatModel = { items: [], busy: false, nextKey: 0, todos: undefined, mode: undefined, dismissed };
  indexes.set(model, { tools: new Map(), streaming: new Set(), plans: new Map() });
  return model;
}


/** A status in words (the list never tells status by colour alone). */
/** The chat's line for a mode change, one whole sentence per case (the description is the mode's own words). */
function modeNoteText(mode: string, building: boolean, description: string | undefined): string {
  if (description) return building ? t('mode.noteBuildingDescribed', mode, description) : t('mode.noteDescribed', mode, description);
  return building ? t('mode.noteBuilding', mode) : t('mode.note', mode);
}

export function todoStatusText(status: TodoEntry['status']): string {
  return t(`todos.${status}`);
}

/** The collapsed list's one line: "Tasks 2/5 done · now: Write the tests". */
export function todoSummary(items: readonly TodoEntry[]): string {
  const done = items.filter((item) => item.status === 'done').length;
  const current = items.filter((item) => item.status === 'in_progress').map((item) => item.text);
  return current.length > 0 ? t('todos.summaryNow', done, items.length, current.join('; ')) : t('todos.summary', done, items.length);
}

/** Keep streamed tool output bounded in the DOM; the full result is in the transcript. */
export const MAX_TOOL_OUTPUT_CHARS = 20_000;

function bounded(text: string): string {
  return text.length <= MAX_TOOL_OUTPUT_CHARS ? text : `…${text.slice(text.length - MAX_TOOL_OUTPUT_CHARS)}`;
}

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;
type AssistantItem = Extract<ChatItem, { kind: 'assistant' }>;
type PlanItem = Extract<ChatItem, { kind: 'plan' }>;

/**
 * What events look up, kept beside a model so that folding a restored chat of thousands of items is
 * linear (bench/webview.ts): tool cards by key, and the replies still streaming. Every item enters
 * the model through pushItem, which keeps it.
 */
interface ModelIndex {
  tools: Map<string, ToolItem>;
  streaming: Set<AssistantItem>;
  /** Plan cards by their exit_plan_mode call's id (few: a turn's start closes the pending ones). */
  plans: Map<string, PlanItem>;
}
const indexes = new WeakMap<ChatModel, ModelIndex>();

function indexOf(model: ChatModel): ModelIndex {
  let index = indexes.get(model);
  if (!index) {
    // A model made without emptyChat: indexed once from its items.
    index = { tools: new Map(), streaming: new Set(), plans: new Map() };
    for (const item of model.items) noteItem(index, item);
    indexes.set(model, index);
  }
  return index;
}

function noteItem(index: ModelIndex, item: ChatItem): void {
  // A repeated id stays with its first card, as a search from the top found it.
  if (item.kind === 'tool') {
    if (!index.tools.has(item.key)) index.tools.set(item.key, item);
  }
  else if (item.kind === 'assistant' && item.streaming) index.streaming.add(item);
  else if (item.kind === 'plan' && !index.plans.has(item.toolUseId)) index.plans.set(item.toolUseId, item);
}

function pushItem(model: ChatModel, item: ChatItem): void {
  noteItem(indexOf(model), item);
  model.items.push(item);
}

function findTool(model: ChatModel, toolUseId: string): ToolItem | undefined {
  return indexOf(model).tools.get(`tool:${toolUseId}`);
}

/** The streaming reply to append to, or a new one; `forThinking`: a reply that already has text is closed first (interleaved thinking). */
function openAssistant(model: ChatModel, forThinking = false): Extract<ChatItem, { kind: 'assistant' }> {
  const last = model.items.at(-1);
  if (last?.kind === 'assistant' && last.streaming) {
    if (!forThinking || last.text === '') return last;
    last.streaming = false;
    last.rev++;
  }
  const item: AssistantItem = { kind: 'assistant', key: `assistant:${model.nextKey++}`, rev: 0, text: '', thinking: '', redactedThinking: 0, streaming: true };
  pushItem(model, item);
  return item;
}

function closeAssistant(model: ChatModel): void {
  const { streaming } = indexOf(model);
  // In the order they came, as the chat holds them; one closed before (or taken out) is passed over.
  for (const item of streaming) {
    if (item.streaming) {
      item.streaming = false;
      item.rev++;
    }
  }
  streaming.clear();
}

/** One formatter: toLocaleString would build one per call, a few hundred times when a long chat is restored. */
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

function formatCount(tokens: number): string {
  return tokens >= 10_000 ? `${Math.round(tokens / 1000)}k` : COUNT_FORMAT.format(tokens);
}

export function pushNotice(model: ChatModel, level: 'info' | 'error', text: string, hint?: string, actions: ErrorAction[] = []): void {
  if (model.dismissed?.has(text)) return;
  pushItem(model, { kind: 'notice', key: `notice:${model.nextKey++}`, rev: 0, level, text, hint, actions });
}

/** The user closed a notice: it leaves the chat, and the same words said again stay away. */
export function dismissNotice(model: ChatModel, key: string): void {
  const index = model.items.findIndex((item) => item.key === key && item.kind === 'notice');
  if (index < 0) return;
  const [item] = model.items.splice(index, 1);
  if (item?.kind === 'notice') (model.dismissed ??= new Set()).add(item.text);
}

/** A child's approval belongs to the card of the parent's `task` call; it is answered by its own tool-use id. */
function childApproval(model: ChatModel, parentToolUseId: string, event: Extract<AgentEvent, { type: 'approval_needed' | 'approval_resolved' }>): void {
  const tool = findTool(model, parentToolUseId);
  const card = tool && applyChildApproval(tool.subagent, event);
  if (tool && card) {
    tool.subagent = card;
    tool.rev++;
  }
}

/**
 * A tool waits for the user's decision, or the user decided (the tool runs on and its card keeps
 * the decision); a child's approval goes to its subagent card.
 */
function approval(model: ChatModel, event: Extract<AgentEvent, { type: 'approval_needed' | 'approval_resolved' }>): void {
  if (event.parentToolUseId !== undefined) {
    childApproval(model, event.parentToolUseId, event);
    return;
  }
  const tool = findTool(model, event.toolUseId);
  if (!tool) return;
  if (event.type === 'approval_needed') {
    tool.status = 'awaiting-approval';
    tool.approval = { request: event.request, decided: undefined };
  } else if (tool.approval) {
    tool.approval.decided = event.approved;
    if (event.always) tool.approval.always = true;
    tool.status = 'running';
  } else {
    return;
  }
  tool.rev++;
}

/** The turn is over: a stop that is no plain answer gets a notice saying what to do next. */
function turnFinished(model: ChatModel, event: Extract<AgentEvent, { type: 'turn_finished' }>): void {
  closeAssistant(model);
  model.busy = false;
  if (event.stopReason === 'cancelled') pushNotice(model, 'info', t('notice.cancelled'));
  else if (event.stopReason === 'refusal') pushNotice(model, 'info', t('notice.refusal'), t('notice.refusalHint'));
  else if (event.stopReason === 'max_tokens') pushNotice(model, 'info', t('notice.maxTokens'), t('notice.maxTokensHint'));
  else if (event.stopReason === 'context_window_exceeded') {
    pushNotice(model, 'error', t('notice.contextFull'), t('notice.contextFullHint'), event.actions ?? []);
  }
}

/** A compaction boundary: a divider with its numbers and summary; only the newest can be undone. */
function pushCompaction(model: ChatModel, event: Extract<AgentEvent, { type: 'compaction' }>): void {
  closeAssistant(model);
  const how = event.trigger === 'drop' ? t('compaction.drop') : t('compaction.trigger', event.trigger);
  const restored = event.restoredFiles.length > 0 ? t('compaction.restoredPart', event.restoredFiles.length) : '';
  const focus = event.focus ? t('compaction.focusPart', event.focus) : '';
  let compactionIndex = 0;
  for (const item of model.items) {
    if (item.kind !== 'divider') continue;
    compactionIndex++;
    // A newer compaction replaces the undo point.
    if (item.undoable) {
      item.undoable = false;
      item.rev++;
    }
  }
  pushItem(model, {
    kind: 'divider',
    key: `divider:${model.nextKey++}`,
    rev: 0,
    text: t('compaction.divider', how, formatCount(event.tokensBefore), formatCount(event.tokensAfter), event.messagesSummarized, event.messagesKept) + restored + focus,
    summary: event.summary,
    compactionId: event.compactionId,
    compactionIndex,
    // An automatic or reactive compaction ran because the view no longer fit: undoing it would
    // be refused every time, so only the ones the user or the model asked for offer Undo.
    undoable: event.trigger === 'manual' || event.trigger === 'tool',
    undone: false,
  });
}

/** An undone compaction: its divider is marked and a note says what the context holds again. */
function compactionUndone(model: ChatModel, event: Extract<AgentEvent, { type: 'compaction_undone' }>): void {
  closeAssistant(model);
  for (const item of model.items) {
    if (item.kind === 'divider' && item.compactionId === event.compactionId) {
      item.undone = true;
      item.undoable = false;
      item.rev++;
    }
  }
  pushItem(model, { kind: 'note', key: `note:${model.nextKey++}`, rev: 0, text: t('compaction.undone', formatCount(event.tokensBefore), formatCount(event.tokensAfter)) });
}

/** What a lighter tier saved, as a quiet note (a persisted output names its tool; the view links the file). */
function pushTierNote(model: ChatModel, event: Extract<AgentEvent, { type: 'tier' }>): void {
  const saved = Math.max(0, event.tokensBefore - event.tokensAfter);
  const tokens = t('tier.saved', formatCount(saved), formatCount(event.tokensBefore), formatCount(event.tokensAfter));
  // A persisted result's path is long and says little here: the note names the tool and the view links the file.
  const savedOutput = event.savedOutput ? { toolName: event.savedOutput.toolName, file: event.savedOutput.file } : undefined;
  const what = savedOutput ? t('tier.movedOut', savedOutput.toolName) : event.detail;
  // The call's own card links the saved copy too (a fetched page's card shows it).
  const tool = event.savedOutput?.toolUseId !== undefined ? findTool(model, event.savedOutput.toolUseId) : undefined;
  if (tool && event.savedOutput) {
    tool.savedOutput = event.savedOutput.file;
    tool.rev++;
  }
  pushItem(model, { kind: 'note', key: `note:${model.nextKey++}`, rev: 0, text: t('tier.note', event.tier, what, tokens), ...(savedOutput ? { savedOutput } : {}) });
}

/**
 * Thinking streams into the open reply, or starts a new one after text (interleaved thinking stays
 * in order). A redacted block has no text to place: it joins the open reply, even after its text.
 */
function thinking(model: ChatModel, event: Extract<AgentEvent, { type: 'thinking_delta' | 'thinking_redacted' }>): void {
  const item = openAssistant(model, event.type === 'thinking_delta');
  if (event.type === 'thinking_delta') item.thinking += event.text;
  else item.redactedThinking++;
  item.rev++;
}

function finishTool(model: ChatModel, event: Extract<AgentEvent, { type: 'tool_call_finished' }>): void {
  const tool = findTool(model, event.toolUseId);
  if (!tool) return;
  tool.status = event.isError ? 'error' : 'done';
  tool.output = bounded(event.content);
  tool.durationMs = event.durationMs;
  if (event.web) tool.web = event.web;
  if (tool.subagent) endWithParentResult(tool.subagent, tool.output, event.isError);
  tool.rev++;
}

/** A hook run's line; text after it (a Stop hook kept the turn going) starts below it. */
function pushHookLine(model: ChatModel, run: HookRunView): void {
  closeAssistant(model);
  model.items.push({ kind: 'hook', key: `hook:${model.nextKey++}`, rev: 0, run });
}

/** The newest user message (the one Edit and resend applies to). */
export function lastUserItem(model: ChatModel): Extract<ChatItem, { kind: 'user' }> | undefined {
  for (let index = model.items.length - 1; index >= 0; index--) {
    const item = model.items[index]!;
    if (item.kind === 'user') return item;
  }
  return undefined;
}

/** The plan card of an exit_plan_mode call. */
function findPlan(model: ChatModel, toolUseId: string): PlanItem | undefined {
  return indexOf(model).plans.get(toolUseId);
}

/** Modes and plans (issue 28): a mode's line, the plan card, the decision on it. */
function applyModeEvent(model: ChatModel, event: Extract<AgentEvent, { type: 'mode_changed' | 'plan_proposed' | 'plan_decided' }>): void {
  switch (event.type) {
    case 'mode_changed':
      model.mode = event.mode;
      closeAssistant(model);
      pushItem(model, { kind: 'note', key: `note:${model.nextKey++}`, rev: 0, text: modeNoteText(event.mode, event.reason === 'build', event.description) });
      break;
    case 'plan_proposed':
      closeAssistant(model);
      pushItem(model, { kind: 'plan', key: `plan:${event.toolUseId}`, rev: 0, toolUseId: event.toolUseId, plan: event.plan, steps: event.steps.map((step) => ({ ...step })), state: 'pending' });
      break;
    case 'plan_decided': {
      const plan = findPlan(model, event.toolUseId);
      if (plan) {
        plan.state = event.decision;
        plan.rev++;
      }
      break;
    }
  }
}

/** A turn began without a decision on a pending plan: its buttons go (the session would refuse them). */
function closePendingPlans(model: ChatModel): void {
  for (const item of indexOf(model).plans.values()) {
    if (item.state === 'pending') {
      item.state = 'closed';
      item.rev++;
    }
  }
}

/** A turn began: the user's message (the one before loses its Edit button), and a pending plan no longer decided from here. */
function turnStarted(model: ChatModel, event: Extract<AgentEvent, { type: 'turn_started' }>): void {
  model.busy = true;
  closePendingPlans(model);
  if (event.userText === '') return;
  const previous = lastUserItem(model);
  if (previous) previous.rev++;
  pushItem(model, { kind: 'user', key: `user:${event.turnId}`, rev: 0, text: event.userText, ...(event.checkpoint !== undefined ? { checkpoint: event.checkpoint } : {}), ...(event.attachments?.length ? { attachments: event.attachments } : {}) });
}

/** A request is sent again: the failed attempt's partial text is discarded by the host too; the retry is shown instead. */
function retrying(model: ChatModel, event: Extract<AgentEvent, { type: 'retrying' }>): void {
  const last = model.items.at(-1);
  if (last?.kind === 'assistant' && last.streaming) {
    model.items.pop();
    indexOf(model).streaming.delete(last);
  }
  pushNotice(model, 'info', t('notice.retrying', event.attempt, Math.round(event.delayMs / 100) / 10, event.reason));
}

/** Mutates and returns the model (the view keeps one instance; tests compare results). */
export function applyEvent(model: ChatModel, event: AgentEvent): ChatModel {
  switch (event.type) {
    case 'turn_started':
      turnStarted(model, event);
      break;
    case 'text_delta': {
      const item = openAssistant(model);
      item.text += event.text;
      item.rev++;
      break;
    }
    case 'thinking_delta':
    case 'thinking_redacted':
      thinking(model, event);
      break;
    case 'retrying':
      retrying(model, event);
      break;
    case 'tool_call_started':
      closeAssistant(model);
      pushItem(model, {
        kind: 'tool',
        key: `tool:${event.toolUseId}`,
        rev: 0,
        name: event.name,
        input: event.input,
        headline: event.headline ?? '',
        status: 'running',
        output: '',
        durationMs: undefined,
        approval: undefined,
        ...(event.card ? { card: event.card } : {}),
      });
      break;
    case 'tool_call_progress': {
      const tool = findTool(model, event.toolUseId);
      if (tool) {
        tool.output = bounded(tool.output + event.chunk);
        tool.rev++;
      }
      break;
    }
    case 'approval_needed':
    case 'approval_resolved':
      approval(model, event);
      break;
    case 'tool_call_finished':
      finishTool(model, event);
      break;
    case 'subagent_started':
    case 'subagent_progress':
    case 'subagent_finished': {
      const tool = findTool(model, event.toolUseId);
      const card = tool && applySubagentEvent(tool.subagent, event);
      if (tool && card) {
        tool.subagent = card;
        tool.rev++;
      }
      break;
    }
    case 'error':
      closeAssistant(model);
      pushNotice(model, 'error', event.message, event.hint, event.actions);
      break;
    case 'turn_finished':
      turnFinished(model, event);
      break;
    case 'compaction':
      pushCompaction(model, event);
      break;
    case 'compaction_undone':
      compactionUndone(model, event);
      break;
    case 'tier':
      pushTierNote(model, event);
      break;
    case 'compaction_failed':
      pushNotice(model, 'error', event.message, event.hint, event.actions);
      break;
    case 'context_window_learned':
      pushNotice(model, 'info', event.message);
      break;
    case 'storage_warning':
      pushNotice(model, 'error', event.message);
      break;
    case 'sandbox_notice':
    case 'mcp_notice': case 'instructions_notice': case 'thinking_notice': case 'web_notice': case 'hook_notice': case 'customization_notice': case 'mode_notice':
      pushNotice(model, event.level === 'warning' ? 'error' : 'info', event.message);
      break;
    case 'hook_run':
      pushHookLine(model, event.run);
      break;
    case 'todos':
      // Replaces the whole list, as todo_write does; copies, so a later event cannot alias it.
      model.todos = { items: event.items.map((item) => ({ ...item })), rev: (model.todos?.rev ?? 0) + 1 };
      break;
    case 'mode_changed': case 'plan_proposed': case 'plan_decided':
      applyModeEvent(model, event);
      break;
    case 'session_started':
    case 'request_started':
    case 'usage':
    case 'context':
      break;
  }
  return model;
}

/**
 * The collapsed thinking section's one line: "Thinking…" while the model thinks (no text yet), then
 * its size ("Thinking · ~1,240 tokens", estimated from its characters) and "(redacted)" for
 * thinking the provider encrypted.
 */
export function thinkingSummary(item: Extract<ChatItem, { kind: 'assistant' }>): string {
  if (item.streaming && item.text === '' && item.thinking !== '') return t('thinking.live');
  const parts: string[] = [];
  const tokens = Math.ceil(item.thinking.length / CHARS_PER_TOKEN);
  if (item.thinking !== '') parts.push(tokens === 1 ? t('thinking.oneToken') : t('thinking.tokens', formatCount(tokens)));
  if (item.redactedThinking > 0) parts.push(t('thinking.redacted'));
  return [t('thinking.label'), ...parts].join(' · ');
}

/** A tool card's status in words (never told by colour alone). */
export function toolStatusText(item: Extract<ChatItem, { kind: 'tool' }>): string {
  switch (item.status) {
    case 'running':
      return '…';
    case 'awaiting-approval':
      return t('tool.needsApproval');
    case 'error':
      return t('tool.failed');
    case 'done':
      return item.durationMs === undefined ? t('tool.done') : `${(item.durationMs / 1000).toFixed(1)}s`;
  }
}

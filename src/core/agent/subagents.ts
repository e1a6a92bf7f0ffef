/**
 * Subagents (issue 10): the `task` tool runs a child AgentSession with its own context engine
 * (every tier, its own compactions), its own transcript under the parent's folder
 * (sessions/<parentId>/subagents/<childId>/transcript.jsonl) and its own system prompt, built from
 * the same parts as the parent (factory.ts: one back end instance, window, defaults). The parent
 * receives only the child's final report and the path of its transcript.
 */
import { userTextForLog } from '../texts/userText';
import * as os from 'node:os';
import { errorMessage, type Logger } from '../logger';
import type { MessageParam } from '../model/messages';
import { textsOf, type ToolUseBlock } from '../model/content';
import type { UsageCounts } from '../model/models';
import { addUsage, zeroUsage } from '../model/usage';
import { subagentStoreIn, type FileSessionStore, type SessionHandle } from '../storage/sessionStore';
import { matchMcpAllowList, mcpIdentityOf, type ApprovalPolicy } from '../approvals/approval';
import type { ApiToolSpec, ToolRegistry } from '../tools/registry';
import { EXIT_PLAN_MODE_TOOL } from '../tools/exitPlanMode';
import { EXPLORE_TOOL_NAMES, TASK_TOOL_NAME } from '../tools/task';
import type { SubagentType, TaskInput } from '../tools/taskInput';
import type { ToolResult } from '../tools/types';
import { NodeWorkspace } from '../workspace/workspace';
import { type AgentEvent, type SubagentStatus, type TurnStopReason } from './events';
import type { SubagentRecordedEvent } from './subagentEvents';
import { AgentSession, type AgentSessionOptions } from './session';
import type { SubagentCall, SubagentRunner } from './sessionOptions';
import type { SubagentLimits } from './subagentLimits';
import { buildSystemPrompt, promptSectionLines, type PromptSections } from './systemPrompt';
import type { SessionHooks } from './hooks';
import { MEMORY_TOOL } from '../tools/memory';
import { SKILL_TOOL } from '../tools/skill';

// The limits and their defaults live with their parser (settings and CLI flags share it).
export { SUBAGENT_DEFAULTS, type SubagentLimits } from './subagentLimits';

/** Progress events at most this often per child (tool starts always get one). */
const PROGRESS_INTERVAL_MS = 250;

/** A subagent's outcome as the parent model is told it (model-facing text: English, not a user's words). */
const STATUS_FOR_MODEL: Readonly<Record<SubagentStatus, string>> = { done: 'done', limit: 'hit a limit', error: 'failed', cancelled: 'cancelled' };

/** What a child shares with its parent: built once by the factory from the parent's own parts. */
export interface SubagentBlueprint {
  client: AgentSessionOptions['client'];
  /** The parent's registry: a child gets a subset of it (never `task`). */
  tools: ToolRegistry;
  workspaceRoot: string;
  /** The parent's session storage root: protected from a child's writes as from the parent's. */
  sessionStorage?: string | undefined;
  /** The workspace is the parent chat's Git worktree (issue 31): writable as the parent's is. */
  worktree?: boolean;
  /** The front end's interactive approver: a child's prompts reach the same UI, keyed by the child's tool-use id. */
  approver: AgentSessionOptions['approver'];
  maxOutputTokens: number;
  /** The parent's context settings (window, auto-compact percent, engine numbers, clock, strategy), without its resumed state. */
  context: Omit<AgentSessionOptions['context'], 'initial'>;
  /** The parent's window now: smaller than `context.window` once the server proved it (a child starts with it). */
  currentWindow?: () => number | undefined;
  logger: Logger;
  limits: SubagentLimits;
  /** The parent's instructions: its prompt's section (as the parent read it) and the subfolder notes. */
  instructions?: { section: () => string | undefined; nested?: AgentSessionOptions['instructions'] };
  /** The parent's hooks: a child's calls go through them too, and its end is SubagentStop. */
  hooks?: SessionHooks;
  /** The parent's skills and memory: its prompt's sections, the skill folders read_file may read, the tools with a memory that only views (explore). */
  customization?: { sections: Pick<PromptSections, 'skills' | 'memory'>; readRoots: readonly string[]; readOnlyMemory?: ToolRegistry };
}

export function createSubagentRunner(blueprint: SubagentBlueprint, parent: SessionHandle): SubagentRunner {
  return new SubagentLauncher(blueprint, parent);
}

/** The line that names the child's transcript, first in every result the parent receives. */
export function transcriptLine(transcriptPath: string): string {
  return `Subagent transcript (everything it did): ${transcriptPath}`;
}

export function buildSubagentPrompt(options: { workspaceRoot: string; platform: string; date: string; toolNames: readonly string[]; agentType: SubagentType } & PromptSections): string {
  return [
    buildSystemPrompt({ workspaceRoot: options.workspaceRoot, platform: options.platform, date: options.date, toolNames: options.toolNames }),
    '',
    'You are a subagent: the main agent handed you the task in the first message. No user reads along and nobody answers questions, so decide for yourself and keep going until the task is done.',
    options.agentType === 'explore'
      ? 'You can only read (read_file, list_files, grep_search): you change nothing. Search broadly, read what matters, and keep only what answers the task.'
      : 'Your edits and commands go through the same approvals as the main agent\'s; if one is declined, report it instead of working around it.',
    'Finish with a concise report, your last message: what you found or did, with paths and line numbers where they help, and anything left open. That report is all the main agent receives, so put everything it needs in it and nothing else.',
    // The parent's skills and memory, then the project's rules, which bind a child as they bind its parent; last, as in every prompt.
    ...promptSectionLines(options),
  ].join('\n');
}

/** A registry that offers only some of the parent's tools (the parent's instance, so secrets and limits are the same). */
export function restrictTools(tools: ToolRegistry, allowed: (name: string) => boolean): ToolRegistry {
  const list = (): ApiToolSpec[] => tools.list().filter((spec) => allowed(spec.name));
  return {
    trusted: tools.trusted,
    list,
    get: (name) => (allowed(name) ? tools.get(name) : undefined),
    headline: (name, input) => (allowed(name) ? tools.headline(name, input) : undefined),
    card: (name, input) => (allowed(name) ? tools.card(name, input) : undefined),
    executeToolCall: async (name, input, ctx) => {
      if (!allowed(name)) {
        const available = list().map((spec) => spec.name).join(', ');
        return { content: `The tool "${name}" is not available to this subagent. Available tools: ${available}.`, isError: true };
      }
      return tools.executeToolCall(name, input, ctx);
    },
  };
}

/** `tools` with one tool served by `from` instead (its definition, its card and its runs). */
function replaceTool(tools: ToolRegistry, name: string, from: ToolRegistry): ToolRegistry {
  const served = (tool: string) => (tool === name ? from : tools);
  return {
    trusted: tools.trusted,
    list: () => tools.list().map((spec) => (spec.name === name ? (from.list().find((replacement) => replacement.name === name) ?? spec) : spec)),
    get: (tool) => served(tool).get(tool),
    headline: (tool, input) => served(tool).headline(tool, input),
    card: (tool, input) => served(tool).card(tool, input),
    executeToolCall: (tool, input, ctx) => served(tool).executeToolCall(tool, input, ctx),
  };
}

/**
 * The tools a child gets. An explore child only looks: the read-only built-ins, a skill's
 * instructions, memory that only views (`readOnlyMemory`), plus the MCP tools the user allow-listed
 * (`mcpAllowList`: they run without asking, so the user vouched for them).
 */
export function subagentTools(tools: ToolRegistry, agentType: SubagentType, mcpAllowList: readonly string[] = [], readOnlyMemory?: ToolRegistry): ToolRegistry {
  // A child has no modes: it neither launches children nor proposes plans to a user who is not there.
  if (agentType !== 'explore') return restrictTools(tools, (name) => name !== TASK_TOOL_NAME && name !== EXIT_PLAN_MODE_TOOL);
  const looking = restrictTools(tools, (name) => {
    if (EXPLORE_TOOL_NAMES.includes(name) || name === SKILL_TOOL || (name === MEMORY_TOOL && readOnlyMemory !== undefined)) return true;
    const tool = tools.get(name);
    const identity = tool && mcpIdentityOf(tool);
    return identity !== undefined && matchMcpAllowList(identity, mcpAllowList);
  });
  return readOnlyMemory ? replaceTool(looking, MEMORY_TOOL, readOnlyMemory) : looking;
}

/** The last thing the child said: its report (a child cut off by a limit may have said it before its last tool call). */
export function lastAssistantText(history: readonly MessageParam[]): string {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role !== 'assistant') continue;
    const text = textsOf(message).join('\n').trim();
    if (text) return text;
  }
  return '';
}

/**
 * On resume after a crash, a `task` call that never got its result is answered with this (instead
 * of the generic interruption), naming the child's transcript when the child had started.
 */
export function interruptedTaskResult(display: readonly AgentEvent[]): (toolUse: ToolUseBlock) => string | undefined {
  const transcripts = new Map<string, string>();
  const finished = new Map<string, Extract<AgentEvent, { type: 'subagent_finished' }>>();
  for (const event of display) {
    if (event.type === 'subagent_started') transcripts.set(event.toolUseId, event.transcriptPath);
    if (event.type === 'subagent_finished') finished.set(event.toolUseId, event);
  }
  return (toolUse) => {
    if (toolUse.name !== TASK_TOOL_NAME) return undefined;
    const transcript = transcripts.get(toolUse.id);
    // A child that had ended before the crash (a sibling was still working) recorded what it handed
    // back: the parent gets that report, which was paid for, rather than a false "interrupted".
    const ended = finished.get(toolUse.id);
    if (transcript && ended) {
      return `${transcriptLine(transcript)}\n\n[The session stopped before this result was delivered; the subagent had already ended (${STATUS_FOR_MODEL[ended.status]}) and this is what it handed back.]\n\n${ended.report}`;
    }
    return transcript
      ? `Interrupted: the session ended while the subagent was working, so its report never came back. What it did so far is in its transcript: ${transcript}`
      : 'Interrupted: the session ended before this subagent started; it did nothing.';
  };
}

/** A counting semaphore whose waiters give up when their call is cancelled. */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  /** Resolves with a release function, or undefined when the signal aborted first. */
  acquire(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const release = () => {
      this.running--;
      this.waiting.shift()?.();
    };
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve(once(release));
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        this.running++;
        resolve(once(release));
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(undefined);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/** A child's time limit counts working time: it stops while the user is asked to approve something. */
class WorkClock {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private remainingMs: number;
  private since = 0;
  expired = false;

  constructor(
    limitMs: number,
    private readonly onExpire: () => void,
  ) {
    this.remainingMs = limitMs;
    this.resume();
  }

  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remainingMs -= Date.now() - this.since;
  }

  resume(): void {
    if (this.timer || this.expired) return;
    this.since = Date.now();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.expired = true;
      this.onExpire();
    }, Math.max(0, this.remainingMs));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

const CANCELLED_BEFORE_START = 'Cancelled by the user before this subagent started.';

class SubagentLauncher implements SubagentRunner {
  private readonly slots: Slots;
  private readonly store: FileSessionStore;
  private readonly running = new Set<AgentSession>();

  constructor(
    private readonly blueprint: SubagentBlueprint,
    private readonly parent: SessionHandle,
  ) {
    this.slots = new Slots(Math.max(1, Math.floor(blueprint.limits.maxConcurrent)));
    this.store = subagentStoreIn(parent.dir, blueprint.logger);
  }

  setApprovalPolicy(policy: ApprovalPolicy): void {
    for (const child of this.running) child.setApprovalPolicy(policy);
  }

  async run(input: TaskInput, call: SubagentCall): Promise<ToolResult> {
    const release = await this.slots.acquire(call.signal);
    if (!release) return { content: CANCELLED_BEFORE_START, isError: true, cancelled: true };
    try {
      return await this.runChild(input, call);
    } catch (error) {
      // Only the set-up can get here (the child's own failures are caught in runChild).
      this.blueprint.logger.error('a subagent could not start', error);
      return { content: `The subagent could not start: ${errorMessage(error)}`, isError: true };
    } finally {
      release();
    }
  }

  private async runChild(input: TaskInput, call: SubagentCall): Promise<ToolResult> {
    const { blueprint } = this;
    const started = Date.now();
    const handle = await this.store.create({ model: blueprint.client.model, workspace: blueprint.workspaceRoot, title: input.description });
    const childId = handle.id;
    const transcriptPath = handle.transcriptPath;
    const customization = blueprint.customization;
    const tools = subagentTools(blueprint.tools, input.agentType, call.approvalPolicy.mcpAllowList, customization?.readOnlyMemory);
    const systemPrompt = buildSubagentPrompt({
      workspaceRoot: blueprint.workspaceRoot,
      platform: `${os.platform()} ${os.arch()}`,
      date: new Date().toISOString().slice(0, 10),
      toolNames: tools.list().map((tool) => tool.name),
      agentType: input.agentType,
      ...customization?.sections,
      instructions: blueprint.instructions?.section(),
    });
    const ts = () => new Date().toISOString();
    handle.append({ type: 'system_prompt', ts: ts(), text: systemPrompt });
    handle.append({ type: 'event', ts: ts(), name: 'subagent_of', data: { parentId: this.parent.id, toolUseId: call.toolUseId, description: input.description, agentType: input.agentType } });
    const startedEvent: SubagentRecordedEvent = { type: 'subagent_started', turnId: call.turnId, toolUseId: call.toolUseId, childId, description: input.description, agentType: input.agentType, transcriptPath };
    call.record(startedEvent);
    call.emit(startedEvent);

    // The child stops when the parent is cancelled, and when its own time runs out.
    const controller = new AbortController();
    const onParentAbort = () => controller.abort();
    call.signal.addEventListener('abort', onParentAbort, { once: true });
    const clock = new WorkClock(blueprint.limits.timeLimitMs, () => controller.abort());
    const { stats, onEvent, progress } = watchChild(call, childId, started, clock);

    let stop: TurnStopReason = 'error';
    let child: AgentSession | undefined;
    try {
      child = new AgentSession({
        client: blueprint.client,
        tools,
        // Read-only access to its own folder: its persisted outputs (tier 0 writes them there).
        workspace: new NodeWorkspace(blueprint.workspaceRoot, [handle.dir, ...(customization?.readRoots ?? [])], { sessionStorage: blueprint.sessionStorage, worktree: blueprint.worktree === true }),
        approver: { requestApproval: (request, signal, context) => blueprint.approver.requestApproval(request, signal, { toolUseId: context?.toolUseId ?? call.toolUseId, subagent: input.description }) },
        approvalPolicy: call.approvalPolicy,
        systemPrompt,
        maxOutputTokens: blueprint.maxOutputTokens,
        store: handle,
        onEvent,
        logger: blueprint.logger,
        context: { ...blueprint.context, window: Math.min(blueprint.context.window, blueprint.currentWindow?.() ?? Number.POSITIVE_INFINITY) },
        maxToolRoundsPerTurn: blueprint.limits.maxToolRounds,
        ...(blueprint.instructions?.nested ? { instructions: blueprint.instructions.nested } : {}),
        ...(call.recordWrite ? { recordWrite: call.recordWrite } : {}),
        ...(blueprint.hooks ? { hooks: blueprint.hooks.forSubagent({ id: childId, type: input.agentType, transcriptPath }, { emit: onEvent, store: handle }) } : {}),
      });
      if (call.signal.aborted) controller.abort();
      this.running.add(child);
      stop = await child.send(input.prompt, controller.signal);
      // The report goes to the parent model: the failure's English (Error.message), not the user's kinds.
      if (stop === 'error' && child.lastError !== undefined) stats.error = errorMessage(child.lastError);
    } catch (error) {
      // A crash inside the child is its own failure: the parent gets an error result, nothing more.
      blueprint.logger.error(`subagent ${childId} crashed`, error);
      stats.error = errorMessage(error);
      stop = 'error';
    } finally {
      clock.stop();
      if (child) this.running.delete(child);
      call.signal.removeEventListener('abort', onParentAbort);
      await handle.flushMeta().catch((error: unknown) => blueprint.logger.error(`could not write the meta.json of subagent ${childId}`, error));
      handle.close();
    }

    const text = child ? lastAssistantText(child.history) : '';
    const timedOut = clock.expired;
    const status: SubagentStatus = call.signal.aborted ? 'cancelled' : timedOut || stats.roundLimit ? 'limit' : stop === 'error' || stop === 'cancelled' ? 'error' : 'done';
    const report = reportFor(status, stop, text, stats.error, blueprint.limits, timedOut);
    const elapsedMs = Date.now() - started;
    progress(true);
    const finished: SubagentRecordedEvent = { type: 'subagent_finished', turnId: call.turnId, toolUseId: call.toolUseId, childId, status, report, usage: stats.usage, costUsd: stats.costUsd, ...(stats.unpricedRequests > 0 ? { unpricedRequests: stats.unpricedRequests } : {}), toolCalls: stats.toolCalls, elapsedMs };
    call.record(finished);
    call.emit(finished);
    const content = `${transcriptLine(transcriptPath)}\n\n${report}`;
    if (status === 'cancelled') return { content, isError: true, cancelled: true };
    return status === 'error' ? { content, isError: true } : { content };
  }
}

/** What the parent keeps of a running child: counts for its card and report, the last error, whether a limit stopped it. */
interface ChildStats {
  toolCalls: number;
  tokens: number;
  usage: UsageCounts;
  costUsd: number;
  unpricedRequests: number;
  lastTool: string | undefined;
  error: string | undefined;
  roundLimit: boolean;
}

/**
 * The child's events as the parent sees them: counted into the stats, progress sent at most every
 * PROGRESS_INTERVAL_MS (or at once when forced), approvals passed up with the child's origin, the
 * time limit's clock paused while the user decides.
 */
function watchChild(call: SubagentCall, childId: string, started: number, clock: WorkClock): { stats: ChildStats; onEvent: (event: AgentEvent) => void; progress: (force: boolean) => void } {
  const stats: ChildStats = { toolCalls: 0, tokens: 0, usage: zeroUsage(), costUsd: 0, unpricedRequests: 0, lastTool: undefined, error: undefined, roundLimit: false };
  let lastProgressAt = 0;
  const progress = (force: boolean) => {
    const now = Date.now();
    if (!force && now - lastProgressAt < PROGRESS_INTERVAL_MS) return;
    lastProgressAt = now;
    call.emit({
      type: 'subagent_progress',
      turnId: call.turnId,
      toolUseId: call.toolUseId,
      childId,
      toolCalls: stats.toolCalls,
      tokens: stats.tokens,
      elapsedMs: now - started,
      ...(stats.lastTool ? { lastTool: stats.lastTool } : {}),
    });
  };
  const origin = { childId, parentToolUseId: call.toolUseId };
  const onEvent = (event: AgentEvent) => {
    switch (event.type) {
      case 'tool_call_started':
        stats.toolCalls++;
        stats.lastTool = event.name;
        progress(true);
        break;
      case 'usage':
        addUsage(stats.usage, event.usage);
        stats.costUsd += event.costUsd;
        if (event.priceUnknown) stats.unpricedRequests++;
        call.recordUsage(event.usage, event, childId);
        progress(false);
        break;
      case 'context':
        stats.tokens = event.gauge.usedTokens;
        break;
      case 'error':
        if (event.kind === 'tool_round_limit') stats.roundLimit = true;
        // The report goes to the parent model: a front end's wording of a next step (errorHint) is not for it.
        else stats.error = `${userTextForLog(event.message)}${event.hint ? ` (${userTextForLog(event.hint)})` : ''}`;
        break;
      case 'approval_needed':
        clock.pause();
        call.emit({ ...event, turnId: call.turnId, ...origin });
        break;
      case 'tool_call_finished':
        clock.resume(); // also when an approval ended without a decision (the tool failed)
        break;
      case 'hook_run': {
        // The child's hooks show in the parent's chat too (recorded in the child's transcript, whose folder keeps their output).
        const { outputFile: _inChildFolder, ...run } = event.run;
        call.emit({ ...event, turnId: call.turnId, run });
        break;
      }
      case 'hook_notice':
        call.emit({ ...event, turnId: call.turnId });
        break;
      case 'approval_resolved':
        clock.resume();
        // The front end resolves it by the child's tool-use id; the origin says which card it belongs to.
        call.emit({ ...event, turnId: call.turnId, ...origin });
        break;
      default:
        break; // Everything else is in the child's own transcript.
    }
  };
  return { stats, onEvent, progress };
}

function reportFor(status: SubagentStatus, stop: TurnStopReason, text: string, error: string | undefined, limits: SubagentLimits, timedOut: boolean): string {
  switch (status) {
    case 'done': {
      const body = text || '(The subagent finished without writing a report.)';
      if (stop === 'max_tokens') return `${body}\n\n[Note: the report was cut at the output token limit.]`;
      if (stop === 'context_window_exceeded') return `${body}\n\n[Note: the report was cut when the subagent's context window filled up.]`;
      if (stop === 'refusal') return `${body}\n\n[Note: the subagent declined the task.]`;
      return body;
    }
    case 'limit': {
      const why = timedOut ? `its time limit (${Math.round(limits.timeLimitMs / 1000)} s)` : `its limit of ${limits.maxToolRounds} tool rounds`;
      return `${text || '(It wrote no text before it was stopped.)'}\n\n[Note: the subagent was stopped at ${why} before it finished; the text above is the last it wrote, and its transcript has everything it did.]`;
    }
    case 'error':
      return `The subagent failed: ${error ?? 'it stopped without a reply'}.${text ? `\n\nThe last it wrote:\n${text}` : ''}`;
    case 'cancelled':
      return `Cancelled by the user while the subagent was working.${text ? `\n\nThe last it wrote:\n${text}` : ''}`;
  }
}

/**
 * A session's mode, wired (issue 28): which mode is on, which one the model was last told of, and
 * what each mode lets a call do. The tool list sent to the API is one for every mode, so a switch
 * never rewrites the cached prefix: the model learns of a switch from one small block at the start
 * of the next turn's message (modes/modes.ts, `modeSwitchText`), and the mode is held per call
 * (`modeToolGate`: a refused call says why) with the limits the tools it still offers run under
 * (plan mode: run_shell with the workspace read-only, explore subagents only). A mode is recorded
 * in the transcript (`mode` entries), so a resume continues in it.
 *
 * Plan decisions (Build it, Keep planning) arrive here too: they switch the mode and queue the
 * block that tells the model, in the same message as the switch.
 */
import { MEMORY_TOOL } from '../tools/memory';
import { MCP_CALL_TOOL } from '../mcp/deferredNames';
import type { ContentBlockParam, MessageParam } from '../model/messages';
import { chooseModel } from '../definitions/modelChoice';
import { AGENT_MODE, findMode, modeSwitchText, PLAN_MODE, type ModeDefinition } from '../modes/modes';
import { modeToolGate, toolsForMode, type ModeTool, type ModeToolOptions, type ModeToolSet } from '../modes/modeTools';
import type { TranscriptEntry } from '../storage/transcript';
import { pendingPlan, planDecisionText, type PlanDecisionKind } from '../todos/planDecision';
import type { ToolRegistry } from '../tools/registry';
import { SUBAGENT_TYPES } from '../tools/taskInput';
import type { CallRestrictions, ToolDefinition } from '../tools/types';
import { userText, type UserText } from '../texts/userText';
import type { AgentEvent, ModeChangeReason } from './events';

/**
 * A mode name that names no mode, listing the ones there are: `said` for the user (each front end
 * words it), the message in English for the log.
 */
export class UnknownModeError extends Error {
  override name = 'UnknownModeError';
  readonly said: UserText;
  constructor(
    readonly requested: string,
    readonly known: readonly string[],
  ) {
    super(`There is no mode "${requested}". The modes are: ${known.join(', ')}.`);
    this.said = userText('customization.unknownMode', { mode: requested, modes: known.join(', ') });
  }
}

/** A plan decision that cannot be made now (no plan waits for one, or another plan does). */
export class PlanDecisionError extends Error {
  override name = 'PlanDecisionError';
}

/** What the user typed with a decision, or the words that stand for the button when nothing was typed. */
const DEFAULT_DECISION_TEXT: Readonly<Record<PlanDecisionKind, string>> = { build: 'Build the plan.', keep_planning: 'Keep planning.' };

export interface SessionModesOptions {
  modes: readonly ModeDefinition[];
  /** The mode the session is in, and the one the model was last told of (agent for a new session). */
  current: ModeDefinition;
  told: string;
  /** The session's tools: one list for every mode. */
  tools: Pick<ToolRegistry, 'list' | 'get'>;
  toolOptions: ModeToolOptions;
  record(entry: Extract<TranscriptEntry, { type: 'mode' }>): void;
  emit(event: AgentEvent): void;
  now(): number;
  /** The model running, the one configured (what a mode without a model runs on), and which ids the provider serves. */
  models?: { running: string; configured: string; serves(id: string): boolean };
}

export class SessionModes {
  private mode: ModeDefinition;
  private told: string;
  private readonly sets = new Map<string, { set: ModeToolSet<ModeTool & ToolDefinition<unknown>>; gate: (name: string) => string | undefined }>();
  /** Blocks for the start of the next turn's message beyond the switch (a plan decision). */
  private queued: string[] = [];

  constructor(private readonly options: SessionModesOptions) {
    this.mode = options.current;
    this.told = options.told;
  }

  get current(): ModeDefinition {
    return this.mode;
  }

  /** Every mode the session can switch to: agent, plan, then the custom ones. */
  get all(): readonly ModeDefinition[] {
    return this.options.modes;
  }

  /** The mode `name` picks (modes.ts's `findMode`); throws UnknownModeError naming the modes there are. */
  find(name: string): ModeDefinition {
    const mode = findMode(this.options.modes, name);
    if (!mode) throw new UnknownModeError(name, this.options.modes.map((candidate) => candidate.name));
    return mode;
  }

  /**
   * Switches to the mode `name` picks, between turns: recorded (a resume continues in it) and
   * shown; the model is told with the next turn's message. The same mode again changes nothing.
   */
  switchTo(name: string, reason: ModeChangeReason): ModeDefinition {
    const mode = this.find(name);
    if (mode === this.mode && reason !== 'start') return mode;
    this.mode = mode;
    this.options.record({ type: 'mode', ts: new Date(this.options.now()).toISOString(), mode: mode.name, reason });
    this.options.emit({ type: 'mode_changed', mode: mode.name, reason, description: mode.description });
    return mode;
  }

  /** The blocks that open the next turn's message: the switch the model has not been told of, then any decision. Taken once. */
  takeLeadingBlocks(): ContentBlockParam[] {
    const texts = [...(this.told !== this.mode.name ? [modeSwitchText(this.mode)] : []), ...this.queued];
    this.told = this.mode.name;
    this.queued = [];
    return texts.map((text) => ({ type: 'text', text }));
  }

  /** Why the mode refuses this call (the model's answer), or undefined when it may run. */
  refusal(call: { name: string; input: unknown }): string | undefined {
    // A name the session has no tool for is the registry's to answer (it names the tools there are).
    if (!this.options.tools.get(call.name)) return undefined;
    const refused = this.setFor(this.mode).gate(call.name);
    if (refused === undefined && call.name === MEMORY_TOOL) return this.memoryRefusal(call.input);
    if (refused !== undefined || call.name !== MCP_CALL_TOOL) return refused;
    // mcp_call stands for every deferred MCP tool: the one it names must be one the mode offers.
    const target = this.deferredTarget(call.input);
    if (!target || toolsForMode(this.mode, [target], this.options.toolOptions).tools.length > 0) return undefined;
    const why = this.mode.base === PLAN_MODE ? ' Plan mode offers only the MCP tools the user allowed for it.' : '';
    return `${target.name} is not available in the ${this.mode.name} mode.${why}`;
  }

  /** A mode that changes nothing (plan) changes no memory either: the notes may be viewed, not written (the set's `memoryReadOnly`). */
  private memoryRefusal(input: unknown): string | undefined {
    if (!this.setFor(this.mode).set.memoryReadOnly) return undefined;
    const command = typeof input === 'object' && input !== null && 'command' in input ? (input as { command: unknown }).command : undefined;
    if (command === 'view') return undefined;
    return `memory ${typeof command === 'string' ? `${command} is` : 'writes are'} not available in the ${this.mode.name} mode: plan mode changes nothing, memory included. View notes now; save new ones after the plan is built.`;
  }

  /** The limits the current mode puts on the tools it offers; undefined when it puts none. */
  restrictions(): CallRestrictions | undefined {
    const { set } = this.setFor(this.mode);
    if (!set.shellReadOnly && set.subagentTypes.length === SUBAGENT_TYPES.length) return undefined;
    return { readOnlyWorkspace: set.shellReadOnly, subagentTypes: set.subagentTypes };
  }

  /**
   * Whether the current mode runs on another model than the one running (a custom mode's `model`, or
   * back to the configured one): a back end serves one model, so the front end restarts the session
   * on its transcript to apply it (agent/modeStart.ts connects it).
   */
  wantsOtherModel(): boolean {
    const models = this.options.models;
    if (!models) return false;
    return (chooseModel(this.mode.model, models.serves).model ?? models.configured) !== models.running;
  }

  /** Whether the current mode offers `name` (a tool of the session's list). */
  offers(name: string): boolean {
    return this.setFor(this.mode).set.tools.some((tool) => tool.name === name);
  }

  /**
   * The user's decision on the plan waiting for one (`toolUseId`, when given, must be it): Build it
   * switches to agent, Keep planning to plan when another mode is on. The decision is shown now and
   * told to the model at the start of the message this returns the text of (`note`, or words that
   * stand for the button).
   */
  decidePlan(messages: readonly MessageParam[], kind: PlanDecisionKind, options: { toolUseId?: string; note?: string } = {}): string {
    const pending = pendingPlan(messages);
    if (!pending) throw new PlanDecisionError('No plan is waiting for a decision: the model has not proposed one since the last message. Ask it to plan (plan mode) and to propose the plan with exit_plan_mode.');
    if (options.toolUseId !== undefined && options.toolUseId !== pending.toolUseId) throw new PlanDecisionError('That plan is no longer the one waiting for a decision; decide on the newest plan.');
    if (kind === 'build') this.switchTo(AGENT_MODE, 'build');
    else if (this.mode.base !== PLAN_MODE) this.switchTo(PLAN_MODE, 'switch');
    this.options.emit({ type: 'plan_decided', toolUseId: pending.toolUseId, decision: kind });
    const steps = kind === 'build' ? pending.plan.steps : [];
    if (steps.length > 0) this.options.emit({ type: 'todos', items: steps.map((step) => ({ ...step })) });
    this.queued.push(planDecisionText({ kind, toolUseId: pending.toolUseId }, steps));
    return options.note?.trim() || DEFAULT_DECISION_TEXT[kind];
  }

  private setFor(mode: ModeDefinition): { set: ModeToolSet<ModeTool & ToolDefinition<unknown>>; gate: (name: string) => string | undefined } {
    let entry = this.sets.get(mode.name);
    if (!entry) {
      const tools = this.options.tools.list().flatMap((spec) => this.options.tools.get(spec.name) ?? []);
      const set = toolsForMode(mode, tools, this.options.toolOptions);
      entry = { set, gate: modeToolGate(mode, set) };
      this.sets.set(mode.name, entry);
    }
    return entry;
  }

  /** The MCP tool an mcp_call input names (through mcp_call's own parse); undefined when it names none. */
  private deferredTarget(input: unknown): (ModeTool & { name: string }) | undefined {
    const call = this.options.tools.get(MCP_CALL_TOOL);
    if (!call) return undefined;
    let parsed: unknown;
    try {
      parsed = call.parse(input);
    } catch {
      return undefined; // The call itself reports what is wrong with its input.
    }
    const tool = typeof parsed === 'object' && parsed !== null ? (parsed as { tool?: unknown }).tool : undefined;
    return isModeTool(tool) ? tool : undefined;
  }
}

function isModeTool(value: unknown): value is ModeTool {
  if (typeof value !== 'object' || value === null) return false;
  const tool = value as Partial<ModeTool>;
  return typeof tool.name === 'string' && typeof tool.kind === 'string';
}

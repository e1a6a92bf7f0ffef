/**
 * Which tools a mode offers, from the tools the session has. Agent mode: all of them (but
 * exit_plan_mode). Plan mode changes nothing: no tool that writes files; run_shell only where the
 * OS sandbox works, and then with the workspace read-only (a flag the sandbox honours, so the
 * kernel holds "changes nothing", not the command's text); MCP tools only those the user lists in
 * a setting (a server may do anything its author wrote); subagents explore only; memory read-only;
 * exit_plan_mode to end. A custom mode starts from its base and its `tools` only narrow that.
 */
import { matchMcpAllowList, mcpIdentityOf } from '../approvals/approval';
import { restrictTools, standsForMcpTools, type OfferedTool } from '../definitions/toolNames';
import { EXIT_PLAN_MODE_TOOL } from '../tools/exitPlanMode';
import { SUBAGENT_TYPES, type SubagentType } from '../tools/taskInput';
import type { ToolKind } from '../tools/types';
import { PLAN_MODE, type ModeDefinition } from './modes';

/** Whether an entry of plan mode's MCP list names MCP tools: `mcp__server__tool` or `mcp__server__*` (anything else would quietly offer nothing). */
export function isMcpToolEntry(entry: string): boolean {
  return /^mcp__.+__.+$/.test(entry);
}

export interface ModeToolOptions {
  /** The OS sandbox can run commands here (plan mode offers run_shell only then). */
  sandboxAvailable: boolean;
  /** The MCP tools plan mode may offer (the user's setting): full names (`mcp__github__get_issue`) or a server's all (`mcp__github__*`). */
  planMcpTools: readonly string[];
}

/** A tool as the registry has it (ToolDefinition fits). */
export interface ModeTool extends OfferedTool {
  kind: ToolKind;
}

export interface ModeToolSet<T extends ModeTool> {
  /** The tools to offer, in the order given. */
  tools: T[];
  /** run_shell must run with the whole workspace read-only (the sandbox's flag). */
  shellReadOnly: boolean;
  /** The subagent types `task` may start. */
  subagentTypes: readonly SubagentType[];
  /** `memory` may only view. */
  memoryReadOnly: boolean;
}

function offeredInPlan(tool: ModeTool, options: ModeToolOptions): boolean {
  // By the server's identity (its name as configured), as approvals match: a lookalike server never slips into plan mode.
  const identity = mcpIdentityOf(tool);
  if (identity !== undefined) return matchMcpAllowList(identity, options.planMcpTools);
  // The deferred MCP tools stand for every MCP tool: only when the user listed some (mcp_call must refuse the rest).
  if (standsForMcpTools(tool)) return options.planMcpTools.length > 0;
  if (tool.kind === 'write') return false;
  if (tool.kind === 'shell') return options.sandboxAvailable;
  return true;
}

/** The tools `mode` offers out of `available`, and the limits the offered ones run under. */
export function toolsForMode<T extends ModeTool>(mode: ModeDefinition, available: readonly T[], options: ModeToolOptions): ModeToolSet<T> {
  const plan = mode.base === PLAN_MODE;
  const base = available.filter((tool) => (plan ? offeredInPlan(tool, options) : tool.name !== EXIT_PLAN_MODE_TOOL));
  return {
    tools: restrictTools(base, mode.tools),
    shellReadOnly: plan,
    subagentTypes: plan ? ['explore'] : SUBAGENT_TYPES,
    memoryReadOnly: plan,
  };
}

/**
 * Refusals for calls of tools a mode does not offer: for a session that keeps one tool list for
 * every mode (so a switch does not rewrite the cached prefix) and enforces the mode per call.
 * Undefined: the call may run.
 */
export function modeToolGate<T extends ModeTool>(mode: ModeDefinition, set: ModeToolSet<T>): (toolName: string) => string | undefined {
  const offered = new Set(set.tools.map((tool) => tool.name));
  return (toolName) => {
    if (offered.has(toolName)) return undefined;
    if (toolName === EXIT_PLAN_MODE_TOOL) return `${EXIT_PLAN_MODE_TOOL} is only for plan mode; the ${mode.name} mode is on. Carry on with the task.`;
    const why = mode.base === PLAN_MODE ? ' Plan mode changes nothing: research with the tools offered and propose the change with exit_plan_mode.' : '';
    return `${toolName} is not available in the ${mode.name} mode.${why}`;
  };
}

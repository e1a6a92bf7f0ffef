/**
 * A command's tool list (`allowed-tools:` / `tools:`) for the turn it starts: the session keeps
 * offering every tool (a narrower list would rewrite the cached prefix), the model is told which ones
 * this turn may use, and a call of any other is refused before it runs. A list only ever narrows:
 * what it lets through still goes through every approval the user's settings ask for, so a
 * repository's command that lists `Bash(git push:*)` gets `run_shell` offered and every call asked.
 */
import { restrictTools, toolAllowedBy, type OfferedTool, type ToolRestriction } from '../definitions/toolNames';

/** Refuses, in words for the model, calls of tools the command does not allow; undefined: the call may run. */
export function restrictionGate(restriction: ToolRestriction, commandName: string, lookup: (name: string) => OfferedTool | undefined): (toolName: string) => string | undefined {
  return (toolName) => {
    const tool = lookup(toolName);
    // A name the session does not offer is answered by the registry (unknown tool), not here.
    if (tool === undefined || toolAllowedBy(restriction, tool)) return undefined;
    return `Not run: /${commandName} allows only some tools for this turn (${restriction.written.join(', ')}), and ${toolName} is not one of them. Use the tools it allows, or finish and say what else is needed.`;
  };
}

/** The line the turn's message ends with, so the model knows which tools this turn may use. */
export function restrictionNote(restriction: ToolRestriction, commandName: string, offered: readonly OfferedTool[]): string {
  const allowed = restrictTools(offered, restriction).map((tool) => tool.name);
  return `[/${commandName} allows only these tools in this turn: ${allowed.length > 0 ? allowed.join(', ') : 'none'}. Calls of other tools are refused.]`;
}

/**
 * The names MCP tools are offered under: `mcp__<server>__<tool>` (Claude Code's convention), with
 * every character outside `[A-Za-z0-9_-]` replaced, at most 64 characters (the APIs' limit), and
 * unique: a name that collides after sanitizing or cutting gets a short hash of the original pair.
 */
import { createHash } from 'node:crypto';
import { MCP_TOOL_PREFIX, mcpNamePart } from '../approvals/approval';

const MAX_NAME = 64;


function shortHash(server: string, tool: string): string {
  return createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
}

/** The name for one tool, before uniqueness (see `McpToolNames`). */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_TOOL_PREFIX}${mcpNamePart(server)}__${mcpNamePart(tool)}`;
  return name.length <= MAX_NAME ? name : `${name.slice(0, MAX_NAME - 9)}_${shortHash(server, tool)}`;
}

/** Hands out unique names; `taken` are names already in use (the built-in tools). */
export class McpToolNames {
  private readonly used: Set<string>;

  constructor(taken: Iterable<string>) {
    this.used = new Set(taken);
  }

  claim(server: string, tool: string): string {
    let name = mcpToolName(server, tool);
    if (this.used.has(name)) {
      const base = name.length > MAX_NAME - 9 ? name.slice(0, MAX_NAME - 9) : name;
      name = `${base}_${shortHash(server, tool)}`;
    }
    // A hash collision as well: numbered until free (never silently shared).
    for (let n = 2; this.used.has(name); n++) name = `${name.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
    this.used.add(name);
    return name;
  }
}

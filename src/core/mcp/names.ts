/**
 * The names MCP tools are offered under: `mcp__<server>__<tool>` (Claude Code's convention), with
 * every character outside `[A-Za-z0-9_-]` replaced, at most 64 characters (the APIs' limit), and
 * unique: a name that collides after sanitizing or cutting gets a short hash of the original pair.
 *
 * Servers whose names sanitize alike ("a_b", "a.b", "a b") are told apart before any tool is named:
 * each one whose name had to change gets a hash of its own name in its part, decided from the
 * session's configured servers alone (not from which started), so a tool keeps its name across
 * restarts and a transcript or allow list keeps meaning the same server.
 */
import { createHash } from 'node:crypto';
import { MCP_TOOL_PREFIX, mcpNamePart } from '../approvals/approval';
import { userText } from '../texts/userText';
import type { UserText } from '../texts/userText';

const MAX_NAME = 64;
/** Hex digits of a server name's hash added to its part when its sanitized name is shared. */
const SERVER_HASH_DIGITS = 6;

function shortHash(server: string, tool: string): string {
  return createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
}

/** The name for one tool, before uniqueness (see `McpToolNames`); `serverPart` is the server's part (`mcpServerParts`). */
export function mcpToolName(server: string, tool: string, serverPart = mcpNamePart(server)): string {
  const name = `${MCP_TOOL_PREFIX}${serverPart}__${mcpNamePart(tool)}`;
  return name.length <= MAX_NAME ? name : `${name.slice(0, MAX_NAME - 9)}_${shortHash(server, tool)}`;
}

export interface McpServerParts {
  /** Each server's name (as configured) to its part in its tools' names. */
  parts: ReadonlyMap<string, string>;
  /** One notice per sanitized name two or more servers share, naming them and their parts. */
  collisions: UserText[];
}

/**
 * Each server's part in its tools' names: its name sanitized, and where servers share a sanitized
 * name, every one of them whose name had to change gets `_<hash of its name>` (the one whose name is
 * already the sanitized form keeps it: it is what its user wrote).
 */
export function mcpServerParts(serverNames: readonly string[]): McpServerParts {
  const bySanitized = new Map<string, string[]>();
  for (const name of serverNames) {
    const sanitized = mcpNamePart(name);
    bySanitized.set(sanitized, [...(bySanitized.get(sanitized) ?? []), name]);
  }
  const parts = new Map<string, string>();
  const collisions: UserText[] = [];
  for (const [sanitized, names] of bySanitized) {
    if (names.length === 1) {
      parts.set(names[0]!, sanitized);
      continue;
    }
    for (const name of names) parts.set(name, name === sanitized ? name : `${sanitized}_${createHash('sha256').update(name).digest('hex').slice(0, SERVER_HASH_DIGITS)}`);
    const servers = names.map((name) => `"${name}" (${MCP_TOOL_PREFIX}${parts.get(name)}__…)`);
    collisions.push(userText('start.mcpNameCollision', { servers, sanitized, allowEntry: `${MCP_TOOL_PREFIX}${names[0]}__*` }));
  }
  return { parts, collisions };
}

/** Hands out unique names; `taken` are names already in use (the built-in tools). */
export class McpToolNames {
  private readonly used: Set<string>;

  constructor(
    taken: Iterable<string>,
    private readonly servers: McpServerParts = mcpServerParts([]),
  ) {
    this.used = new Set(taken);
  }

  claim(server: string, tool: string): string {
    let name = mcpToolName(server, tool, this.servers.parts.get(server));
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

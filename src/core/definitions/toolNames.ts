/**
 * A definition's tool list (`tools:` in Copilot's and Evergreen's files, `allowed-tools:` in Claude
 * Code's) as a restriction: it only ever narrows what the mode or session already offers, and it
 * never grants an approval. Claude Code reads `allowed-tools` as "run these without asking"; a file
 * from a repository must not be able to say that here, so such an entry offers its tool and nothing
 * more (a 'grant-ignored' notice says so). Names from Claude Code and Copilot map to Evergreen's
 * tools; names with no equivalent are reported and left out.
 */
import { MCP_TOOL_PREFIX, mcpNamePart } from '../approvals/approval';
import { BUILTIN_TOOL_NAMES, isBuiltinToolName, toolForClaudeCodeName } from '../toolNames';
import { notice, type DefinitionNotice } from './types';
import { userText } from '../texts/userText';

const READ = ['read_file'];
const LIST = ['list_files'];
const GREP = ['grep_search'];
const WRITE = ['write_file', 'edit_file'];
const SHELL = ['run_shell'];
const SEARCH = [...GREP, ...LIST, ...READ];

/**
 * Copilot's names for Evergreen's tools, exactly as it writes them (camelCase and `set/tool`); its
 * `edit` is its edit tool set (create and edit files). Evergreen's own names and Claude Code's come
 * from the one table of tool names (src/core/toolNames.ts).
 */
const COPILOT_ALIASES: Readonly<Record<string, readonly string[]>> = {
  // GitHub Copilot (VS Code): tool sets and tools, current and earlier names
  read: READ,
  'read/readFile': READ,
  readFile: READ,
  search: SEARCH,
  codebase: SEARCH,
  'search/codebase': SEARCH,
  textSearch: GREP,
  'search/textSearch': GREP,
  fileSearch: LIST,
  'search/fileSearch': LIST,
  listDirectory: LIST,
  'search/listDirectory': LIST,
  edit: WRITE,
  editFiles: WRITE,
  'edit/editFiles': WRITE,
  createFile: ['write_file'],
  'edit/createFile': ['write_file'],
  createDirectory: ['write_file'],
  'edit/createDirectory': ['write_file'],
  execute: SHELL,
  runCommands: SHELL,
  runInTerminal: SHELL,
  'execute/runInTerminal': SHELL,
  agent: ['task'],
  runSubagent: ['task'],
  'agent/runSubagent': ['task'],
  todos: ['todo_write'],
  todo: ['todo_write'],
  // Copilot's web tool set: fetching pages (web_search is the SearXNG tool, where a session has it).
  web: ['web_fetch', 'web_search'],
  fetch: ['web_fetch'],
  'web/fetch': ['web_fetch'],
};

/** Copilot's built-in tool sets: `set/tool` under one of them is a built-in tool, not an MCP server's. */
const COPILOT_TOOL_SETS = new Set(['read', 'search', 'edit', 'execute', 'web', 'agent', 'vscode', 'browser', 'todo']);

/**
 * Tools every restriction keeps: they touch nothing outside the session (recall reads its history,
 * compact shrinks it, exit_plan_mode only proposes), and without them a long command could not
 * manage its context or leave plan mode.
 */
export const ALWAYS_OFFERED_TOOLS: readonly string[] = ['recall', 'compact', 'exit_plan_mode'];

/** MCP tools an entry names: every tool of a server, or one tool by its full Evergreen name. */
export interface McpSelector {
  written: string;
  server?: string;
  fullName?: string;
}

export interface ToolRestriction {
  /** The entries as written (for the user). */
  written: readonly string[];
  /** Evergreen's built-in tools the entries allow. */
  tools: ReadonlySet<string>;
  mcp: readonly McpSelector[];
}

/** What a restriction is applied to: a tool as the registry has it (a ToolDefinition is one). */
export interface OfferedTool {
  name: string;
  /** Set on an MCP server's tool: the server's name. */
  mcpServer?: string | undefined;
  /** Set on an MCP server's tool: the tool's own name, as the server lists it. */
  mcpTool?: string | undefined;
  /** `external` without `mcpServer`: a tool that stands for MCP tools (the deferred mcp_search and mcp_call). */
  context?: { external?: boolean | undefined } | undefined;
}

/** A tool that stands for MCP tools without being one (mcp_search, mcp_call when MCP tools are deferred). */
export const standsForMcpTools = (tool: OfferedTool): boolean => tool.mcpServer === undefined && tool.context?.external === true;

type Parsed = { kind: 'tools'; tools: readonly string[]; grant?: true } | { kind: 'mcp'; selector: McpSelector } | { kind: 'unknown' };

function parseEntry(entry: string): Parsed {
  const call = /^([A-Za-z_][\w]*)\((.*)\)$/s.exec(entry);
  if (call) {
    const parsed = parseEntry(call[1]!);
    return parsed.kind === 'tools' ? { ...parsed, grant: true } : parsed;
  }
  if (isBuiltinToolName(entry)) return { kind: 'tools', tools: [entry] };
  const claudeCode = toolForClaudeCodeName(entry);
  if (claudeCode) return { kind: 'tools', tools: [claudeCode] };
  const alias = Object.hasOwn(COPILOT_ALIASES, entry) ? COPILOT_ALIASES[entry] : undefined;
  if (alias) return { kind: 'tools', tools: alias };
  if (entry.startsWith(MCP_TOOL_PREFIX)) {
    const rest = entry.slice(MCP_TOOL_PREFIX.length);
    if (rest === '') return { kind: 'unknown' };
    if (rest.endsWith('__*')) return { kind: 'mcp', selector: { written: entry, server: rest.slice(0, -3) } };
    return { kind: 'mcp', selector: rest.includes('__') ? { written: entry, fullName: entry } : { written: entry, server: rest } };
  }
  const slash = entry.indexOf('/');
  if (slash > 0 && !COPILOT_TOOL_SETS.has(entry.slice(0, slash))) {
    const server = mcpNamePart(entry.slice(0, slash));
    const tool = entry.slice(slash + 1);
    if (tool === '*') return { kind: 'mcp', selector: { written: entry, server } };
    if (tool !== '' && !tool.includes('/')) return { kind: 'mcp', selector: { written: entry, fullName: `${MCP_TOOL_PREFIX}${server}__${mcpNamePart(tool)}` } };
  }
  return { kind: 'unknown' };
}

/** A tool list as written in a file, as a restriction; notices name what was left out and what grants nothing. */
export function parseToolList(entries: readonly string[], where: { file: string; field: string }): { restriction: ToolRestriction; notices: DefinitionNotice[] } {
  const tools = new Set<string>();
  const mcp: McpSelector[] = [];
  const unknown: string[] = [];
  const grants: string[] = [];
  for (const entry of entries) {
    const parsed = parseEntry(entry.trim());
    if (parsed.kind === 'unknown') unknown.push(entry);
    else if (parsed.kind === 'mcp') mcp.push(parsed.selector);
    else {
      for (const tool of parsed.tools) tools.add(tool);
      if (parsed.grant) grants.push(entry);
    }
  }
  const notices: DefinitionNotice[] = [];
  const quoted = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');
  if (unknown.length > 0) {
    const text = userText('customization.unknownTools', { file: where.file, field: where.field, names: quoted(unknown), count: unknown.length, tools: BUILTIN_TOOL_NAMES.join(', ') });
    notices.push(notice('unknown-tool', where.file, text, { entries: unknown }));
  }
  if (grants.length > 0) notices.push(notice('grant-ignored', where.file, userText('customization.grantIgnored', { file: where.file, field: where.field, entries: quoted(grants) }), { entries: grants }));
  return { restriction: { written: [...entries], tools, mcp }, notices };
}

function selects(selector: McpSelector, tool: OfferedTool): boolean {
  if (tool.mcpServer === undefined) return false;
  if (selector.fullName !== undefined) return selector.fullName === tool.name;
  return selector.server !== undefined && mcpNamePart(selector.server) === mcpNamePart(tool.mcpServer);
}

/** Whether a restriction lets a tool be offered (no restriction: yes). */
export function toolAllowedBy(restriction: ToolRestriction | undefined, tool: OfferedTool): boolean {
  if (restriction === undefined || ALWAYS_OFFERED_TOOLS.includes(tool.name)) return true;
  if (tool.mcpServer !== undefined) return restriction.mcp.some((selector) => selects(selector, tool));
  // The deferred MCP tools stand for MCP tools: offered when the list names any (mcp_call must still refuse the others).
  if (standsForMcpTools(tool)) return restriction.mcp.length > 0;
  return restriction.tools.has(tool.name);
}

/** `offered` narrowed by every restriction given (each only removes; none adds). */
export function restrictTools<T extends OfferedTool>(offered: readonly T[], ...restrictions: readonly (ToolRestriction | undefined)[]): T[] {
  return offered.filter((tool) => restrictions.every((restriction) => toolAllowedBy(restriction, tool)));
}

/** The MCP entries of a restriction that select none of `offered` (a server not configured, a misspelled tool): for a notice. */
export function unmatchedMcpEntries(restriction: ToolRestriction, offered: readonly OfferedTool[]): string[] {
  return restriction.mcp.filter((selector) => !offered.some((tool) => selects(selector, tool))).map((selector) => selector.written);
}

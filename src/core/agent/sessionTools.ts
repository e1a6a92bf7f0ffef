/**
 * A session's tools, built the same way for every front end: the built-ins with the session's
 * limits, web_fetch and search, skills and memory, and its MCP servers' tools (offered directly or
 * behind mcp_search/mcp_call). Apart from the factory, which only orders the start's steps.
 */
import { MCP_TOOL_PREFIX } from '../approvals/approval';
import { CONTEXT_DEFAULTS, persistThresholdFor, type ContextDefaults } from '../context/defaults';
import { MCP_CALL_TOOL, MCP_SEARCH_TOOL } from '../mcp/deferred';
import type { McpManager } from '../mcp/manager';
import type { ModelBackend } from '../model/backend';
import type { ServerTools } from '../model/messages';
import type { KnownSecret } from '../secrets';
import type { CommandSandbox } from '../shell/commandSandbox';
import type { SkillDefinition } from '../skills/skills';
import { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from '../tools/registry';
import type { WebFetchToolOptions } from '../tools/webFetch';
import { WebAccess, type WebDomainMemory } from '../web/access';
import { WEB_LIMITS } from '../web/limits';
import { memoryToolOptions, type MemorySettings } from './customization';
import type { McpOffer } from './startNotices';

export interface WebSettings {
  /** `evergreen.web.allowedDomains` and `--allow-web`, parsed (core/web/domains.ts). */
  allowedDomains: readonly string[];
  /** Where "always for this domain" answers are kept: the extension's workspace state; the CLI's run. */
  memory?: WebDomainMemory;
  /** Tests: a resolver that answers what they need, shorter limits. */
  fetch?: Pick<WebFetchToolOptions, 'resolve' | 'maxBodyBytes' | 'timeoutMs'>;
  /** `evergreen.web.search` / `--web-search`: Anthropic's server-side search, or the SearXNG tool on other back ends. */
  search?: boolean;
  /** The SearXNG instance for back ends without a server-side search; without one they offer no search. */
  searxng?: { url: string; key?: string | undefined };
}

/** What of the session's configuration decides its tools (AgentConfig's fields of the same names). */
export interface ToolSettings {
  trusted: boolean;
  ripgrepPath: string | undefined;
  web?: WebSettings | undefined;
  memory?: MemorySettings | undefined;
  now?: (() => number) | undefined;
}

export interface SessionToolSet {
  tools: ToolRegistry;
  mcpTools: McpOffer | undefined;
  /** The same tools with a memory that only views, for explore subagents (undefined: no memory). */
  readOnlyMemory: ToolRegistry | undefined;
}

/** The session's tools: the built-ins, skills and memory, and its MCP servers' (offered directly or behind mcp_search/mcp_call). */
export function sessionTools(
  config: ToolSettings,
  parts: { client: ModelBackend; mcp: McpManager | undefined; sandbox: CommandSandbox | undefined; secrets: readonly KnownSecret[]; resolvedWindow: number; window: () => number; engineNumbers: ContextDefaults; skills: readonly SkillDefinition[] | undefined },
): SessionToolSet {
  const { engineNumbers } = parts;
  // MCP names all start with mcp__, which no built-in tool's does: only they can collide, and are numbered apart.
  const mcpTools = parts.mcp?.tools([], Math.floor(parts.resolvedWindow * engineNumbers.mcpDeferShare), engineNumbers.charsPerToken);
  // read_file and recall page at the persist threshold, so a page never needs persisting (tier 0
  // exempts them); asked per call, so a window learned from the server shrinks the pages too.
  const pageChars = () => persistThresholdFor(parts.window(), engineNumbers);
  const memory = memoryToolOptions(config.memory, config.trusted);
  const options: ToolRegistryOptions = {
    trusted: config.trusted,
    ripgrepPath: config.ripgrepPath,
    compact: true,
    task: true,
    readFile: { maxOutputChars: pageChars },
    recall: { maxPageChars: pageChars },
    shell: { maxOutputChars: CONTEXT_DEFAULTS.toolOutputCaptureChars, sandbox: parts.sandbox },
    grep: { maxOutputChars: CONTEXT_DEFAULTS.toolOutputCaptureChars },
    secrets: parts.secrets,
    ...webToolsFor(config, parts.client),
    ...(parts.skills ? { skills: parts.skills } : {}),
    ...(memory ? { memory } : {}),
    // In every mode (one tool list, so a switch keeps the cached prefix); the mode's gate refuses it outside plan mode.
    exitPlanMode: true,
    ...(mcpTools ? { externalTools: mcpTools.tools } : {}),
    ...(mcpTools?.deferred ? { unknownToolHint: deferredToolHint } : {}),
  };
  const tools = createToolRegistry(options);
  // An explore child reads memory but never writes it: the same registry's settings with a viewing memory.
  const readOnlyMemory = memory ? createToolRegistry({ ...options, memory: { ...memory, readOnly: true } }) : undefined;
  return { tools, mcpTools, readOnlyMemory };
}

/** A deferred MCP tool called by its own name: how to call it instead. */
function deferredToolHint(name: string): string | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined;
  return `"${name}" is not offered directly in this session: MCP tools are called through ${MCP_CALL_TOOL} ({"tool": "${name}", "arguments": {…}}); ${MCP_SEARCH_TOOL} shows each tool's input schema.`;
}

/** web_fetch always (each new host asks); web_search through SearXNG where search is on, the back end has none of its own and an instance is given. */
function webToolsFor(config: ToolSettings, client: ModelBackend): Pick<ToolRegistryOptions, 'web' | 'searxng'> {
  const web = { access: new WebAccess(config.web?.allowedDomains ?? [], config.web?.memory), ...config.web?.fetch, ...(config.now ? { now: config.now } : {}) };
  const searxng = config.web?.searxng;
  if (!config.web?.search || client.capabilities.serverWebSearch || !searxng) return { web };
  return { web, searxng: { url: searxng.url, ...(searxng.key ? { key: searxng.key } : {}) } };
}

/** Anthropic's server-side web search, where search is on and the back end runs it. */
export function serverToolsFor(config: Pick<ToolSettings, 'web'>, client: ModelBackend): { serverTools?: ServerTools } {
  return config.web?.search && client.capabilities.serverWebSearch ? { serverTools: { webSearch: { maxUses: WEB_LIMITS.searchMaxUses } } } : {};
}

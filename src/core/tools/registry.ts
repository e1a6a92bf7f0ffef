import { nestedDeeperThan, tooDeepInputMessage } from './toolInput';
import { redactSecrets, SecretRedactingStream, type KnownSecret } from '../secrets';
import { createCompactTool } from './compact';
import { createMemoryTool, type MemoryToolOptions } from './memory';
import { createSkillTool } from './skill';
import type { SkillDefinition } from '../skills/skills';
import { createEditFileTool } from './editFile';
import { createExitPlanModeTool } from './exitPlanMode';
import { createGrepSearchTool, type GrepOptions } from './grepSearch';
import { createListFilesTool, type ListFilesOptions } from './listFiles';
import { createReadFileTool, type ReadFileOptions } from './readFile';
import { createRecallTool, type RecallToolOptions } from './recall';
import { createRunShellTool, type RunShellOptions } from './runShell';
import { createTaskTool } from './task';
import { createTodoWriteTool } from './todoWrite';
import { createWebFetchTool, type WebFetchToolOptions } from './webFetch';
import { createSearxngSearchTool, type SearxngToolOptions } from './webSearch';
import { DEFAULT_TOOL_CONTEXT, type ToolCard, type ToolContext, type ToolContextTraits, type ToolDefinition, type ToolInputSchema, type ReadTarget, type ToolResult, type ToolTraitsLookup } from './types';
import { ToolExecutionError, ToolInputError, isAbortError } from '../errors';
import { WorkspaceAccessError, isNodeError } from '../workspace/workspace';
import { createWriteFileTool } from './writeFile';
import { boundedHeadline } from './headline';
import type { UserText } from '../texts/userText';

/** A tool as the Messages API `tools` parameter wants it. */
export interface ApiToolSpec {
  name: string;
  description: string;
  input_schema: ToolInputSchema;
}

export interface ToolRegistry {
  readonly trusted: boolean;
  /** For the API tools param; always the same order so the prompt-cache prefix stays stable. */
  list(): ApiToolSpec[];
  get(name: string): ToolDefinition<unknown> | undefined;
  /** The card headline for a call (its values one bounded line each: headline.ts); undefined when the tool is unknown or the input does not parse. */
  headline(name: string, rawInput: unknown): UserText | undefined;
  /** A card of the tool's own for a call (memory); undefined when it has none or the input does not parse. */
  card(name: string, rawInput: unknown): ToolCard | undefined;
  /** Never throws: unknown tools, bad input and failures become is_error results; aborts a cancelled result. */
  executeToolCall(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult>;
}

export interface ToolRegistryOptions {
  /** Untrusted workspace (VS Code workspace trust) => no write or shell tools. */
  trusted: boolean;
  /** ripgrep binary for grep_search (VS Code's bundled rg, or `findRipgrepOnPath()`); absent = JS search. */
  ripgrepPath?: string | undefined;
  readFile?: ReadFileOptions;
  /** `recall`'s page size (it reads the history through ToolContext.recall, which the session provides). */
  recall?: RecallToolOptions;
  listFiles?: ListFilesOptions;
  grep?: Omit<GrepOptions, 'ripgrepPath'>;
  shell?: RunShellOptions;
  /** Offer the `compact` tool: only when the agent can actually compact (a context engine is wired). */
  compact?: boolean;
  /** Offer `todo_write` (default on): it only keeps the session's task list, touching no file. */
  todos?: boolean;
  /** Offer the `task` tool (subagents): only when the agent provides them (never inside a subagent). */
  task?: boolean;
  /**
   * Offer `exit_plan_mode`: in a session with modes, in every mode (the tool list is one for all of
   * them, so a switch keeps the cached prefix); the mode's gate refuses it outside plan mode.
   */
  exitPlanMode?: boolean;
  /** Offer `memory` over this folder (`evergreen.memory.enabled`; absent: no memory). */
  memory?: MemoryToolOptions;
  /** Offer `skill` over these skills (absent: no skill tool; the system prompt lists them). */
  skills?: readonly SkillDefinition[];
  /** Values no tool result may carry to the model (the API key in use, provider keys in the environment). */
  secrets?: readonly KnownSecret[];
  /** Offer `web_fetch` with these hosts and limits (the session's; absent: no web access). */
  web?: WebFetchToolOptions;
  /** Offer `web_search` through the user's SearXNG instance (back ends without a server-side search). */
  searxng?: SearxngToolOptions;
  /** Tools from outside (MCP servers), after the built-in ones; like write and shell tools, only in a trusted workspace. */
  externalTools?: readonly ToolDefinition<unknown>[];
  /** What to tell the model about a tool name it called that is not offered (e.g. a deferred MCP tool). */
  unknownToolHint?: (name: string) => string | undefined;
}

export const CANCELLED_RESULT_TEXT = 'The tool call was cancelled by the user.';

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const all: ToolDefinition<unknown>[] = [
    createReadFileTool(options.readFile),
    createListFilesTool(options.listFiles),
    createGrepSearchTool({ ...options.grep, ripgrepPath: options.ripgrepPath }),
    createWriteFileTool(),
    createEditFileTool(),
    createRunShellTool(options.shell),
    createRecallTool(options.recall),
    ...(options.web ? [createWebFetchTool(options.web)] : []),
    ...(options.searxng ? [createSearxngSearchTool(options.searxng)] : []),
    ...(options.compact === false ? [] : [createCompactTool()]),
    ...(options.task === true ? [createTaskTool()] : []),
    ...(options.todos === false ? [] : [createTodoWriteTool()]),
    ...(options.exitPlanMode === true ? [createExitPlanModeTool()] : []),
    ...(options.skills ? [createSkillTool(options.skills)] : []),
    ...(options.memory ? [createMemoryTool(options.memory)] : []),
  ];
  const builtIn = all.filter((t) => options.trusted || (t.kind !== 'write' && t.kind !== 'shell'));
  const tools = [...builtIn, ...(options.trusted ? (options.externalTools ?? []) : [])];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const disabled = new Set(all.filter((t) => !byName.has(t.name)).map((t) => t.name));

  const list = (): ApiToolSpec[] => tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  const secrets = options.secrets ?? [];
  // The last guard before the model: whatever a tool read or a command printed, a known secret is replaced.
  const executeToolCall = async (name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult> => {
    if (secrets.length === 0) return executeUnguarded(name, rawInput, ctx);
    // Live output too: a key split across two chunks must not reach the panel or stream-json either.
    const progress = new SecretRedactingStream(secrets);
    const guarded: ToolContext = {
      ...ctx,
      onProgress: (chunk) => {
        const safe = progress.push(chunk);
        if (safe !== '') ctx.onProgress(safe);
      },
    };
    const result = await executeUnguarded(name, rawInput, guarded);
    const rest = progress.flush();
    if (rest !== '') ctx.onProgress(rest);
    const content = redactSecrets(result.content, secrets);
    // A redacted recall is no longer the slice its `recalled` effect names: that effect compares and keeps this text.
    return content === result.content ? result : { ...result, content };
  };
  const executeUnguarded = async (name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult> => {
    const tool = byName.get(name);
    if (!tool) {
      if (disabled.has(name)) {
        return { content: `The tool "${name}" is not available because this workspace is not trusted (no file writes or shell commands).`, isError: true };
      }
      const hint = options.unknownToolHint?.(name);
      if (hint) return { content: hint, isError: true };
      return { content: `Unknown tool "${name}". Available tools: ${[...byName.keys()].join(', ')}.`, isError: true };
    }
    // Before parsing: a parser or a later recorder walking it recursively could overflow the stack.
    if (nestedDeeperThan(rawInput)) return { content: `Invalid input for ${name}: ${tooDeepInputMessage()}`, isError: true };
    let input: unknown;
    try {
      input = tool.parse(rawInput);
    } catch (error) {
      return { content: `Invalid input for ${name}: ${errorMessage(error)}`, isError: true };
    }
    if (ctx.signal.aborted) return { content: CANCELLED_RESULT_TEXT, isError: true, cancelled: true };
    try {
      return await tool.run(input, ctx);
    } catch (error) {
      if (isAbortError(error) || ctx.signal.aborted) return { content: CANCELLED_RESULT_TEXT, isError: true, cancelled: true };
      if (error instanceof ToolInputError) return { content: `Invalid input for ${name}: ${error.message}`, isError: true };
      if (error instanceof ToolExecutionError || error instanceof WorkspaceAccessError) return { content: error.message, isError: true };
      return { content: `${name} failed: ${errorMessage(error)}`, isError: true };
    }
  };
  const headline = (name: string, rawInput: unknown): UserText | undefined => {
    const tool = byName.get(name);
    if (!tool) return undefined;
    try {
      return boundedHeadline(tool.headline(tool.parse(rawInput)));
    } catch {
      return undefined; // Bad input is reported by the call itself.
    }
  };
  const card = (name: string, rawInput: unknown): ToolCard | undefined => {
    const tool = byName.get(name);
    if (!tool?.card) return undefined;
    try {
      return tool.card(tool.parse(rawInput));
    } catch {
      return undefined; // Bad input is reported by the call itself.
    }
  };
  return { trusted: options.trusted, list, get: (name) => byName.get(name), headline, card, executeToolCall };
}

const traitsByTool = new WeakMap<ToolDefinition<unknown>, ToolContextTraits>();

/**
 * A tool's declaration as the engine uses it: a read's `target` gets the tool's own parse of a recorded
 * input (untrusted; one that does not parse names no file). No declaration, or no tool: DEFAULT_TOOL_CONTEXT.
 */
export function contextTraitsOf(tool: ToolDefinition<unknown> | undefined): ToolContextTraits {
  const declared = tool?.context;
  if (!tool || !declared) return DEFAULT_TOOL_CONTEXT;
  if (declared.kind !== 'read') return declared;
  let traits = traitsByTool.get(tool);
  if (!traits) {
    // Recorded inputs never change: each is parsed once, not on every request's tier planning.
    const targets = new WeakMap<object, ReadTarget | undefined>();
    const targetOf = (input: unknown): ReadTarget | undefined => {
      if (nestedDeeperThan(input)) return undefined;
      let parsed: unknown;
      try {
        parsed = tool.parse(input);
      } catch {
        return undefined; // A call whose input does not parse read nothing.
      }
      return declared.target(parsed);
    };
    traits = {
      ...declared,
      target: (input) => {
        if (typeof input !== 'object' || input === null) return targetOf(input);
        if (!targets.has(input)) targets.set(input, targetOf(input));
        return targets.get(input);
      },
    };
    traitsByTool.set(tool, traits);
  }
  return traits;
}

/** The engine's lookup over a registry's tools (built where the engine is made): every other name gets the default. */
export function toolTraitsLookup(tools: Pick<ToolRegistry, 'get'>): ToolTraitsLookup {
  return (name) => contextTraitsOf(tools.get(name));
}

let builtIns: ToolTraitsLookup | undefined;

/** The built-in tools' own declarations: the engine's lookup when it is given none (tests, bench). */
export const builtInToolTraits: ToolTraitsLookup = (name) => (builtIns ??= toolTraitsLookup(createToolRegistry({ trusted: true, task: true })))(name);

function errorMessage(error: unknown): string {
  if (isNodeError(error)) {
    const where = error.path ? ` (${error.path})` : '';
    switch (error.code) {
      case 'EACCES':
      case 'EPERM':
        return `permission denied${where}`;
      case 'ENOENT':
        return `no such file or directory${where}`;
      case 'EISDIR':
        return `is a directory${where}`;
      case 'ENOTDIR':
        return `not a directory${where}`;
      case 'ENOSPC':
        return 'no space left on device';
      default:
        return error.message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Deferred MCP tool definitions. When every MCP tool's definition together would take more than a
 * share of the window (`mcpDeferShare`, 10%), the model is offered two tools instead: `mcp_search`
 * finds tools by words and returns their full definitions, `mcp_call` calls one by its full name
 * with arguments checked against its schema. The request's `tools` array then stays the same
 * from request to request, so finding a tool never rewrites the cached prefix.
 */
import Ajv, { type ErrorObject } from 'ajv';
import type { ToolDefinition } from '../tools/types';
import { ToolInputError } from '../errors';
import type { McpCallInput } from './tools';

import { MCP_CALL_TOOL, MCP_SEARCH_TOOL } from './deferredNames';
import { verbatim } from '../texts/userText';

export { MCP_CALL_TOOL, MCP_SEARCH_TOOL } from './deferredNames';
const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 1);
}

/** Ranks tools for a query: whole-word hits in the name count most, then in the description; a regex-free substring of the name counts too. */
export function rankTools(tools: readonly ToolDefinition<McpCallInput>[], query: string): ToolDefinition<McpCallInput>[] {
  const terms = words(query);
  const lowered = query.toLowerCase().trim();
  const scored = tools.map((tool) => {
    const name = words(tool.name);
    const description = words(tool.description);
    let score = lowered && tool.name.toLowerCase().includes(lowered) ? 10 : 0;
    for (const term of terms) {
      if (name.includes(term)) score += 5;
      else if (name.some((word) => word.startsWith(term))) score += 3;
      if (description.includes(term)) score += 1;
    }
    return { tool, score };
  });
  return scored.filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name)).map((entry) => entry.tool);
}

function errorsText(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `${error.instancePath || '(the arguments)'} ${error.message ?? 'is not valid'}${error.params && 'additionalProperty' in error.params ? ` ("${String(error.params.additionalProperty)}")` : ''}`).join('; ');
}

/** `mcp_search` and `mcp_call` over these tools (already named mcp__server__tool). */
export function deferredMcpTools(tools: readonly ToolDefinition<McpCallInput>[]): ToolDefinition<unknown>[] {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
  const validators = new Map<string, ReturnType<Ajv['compile']> | string>();
  const validatorFor = (tool: ToolDefinition<McpCallInput>) => {
    let validator = validators.get(tool.name);
    if (validator === undefined) {
      try {
        validator = ajv.compile(tool.inputSchema);
      } catch (error) {
        // A schema ajv cannot compile is checked by the server alone.
        validator = error instanceof Error ? error.message : String(error);
      }
      validators.set(tool.name, validator);
    }
    return validator;
  };
  const servers = [...new Set(tools.flatMap((tool) => (tool.mcpServer === undefined ? [] : [tool.mcpServer])))];
  const search: ToolDefinition<{ query: string; limit: number }> = {
    name: MCP_SEARCH_TOOL,
    description: `Finds tools of the connected MCP servers (${servers.join(', ')}; ${tools.length} tools) by words, and returns each match's full name, description and input schema. Call one with ${MCP_CALL_TOOL}.`,
    kind: 'meta',
    context: { kind: 'other', external: true },
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words describing what the tool should do, or part of its name.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `How many matches to return (default ${DEFAULT_LIMIT}).` },
      },
      required: ['query'],
      additionalProperties: false,
    },
    parse(input) {
      const value = input as { query?: unknown; limit?: unknown };
      if (typeof value?.query !== 'string' || value.query.trim() === '') throw new ToolInputError('"query" must be a non-empty string');
      if (value.limit !== undefined && (typeof value.limit !== 'number' || !Number.isInteger(value.limit) || value.limit < 1 || value.limit > MAX_LIMIT)) throw new ToolInputError(`"limit" must be an integer from 1 to ${MAX_LIMIT}`);
      return { query: value.query, limit: typeof value.limit === 'number' ? value.limit : DEFAULT_LIMIT };
    },
    headline: (input) => verbatim(input.query),
    async run(input) {
      const matches = rankTools(tools, input.query).slice(0, input.limit);
      if (matches.length === 0) return { content: `No MCP tool matches "${input.query}". Servers: ${servers.join(', ')}. Try other words.` };
      return { content: JSON.stringify(matches.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })), null, 2) };
    },
  };
  const call: ToolDefinition<{ tool: ToolDefinition<McpCallInput>; arguments: McpCallInput }> = {
    name: MCP_CALL_TOOL,
    description: `Calls one MCP tool by its full name (from ${MCP_SEARCH_TOOL}) with its arguments. The arguments are checked against the tool's input schema first.`,
    kind: 'meta',
    context: { kind: 'other', external: true },
    inputSchema: {
      type: 'object',
      properties: {
        tool: { type: 'string', description: 'The full name, mcp__<server>__<tool>.' },
        arguments: { type: 'object', description: "The tool's arguments, as its input schema describes." },
      },
      required: ['tool', 'arguments'],
      additionalProperties: false,
    },
    parse(input) {
      const value = input as { tool?: unknown; arguments?: unknown };
      if (typeof value?.tool !== 'string') throw new ToolInputError('"tool" must be the full name of an MCP tool (mcp__<server>__<tool>)');
      const tool = byName.get(value.tool);
      if (!tool) {
        const close = rankTools(tools, value.tool.replace(/^mcp__/, '')).slice(0, 3).map((match) => match.name);
        throw new ToolInputError(`there is no MCP tool "${value.tool}"${close.length ? `; did you mean ${close.join(', ')}?` : ''} Use ${MCP_SEARCH_TOOL} to find tools.`);
      }
      const args = value.arguments ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ToolInputError('"arguments" must be a JSON object');
      const validator = validatorFor(tool);
      if (typeof validator !== 'string' && !validator(args)) throw new ToolInputError(`the arguments do not match ${tool.name}'s input schema: ${errorsText(validator.errors)}`);
      return { tool, arguments: tool.parse(args) };
    },
    headline: (input) => input.tool.headline(input.arguments),
    run: (input, ctx) => input.tool.run(input.arguments, ctx),
  };
  return [search as ToolDefinition<unknown>, call as ToolDefinition<unknown>];
}

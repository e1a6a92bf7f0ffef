/**
 * An MCP server's tools as Evergreen tools: offered as `mcp__<server>__<tool>` with the server's
 * description and input schema (fixed when a provider would refuse it, else skipped with a logged
 * reason), every call asked for by default (ApprovalPolicy.mcp), the result mapped by results.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { mcpNamePart } from '../approvals/approval';
import type { Logger } from '../logger';
import type { ToolDefinition, ToolInputSchema } from '../tools/types';
import { ToolExecutionError, ToolInputError } from '../errors';
import type { McpServerConnection } from './connection';
import type { McpToolNames } from './names';
import { mapCallToolResult } from './results';

import { userText, type UserText } from '../texts/userText';

export type McpCallInput = Record<string, unknown>;

/** A description longer than this is cut: it is sent with every request. */
const MAX_DESCRIPTION_CHARS = 4_000;
/** A schema larger than this (serialized) is refused: it would cost every request a fortune. */
const MAX_SCHEMA_CHARS = 50_000;
/** The arguments are shown pretty-printed, a key a line, as the server will receive them. */
const ARGUMENT_INDENT = 2;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema as the APIs take it (an object schema), or the reason it cannot be offered. */
export function usableSchema(schema: unknown): { schema: ToolInputSchema } | { problem: string } {
  if (schema === undefined) return { schema: { type: 'object', properties: {} } };
  if (!isObject(schema)) return { problem: 'its input schema is not a JSON object' };
  if (schema.type !== undefined && schema.type !== 'object') return { problem: `its input schema is of type ${JSON.stringify(schema.type)}; tools take an object` };
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return { problem: 'its input schema cannot be serialized' };
  }
  if (text.length > MAX_SCHEMA_CHARS) return { problem: `its input schema is ${text.length.toLocaleString('en-US')} characters (the limit is ${MAX_SCHEMA_CHARS.toLocaleString('en-US')})` };
  const properties = isObject(schema.properties) ? schema.properties : {};
  return { schema: { ...(JSON.parse(text) as Record<string, unknown>), type: 'object', properties } };
}

/** What the server says about a tool, for the approval card (claims, never checks): each a kind the front end words. */
export function serverHintsOf(tool: Tool): UserText[] {
  const hints: UserText[] = [];
  const annotations = tool.annotations;
  if (annotations?.readOnlyHint === true) hints.push(userText('approval.hintReadOnly', {}));
  if (annotations?.destructiveHint === true) hints.push(userText('approval.hintDestructive', {}));
  if (annotations?.idempotentHint === true) hints.push(userText('approval.hintIdempotent', {}));
  if (annotations?.openWorldHint === true) hints.push(userText('approval.hintOpenWorld', {}));
  return hints;
}

export interface McpToolsOptions {
  logger: Logger;
  /** Where binary parts of results are saved (the session's folder). */
  filesDir: string | undefined;
}

/** The tools of one ready server; tools whose schema cannot be offered are skipped with a logged reason. */
export function mcpToolDefinitions(connection: McpServerConnection, tools: readonly Tool[], names: McpToolNames, options: McpToolsOptions): ToolDefinition<McpCallInput>[] {
  const server = connection.config.name;
  const definitions: ToolDefinition<McpCallInput>[] = [];
  for (const tool of tools) {
    const usable = usableSchema(tool.inputSchema);
    if ('problem' in usable) {
      options.logger.warn(`MCP ${server}: tool "${tool.name}" is not offered: ${usable.problem}`);
      continue;
    }
    const fullName = names.claim(server, tool.name);
    const described = (tool.description ?? tool.title ?? '').trim();
    const description = `(MCP server "${server}") ${described.length > MAX_DESCRIPTION_CHARS ? `${described.slice(0, MAX_DESCRIPTION_CHARS)} …` : described || tool.name}`;
    definitions.push({
      name: fullName,
      description,
      kind: 'meta',
      mcpServer: server,
      mcpTool: tool.name,
      context: { kind: 'other', external: true },
      inputSchema: usable.schema,
      parse(input) {
        if (!isObject(input)) throw new ToolInputError('the arguments must be a JSON object');
        return input;
      },
      headline: (input) => userText('tool.mcpCall', { server, tool: tool.name, input: JSON.stringify(input).slice(0, 120) }),
      async run(input, ctx) {
        const decision = await ctx.approve({ kind: 'mcp', server, tool: tool.name, fullName, arguments: JSON.stringify(input, null, ARGUMENT_INDENT), serverHints: serverHintsOf(tool) });
        if (!decision.approved) return { content: decision.reason ?? `The user declined this call of ${tool.name} on the MCP server "${server}".`, isError: true };
        let result;
        try {
          result = await connection.callTool(tool.name, input, ctx.signal);
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          throw new ToolExecutionError(`The MCP server "${server}" could not run ${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
        }
        // Files a result saves are named by its call, so two calls never write one file.
        const mapped = await mapCallToolResult(result, ctx.toolUseId ?? `${mcpNamePart(server)}-${randomUUID()}`, options.filesDir);
        return { content: mapped.text, ...(mapped.images.length > 0 ? { images: mapped.images } : {}), ...(mapped.isError ? { isError: true } : {}) };
      },
    });
  }
  return definitions;
}

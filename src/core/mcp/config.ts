/**
 * MCP server definitions, read from the formats people already have: VS Code's `.vscode/mcp.json`
 * (`{"servers": {…}}`, JSON with comments), Claude Code's `.mcp.json` (`{"mcpServers": {…}}`), the
 * user setting `evergreen.mcp.servers` and the CLI's `--mcp-config FILE` (either format). Pure:
 * text in, definitions and problems out. A problem names the file and the JSON path and drops only
 * the server it concerns.
 */
import { createHash } from 'node:crypto';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';

/** Where a definition came from: a workspace's file needs the user's consent before it runs. */
export interface McpOrigin {
  scope: 'workspace' | 'user';
  /** The file, or the setting's name. */
  source: string;
}

export type McpTransportConfig =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

export interface McpServerConfig {
  name: string;
  origin: McpOrigin;
  transport: McpTransportConfig;
  /** The definition as written (variables not expanded): what the user consents to. */
  consentKey: string;
  /**
   * The definition as written, variables not expanded: the environment it sets, the command line
   * (or the URL and the headers). The consent prompt shows this, so a `${env:…}` a repository
   * wants to pass to its server is seen before it runs.
   */
  display: string;
}

export interface McpConfigProblem {
  /** `file` or `file $.servers.name.url`. */
  where: string;
  message: string;
}

export interface McpConfigResult {
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

/** What `${…}` variables expand to: `${env:NAME}` and `${workspaceFolder}`. */
export interface McpVariables {
  env: Readonly<Record<string, string | undefined>>;
  workspaceFolder?: string | undefined;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** Parses one config file's text (either format). `source` names it in every problem. */
export function parseMcpConfigText(text: string, origin: McpOrigin, variables: McpVariables): McpConfigResult {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    return { servers: [], problems: [{ where: origin.source, message: `not valid JSON: ${printParseErrorCode(first.error)} at ${lineColumn(text, first.offset)}` }] };
  }
  return parseMcpConfigValue(value, origin, variables);
}

/** Parses a config already read as JSON: `{servers}` (VS Code), `{mcpServers}` (Claude Code), or the setting's map itself (`bare`). */
export function parseMcpConfigValue(value: unknown, origin: McpOrigin, variables: McpVariables, options: { bare?: boolean } = {}): McpConfigResult {
  const problems: McpConfigProblem[] = [];
  if (!isObject(value)) return { servers: [], problems: [{ where: origin.source, message: 'must be a JSON object' }] };
  let map: unknown;
  let path: string;
  if (options.bare) {
    map = value;
    path = '$';
  } else if ('servers' in value) {
    map = value.servers;
    path = '$.servers';
  } else if ('mcpServers' in value) {
    map = value.mcpServers;
    path = '$.mcpServers';
  } else {
    return { servers: [], problems: [{ where: origin.source, message: 'has neither "servers" (VS Code\'s mcp.json) nor "mcpServers" (Claude Code\'s .mcp.json)' }] };
  }
  if (!isObject(map)) return { servers: [], problems: [{ where: `${origin.source} ${path}`, message: 'must be an object of server definitions' }] };
  const servers: McpServerConfig[] = [];
  for (const [name, definition] of Object.entries(map)) {
    const where = `${origin.source} ${path}${/^[A-Za-z_][\w-]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`}`;
    const parsed = parseServer(name, definition, origin, variables);
    if ('problem' in parsed) problems.push({ where: parsed.at ? `${where}.${parsed.at}` : where, message: parsed.problem });
    else servers.push(parsed.server);
  }
  return { servers, problems };
}

type ServerParse = { server: McpServerConfig } | { problem: string; at?: string };

function parseServer(name: string, definition: unknown, origin: McpOrigin, variables: McpVariables): ServerParse {
  if (name.trim() === '') return { problem: 'a server needs a non-empty name' };
  if (!isObject(definition)) return { problem: 'must be an object' };
  const declared = definition.type;
  if (declared !== undefined && declared !== 'stdio' && declared !== 'http' && declared !== 'sse') {
    return { problem: `unknown type ${JSON.stringify(declared)} (expected "stdio", "http" or "sse")`, at: 'type' };
  }
  const type = declared ?? (definition.url !== undefined ? 'http' : 'stdio');
  const consentKey = createHash('sha256').update(JSON.stringify([name, type, definition.command ?? null, definition.args ?? null, definition.env ?? null, definition.cwd ?? null, definition.url ?? null, definition.headers ?? null])).digest('hex');
  const expand = (text: string, at: string): string | { problem: string; at: string } => {
    const result = expandVariables(text, variables);
    return typeof result === 'string' ? result : { problem: result.problem, at };
  };
  if (type === 'stdio') {
    if (typeof definition.command !== 'string' || definition.command.trim() === '') return { problem: 'a stdio server needs "command" (a string)', at: 'command' };
    const command = expand(definition.command, 'command');
    if (typeof command !== 'string') return command;
    const args = stringList(definition.args, 'args', expand);
    if ('problem' in args) return args;
    const env = stringMap(definition.env, 'env', expand);
    if ('problem' in env) return env;
    let cwd: string | undefined;
    if (definition.cwd !== undefined) {
      if (typeof definition.cwd !== 'string') return { problem: 'must be a string', at: 'cwd' };
      const expanded = expand(definition.cwd, 'cwd');
      if (typeof expanded !== 'string') return expanded;
      cwd = expanded;
    }
    const transport: McpTransportConfig = { type: 'stdio', command, args: args.list, env: env.map, ...(cwd !== undefined ? { cwd } : {}) };
    const rawEnv = isObject(definition.env) ? Object.entries(definition.env).map(([key, value]) => `${key}=${shellQuote(String(value))}`) : [];
    const rawArgs = Array.isArray(definition.args) ? definition.args.map((arg) => shellQuote(String(arg))) : [];
    return { server: { name, origin, transport, consentKey, display: [...rawEnv, shellQuote(definition.command), ...rawArgs].join(' ') } };
  }
  if (typeof definition.url !== 'string') return { problem: `an ${type} server needs "url" (a string)`, at: 'url' };
  const url = expand(definition.url, 'url');
  if (typeof url !== 'string') return url;
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    return { problem: `not a URL: ${JSON.stringify(url)}`, at: 'url' };
  }
  if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') return { problem: `only http and https URLs are supported, not ${parsedUrl.protocol}`, at: 'url' };
  const headers = stringMap(definition.headers, 'headers', expand);
  if ('problem' in headers) return headers;
  const rawHeaders = isObject(definition.headers) ? Object.entries(definition.headers).map(([key, value]) => `${key}: ${String(value)}`) : [];
  return { server: { name, origin, transport: { type, url, headers: headers.map }, consentKey, display: `${type} ${definition.url}${rawHeaders.length > 0 ? ` (headers: ${rawHeaders.join('; ')})` : ''}` } };
}

type Expand = (text: string, at: string) => string | { problem: string; at: string };

function stringList(value: Json | undefined, at: string, expand: Expand): { list: string[] } | { problem: string; at: string } {
  if (value === undefined) return { list: [] };
  if (!Array.isArray(value)) return { problem: 'must be an array of strings', at };
  const list: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string') return { problem: 'must be a string', at: `${at}[${index}]` };
    const expanded = expand(item, `${at}[${index}]`);
    if (typeof expanded !== 'string') return expanded;
    list.push(expanded);
  }
  return { list };
}

function stringMap(value: Json | undefined, at: string, expand: Expand): { map: Record<string, string> } | { problem: string; at: string } {
  if (value === undefined) return { map: {} };
  if (!isObject(value)) return { problem: 'must be an object of strings', at };
  const map: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') return { problem: 'must be a string', at: `${at}.${key}` };
    const expanded = expand(item, `${at}.${key}`);
    if (typeof expanded !== 'string') return expanded;
    map[key] = expanded;
  }
  return { map };
}

/**
 * `${env:NAME}` and `${workspaceFolder}`. Anything else in `${…}` is refused by name rather than
 * sent as literal text (a `${input:…}` of VS Code's prompts, a typo): a server would otherwise get
 * a header like "Bearer ${env:TOKN}" and fail somewhere far from the cause.
 */
export function expandVariables(text: string, variables: McpVariables): string | { problem: string } {
  let problem: string | undefined;
  const expanded = text.replace(/\$\{([^}]*)\}/g, (match, inner: string) => {
    if (inner === 'workspaceFolder') {
      if (variables.workspaceFolder !== undefined) return variables.workspaceFolder;
      problem ??= '${workspaceFolder} is used but no folder is open';
      return match;
    }
    const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
    if (env) {
      const value = variables.env[env[1]!];
      if (value !== undefined) return value;
      problem ??= `the environment variable ${env[1]} is not set (used as ${match})`;
      return match;
    }
    problem ??= inner.startsWith('input:')
      ? `${match}: VS Code's input prompts are not supported; set an environment variable and write \${env:NAME}`
      : `unknown variable ${match} (supported: \${env:NAME}, \${workspaceFolder})`;
    return match;
  });
  return problem ? { problem } : expanded;
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * All definitions together: user-level first, then the workspace's. Two servers with one name are
 * a problem (the later one is dropped, named): a tool's full name must say which server runs it.
 */
export function mergeMcpConfigs(results: readonly McpConfigResult[]): McpConfigResult {
  const servers: McpServerConfig[] = [];
  const problems: McpConfigProblem[] = results.flatMap((result) => result.problems);
  const byName = new Map<string, McpServerConfig>();
  for (const server of results.flatMap((result) => result.servers)) {
    const earlier = byName.get(server.name);
    if (earlier) {
      problems.push({ where: server.origin.source, message: `a server named "${server.name}" is already defined in ${earlier.origin.source}; this one is ignored (rename one of them)` });
      continue;
    }
    byName.set(server.name, server);
    servers.push(server);
  }
  return { servers, problems };
}

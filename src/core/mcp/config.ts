/**
 * MCP server definitions, read from the formats people already have: VS Code's `.vscode/mcp.json`
 * (`{"servers": {…}}`, JSON with comments), Claude Code's `.mcp.json` (`{"mcpServers": {…}}`), the
 * user setting `evergreen.mcp.servers` and the CLI's `--mcp-config FILE` (either format). Pure:
 * text in, definitions and problems out. A problem names the file and the JSON path and drops only
 * the server it concerns.
 */
import { createHash } from 'node:crypto';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as z from '../zod';
import { userText } from '../texts/userText';
import { verbatim, type UserText } from '../texts/userText';

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
  /** A kind of texts/start.ts, or a definition check's own words (verbatim). */
  message: UserText;
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lineColumn(text: string, offset: number): { line: string; column: string } {
  const before = text.slice(0, offset);
  return { line: String(before.split('\n').length), column: String(offset - before.lastIndexOf('\n')) };
}

/** Parses one config file's text (either format). `source` names it in every problem. */
export function parseMcpConfigText(text: string, origin: McpOrigin, variables: McpVariables): McpConfigResult {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    return { servers: [], problems: [{ where: origin.source, message: userText('start.mcpConfigNotJson', { error: printParseErrorCode(first.error), ...lineColumn(text, first.offset) }) }] };
  }
  return parseMcpConfigValue(value, origin, variables);
}

/** Where a file keeps its servers: VS Code's `servers`, else Claude Code's `mcpServers`. */
function serverMapOf(value: Record<string, unknown>): { map: unknown; path: string } | undefined {
  if ('servers' in value) return { map: value.servers, path: '$.servers' };
  if ('mcpServers' in value) return { map: value.mcpServers, path: '$.mcpServers' };
  return undefined;
}

/** The map of server definitions in a config (`bare`: the value is the map), or the problem that it has none. */
function serverDefinitions(value: unknown, origin: McpOrigin, bare: boolean): { map: Record<string, unknown>; path: string } | { problem: McpConfigProblem } {
  if (!isObject(value)) return { problem: { where: origin.source, message: userText('start.mcpConfigNotObject', {}) } };
  const found = bare ? { map: value, path: '$' } : serverMapOf(value);
  if (!found) return { problem: { where: origin.source, message: userText('start.mcpConfigNoServerMap', {}) } };
  return isObject(found.map) ? { map: found.map, path: found.path } : { problem: { where: `${origin.source} ${found.path}`, message: userText('start.mcpConfigServersNotObject', {}) } };
}

/** A server's place in a problem: `file $.servers.name`, or `file $.servers["odd name"]`. */
const serverWhere = (origin: McpOrigin, path: string, name: string): string => `${origin.source} ${path}${/^[A-Za-z_][\w-]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`}`;

/** Parses a config already read as JSON: `{servers}` (VS Code), `{mcpServers}` (Claude Code), or the setting's map itself (`bare`). */
export function parseMcpConfigValue(value: unknown, origin: McpOrigin, variables: McpVariables, options: { bare?: boolean } = {}): McpConfigResult {
  const found = serverDefinitions(value, origin, options.bare === true);
  if ('problem' in found) return { servers: [], problems: [found.problem] };
  const schemas = definitionSchemas(expandedText(variables));
  const read = Object.entries(found.map).map(([name, definition]) => ({ where: serverWhere(origin, found.path, name), parsed: parseServer(name, definition, origin, schemas) }));
  return {
    servers: read.flatMap(({ parsed }) => ('server' in parsed ? [parsed.server] : [])),
    // A check's words (zod's, or the schema's own messages) are shown as they are.
    problems: read.flatMap(({ where, parsed }) => ('problem' in parsed ? [{ where: `${where}${parsed.at}`, message: verbatim(parsed.problem) }] : [])),
  };
}

const SERVER_TYPES = ['stdio', 'http', 'sse'] as const;
type ServerType = (typeof SERVER_TYPES)[number];

/** A definition's object and declared type, checked before its fields (whose rules depend on the type). */
const ServerKindSchema = z.looseObject(
  { type: z.enum(SERVER_TYPES, { error: (issue) => `unknown type ${JSON.stringify(issue.input)} (expected "stdio", "http" or "sse")` }).optional(), url: z.unknown() },
  { error: 'must be an object' },
);

/** As VS Code and Claude Code read a definition without `type`: a `url` makes it remote. */
const serverTypeOf = (kind: z.infer<typeof ServerKindSchema>): ServerType => kind.type ?? (kind.url !== undefined ? 'http' : 'stdio');

/** Not empty once trimmed: a server's name, a command, a URL (a pattern, so the settings editor checks it too). */
const NOT_BLANK = /\S/;

/** A server's name: the tool names and the consent are keyed by it. */
const ServerNameSchema = z.string().regex(NOT_BLANK, 'a server needs a non-empty name');

/**
 * The fields of each kind of definition. `text` reads each string that may hold `${…}` variables:
 * expanded for a session (expandedText), as written for the setting's JSON schema. Fields neither
 * format uses here (VS Code's `envFile`, `dev`, …) are let through, as the editors that share the
 * file need.
 */
function definitionFields(text: z.ZodType<string, string>) {
  const list = z.array(text, { error: 'must be an array of strings' });
  const map = z.record(z.string(), text, { error: 'must be an object of strings' });
  const needs = (message: string) => z.string({ error: message }).regex(NOT_BLANK, message);
  const remote = (type: 'http' | 'sse') => ({ url: needs(`an ${type} server needs "url" (a string)`).pipe(text).pipe(httpUrl), headers: map.optional() });
  return { stdio: { command: needs('a stdio server needs "command" (a string)').pipe(text), args: list.optional(), env: map.optional(), cwd: text.optional() }, http: remote('http'), sse: remote('sse') };
}

/** Each kind's definition, once its kind is known (`ServerKindSchema`). */
function definitionSchemas(text: z.ZodType<string, string>) {
  const fields = definitionFields(text);
  return { stdio: z.looseObject(fields.stdio), http: z.looseObject(fields.http), sse: z.looseObject(fields.sse) };
}

const stringField = z.string({ error: 'must be a string' });

/** A string with its `${env:NAME}` and `${workspaceFolder}` expanded; one that cannot be is a problem at its path. */
function expandedText(variables: McpVariables): z.ZodType<string, string> {
  return stringField.transform((text, ctx) => {
    const expanded = expandVariables(text, variables);
    if (typeof expanded === 'string') return expanded;
    ctx.addIssue({ code: 'custom', message: expanded.problem, input: text });
    return z.NEVER;
  });
}

const HTTP_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:']);

function urlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return `not a URL: ${JSON.stringify(url)}`;
  const { protocol } = new URL(url);
  return HTTP_PROTOCOLS.has(protocol) ? undefined : `only http and https URLs are supported, not ${protocol}`;
}

/** A remote server's URL (after expansion): http or https only. */
const httpUrl = z.string().superRefine((url, ctx) => {
  const problem = urlProblem(url);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, input: url });
});

/** What hovering a field of a definition in settings.json says. */
const FIELD_DOCS = {
  type: 'How Evergreen talks to the server. Unset: `http` when `url` is given, else `stdio`.',
  command: 'stdio: the program to start.',
  args: "stdio: the program's arguments.",
  env: 'stdio: environment variables for the server (`${env:NAME}` is expanded).',
  cwd: 'stdio: the folder it starts in.',
  url: "http and sse: the server's address (http or https).",
  headers: 'http and sse: headers sent with every request (`${env:NAME}` is expanded).',
};

/** A field a definition of this kind must not have (JSON Schema: `not: {}`). */
const absent = z.never().optional();
const asWritten = definitionFields(stringField);

/**
 * `evergreen.mcp.servers`: Claude Code's `mcpServers` map, server name to definition, as written
 * (variables unexpanded), for the setting's JSON schema (frontends/settingSchemas.ts). Its five
 * shapes say what `serverTypeOf` decides: a declared type, or, without one, `url` for http and
 * neither for stdio. test/unit/settings.jsonSchemas.test.ts holds it to the parser.
 */
export const McpServersSettingSchema = z.record(
  ServerNameSchema,
  z
    .union([
      z.looseObject({ ...asWritten.stdio, type: z.literal('stdio') }),
      z.looseObject({ ...asWritten.stdio, type: absent, url: absent }),
      z.looseObject({ ...asWritten.http, type: z.literal('http') }),
      z.looseObject({ ...asWritten.http, type: absent }),
      z.looseObject({ ...asWritten.sse, type: z.literal('sse') }),
    ])
    .meta({ type: 'object', properties: Object.fromEntries(Object.entries(FIELD_DOCS).map(([field, markdownDescription]) => [field, { markdownDescription }])) }),
);

type ServerParse = { server: McpServerConfig } | { problem: string; at: string };
type DefinitionSchemas = ReturnType<typeof definitionSchemas>;

function parseServer(name: string, definition: unknown, origin: McpOrigin, schemas: DefinitionSchemas): ServerParse {
  const named = ServerNameSchema.safeParse(name);
  if (!named.success) return failure(named.error, name);
  const kind = ServerKindSchema.safeParse(definition);
  if (!kind.success) return failure(kind.error, definition);
  const type = serverTypeOf(kind.data);
  const read = type === 'stdio' ? stdioServer(schemas.stdio, definition) : remoteServer(schemas[type], type, definition);
  if ('problem' in read) return read;
  return { server: { name, origin, consentKey: consentKeyOf(name, type, definition as Record<string, unknown>), ...read } };
}

/** The fields a consent covers, in the order they are hashed (changing it would ask every consent again). */
const CONSENT_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'headers'] as const;

/** Over the definition as written: a changed variable's value needs no new consent, a changed definition does. */
function consentKeyOf(name: string, type: ServerType, raw: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify([name, type, ...CONSENT_FIELDS.map((field) => raw[field] ?? null)])).digest('hex');
}

type TransportRead = { transport: McpTransportConfig; display: string } | { problem: string; at: string };

function stdioServer(schema: DefinitionSchemas['stdio'], definition: unknown): TransportRead {
  const parsed = schema.safeParse(definition);
  if (!parsed.success) return failure(parsed.error, definition);
  const { command, args = [], env = {}, cwd } = parsed.data;
  return { transport: { type: 'stdio', command, args, env, ...(cwd !== undefined ? { cwd } : {}) }, display: stdioDisplay(definition as Record<string, unknown>) };
}

function remoteServer(schema: DefinitionSchemas['http' | 'sse'], type: 'http' | 'sse', definition: unknown): TransportRead {
  const parsed = schema.safeParse(definition);
  if (!parsed.success) return failure(parsed.error, definition);
  return { transport: { type, url: parsed.data.url, headers: parsed.data.headers ?? {} }, display: remoteDisplay(type, definition as Record<string, unknown>) };
}

function failure(error: z.ZodError, definition: unknown): { problem: string; at: string } {
  const { where, message } = z.zodProblem(error, '', definition);
  return { problem: message, at: where };
}

/** The command line as written, environment first: what the consent prompt shows. */
function stdioDisplay(raw: Record<string, unknown>): string {
  const env = isObject(raw.env) ? Object.entries(raw.env).map(([key, value]) => `${key}=${shellQuote(String(value))}`) : [];
  const args = Array.isArray(raw.args) ? raw.args.map((arg) => shellQuote(String(arg))) : [];
  return [...env, shellQuote(String(raw.command)), ...args].join(' ');
}

function remoteDisplay(type: ServerType, raw: Record<string, unknown>): string {
  const headers = isObject(raw.headers) ? Object.entries(raw.headers).map(([key, value]) => `${key}: ${String(value)}`) : [];
  return `${type} ${String(raw.url)}${headers.length > 0 ? ` (headers: ${headers.join('; ')})` : ''}`;
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
      problems.push({ where: server.origin.source, message: userText('start.mcpServerNameTaken', { name: server.name, earlier: earlier.origin.source }) });
      continue;
    }
    byName.set(server.name, server);
    servers.push(server);
  }
  return { servers, problems };
}

/**
 * JSON schemas of the object settings, for package.json (scripts/manifest.ts): settings.json then
 * completes their keys and marks a mistake as it is typed. Each marks what the setting's parser in
 * the core reports, no more and no less, wherever a schema can say it; the parsers stay the judges
 * (VS Code passes any value on), the schemas only help while typing.
 * test/unit/settings.jsonSchemas.test.ts holds the two to the same answers on generated values.
 *
 * Written by hand until the zod schemas of issue 27 (the schemas27 branch) land: that branch has a
 * settingSchemas.ts of its own that derives each from its zod schema with the same exports
 * (`SETTING_JSON_SCHEMAS`, `SettingJsonSchema`); take it whole in place of this one.
 */
import { CONTEXT_DEFAULTS, OVERRIDABLE } from '../core/context/defaults';
import type { SettingKey } from './settingsTable';

/** A JSON schema as the manifest holds it (draft 7, which VS Code's settings editor reads). */
export type SettingJsonSchema = Readonly<Record<string, unknown>>;

/** The part of JSON Schema (draft 07) these settings use (a type, not an interface: it must fit `SettingJsonSchema`). */
type JsonSchema = {
  readonly type?: 'object' | 'string' | 'number' | 'array';
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly string[];
  readonly anyOf?: readonly JsonSchema[];
  readonly not?: JsonSchema;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
  readonly default?: number;
  /** Shown on hover in settings.json (English; localized through package.nls.json). */
  readonly markdownDescription?: string;
};

const strings: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
/** Not empty once trimmed, as the MCP parser checks a name and a command. */
const NOT_BLANK = '\\S';

/** `parsePriceOverrides` (core/model/models.ts): every model needs all four prices, each ≥ 0; other keys are ignored. */
const pricing: JsonSchema = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: {
      input: { type: 'number', minimum: 0, markdownDescription: 'USD per million uncached input tokens.' },
      output: { type: 'number', minimum: 0, markdownDescription: 'USD per million output tokens.' },
      cacheRead: { type: 'number', minimum: 0, markdownDescription: 'USD per million tokens read from the prompt cache.' },
      cacheWrite: { type: 'number', minimum: 0, markdownDescription: 'USD per million tokens written to the prompt cache.' },
    },
    required: ['input', 'output', 'cacheRead', 'cacheWrite'],
  },
};

/** `parseContextOverrides` (core/context/defaults.ts): known keys only, each a number in its range. */
const compression: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(OVERRIDABLE).map(([key, range]) => [key, { type: 'number', minimum: range.min, maximum: range.max, default: CONTEXT_DEFAULTS[key as keyof typeof CONTEXT_DEFAULTS] }]),
  ),
  additionalProperties: false,
};

/** A key present with one of `values` (JSON Schema needs both: `properties` alone passes when the key is absent). */
const declares = (key: string, values: readonly string[]): JsonSchema => ({ properties: { [key]: { enum: values } }, required: [key] });

/**
 * `parseMcpConfigValue` with `bare` (core/mcp/config.ts). A server is stdio when it declares
 * `stdio`, or declares nothing and has no `url`; it is http/sse when it declares so, or declares
 * nothing and has a `url`. Each kind checks only its own keys; unknown keys are ignored. What no
 * schema can check is left to the parser: `${…}` variables, and whether `url` is an http(s) URL
 * (it may be one only once a variable is expanded).
 */
const mcpServers: JsonSchema = {
  type: 'object',
  propertyNames: { pattern: NOT_BLANK },
  additionalProperties: {
    type: 'object',
    // For hover and completion; the kinds below do the checking.
    properties: {
      type: { enum: ['stdio', 'http', 'sse'], markdownDescription: 'How Evergreen talks to the server. Unset: `http` when `url` is given, else `stdio`.' },
      command: { markdownDescription: 'stdio: the program to start.' },
      args: { markdownDescription: "stdio: the program's arguments." },
      env: { markdownDescription: 'stdio: environment variables for the server (`${env:NAME}` is expanded).' },
      cwd: { markdownDescription: 'stdio: the folder it starts in.' },
      url: { markdownDescription: "http and sse: the server's address (http or https)." },
      headers: { markdownDescription: 'http and sse: headers sent with every request (`${env:NAME}` is expanded).' },
    },
    anyOf: [
      {
        anyOf: [declares('type', ['stdio']), { not: { anyOf: [{ required: ['type'] }, { required: ['url'] }] } }],
        properties: { command: { type: 'string', pattern: NOT_BLANK }, args: { type: 'array', items: { type: 'string' } }, env: strings, cwd: { type: 'string' } },
        required: ['command'],
      },
      {
        anyOf: [declares('type', ['http', 'sse']), { not: { required: ['type'] }, required: ['url'] }],
        properties: { url: { type: 'string' }, headers: strings },
        required: ['url'],
      },
    ],
  },
};

/** Every object setting's schema, by its key in the settings table. */
export const SETTING_JSON_SCHEMAS = { pricing, compression, 'mcp.servers': mcpServers } as const satisfies Partial<Record<SettingKey, SettingJsonSchema>>;

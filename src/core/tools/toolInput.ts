/**
 * A tool's input, declared once as a zod schema: the schema gives the input's TypeScript type, the
 * runtime check of what the model sent (with messages that tell it exactly what to fix), and the
 * JSON schema the model is given. Also the depth guard every input passes first.
 */
import * as z from '../zod';
import { ToolInputError } from '../errors';
import type { ToolDefinition, ToolInputSchema } from './types';

/**
 * How deep a tool input may nest. No tool takes more than a few levels; a deeper input only
 * serves to break what walks it recursively (JSON.stringify when the call is recorded overflows
 * the stack at a few thousand levels, and the transcript would stop saving while the tool ran).
 */
export const MAX_TOOL_INPUT_DEPTH = 64;

/**
 * Whether `value` nests objects or arrays deeper than `limit` levels (the top-level object is
 * level 1). Walks with an explicit stack, never recursion, so any depth is measured safely.
 */
export function nestedDeeperThan(value: unknown, limit: number = MAX_TOOL_INPUT_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > limit) return true;
    for (const child of Object.values(item.value)) if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}

/** The refusal the model reads for an input nested too deeply (the same words wherever it is caught). */
export function tooDeepInputMessage(limit: number = MAX_TOOL_INPUT_DEPTH): string {
  return `the input nests objects or arrays more than ${limit} levels deep, which no tool accepts. Call the tool again with a flat JSON object of its parameters.`;
}

/**
 * A tool's parameters: an object schema, optionally refined (checks across parameters) and
 * transformed (defaults filled in, text trimmed) into the input `run` gets. Refinements and
 * transforms are invisible in the JSON schema; descriptions (`.describe`) and bounds are in it.
 */
export type ToolInputType<Input> = z.ZodType<Input>;

/** A built-in tool as its file declares it: `input` stands for the JSON schema and the parser, which follow from it. */
export type BuiltInTool<Input> = Omit<ToolDefinition<Input>, 'inputSchema' | 'parse'> & {
  input: ToolInputType<Input>;
  /**
   * What the model is shown, when it is less than what `input` accepts: built from the same fields
   * (`.omit`, `.pick`, `.extend`), for a tool whose offer depends on where it runs (a parameter only
   * a sandbox gives meaning; the commands a read-only agent may use, the others refused with why).
   */
  offered?: z.ZodType;
};

export function defineTool<Input>(tool: BuiltInTool<Input>): ToolDefinition<Input> {
  const { input, offered, ...definition } = tool;
  const parser = toolInputParser(input, offered);
  return { ...definition, inputSchema: parser.jsonSchema, parse: (raw) => parser.parse(raw) };
}

/**
 * A schema builder that gives the same schema for the same settings (the key says them): building a
 * zod schema costs far more than parsing with it, and a registry is made per session and subagent.
 */
export function schemaPerSetting<Settings, Schema>(key: (settings: Settings) => string, build: (settings: Settings) => Schema): (settings: Settings) => Schema {
  const built = new Map<string, Schema>();
  return (settings) => {
    const id = key(settings);
    const known = built.get(id);
    if (known !== undefined) return known;
    const schema = build(settings);
    built.set(id, schema);
    return schema;
  };
}

/** Marks a custom issue whose message is a whole sentence, said as written wherever in the input it is. */
const WHOLE_SENTENCE = { wholeSentence: true } as const;

/** Refuses the input (or the part being checked) with a message that is a whole sentence of its own; nothing after it is checked. */
export function refuse(ctx: z.RefinementCtx, message: string): void {
  ctx.addIssue({ code: 'custom', message, params: WHOLE_SENTENCE, input: ctx.value, continue: false });
}

/** A check that throws ToolInputError (one shared with code that is not a tool, like a glob's) as a refinement. */
export function inputCheck<T>(check: (value: T) => void): (value: T, ctx: z.RefinementCtx<T>) => void {
  return (value, ctx) => {
    try {
      check(value);
    } catch (error) {
      if (!(error instanceof ToolInputError)) throw error;
      refuse(ctx, error.message);
    }
  };
}

/** A string that is not empty or only whitespace (paths, commands, patterns). */
export const nonBlankString = (): z.ZodString => z.string().refine((value) => value.trim() !== '', 'must not be empty');

/** "a number", "an array", "null": what the model sent instead, in words. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** How one input parses: `run`'s input, or a ToolInputError naming each parameter that is wrong and how. */
export interface ToolInputParser<Input> {
  /** The JSON schema the model gets (computed once: it is part of every request's cached prefix). */
  readonly jsonSchema: ToolInputSchema;
  parse(raw: unknown): Input;
}

/** Parsers by schema and offer: a registry is made per session and per subagent, and zod schemas are costly to build. */
const parsers = new WeakMap<z.ZodType, WeakMap<z.ZodType, ToolInputParser<unknown>>>();

export function toolInputParser<Input>(schema: ToolInputType<Input>, offered: z.ZodType = schema): ToolInputParser<Input> {
  const byOffer = parsers.get(schema) ?? new WeakMap<z.ZodType, ToolInputParser<unknown>>();
  parsers.set(schema, byOffer);
  const known = byOffer.get(offered) as ToolInputParser<Input> | undefined;
  if (known) return known;
  const parser = newParser(schema, offered);
  byOffer.set(offered, parser);
  return parser;
}

function newParser<Input>(schema: ToolInputType<Input>, offered: z.ZodType): ToolInputParser<Input> {
  const jsonSchema = toolJsonSchema(offered);
  // A null parameter is an absent one: models send `"offset": null` for "no offset", and the schemas never offer null.
  const lenient = z.preprocess(withoutNullParameters, schema);
  return {
    jsonSchema,
    parse(raw) {
      const parsed = lenient.safeParse(raw, { reportInput: true });
      if (parsed.success) return parsed.data;
      throw new ToolInputError(inputProblem(parsed.error.issues, jsonSchema, raw));
    },
  };
}

function withoutNullParameters(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null));
}

// ---- the JSON schema -----------------------------------------------------------------------------

/**
 * The order of a schema's keywords as sent. The tools list opens every request's cached prefix, so
 * its bytes must not depend on how a schema was composed (`.describe()` before or after
 * `.optional()` puts the description first or last) or on a zod upgrade: one fixed order, the one
 * the hand-written schemas always had. Keywords not listed keep their order after these.
 */
const KEYWORD_ORDER = ['type', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'format', 'description', 'items', 'minItems', 'maxItems', 'properties', 'required', 'additionalProperties'];

type JsonObject = Record<string, unknown>;

const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The input's JSON schema, for the API: what the model may send (zod's input side), without the dialect line. */
export function toolJsonSchema(schema: z.ZodType): ToolInputSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as JsonObject;
  const canonical = canonicalSchema(json);
  if (canonical.type !== 'object' || !isJsonObject(canonical.properties)) throw new Error('A tool input schema must be an object schema.');
  return canonical as ToolInputSchema;
}

/** A schema node with its keywords in KEYWORD_ORDER, its subschemas likewise (property names keep their order). */
function canonicalSchema(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  const keys = [...KEYWORD_ORDER.filter((key) => key in node), ...Object.keys(node).filter((key) => !KEYWORD_ORDER.includes(key))];
  for (const key of keys) {
    const value = node[key];
    // z.int() writes out the safe-integer range it implies; no schema ever said it, and it tells the model nothing.
    if (node.type === 'integer' && ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER))) continue;
    if (key === 'properties' && isJsonObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, isJsonObject(sub) ? canonicalSchema(sub) : sub]));
    else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isJsonObject(value)) out[key] = canonicalSchema(value);
    else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') && Array.isArray(value)) out[key] = value.map((sub) => (isJsonObject(sub) ? canonicalSchema(sub) : sub));
    else out[key] = value;
  }
  return out;
}

// ---- the messages -------------------------------------------------------------------------------

/** `todos[0].id`: where in the input a problem is. */
function pathText(path: readonly PropertyKey[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`)).join('');
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The JSON schema of the value at `path` (what the model was told it is), if the schema says. */
function schemaAt(schema: JsonObject, path: readonly PropertyKey[]): JsonObject | undefined {
  let node: unknown = schema;
  for (const part of path) {
    if (!isJsonObject(node)) return undefined;
    node = typeof part === 'number' ? node.items : isJsonObject(node.properties) ? node.properties[String(part)] : undefined;
  }
  return isJsonObject(node) ? node : undefined;
}

/** What is wrong with one value, as the end of "Parameter "x" …". `told`: the value's schema as the model got it. */
function phrase(issue: z.core.$ZodIssue, told: JsonObject | undefined): string {
  const input: unknown = issue.input;
  switch (issue.code) {
    case 'invalid_type':
      // zod says "number" for a string sent where an integer belongs: the words follow the schema the model was given.
      switch (told?.type === 'integer' ? 'int' : issue.expected) {
        case 'int':
          return `must be an integer, got ${typeof input === 'number' ? String(input) : describeValue(input)}`;
        case 'boolean':
          return `must be a boolean (true or false), got ${describeValue(input)}`;
        case 'array':
        case 'object':
          return `must be an ${issue.expected}, got ${describeValue(input)}`;
        default:
          return `must be a ${issue.expected}, got ${describeValue(input)}`;
      }
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters long`;
      if (issue.origin === 'array') return `must have at least ${issue.minimum} items`;
      return `must be at least ${issue.minimum}, got ${String(input)}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters long, got ${typeof input === 'string' ? input.length : describeValue(input)}`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} items`;
      return `must be at most ${issue.maximum}, got ${String(input)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}, got ${typeof input === 'string' ? JSON.stringify(input.slice(0, 40)) : describeValue(input)}`;
    default:
      return issue.message;
  }
}

/**
 * Every problem of an input, one sentence each, in the words the model needs to fix them: which
 * parameter, what it must be, what it was. A custom check's message on a parameter is a phrase
 * ("must not be empty"), on the whole input a sentence of its own.
 */
export function inputProblem(issues: readonly z.core.$ZodIssue[], schema: ToolInputSchema, raw: unknown): string {
  const parameters = Object.keys(schema.properties);
  const sentences = issues.map((issue) => {
    if (issue.code === 'custom' && issue.params?.['wholeSentence'] === true) return issue.message;
    if (issue.path.length === 0) {
      if (issue.code === 'invalid_type' && issue.expected === 'object') return `Expected the input to be a JSON object with parameters ${parameters.join(', ')}, got ${describeValue(raw)}.`;
      return sentence(issue.message);
    }
    const [first] = issue.path;
    // Absent: zod says invalid_type, or invalid_value for an enum.
    if (issue.path.length === 1 && (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined) {
      const unknown = isJsonObject(raw) ? Object.keys(raw).filter((key) => !parameters.includes(key)) : [];
      const hint = unknown.length > 0 ? ` (unrecognized parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')})` : '';
      return `Missing required parameter "${String(first)}"${hint}.`;
    }
    return sentence(`Parameter "${pathText(issue.path)}" ${phrase(issue, schemaAt(schema, issue.path))}`);
  });
  return [...new Set(sentences)].join(' ');
}

// Strict argument parsing for tool inputs: wrong input becomes a ToolInputError whose message
// tells the model exactly what to fix.
import { ToolInputError } from '../errors';

export type InputObject = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export class Args {
  private constructor(
    private readonly obj: InputObject,
    private readonly known: readonly string[],
  ) {}

  /** `known` lists the parameters the tool accepts (used to hint at misspelled names). */
  static from(input: unknown, known: readonly string[]): Args {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new ToolInputError(`Expected the input to be a JSON object with parameters ${known.join(', ')}, got ${describe(input)}.`);
    }
    return new Args(input as InputObject, known);
  }

  private missing(key: string): never {
    const unknown = Object.keys(this.obj).filter((k) => !this.known.includes(k));
    const hint = unknown.length > 0 ? ` (unrecognized parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')})` : '';
    throw new ToolInputError(`Missing required parameter "${key}"${hint}.`);
  }

  private get(key: string): unknown {
    return Object.prototype.hasOwnProperty.call(this.obj, key) ? this.obj[key] : undefined;
  }

  requiredString(key: string, options: { nonEmpty?: boolean } = {}): string {
    const value = this.get(key);
    if (value === undefined || value === null) this.missing(key);
    if (typeof value !== 'string') throw new ToolInputError(`Parameter "${key}" must be a string, got ${describe(value)}.`);
    if (options.nonEmpty && value.trim() === '') throw new ToolInputError(`Parameter "${key}" must not be empty.`);
    return value;
  }

  optionalString(key: string): string | undefined {
    const value = this.get(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new ToolInputError(`Parameter "${key}" must be a string, got ${describe(value)}.`);
    return value;
  }

  optionalBoolean(key: string): boolean | undefined {
    const value = this.get(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw new ToolInputError(`Parameter "${key}" must be a boolean (true or false), got ${describe(value)}.`);
    return value;
  }

  optionalInteger(key: string, range: { min: number; max?: number }): number | undefined {
    const value = this.get(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw new ToolInputError(`Parameter "${key}" must be an integer, got ${typeof value === 'number' ? String(value) : describe(value)}.`);
    }
    if (value < range.min) throw new ToolInputError(`Parameter "${key}" must be at least ${range.min}, got ${value}.`);
    if (range.max !== undefined && value > range.max) throw new ToolInputError(`Parameter "${key}" must be at most ${range.max}, got ${value}.`);
    return value;
  }
}

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

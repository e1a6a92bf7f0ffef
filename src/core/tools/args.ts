// Strict argument parsing for tool inputs: wrong input becomes a ToolInputError whose message
// tells the model exactly what to fix.
import { ToolInputError } from './types';

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

/**
 * `memory`: notes the model keeps across chats of a workspace, as files under `/memories` mapped to
 * the folder the caller gives (memory/ does the work: paths, caps, confinement, wording). Writes
 * never ask; `readOnly` leaves only `view` (subagents other than general).
 */
import { ToolInputError } from '../errors';
import { MEMORY_COMMANDS, runMemoryCommand, type MemoryInput } from '../memory/commands';
import { MEMORY_LIMITS, MEMORY_ROOT, parseMemoryPath } from '../memory/paths';
import { formatSize, MemoryStore } from '../memory/store';
import { Args, type InputObject } from './args';
import type { ToolDefinition } from './types';

export const MEMORY_TOOL = 'memory';

export interface MemoryToolOptions {
  /** The folder /memories maps to (created, owner-only, at the first write). */
  folder: string;
  /** Only `view` (a subagent other than general reads memory but does not write it). */
  readOnly?: boolean;
}

function parseViewRange(raw: unknown): readonly [number, number] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const ok = Array.isArray(raw) && raw.length === 2 && raw.every((value) => Number.isSafeInteger(value));
  if (!ok) throw new ToolInputError('"view_range" must be two whole numbers [first line, last line] (last -1: to the end), e.g. [1, 20].');
  const [first, last] = raw as [number, number];
  if (first < 1 || (last !== -1 && last < first)) throw new ToolInputError(`"view_range" [${first}, ${last}] is not a range of lines: the first line is 1 or more and the last is at least the first (or -1 for the end).`);
  return [first, last];
}

function parseInput(input: unknown): MemoryInput {
  const fields = ['command', 'path', 'view_range', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'old_path', 'new_path'];
  const args = Args.from(input, fields);
  const command = args.requiredString('command');
  const memoryPath = () => parseMemoryPath(args.requiredString('path', { nonEmpty: true }), 'path');
  switch (command) {
    case 'view':
      return { command, path: memoryPath(), ...optionalRange((input as InputObject).view_range) };
    case 'create':
      return { command, path: memoryPath(), fileText: args.requiredString('file_text') };
    case 'str_replace': {
      const oldStr = args.requiredString('old_str');
      if (oldStr === '') throw new ToolInputError('"old_str" must not be empty: give the exact text to replace (use insert to add text).');
      return { command, path: memoryPath(), oldStr, newStr: args.requiredString('new_str') };
    }
    case 'insert': {
      const insertLine = args.optionalInteger('insert_line', { min: 0 });
      if (insertLine === undefined) throw new ToolInputError('Missing required parameter "insert_line": the line after which to insert (0: at the top).');
      return { command, path: memoryPath(), insertLine, insertText: args.requiredString('insert_text') };
    }
    case 'delete':
      return { command, path: memoryPath() };
    case 'rename':
      return { command, oldPath: parseMemoryPath(args.requiredString('old_path', { nonEmpty: true }), 'old_path'), newPath: parseMemoryPath(args.requiredString('new_path', { nonEmpty: true }), 'new_path') };
    default:
      throw new ToolInputError(`"command" must be one of ${MEMORY_COMMANDS.join(', ')}, got ${JSON.stringify(command)}.`);
  }
}

function optionalRange(raw: unknown): { viewRange?: readonly [number, number] } {
  const range = parseViewRange(raw);
  return range ? { viewRange: range } : {};
}

export function createMemoryTool(options: MemoryToolOptions): ToolDefinition<MemoryInput> {
  const store = new MemoryStore(options.folder);
  const readOnly = options.readOnly === true;
  return {
    name: MEMORY_TOOL,
    kind: 'meta',
    context: { kind: 'other' },
    description: readOnly
      ? `Read your memory: notes kept across chats in this workspace, under ${MEMORY_ROOT}. Read-only here: only the "view" command works (a folder's listing, or a file with line numbers).`
      : `Your memory: notes you keep across chats in this workspace, as files under ${MEMORY_ROOT}. ` +
        'Commands: view (a folder\'s listing, or a file with line numbers; view_range [first, last]), create (a new file: path, file_text), ' +
        'str_replace (path, old_str that appears exactly once, new_str), insert (path, insert_line: after that line, 0 = top; insert_text), delete (a file or folder), rename (old_path, new_path). ' +
        'Record what a later chat needs and cannot find in the code: decisions and why, the user\'s preferences, how to build and test, work in progress. Keep it short and current: update or delete notes that no longer hold. ' +
        `Never store secrets. Limits: ${formatSize(MEMORY_LIMITS.fileBytes)} a file, ${formatSize(MEMORY_LIMITS.folderBytes)} in all. The user can read and edit these files.`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: readOnly ? ['view'] : [...MEMORY_COMMANDS] },
        path: { type: 'string', description: `A path under ${MEMORY_ROOT}, e.g. ${MEMORY_ROOT}/project.md (${MEMORY_ROOT} itself to list it).` },
        view_range: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, description: 'view: [first line, last line]; -1 as the last means to the end.' },
        ...(readOnly
          ? {}
          : {
              file_text: { type: 'string', description: 'create: the whole file.' },
              old_str: { type: 'string', description: 'str_replace: the exact text to replace (it must appear once).' },
              new_str: { type: 'string', description: 'str_replace: what replaces it.' },
              insert_line: { type: 'integer', minimum: 0, description: 'insert: the line after which to insert (0: at the top).' },
              insert_text: { type: 'string', description: 'insert: the text to insert.' },
              old_path: { type: 'string', description: 'rename: the file or folder to move.' },
              new_path: { type: 'string', description: 'rename: where it goes.' },
            }),
      },
      required: ['command'],
    },
    parse: parseInput,
    headline(input) {
      return input.command === 'rename' ? `rename ${input.oldPath.shown} → ${input.newPath.shown}` : `${input.command} ${input.path.shown}`;
    },
    async run(input) {
      return { content: await runMemoryCommand(store, input, { readOnly }) };
    },
  };
}

/**
 * `memory`: notes the model keeps across chats of a workspace, as files under `/memories` mapped to
 * the folder the caller gives (memory/ does the work: paths, caps, confinement, wording). Writes
 * never ask; `readOnly` leaves only `view` (subagents other than general).
 */
import { userText } from '../texts/userText';
import { ToolInputError } from '../errors';
import { MEMORY_COMMANDS, memoryCardOf, runMemoryCommand, type MemoryInput } from '../memory/commands';
import { MEMORY_LIMITS, MEMORY_ROOT, parseMemoryPath } from '../memory/paths';
import { formatSize, MemoryStore } from '../memory/store';
import * as z from '../zod';
import { defineTool, inputCheck, refuse } from './toolInput';
import type { ToolDefinition } from './types';

export const MEMORY_TOOL = 'memory';

export interface MemoryToolOptions {
  /** The folder /memories maps to (created, owner-only, at the first write). */
  folder: string;
  /** Only `view` (a subagent other than general reads memory but does not write it). */
  readOnly?: boolean;
}

function checkViewRange(raw: unknown): void {
  const ok = Array.isArray(raw) && raw.length === 2 && raw.every((value) => Number.isSafeInteger(value));
  if (!ok) throw new ToolInputError('"view_range" must be two whole numbers [first line, last line] (last -1: to the end), e.g. [1, 20].');
  const [first, last] = raw as [number, number];
  if (first < 1 || (last !== -1 && last < first)) throw new ToolInputError(`"view_range" [${first}, ${last}] is not a range of lines: the first line is 1 or more and the last is at least the first (or -1 for the end).`);
}

/** Every parameter of every command; which ones a command needs is checked per command (memoryInputOf). */
const memoryFields = z.object({
  command: z.enum(MEMORY_COMMANDS),
  path: z.string().optional().describe(`A path under ${MEMORY_ROOT}, e.g. ${MEMORY_ROOT}/project.md (${MEMORY_ROOT} itself to list it).`),
  // Checked in words first ("two whole numbers [first line, last line]"); the array schema is what the model is told.
  view_range: z
    .preprocess((raw, ctx) => {
      inputCheck(checkViewRange)(raw, ctx);
      return raw;
    }, z.array(z.int()).min(2).max(2))
    .optional()
    .describe('view: [first line, last line]; -1 as the last means to the end.'),
  file_text: z.string().optional().describe('create: the whole file.'),
  old_str: z.string().optional().describe('str_replace: the exact text to replace (it must appear once).'),
  new_str: z.string().optional().describe('str_replace: what replaces it.'),
  insert_line: z.int().min(0).optional().describe('insert: the line after which to insert (0: at the top).'),
  insert_text: z.string().optional().describe('insert: the text to insert.'),
  old_path: z.string().optional().describe('rename: the file or folder to move.'),
  new_path: z.string().optional().describe('rename: where it goes.'),
});

type MemoryFields = z.output<typeof memoryFields>;

function required<K extends keyof MemoryFields>(fields: MemoryFields, key: K, options: { nonEmpty?: boolean } = {}): NonNullable<MemoryFields[K]> {
  const value = fields[key];
  if (value === undefined) throw new ToolInputError(`Missing required parameter "${key}".`);
  if (options.nonEmpty && typeof value === 'string' && value.trim() === '') throw new ToolInputError(`Parameter "${key}" must not be empty.`);
  return value as NonNullable<MemoryFields[K]>;
}

/** The command with what it needs, paths checked as memory paths (ToolInputError with what to fix). */
function memoryInputOf(fields: MemoryFields): MemoryInput {
  const memoryPath = (key: 'path' | 'old_path' | 'new_path') => parseMemoryPath(required(fields, key, { nonEmpty: true }), key);
  switch (fields.command) {
    case 'view':
      return { command: 'view', path: memoryPath('path'), ...(fields.view_range ? { viewRange: [fields.view_range[0]!, fields.view_range[1]!] as const } : {}) };
    case 'create':
      return { command: 'create', path: memoryPath('path'), fileText: required(fields, 'file_text') };
    case 'str_replace': {
      const oldStr = required(fields, 'old_str');
      if (oldStr === '') throw new ToolInputError('"old_str" must not be empty: give the exact text to replace (use insert to add text).');
      return { command: 'str_replace', path: memoryPath('path'), oldStr, newStr: required(fields, 'new_str') };
    }
    case 'insert':
      if (fields.insert_line === undefined) throw new ToolInputError('Missing required parameter "insert_line": the line after which to insert (0: at the top).');
      return { command: 'insert', path: memoryPath('path'), insertLine: fields.insert_line, insertText: required(fields, 'insert_text') };
    case 'delete':
      return { command: 'delete', path: memoryPath('path') };
    case 'rename':
      return { command: 'rename', oldPath: memoryPath('old_path'), newPath: memoryPath('new_path') };
  }
}

const memoryInput = memoryFields.transform((fields, ctx): MemoryInput => {
  try {
    return memoryInputOf(fields);
  } catch (error) {
    if (!(error instanceof ToolInputError)) throw error;
    refuse(ctx, error.message);
    return z.NEVER;
  }
});

/** A read-only agent is offered `view` alone; a write it asks for anyway is refused with why when it runs. */
const readOnlyOffer = memoryFields.pick({ command: true, path: true, view_range: true }).extend({ command: z.enum(['view']) });

export function createMemoryTool(options: MemoryToolOptions): ToolDefinition<MemoryInput> {
  const store = new MemoryStore(options.folder);
  const readOnly = options.readOnly === true;
  return defineTool({
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
    input: memoryInput,
    ...(readOnly ? { offered: readOnlyOffer } : {}),
    headline(input) {
      return input.command === 'rename' ? userText('tool.memoryRename', { from: input.oldPath.shown, to: input.newPath.shown }) : userText('tool.memory', { command: input.command, path: input.path.shown });
    },
    // Writes do not ask: the chat shows each as a card of its own, kept through a resume (built from the input).
    card: (input) => ({ kind: 'memory', ...memoryCardOf(input) }),
    async run(input) {
      return { content: await runMemoryCommand(store, input, { readOnly }) };
    },
  });
}

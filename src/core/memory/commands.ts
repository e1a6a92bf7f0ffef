/**
 * The memory tool's commands as data and their effect on the memory folder: the commands of
 * Anthropic's memory tool (`view`, `create`, `str_replace`, `insert`, `delete`, `rename`), with its
 * result and error wording. Writes never ask (the folder is the model's notes, outside the
 * workspace, capped); each result names the command and path and shows a short preview, and
 * `memoryCardOf` gives a card the same facts from the recorded input alone.
 */
import { ToolExecutionError } from '../errors';
import { MEMORY_LIMITS, MEMORY_ROOT, type MemoryPath } from './paths';
import { formatSize, MemoryStore } from './store';
import { viewMemory } from './view';

export const MEMORY_COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] as const;
export type MemoryCommand = (typeof MEMORY_COMMANDS)[number];

export type MemoryInput =
  | { command: 'view'; path: MemoryPath; viewRange?: readonly [number, number] }
  | { command: 'create'; path: MemoryPath; fileText: string }
  | { command: 'str_replace'; path: MemoryPath; oldStr: string; newStr: string }
  | { command: 'insert'; path: MemoryPath; insertLine: number; insertText: string }
  | { command: 'delete'; path: MemoryPath }
  | { command: 'rename'; oldPath: MemoryPath; newPath: MemoryPath };

/** What a card shows for a memory call, from its input alone (so a resumed chat shows the same). */
export interface MemoryCard {
  command: MemoryCommand;
  path: string;
  /** rename: where it went. */
  newPath?: string;
  /** The first lines written (create, str_replace, insert). */
  preview?: string;
}

const PREVIEW_LINES = 3;
const PREVIEW_CHARS = 240;
const LINE_NUMBER_WIDTH = 6;

function previewOf(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let preview = lines.slice(0, PREVIEW_LINES).join('\n');
  if (preview.length > PREVIEW_CHARS) preview = `${preview.slice(0, PREVIEW_CHARS - 1)}…`;
  else if (lines.length > PREVIEW_LINES) preview += '\n…';
  return preview;
}

export function memoryCardOf(input: MemoryInput): MemoryCard {
  switch (input.command) {
    case 'rename':
      return { command: input.command, path: input.oldPath.shown, newPath: input.newPath.shown };
    case 'create':
      return { command: input.command, path: input.path.shown, preview: previewOf(input.fileText) };
    case 'str_replace':
      return { command: input.command, path: input.path.shown, preview: previewOf(input.newStr) };
    case 'insert':
      return { command: input.command, path: input.path.shown, preview: previewOf(input.insertText) };
    default:
      return { command: input.command, path: input.path.shown };
  }
}

const numbered = (lines: readonly string[], first: number): string => lines.map((line, index) => `${String(first + index).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`).join('\n');

/** Line numbers (1-based) where each occurrence of `needle` starts. */
function occurrenceLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) lines.push(text.slice(0, at).split('\n').length);
  return lines;
}

async function runWrite(store: MemoryStore, input: Exclude<MemoryInput, { command: 'view' }>): Promise<string> {
  const root = (await store.root(true))!;
  if (input.command === 'rename') {
    if (input.oldPath.segments.length === 0) throw new ToolExecutionError(`Cannot rename the ${MEMORY_ROOT} directory itself`);
    const from = await store.locate(root, input.oldPath);
    if (from.kind === 'missing') throw new ToolExecutionError(`The path ${input.oldPath.shown} does not exist`);
    const to = await store.locate(root, input.newPath);
    if (to.kind !== 'missing' || input.newPath.segments.length === 0) throw new ToolExecutionError(`The destination ${input.newPath.shown} already exists`);
    if (input.newPath.shown.startsWith(`${input.oldPath.shown}/`)) throw new ToolExecutionError(`Cannot move ${input.oldPath.shown} into itself (${input.newPath.shown}).`);
    if (from.kind === 'folder' && input.newPath.segments.length + (await store.depthBelow(from.absolute)) > MEMORY_LIMITS.depth) {
      throw new ToolExecutionError(`Moving ${input.oldPath.shown} to ${input.newPath.shown} would nest folders more than ${MEMORY_LIMITS.depth} deep; choose a shallower place.`);
    }
    await store.move(root, from.absolute, to.absolute);
    return `Successfully renamed ${input.oldPath.shown} to ${input.newPath.shown}`;
  }
  const shown = input.path.shown;
  if (input.path.segments.length === 0) throw new ToolExecutionError(input.command === 'delete' ? `Cannot delete the ${MEMORY_ROOT} directory itself` : `${MEMORY_ROOT} is a directory; give a file path like ${MEMORY_ROOT}/notes.md.`);
  const target = await store.locate(root, input.path);
  if (input.command === 'delete') {
    if (target.kind === 'missing') throw new ToolExecutionError(`The path ${shown} does not exist`);
    await store.remove(root, target.absolute);
    return `Successfully deleted ${shown}`;
  }
  if (input.command === 'create') {
    if (target.kind !== 'missing') throw new ToolExecutionError(`File ${shown} already exists`);
    const bytes = await store.writeText(root, target.absolute, shown, input.fileText, { kind: 'utf-8', bom: false }, 0);
    const lines = input.fileText === '' ? 0 : input.fileText.split('\n').length;
    return `File created successfully at: ${shown}\n\nPreview (${lines} line${lines === 1 ? '' : 's'}, ${formatSize(bytes)}):\n${previewOf(input.fileText)}`;
  }
  if (target.kind === 'missing') throw new ToolExecutionError(`The path ${shown} does not exist. Please provide a valid path.`);
  if (target.kind === 'folder') throw new ToolExecutionError(`The path ${shown} is not a file.`);
  const current = await store.readText(root, target.absolute, shown);
  if (current.cut) throw new ToolExecutionError(`${shown} is larger than a memory file may be (${formatSize(MEMORY_LIMITS.fileBytes)}), so it cannot be edited here; shorten it with create after deleting it, or ask the user to trim it.`);
  const replacing = Buffer.byteLength(current.text);
  if (input.command === 'str_replace') {
    const found = occurrenceLines(current.text, input.oldStr);
    if (found.length === 0) throw new ToolExecutionError(`No replacement was performed, old_str \`${input.oldStr}\` did not appear verbatim in ${shown}.`);
    if (found.length > 1) throw new ToolExecutionError(`No replacement was performed. Multiple occurrences of old_str \`${input.oldStr}\` in lines: ${found.join(', ')}. Please ensure it is unique`);
    const updated = current.text.replace(input.oldStr, () => input.newStr);
    await store.writeText(root, target.absolute, shown, updated, current.encoding, replacing);
    const lines = updated.split('\n');
    const from = Math.max(0, found[0]! - 3);
    const to = Math.min(lines.length, found[0]! - 1 + input.newStr.split('\n').length + 2);
    return `The memory file ${shown} has been edited. Here is the snippet showing the change (with line numbers):\n${numbered(lines.slice(from, to), from + 1)}`;
  }
  const lines = current.text.split('\n');
  if (input.insertLine > lines.length) throw new ToolExecutionError(`Invalid \`insert_line\` parameter: ${input.insertLine}. It should be within the range of lines of the file: [0, ${lines.length}]`);
  const inserted = input.insertText.replace(/\n$/, '').split('\n');
  lines.splice(input.insertLine, 0, ...inserted);
  await store.writeText(root, target.absolute, shown, lines.join('\n'), current.encoding, replacing);
  return `The file ${shown} has been edited. The inserted lines:\n${numbered(inserted, input.insertLine + 1)}`;
}


/** Runs one command on the memory folder; `readOnly` refuses every command but view. Failures throw ToolExecutionError. */
export async function runMemoryCommand(store: MemoryStore, input: MemoryInput, options: { readOnly?: boolean } = {}): Promise<string> {
  if (input.command === 'view') return viewMemory(store, input.path, input.viewRange);
  if (options.readOnly) throw new ToolExecutionError('Memory is read-only for this agent: only "view" works here (a subagent reads memory; only a general one writes it). Report what should be remembered instead.');
  return runWrite(store, input);
}

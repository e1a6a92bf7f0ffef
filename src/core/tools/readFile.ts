import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import * as z from '../zod';
import { detectEncoding, readLines, type LineEncoding, type ReadLinesResult } from '../workspace/fileio';
import { numberedLine, plural } from '../text';
import { defineTool, nonBlankString, schemaPerSetting } from './toolInput';
import type { ToolDefinition, ToolEffect } from './types';
import { ToolExecutionError } from '../errors';
import { isNodeError, openForRead } from '../workspace/workspace';

import { verbatim, userText } from '../texts/userText';

const readFileInput = schemaPerSetting(String, (defaultLimit: number) =>
  z.object({
    path: nonBlankString().describe('File path, relative to the workspace root (or absolute inside it).'),
    offset: z.int().min(1).optional().describe('1-based line number to start reading from (default 1).'),
    limit: z.int().min(1).optional().describe(`Maximum number of lines to return (default ${defaultLimit}).`),
  }),
);

export type ReadFileInput = z.output<ReturnType<typeof readFileInput>>;

export interface ReadFileOptions {
  defaultLimit?: number;
  maxLineChars?: number;
  /**
   * Output budget in characters (about a quarter of that in tokens). A function is asked at each
   * call: the budget shrinks when the engine learns the server's window is smaller than assumed.
   */
  maxOutputChars?: number | (() => number);
}

export const READ_FILE_DEFAULTS = { defaultLimit: 2000, maxLineChars: 2000, maxOutputChars: 100_000 } as const;

export function createReadFileTool(options: ReadFileOptions = {}): ToolDefinition<ReadFileInput> {
  const defaultLimit = options.defaultLimit ?? READ_FILE_DEFAULTS.defaultLimit;
  const maxLineChars = options.maxLineChars ?? READ_FILE_DEFAULTS.maxLineChars;
  const outputBudget = options.maxOutputChars ?? READ_FILE_DEFAULTS.maxOutputChars;
  const maxOutputChars = (): number => (typeof outputBudget === 'function' ? outputBudget() : outputBudget);
  return defineTool({
    name: 'read_file',
    kind: 'read',
    // Superseded by a later read of the same lines, restored after a compaction; it pages itself (capped at the persist size).
    context: { kind: 'read', target: (input) => (input.path.trim() ? { path: input.path, part: `${input.offset ?? 1}:${input.limit ?? ''}` } : undefined), persist: 'never' },
    description:
      `Read a text file from the workspace (or a persisted tool output the conversation points to). ` +
      `Returns lines prefixed with their 1-based line number and a tab, like \`cat -n\` (the prefix is not part of the file). ` +
      `By default up to ${defaultLimit} lines from the start; use offset/limit to page through large files — the result says which offset to use next. ` +
      `Lines longer than ${maxLineChars} characters are cut. Binary files are refused.`,
    input: readFileInput(defaultLimit),
    headline: (input) => (input.offset !== undefined || input.limit !== undefined ? userText('tool.readFromLine', { path: input.path, line: String(input.offset ?? 1) }) : verbatim(input.path)),
    async run(input, ctx) {
      const file = await ctx.workspace.resolve(input.path);
      const shown = ctx.workspace.displayPath(file);
      // Opened race-free and checked on the handle: what is read is the file resolve() approved.
      let handle: FileHandle;
      try {
        handle = await openForRead(ctx.workspace, file);
      } catch (error) {
        if (isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) {
          throw new ToolExecutionError(`File not found: ${shown}. Use list_files to find the right path.`);
        }
        if (isNodeError(error) && error.code === 'EISDIR') throw new ToolExecutionError(`${shown} is a directory, not a file. Use list_files to see its contents.`);
        throw error;
      }
      const folderRead: ToolEffect = { kind: 'folders_read', folders: [path.dirname(file)] };
      const offset = input.offset ?? 1;
      const limit = input.limit ?? defaultLimit;
      let result: ReadLinesResult;
      let encoding: LineEncoding;
      try {
        const stat = await handle.stat();
        if (stat.isDirectory()) throw new ToolExecutionError(`${shown} is a directory, not a file. Use list_files to see its contents.`);
        if (!stat.isFile()) throw new ToolExecutionError(`${shown} is not a regular file.`);
        const sniffed = await detectEncoding(handle, stat.size, ctx.signal);
        if (sniffed.kind === 'binary') throw new ToolExecutionError(`Cannot read ${shown}: it is a binary file (${stat.size} bytes), not text.`);
        encoding = sniffed.encoding;
        result = await readLines(handle, { offset, limit, maxLineChars, maxTotalChars: maxOutputChars(), encoding, signal: ctx.signal });
      } finally {
        await handle.close();
      }

      if (result.lines.length === 0) {
        if (result.totalLines === 0) return { content: `${shown} is empty.`, effects: [folderRead] };
        return {
          content: `${shown} has only ${plural(result.totalLines ?? 0, 'line')}; offset ${offset} is past the end of the file.`,
          isError: true,
        };
      }
      const body = result.lines.map((l) => numberedLine(l.lineNumber, l.cut ? `${l.text} [... line cut at ${maxLineChars} characters]` : l.text));
      const first = result.lines[0]?.lineNumber ?? offset;
      const last = result.lines[result.lines.length - 1]?.lineNumber ?? offset;
      const notes: string[] = [];
      if (result.more) {
        const why = result.stoppedBySize ? ` (output size limit of ${maxOutputChars()} characters reached)` : '';
        notes.push(`[Showing lines ${first}-${last}${why}. The file continues; to read more, call read_file with offset=${last + 1}.]`);
      } else if (first > 1) {
        notes.push(`[Showing lines ${first}-${last}, the end of the file.]`);
      }
      if (result.lines.some((l) => l.cut)) notes.push(`[Some lines were longer than ${maxLineChars} characters and were cut.]`);
      // Said every time: the model must copy old_string in this decoding, and know what it may write.
      if (encoding.kind === 'windows-1252') {
        notes.push(
          `[${shown} is not valid UTF-8; it is shown decoded as Windows-1252 (Latin-1), one character per byte. ` +
            `edit_file and write_file match and write in that encoding (characters it cannot store are refused), so copy text exactly as shown.]`,
        );
      } else if (result.nonUtf8Lines) {
        notes.push(`[Some lines shown are not valid UTF-8; they are decoded as Windows-1252 (Latin-1), one character per byte.]`);
      }
      return { content: [...body, ...notes].join('\n'), effects: [folderRead] };
    },
  });
}

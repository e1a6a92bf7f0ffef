import * as z from '../zod';
import { approveAndWrite, readForChange } from './fileChange';
import { numberedLine } from '../text';
import { defineTool, nonBlankString } from './toolInput';
import type { ToolDefinition } from './types';
import { ToolExecutionError } from '../errors';

import { verbatim, userText } from '../texts/userText';

const editFileInput = z
  .object({
    path: nonBlankString().describe('File path, relative to the workspace root (or absolute inside it).'),
    old_string: z
      .string()
      .refine((text) => text !== '', 'must not be empty; to create a file use write_file')
      .describe('The exact text to replace.'),
    new_string: z.string().describe('The replacement text (must differ from old_string).'),
    replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one (default false).'),
  })
  .refine((input) => input.old_string !== input.new_string, 'old_string and new_string are identical; there is nothing to change.')
  .transform(({ replace_all = false, ...input }) => ({ ...input, replace_all }));

export type EditFileInput = z.output<typeof editFileInput>;

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

/** Plain slicing: String.replace would interpret `$&`, `$1`... in new_string. */
function replaceExact(haystack: string, needle: string, replacement: string, all: boolean): { text: string; firstIndex: number } {
  const firstIndex = haystack.indexOf(needle);
  if (!all) return { text: haystack.slice(0, firstIndex) + replacement + haystack.slice(firstIndex + needle.length), firstIndex };
  return { text: haystack.split(needle).join(replacement), firstIndex };
}

const collapseWhitespace = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** A few numbered lines around the edit, so the model sees the result without re-reading. */
function snippet(text: string, startIndex: number, insertedLength: number): string {
  const lines = text.split('\n');
  const startLine = text.slice(0, startIndex).split('\n').length; // 1-based
  const endLine = startLine + text.slice(startIndex, startIndex + insertedLength).split('\n').length - 1;
  const from = Math.max(1, startLine - 3);
  const to = Math.min(lines.length, endLine + 3, from + 40);
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(numberedLine(n, (lines[n - 1] ?? '').replace(/\r$/, '')));
  return out.join('\n');
}

export function createEditFileTool(): ToolDefinition<EditFileInput> {
  return defineTool({
    name: 'edit_file',
    kind: 'write',
    context: { kind: 'write' },
    description:
      'Replace an exact string in an existing file. old_string must match the file exactly (including whitespace and indentation, ' +
      'without the line-number prefix read_file shows) and must occur exactly once unless replace_all is true; include enough ' +
      'surrounding lines to make it unique. The user sees a diff and may decline. Read the file first.',
    input: editFileInput,
    headline: (input) => (input.replace_all ? userText('tool.editAll', { path: input.path }) : verbatim(input.path)),
    async run(input, ctx) {
      const file = await ctx.workspace.resolve(input.path, { write: true });
      const shown = ctx.workspace.displayPath(file);
      const existing = await readForChange(ctx.workspace, file, shown);
      const content = existing.content;
      if (content === undefined) throw new ToolExecutionError(`File not found: ${shown}. To create a new file use write_file.`);

      let oldString = input.old_string;
      let newString = input.new_string;
      let count = countOccurrences(content, oldString);
      // Models write \n; Windows-style files use \r\n. Match them rather than fail.
      if (count === 0 && content.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r\n')) {
        const crlfOld = oldString.replace(/\n/g, '\r\n');
        const crlfCount = countOccurrences(content, crlfOld);
        if (crlfCount > 0) {
          oldString = crlfOld;
          newString = newString.replace(/\r?\n/g, '\r\n');
          count = crlfCount;
        }
      }
      if (count === 0) {
        const hint = collapseWhitespace(content).includes(collapseWhitespace(oldString))
          ? ' A similar text exists that differs only in whitespace or indentation.'
          : '';
        throw new ToolExecutionError(
          `old_string was not found in ${shown}.${hint} It must match the file exactly, including whitespace, indentation and line breaks ` +
            `(and without read_file's line-number prefixes). Re-read the file with read_file and copy the text exactly.`,
        );
      }
      if (count > 1 && !input.replace_all) {
        throw new ToolExecutionError(
          `old_string occurs ${count} times in ${shown}. Include more surrounding context so it matches exactly one place, ` +
            `or set replace_all to true to replace all ${count} occurrences.`,
        );
      }
      const { text, firstIndex } = replaceExact(content, oldString, newString, input.replace_all);
      const replaced = input.replace_all ? count : 1;
      return approveAndWrite(ctx, {
        file,
        shown,
        existing,
        after: text,
        summary: `Edited ${shown}: replaced ${replaced} occurrence${replaced === 1 ? '' : 's'}`,
        details: `Around the ${input.replace_all && count > 1 ? 'first ' : ''}change:\n${snippet(text, firstIndex, newString.length)}`,
      });
    },
  });
}

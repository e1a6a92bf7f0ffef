import * as z from '../zod';
import { approveAndWrite, readForChange } from './fileChange';
import { defineTool, nonBlankString } from './toolInput';
import type { ToolDefinition } from './types';
import { verbatim } from '../texts/userText';

const writeFileInput = z.object({
  path: nonBlankString().describe('File path, relative to the workspace root (or absolute inside it).'),
  content: z.string().describe('The complete new content of the file.'),
});

export type WriteFileInput = z.output<typeof writeFileInput>;

export function createWriteFileTool(): ToolDefinition<WriteFileInput> {
  return defineTool({
    name: 'write_file',
    kind: 'write',
    context: { kind: 'write' },
    description:
      'Create a file, or replace the whole content of an existing one, inside the workspace. Parent directories are created. ' +
      'The user sees a diff and may decline. To change part of an existing file prefer edit_file; read a file before overwriting it.',
    input: writeFileInput,
    headline: (input) => verbatim(input.path),
    async run(input, ctx) {
      const file = await ctx.workspace.resolve(input.path, { write: true });
      const shown = ctx.workspace.displayPath(file);
      const existing = await readForChange(ctx.workspace, file, shown);
      // An existing file keeps its encoding (and BOM), like edit_file: the text the model read back
      // is written as the same bytes, and what the encoding cannot store is refused, not replaced.
      // A BOM the model copied into the text is the one the file keeps, not a second one.
      const after = existing.encoding.kind === 'utf-8' && existing.encoding.bom ? input.content.replace(/^\uFEFF/, '') : input.content;
      if (existing.content === after) {
        return { content: `${shown} already has exactly this content; nothing was written.` };
      }
      return approveAndWrite(ctx, {
        file,
        shown,
        existing,
        after,
        summary: existing.content === undefined ? `Created ${shown}` : `Wrote ${shown}`,
      });
    },
  });
}

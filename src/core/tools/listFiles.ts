import { promises as fsp } from 'node:fs';
import { userText } from '../texts/userText';
import * as z from '../zod';
import { plural } from '../text';
import { defineTool, inputCheck } from './toolInput';
import type { ToolDefinition, ToolEffect } from './types';
import { ToolExecutionError } from '../errors';
import { checkGlobPattern, findFiles } from '../workspace/walk';
import { openConfinedDir, rootOf } from '../workspace/workspace';

const DEFAULT_PATTERN = '**/*';

const listFilesInput = z
  .object({
    pattern: z.string().optional().describe(`Glob pattern, e.g. "**/*.ts" (default "${DEFAULT_PATTERN}").`),
    path: z.string().optional().describe('Directory to search in, relative to the workspace root (default: the root).'),
  })
  .superRefine(inputCheck(({ pattern }) => checkGlobPattern(pattern ?? DEFAULT_PATTERN, 'pattern')))
  .transform(({ pattern = DEFAULT_PATTERN, path }) => (path === undefined || path.trim() === '' ? { pattern } : { pattern, path }));

export type ListFilesInput = z.output<typeof listFilesInput>;

export interface ListFilesOptions {
  maxEntries?: number;
}

export function createListFilesTool(options: ListFilesOptions = {}): ToolDefinition<ListFilesInput> {
  const maxEntries = options.maxEntries ?? 1000;
  return defineTool({
    name: 'list_files',
    kind: 'read',
    context: { kind: 'search' },
    description:
      'List files in the workspace matching a glob pattern (default "**/*", i.e. everything, recursively). ' +
      'Patterns are relative to "path" (default: the workspace root); "*.ts" matches only that directory, "**/*.ts" recursively; ' +
      `braces like "src/**/*.{ts,tsx}" work. Honours .gitignore and skips .git and node_modules. Paths are returned relative to the workspace root, sorted; at most ${maxEntries}.`,
    input: listFilesInput,
    headline: (input) => userText('tool.listFiles', { path: input.path ?? '.', pattern: input.pattern }),
    async run(input, ctx) {
      const dir = await ctx.workspace.resolve(input.path ?? '.');
      const shownDir = ctx.workspace.displayPath(dir);
      const stat = await fsp.stat(dir).catch(() => undefined);
      if (!stat) throw new ToolExecutionError(`Directory not found: ${shownDir}.`);
      if (!stat.isDirectory()) throw new ToolExecutionError(`${shownDir} is a file, not a directory. Use read_file to read it.`);
      // The listing walks by path: the folder must be the one resolve() approved before and after
      // it (a folder swapped for a symlink to outside is refused, not listed). A swap that is undone
      // during the walk is not seen; it could leak file names, never content.
      const stillConfined = async (): Promise<void> => (await openConfinedDir(rootOf(ctx.workspace, dir), dir)).close();
      await stillConfined();
      const files = await findFiles({ root: ctx.workspace.root, dir, pattern: input.pattern, signal: ctx.signal });
      await stillConfined();
      if (ctx.signal.aborted) return { content: 'Listing cancelled.', isError: true, cancelled: true };
      const where = shownDir === '.' ? 'the workspace' : shownDir;
      const folderRead: ToolEffect = { kind: 'folders_read', folders: [dir] };
      if (files.length === 0) return { content: `No files match "${input.pattern}" in ${where} (.gitignored files, .git and node_modules are skipped).`, effects: [folderRead] };
      const shown = files.slice(0, maxEntries).map((f) => ctx.workspace.displayPath(f));
      if (files.length > maxEntries) {
        shown.push(`[... and ${plural(files.length - maxEntries, 'more file')} not shown (${files.length} in total). Use a narrower pattern or path.]`);
      }
      return { content: shown.join('\n'), effects: [folderRead] };
    },
  });
}

import * as z from '../zod';
import { defineTool } from './toolInput';
import type { ToolDefinition } from './types';
import { verbatim } from '../texts/userText';

const compactInput = z
  .object({
    focus: z.string().optional().describe('What the summary should preserve in particular (optional).'),
  })
  .transform(({ focus }) => (focus === undefined || focus.trim() === '' ? {} : { focus }));

export type CompactInput = z.output<typeof compactInput>;

export function createCompactTool(): ToolDefinition<CompactInput> {
  return defineTool({
    name: 'compact',
    kind: 'meta',
    // Its short result says what happened to the context: never cleared.
    context: { kind: 'other', clearable: false },
    description:
      'Compact the conversation: the history is summarized (the full transcript stays on disk) to free context space. ' +
      'Use it when the context is getting full or before starting a new phase of a long task; optionally say what the summary should focus on.',
    input: compactInput,
    headline: (input) => verbatim(input.focus ?? ''),
    async run(input, ctx) {
      // A capability, not an effect: what the engine decides (scheduled, or why not) is the result.
      if (!ctx.requestCompact) return { content: 'compaction is not available here', isError: true };
      const summary = await ctx.requestCompact(input.focus);
      return { content: summary };
    },
  });
}

import { Args } from './args';
import type { ToolDefinition } from './types';

export interface CompactInput {
  focus?: string;
}

export function createCompactTool(): ToolDefinition<CompactInput> {
  return {
    name: 'compact',
    kind: 'meta',
    // Its short result says what happened to the context: never cleared.
    context: { kind: 'other', clearable: false },
    description:
      'Compact the conversation: the history is summarized (the full transcript stays on disk) to free context space. ' +
      'Use it when the context is getting full or before starting a new phase of a long task; optionally say what the summary should focus on.',
    inputSchema: {
      type: 'object',
      properties: {
        focus: { type: 'string', description: 'What the summary should preserve in particular (optional).' },
      },
    },
    headline: (input) => input.focus ?? '',
    parse(input) {
      const focus = Args.from(input, ['focus']).optionalString('focus');
      return focus === undefined || focus.trim() === '' ? {} : { focus };
    },
    async run(input, ctx) {
      if (!ctx.requestCompact) return { content: 'compaction is not available here', isError: true };
      const summary = await ctx.requestCompact(input.focus);
      return { content: summary };
    },
  };
}

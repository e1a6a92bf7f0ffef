import type { ContentBlockParam, MessageParam, ToolParam } from '../model/client';
import { estimateTokens } from './gauge';

/** Where the context's tokens go, estimated locally (chars / 4) so it costs no API call. */
export interface ContextBreakdown {
  system: number;
  tools: number;
  messages: number;
  toolResults: number;
  total: number;
}

function blockText(block: ContentBlockParam): { text: string; isToolResult: boolean } {
  switch (block.type) {
    case 'text':
      return { text: block.text, isToolResult: false };
    case 'tool_use':
      return { text: block.name + JSON.stringify(block.input), isToolResult: false };
    case 'tool_result':
      return { text: typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? ''), isToolResult: true };
    case 'thinking':
      return { text: block.thinking, isToolResult: false };
    default:
      return { text: JSON.stringify(block), isToolResult: false };
  }
}

export function contextBreakdown(system: string, tools: readonly ToolParam[], messages: readonly MessageParam[]): ContextBreakdown {
  const breakdown: ContextBreakdown = { system: estimateTokens(system), tools: estimateTokens(JSON.stringify(tools)), messages: 0, toolResults: 0, total: 0 };
  for (const message of messages) {
    const blocks: ContentBlockParam[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      const { text, isToolResult } = blockText(block);
      if (isToolResult) breakdown.toolResults += estimateTokens(text);
      else breakdown.messages += estimateTokens(text);
    }
  }
  breakdown.total = breakdown.system + breakdown.tools + breakdown.messages + breakdown.toolResults;
  return breakdown;
}

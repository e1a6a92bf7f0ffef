import type { MessageParam, ToolParam } from '../model/messages';
import { blockChars, blocksOf, blockText } from '../model/content';
import { builtInToolTraits } from '../tools/registry';
import type { ToolTraitsLookup } from '../tools/types';
import { TASK_LIST_MARK } from '../todos/todos';
import { INSTRUCTIONS_MARK, NESTED_INSTRUCTIONS_MARK } from '../instructions/instructionFiles';
import { MEMORY_MARK } from '../memory/view';
import { sectionSpans } from '../promptSections';
import { SKILLS_MARK } from '../skills/present';
import { SUMMARY_MARK } from './summary';
import { PERSISTED_MARK } from './tier0';

/** The system prompt's sections after its base, in their order (promptSections.ts); the instructions are last. */
export const SYSTEM_PROMPT_SECTIONS: readonly string[] = [SKILLS_MARK, MEMORY_MARK, INSTRUCTIONS_MARK];

/** Where the context's characters go; the engine scales them to tokens with its calibrated ratio. */
export interface ContextBreakdown {
  system: number;
  /** Project instruction files: the system prompt's section and subfolders' notes. */
  instructions: number;
  /** The system prompt's list of skills (names and descriptions; a loaded skill is a tool result). */
  skills: number;
  /** The system prompt's listing of memory (a note read is a tool result). */
  memory: number;
  tools: number;
  /** Definitions of tools from outside Evergreen (MCP servers), or of mcp_search/mcp_call when they are deferred. */
  mcpTools: number;
  messages: number;
  toolResults: number;
  /** Compaction summaries and the task list restored next to them. */
  summaries: number;
  persistedPreviews: number;
  /** Subagents' reports (`task` results): all the parent keeps of the work its children did. */
  subagents: number;
  /**
   * Thinking blocks (redacted ones too) in the view: the running turn's, which go back with its
   * tool results; the API ignores those of completed turns, and the live view leaves them out.
   */
  thinking: number;
  total: number;
}

/** Character counts of a request's parts (no API call; the caller converts to tokens). */
export function contextBreakdownChars(system: string, tools: readonly ToolParam[], messages: readonly MessageParam[], toolTraits: ToolTraitsLookup = builtInToolTraits): ContextBreakdown {
  const external = tools.filter((tool) => toolTraits(tool.name).external === true);
  const own = tools.filter((tool) => toolTraits(tool.name).external !== true);
  // Each section from its mark to the next (the instructions, last, to the end); the rest is the base prompt.
  const spans = sectionSpans(system, SYSTEM_PROMPT_SECTIONS);
  const sized = (mark: string) => {
    const span = spans.get(mark);
    return span ? span.end - span.start : 0;
  };
  const [skills, memory, instructions] = [sized(SKILLS_MARK), sized(MEMORY_MARK), sized(INSTRUCTIONS_MARK)];
  // The tools array as sent: its brackets and commas count with Evergreen's own definitions.
  const breakdown: ContextBreakdown = { system: system.length - instructions - skills - memory, instructions, skills, memory, tools: JSON.stringify(own).length, mcpTools: external.length === 0 ? 0 : JSON.stringify(external).length - 1, messages: 0, toolResults: 0, summaries: 0, persistedPreviews: 0, subagents: 0, thinking: 0, total: 0 };
  const taskCalls = new Set<string>();
  const subagentTools = new Set(tools.filter((tool) => toolTraits(tool.name).kind === 'subagent').map((tool) => tool.name));
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      const text = blockText(block);
      // Sizes as the estimates count them (an image by its tokens); the parts are scaled to tokens together.
      const chars = blockChars(block);
      if (block.type === 'tool_use' && subagentTools.has(block.name)) taskCalls.add(block.id);
      if (block.type === 'thinking' || block.type === 'redacted_thinking') {
        breakdown.thinking += chars;
      } else if (block.type === 'tool_result') {
        if (taskCalls.has(block.tool_use_id)) breakdown.subagents += chars;
        else if (text.startsWith(PERSISTED_MARK)) breakdown.persistedPreviews += chars;
        else breakdown.toolResults += chars;
      } else if (block.type === 'text' && message.role === 'user' && text.startsWith(NESTED_INSTRUCTIONS_MARK)) {
        breakdown.instructions += chars;
      } else if (block.type === 'text' && message.role === 'user' && (text.includes(SUMMARY_MARK) || text.startsWith(TASK_LIST_MARK))) {
        // The task list restored after a compaction counts with the summary it stands next to.
        breakdown.summaries += chars;
      } else {
        breakdown.messages += chars;
      }
    }
  }
  breakdown.total = breakdown.system + breakdown.instructions + breakdown.skills + breakdown.memory + breakdown.tools + breakdown.mcpTools + breakdown.messages + breakdown.toolResults + breakdown.summaries + breakdown.persistedPreviews + breakdown.subagents + breakdown.thinking;
  return breakdown;
}

/** Scales a character breakdown so its parts add up to `totalTokens`. */
export function scaleBreakdown(chars: ContextBreakdown, totalTokens: number): ContextBreakdown {
  const ratio = chars.total === 0 ? 0 : totalTokens / chars.total;
  const scale = (value: number) => Math.round(value * ratio);
  const scaled = {
    system: scale(chars.system),
    instructions: scale(chars.instructions),
    skills: scale(chars.skills),
    memory: scale(chars.memory),
    tools: scale(chars.tools),
    mcpTools: scale(chars.mcpTools),
    messages: scale(chars.messages),
    toolResults: scale(chars.toolResults),
    summaries: scale(chars.summaries),
    persistedPreviews: scale(chars.persistedPreviews),
    subagents: scale(chars.subagents),
    thinking: scale(chars.thinking),
    total: 0,
  };
  scaled.total = scaled.system + scaled.instructions + scaled.skills + scaled.memory + scaled.tools + scaled.mcpTools + scaled.messages + scaled.toolResults + scaled.summaries + scaled.persistedPreviews + scaled.subagents + scaled.thinking;
  return scaled;
}

// What one `task` call carries. A leaf module: the tool contract (types.ts, `ctx.runSubagent`) names
// it, and the tool itself (task.ts) builds on that contract, so neither may hold it for the other.

/** explore: read-only (read, list, grep); general: every tool the parent has except `task`. */
export const SUBAGENT_TYPES = ['explore', 'general'] as const;
export type SubagentType = (typeof SUBAGENT_TYPES)[number];

export interface TaskInput {
  /** Three to ten words for the card and the logs. */
  description: string;
  /** The child's whole brief: it sees nothing of the parent's conversation. */
  prompt: string;
  agentType: SubagentType;
}

/** What the core says about subagents: each outcome, as kinds with data (src/core/userText.ts); src/frontends/words/subagents.ts words them. */

/** Nothing to fill in: the kind is the whole message. */
type NoData = Record<string, never>;

/** A subagent's outcome (core/agent/events.ts SubagentStatus), as the chat card, the CLI and the archived transcript say it (never by colour alone). */
export interface SubagentTexts {
  'subagents.status.done': NoData;
  'subagents.status.limit': NoData;
  'subagents.status.error': NoData;
  'subagents.status.cancelled': NoData;
}

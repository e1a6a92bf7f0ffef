/** What the core says about subagents: each outcome, as kinds with data (src/core/texts/userText.ts); src/frontends/words/subagents.ts words them. */
import type { NoData } from './value';

/** A subagent's outcome (core/agent/events.ts SubagentStatus), as the chat card, the CLI and the archived transcript say it (never by colour alone). */
export interface SubagentTexts {
  'subagents.status.done': NoData;
  'subagents.status.limit': NoData;
  'subagents.status.error': NoData;
  'subagents.status.cancelled': NoData;
}

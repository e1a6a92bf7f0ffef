/** Words for subagents: each outcome (the kinds are in src/core/texts/subagents.ts). */
import type { SubagentStatus } from '../../core/agent/events';
import type { SubagentTexts } from '../../core/texts/subagents';
import { userText, type UserText } from '../../core/texts/userText';
import { wordsFor } from './template';

const STATUS_ENGLISH = {
  'subagents.status.done': 'done',
  'subagents.status.limit': 'hit a limit',
  'subagents.status.error': 'failed',
  'subagents.status.cancelled': 'cancelled',
} as const;

export const SUBAGENT_WORDS = wordsFor<SubagentTexts>()(STATUS_ENGLISH);

/** A subagent's outcome, for a front end to word. */
export function subagentStatusText(status: SubagentStatus): UserText {
  return userText(`subagents.status.${status}`, {});
}

/** A subagent's outcome in English, for the records that stay English (the archived transcript's document). */
export function subagentStatusEnglish(status: SubagentStatus): string {
  return STATUS_ENGLISH[`subagents.status.${status}`];
}

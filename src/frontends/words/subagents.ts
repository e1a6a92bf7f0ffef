/** Words for subagents: each outcome (the kinds are in src/core/texts/subagents.ts). */
import type { SubagentTexts } from '../../core/texts/subagents';
import { wordsFor } from './template';

export const SUBAGENT_WORDS = wordsFor<SubagentTexts>()({});

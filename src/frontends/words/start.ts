/** Words for a session's start: the sandbox, web search, MCP, thinking, a mode's start, transcripts that cannot be saved (the kinds are in src/core/texts/start.ts). */
import type { StartTexts } from '../../core/texts/start';
import { wordsFor } from './template';

export const START_WORDS = wordsFor<StartTexts>()({});

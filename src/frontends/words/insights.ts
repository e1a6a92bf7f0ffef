/** Words for the session's insights: actions, labels, details (the kinds are in src/core/texts/insights.ts). */
import type { InsightTexts } from '../../core/texts/insights';
import { wordsFor } from './template';

export const INSIGHT_WORDS = wordsFor<InsightTexts>()({});

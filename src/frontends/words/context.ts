/** Words for the context engine: tier actions, compactions, undo, a learned window (the kinds are in src/core/texts/context.ts). */
import type { ContextTexts } from '../../core/texts/context';
import { wordsFor } from './template';

export const CONTEXT_WORDS = wordsFor<ContextTexts>()({});

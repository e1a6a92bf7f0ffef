/** Words for hooks: their runs, decisions, settings and consent (the kinds are in src/core/texts/hooks.ts). */
import type { HookTexts } from '../../core/texts/hooks';
import { wordsFor } from './template';

export const HOOK_WORDS = wordsFor<HookTexts>()({});

/** Words for command, mode and skill files, and memory (the kinds are in src/core/texts/customization.ts). */
import type { CustomizationTexts } from '../../core/texts/customization';
import { wordsFor } from './template';

export const CUSTOMIZATION_WORDS = wordsFor<CustomizationTexts>()({});

/** Words for instruction files: refused, cut, re-encoded, a subfolder's file read (the kinds are in src/core/texts/instructions.ts). */
import type { InstructionTexts } from '../../core/texts/instructions';
import { wordsFor } from './template';

export const INSTRUCTION_WORDS = wordsFor<InstructionTexts>()({});

/** Words for the model's server: errors and retries (the kinds are in src/core/texts/model.ts). */
import type { ModelTexts } from '../../core/texts/model';
import { wordsFor } from './template';

export const MODEL_WORDS = wordsFor<ModelTexts>()({});

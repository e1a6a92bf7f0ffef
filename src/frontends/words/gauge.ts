/** Words for the token gauge: its reading and its hover (the kinds are in src/core/texts/gauge.ts). */
import type { GaugeTexts } from '../../core/texts/gauge';
import { wordsFor } from './template';

export const GAUGE_WORDS = wordsFor<GaugeTexts>()({});

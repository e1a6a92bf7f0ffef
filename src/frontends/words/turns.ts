/** Words for a turn's own stops: the round limit, a blocked prompt (the kinds are in src/core/texts/turns.ts). */
import type { TurnTexts } from '../../core/texts/turns';
import { wordsFor } from './template';

export const TURN_WORDS = wordsFor<TurnTexts>()({
  'turns.roundLimit': 'Stopped after {rounds} tool rounds in one turn.',
  'turns.roundLimitHint': 'Retry (or send "continue") to let the agent go on, or give it a narrower task.',
});

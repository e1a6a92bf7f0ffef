/** What the core says about a turn's own stops: the round limit, a blocked prompt, as kinds with data (src/core/texts/userText.ts); src/frontends/words/turns.ts words them. */
import type { NoData } from './value';
export interface TurnTexts {
  /** The turn ran its most tool rounds. */
  'turns.roundLimit': { rounds: number };
  'turns.roundLimitHint': NoData;
}

/** What the core says about a turn's own stops: the round limit, a blocked prompt, as kinds with data (src/core/userText.ts); src/frontends/words/turns.ts words them. */
export interface TurnTexts {
  /** The turn ran its most tool rounds. */
  'turns.roundLimit': { rounds: number };
  'turns.roundLimitHint': Record<never, never>;
}

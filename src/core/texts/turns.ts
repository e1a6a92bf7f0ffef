/** What the core says about a turn's own stops: the round limit, a blocked prompt, as kinds with data (src/core/userText.ts); src/frontends/words/turns.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface TurnTexts {}

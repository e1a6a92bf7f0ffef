/** What the core says about subagents: each outcome, as kinds with data (src/core/userText.ts); src/frontends/words/subagents.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface SubagentTexts {}

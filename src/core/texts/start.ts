/** What the core says about a session's start: the sandbox, web search, MCP, thinking, a mode's start, transcripts that cannot be saved, as kinds with data (src/core/userText.ts); src/frontends/words/start.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface StartTexts {}

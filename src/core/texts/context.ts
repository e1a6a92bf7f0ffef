/** What the core says about the context engine: tier actions, compactions, undo, a learned window, as kinds with data (src/core/userText.ts); src/frontends/words/context.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface ContextTexts {}

/** What the core says about hooks: their runs, decisions, settings and consent, as kinds with data (src/core/userText.ts); src/frontends/words/hooks.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface HookTexts {}

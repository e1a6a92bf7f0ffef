/** What the core says about command, mode and skill files, and memory, as kinds with data (src/core/userText.ts); src/frontends/words/customization.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface CustomizationTexts {}

/** What the core says about the model's server: errors and retries, as kinds with data (src/core/userText.ts); src/frontends/words/model.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface ModelTexts {}

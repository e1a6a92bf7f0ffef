/** What the core says about instruction files: refused, cut, re-encoded, a subfolder's file read, as kinds with data (src/core/userText.ts); src/frontends/words/instructions.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface InstructionTexts {}

/** What the core says about the token gauge: its reading and its hover, as kinds with data (src/core/userText.ts); src/frontends/words/gauge.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface GaugeTexts {}

/** What the core says about the session's insights: actions, labels, details, as kinds with data (src/core/userText.ts); src/frontends/words/insights.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface InsightTexts {}

/** What the core says about worktrees of background chats, as kinds with data (src/core/userText.ts); src/frontends/words/worktrees.ts words them. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kinds are added as members: `'area.what': { name: string }`
export interface WorktreeTexts {}

// The GitHub-flavoured markdown rules for Turndown (tables, strikethrough, task lists) ship no types.
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export const gfm: TurndownService.Plugin;
}

/** Words for worktrees of background chats (the kinds are in src/core/texts/worktrees.ts). */
import type { WorktreeTexts } from '../../core/texts/worktrees';
import { wordsFor } from './template';

export const WORKTREE_WORDS = wordsFor<WorktreeTexts>()({});

import type { HookTexts } from '../texts/hooks';
import type { UserText } from '../texts/userText';

/** A hooks kind with its data (src/core/texts/hooks.ts); the front ends word it. */
export const hookText = <K extends keyof HookTexts>(kind: K, data: HookTexts[K]): UserText => ({ kind, data }) as UserText;

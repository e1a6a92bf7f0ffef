/**
 * A server's real context window, learned from a "prompt is too long" refusal (issue 9): a local
 * server run with a small context (llama.cpp -c 8192, LM Studio, Ollama) refuses prompts far below
 * the window Evergreen assumed, and only its refusal says so. The engine then compacts for the
 * smaller window; the decision is a transcript entry (`window_learned`), so a resumed session folds to the same budget.
 */
import type { TooLongCount } from '../model/errors';
import { settingRef, userText, type UserText } from '../texts/userText';

/** The server's whole window from its refusal, when its words named one (see TooLongCount). */
export function serverWindowOf(counted: TooLongCount | undefined): number | undefined {
  const window = counted?.window;
  return window !== undefined && Number.isFinite(window) && window > 0 ? Math.floor(window) : undefined;
}

/** The user's notice: each front end words it, naming its own way to set the window. */
export function windowLearnedText(window: number, assumed: number): UserText {
  return userText('context.windowLearned', { window, assumed, value: String(window), setting: settingRef('contextWindow') });
}

/** The notice in English for the log and the archived transcript (a record, not a front end's words). */
export function windowLearnedMessage(window: number, assumed: number): string {
  const n = window.toLocaleString('en-US');
  return `The server's context window is ${n} tokens, smaller than the ${assumed.toLocaleString('en-US')} assumed; Evergreen now compacts for ${n}. Set evergreen.contextWindow (or --context-window) to ${window} to skip this.`;
}

/** The window the engine works with: the configured one, or a smaller one a server proved (a learned window never grows it). */
export function windowInUse(configured: number, learned: number | undefined): number {
  return learned !== undefined && learned > 0 && learned < configured ? learned : configured;
}

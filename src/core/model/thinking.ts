/**
 * Extended thinking (issue 21): the seam between the setting and the back ends. The setting
 * (`evergreen.thinking`, `--thinking`) is resolved per model into a `ThinkingRequest`; each back
 * end turns that into its own parameter (Anthropic's `thinking`, OpenAI's `reasoning_effort`).
 */

/** `evergreen.thinking` / `--thinking`: off, auto (a budget the model facts choose; off where unsupported), or a budget in tokens. */
export type ThinkingSetting = 'off' | 'auto' | number;

/** What one request asks for; a request without it asks for no thinking. */
export interface ThinkingRequest {
  /** Tokens the model may think with (at least 1024 on Anthropic). */
  budgetTokens: number;
}

// What went wrong and what the user can do about it, decided once in the core: front ends render
// the actions as buttons (VS Code) or hints (CLI) instead of guessing from English text.
// The core names only action KINDS; each front end words them. It sits in model/, the bottom layer
// that can extend ModelErrorKind, so every layer that ends a turn with a failure (the context
// engine's compaction, the agent loop, the front ends) can name its kind without importing upward.
import type { ModelErrorKind } from './errors';

/** The kinds of failure a turn can end with. */
export type ErrorKind =
  | Exclude<ModelErrorKind, 'cancelled'>
  | 'context_window_too_small'
  | 'context_window_exceeded'
  | 'compaction_failed'
  | 'tool_round_limit'
  /** A UserPromptSubmit hook blocked the prompt: nothing was sent (issue 29). */
  | 'hook_blocked'
  | 'no_workspace'
  | 'internal';

/** Next steps a front end offers for an error. */
export type ErrorAction = 'setApiKey' | 'retry' | 'compact' | 'newChat' | 'openSettings' | 'openFolder';

const ACTIONS: Record<ErrorKind, readonly ErrorAction[]> = {
  no_api_key: ['setApiKey'],
  authentication: ['setApiKey'],
  permission: ['setApiKey', 'openSettings'],
  model_not_found: ['openSettings'],
  prompt_too_long: ['compact', 'newChat'],
  invalid_request: ['retry', 'newChat'],
  rate_limited: ['retry'],
  overloaded: ['retry'],
  server: ['retry'],
  connection: ['retry', 'openSettings'],
  context_window_too_small: ['openSettings'],
  context_window_exceeded: ['compact', 'newChat'],
  compaction_failed: ['compact', 'newChat'],
  no_workspace: ['openFolder'],
  tool_round_limit: ['retry', 'newChat'],
  // The prompt was not sent: there is nothing to retry, the user words it again (or changes the hook).
  hook_blocked: [],
  internal: ['retry', 'newChat'],
};

export function errorActionsFor(kind: ErrorKind): ErrorAction[] {
  return [...ACTIONS[kind]];
}

/** A failure outside the model call (no workspace, …) that still carries the core's kind and next steps. */
export class ActionableError extends Error {
  readonly actions: ErrorAction[];

  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ActionableError';
    this.actions = errorActionsFor(kind);
  }
}

/**
 * The context keys Evergreen sets, which the manifest's when-clauses read (commands' `enablement`,
 * the command palette), so a command shows and runs only where it does something (issue 33).
 * No `vscode` here: the extension passes the `setContext` call in, so the tests drive it directly.
 */
import type { Logger } from '../core/logger';
import type { AgentEvent } from '../protocol';

export const CONTEXT_KEYS = {
  /** A conversation is open in the panel: a message was sent or a session resumed; New Chat clears it. */
  chatActive: 'evergreen.chatActive',
  /** A turn is running (from its start to its end), so Cancel has something to stop. */
  running: 'evergreen.running',
} as const;

export type ContextKey = (typeof CONTEXT_KEYS)[keyof typeof CONTEXT_KEYS];

/** `vscode.commands.executeCommand('setContext', key, value)`. */
export type SetContext = (key: ContextKey, value: boolean) => PromiseLike<unknown>;

export class ChatContextKeys {
  private readonly values = new Map<ContextKey, boolean>();

  constructor(
    private readonly setContext: SetContext,
    private readonly logger: Logger,
  ) {
    // Set once at activation, so a when-clause never reads a key as unset after a reload.
    this.set(CONTEXT_KEYS.chatActive, false);
    this.set(CONTEXT_KEYS.running, false);
  }

  /** The panel's conversation was opened, replaced or closed: a session just started or closed runs no turn. */
  chatChanged(open: boolean): void {
    this.set(CONTEXT_KEYS.chatActive, open);
    this.set(CONTEXT_KEYS.running, false);
  }

  /** Another chat is shown in the panel: the keys are its own (a conversation open, a turn running). */
  showChat(open: boolean, running: boolean): void {
    this.set(CONTEXT_KEYS.chatActive, open);
    this.set(CONTEXT_KEYS.running, running);
  }

  /** The shown session's events: a turn starts and ends (`turn_finished` comes however it ended). */
  onEvent(event: AgentEvent): void {
    if (event.type === 'turn_started') this.set(CONTEXT_KEYS.running, true);
    else if (event.type === 'turn_finished') this.set(CONTEXT_KEYS.running, false);
  }

  private set(key: ContextKey, value: boolean): void {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    Promise.resolve(this.setContext(key, value)).catch((error: unknown) => this.logger.error(`could not set the context key ${key}`, error));
  }
}

import type { AgentEvent } from '../core/agent/events';

/**
 * One session's time in the panel. Its events reach the chat only while it is current: after
 * New Chat, Resume or a restart its late events (a cancelled turn's last words) are dropped,
 * instead of every caller comparing generation counters.
 */
export class SessionScope {
  private current = true;
  private turn: Promise<unknown> | undefined;

  constructor(private readonly onEvent: (event: AgentEvent) => void) {}

  /** The listener to give the session. */
  readonly listener = (event: AgentEvent): void => {
    if (this.current) this.onEvent(event);
  };

  /** Remembers the running turn, so a switch can wait for its last events. */
  track<T>(turn: Promise<T>): Promise<T> {
    this.turn = turn;
    return turn;
  }

  /** Resolves when the tracked turn has ended (never rejects). */
  async settled(): Promise<void> {
    await this.turn?.catch(() => undefined);
  }

  /** From now on this session's events are not shown. */
  end(): void {
    this.current = false;
  }
}

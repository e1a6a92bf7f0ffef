import type { Logger } from '../logger';

type Release = () => unknown;

/**
 * What a session's start acquired, each with how to give it back, so a step that fails leaves
 * nothing behind and a closed session holds nothing (the idea of rust-analyzer's client cleanup
 * scope: what lives as long as one client is pushed onto its own list). Undone newest first: a later
 * resource may use an earlier one (MCP files and held sandbox writes in the session folder).
 */
export class StartScope {
  private readonly entries: { what: string; release: Release; onlyIfFailed: boolean }[] = [];
  private unwinding: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /** How to give back what was just acquired: when the session closes, and when a later step fails. */
  onRelease(what: string, release: Release): void {
    this.entries.push({ what, release, onlyIfFailed: false });
  }

  /** How to undo what was just made, only when a later step fails (a new session's folder: nothing in it is the user's yet). */
  onRollback(what: string, undo: Release): void {
    this.entries.push({ what, release: undo, onlyIfFailed: true });
  }

  /** The session closes: every release, newest first. Once: a second call waits for the first. */
  release(): Promise<void> {
    return this.unwind(false);
  }

  /** The start failed: every release and rollback, newest first. */
  rollback(): Promise<void> {
    return this.unwind(true);
  }

  private unwind(failed: boolean): Promise<void> {
    this.unwinding ??= (async () => {
      for (const entry of this.entries.splice(0).reverse()) {
        if (entry.onlyIfFailed && !failed) continue;
        try {
          await entry.release();
        } catch (error) {
          // The rest is still released; the caller's own error (a failed start) is the one it sees.
          this.logger.error(`could not release ${entry.what}`, error);
        }
      }
    })();
    return this.unwinding;
  }
}

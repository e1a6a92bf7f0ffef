import type { ApprovalDecision, ApprovalRequest, Approver } from '../core/approvals/approval';
import type { Logger } from '../core/logger';
import { Disposable } from './disposable';

interface PendingApproval {
  resolve(decision: ApprovalDecision): void;
  request: ApprovalRequest;
  /** The prompt's extra UI each time it was shown, each taken down when the prompt is settled. */
  shown: Promise<(() => void) | undefined>[];
}

/**
 * Open approval prompts, keyed by tool-use id: several can wait at once (parallel tool calls,
 * subagents) and each is answered by its own id. Disposing declines whatever is still open.
 */
export class ApprovalBroker extends Disposable {
  private readonly pending = new Map<string, PendingApproval>();
  private anonymous = 0;

  constructor(
    private readonly ui: {
      /** Shows the prompt's extra UI (the chat, a diff editor); returns how to take it down. */
      show(request: ApprovalRequest): Promise<(() => void) | undefined>;
      logger: Logger;
    },
  ) {
    super();
    this._register({ dispose: () => this.declineAll('VS Code is closing.') });
  }

  readonly approver: Approver = {
    requestApproval: async (request, signal, context) => {
      // Without a tool-use id (a caller outside the agent loop) the prompt still gets its own key.
      const toolUseId = context?.toolUseId ?? `approval-${++this.anonymous}`;
      // The panel answers by id alone: two calls waiting under one id (subagents of a server that
      // numbers its calls) would let a click on one prompt answer the other. The later is declined.
      if (this.pending.has(toolUseId)) {
        this.ui.logger.warn(`an approval for ${toolUseId} is already waiting; a second one under the same id was declined`);
        return { approved: false, reason: 'Declined: another approval is waiting under the same tool call id; try again once it is answered.' };
      }
      // Registered before anything is awaited, so an immediate click in the panel is never lost.
      let entry: PendingApproval | undefined;
      const decision = new Promise<ApprovalDecision>((resolve) => {
        const onAbort = () => resolve({ approved: false, reason: 'Cancelled.' });
        signal.addEventListener('abort', onAbort, { once: true });
        entry = {
          resolve: (value) => {
            signal.removeEventListener('abort', onAbort);
            resolve(value);
          },
          request,
          shown: [],
        };
        this.pending.set(toolUseId, entry);
      });
      this.show(entry!);
      try {
        return await decision;
      } finally {
        // A cancelled prompt must not stay pending: it would look open to the panel and the API.
        if (this.pending.get(toolUseId) === entry) this.pending.delete(toolUseId);
        for (const shown of entry!.shown) void shown.then((close) => close?.());
      }
    },
  };

  /** The user's answer from the panel (`always`: a web fetch's host for this workspace); false (and logged) when that call is not waiting. */
  decide(toolUseId: string, approved: boolean, always = false): boolean {
    const pending = this.pending.get(toolUseId);
    if (!pending) {
      this.ui.logger.warn(`approval decision for ${toolUseId}, which is not waiting for one; ignored`);
      return false;
    }
    this.pending.delete(toolUseId);
    pending.resolve(approved ? { approved: true, ...(always ? { always: true as const } : {}) } : { approved: false });
    return true;
  }

  /** The prompts still waiting shown again (their chat came into view: a write's diff opens then), oldest first. */
  showAgain(): void {
    for (const entry of this.pending.values()) this.show(entry);
  }

  private show(entry: PendingApproval): void {
    entry.shown.push(
      this.ui.show(entry.request).catch((error: unknown) => {
        this.ui.logger.error('could not show the approval prompt', error);
        return undefined;
      }),
    );
  }

  /** Tool-use ids waiting for an answer, oldest first. */
  waiting(): string[] {
    return [...this.pending.keys()];
  }

  private declineAll(reason: string): void {
    for (const pending of this.pending.values()) pending.resolve({ approved: false, reason });
    this.pending.clear();
  }
}

/**
 * The panel's requests to the host (protocol.ts, `WebviewRequests`): each gets an id, and the
 * host's reply with that id settles it. The host is the trusted side, so its replies are taken as
 * typed; what the panel sends is checked over there.
 */
import type { WebviewReply, WebviewRequestName, WebviewRequests, WebviewToHost } from '../protocol';

export class HostRequests {
  private nextId = 1;
  private readonly pending = new Map<number, (reply: WebviewReply) => void>();

  constructor(private readonly post: (message: WebviewToHost) => void) {}

  /** Sends a request; the promise settles with its reply (a failure is a reply too, never a rejection). */
  request<Name extends WebviewRequestName>(type: Name, request: WebviewRequests[Name][0]): Promise<WebviewReply<Name>> {
    const requestId = this.nextId++;
    return new Promise((resolve) => {
      // The host answers a request with the value of its kind (WebviewRequests pairs them).
      this.pending.set(requestId, resolve as (reply: WebviewReply) => void);
      this.post({ ...request, type, requestId } as WebviewToHost);
    });
  }

  /** A reply from the host: settles its request, once. A reply to no request of this page (one before a reload) is ignored. */
  settle(reply: WebviewReply): void {
    const resolve = this.pending.get(reply.requestId);
    this.pending.delete(reply.requestId);
    resolve?.(reply);
  }

  /** Requests still waiting for their reply. */
  get waiting(): number {
    return this.pending.size;
  }
}

// One chat's state, apart from the controller that drives it: the controller holds none of its
// own, so several chats (issue 31: each with its own session, in one view or in editor tabs) are
// several of these records. Imports no `vscode`, so it runs in plain node (test/unit/extension.chatState.test.ts).
import type { StartedSession } from '../core/agent/factory';
import type { AgentEvent as CoreAgentEvent } from '../core/agent/events';
import type { AgentEvent, GaugeState } from '../protocol';
import type { ThinkingSetting } from '../core/model/thinking';
import { SessionScope } from './sessionScope';

type ApprovalEvent = Extract<AgentEvent, { type: 'approval_needed' | 'approval_resolved' }>;

/**
 * What a tool card showed live that the transcript does not keep: how long the call ran and the
 * approval asked and answered, by tool-use id. A chat rebuilt on its transcript (a Restore, its
 * Undo) gets them back from the replay it replaces.
 */
export type ToolRecords = ReadonlyMap<string, { durationMs?: number; approvals: ApprovalEvent[] }>;

/** A chat's own choices that win over the settings. */
export interface ChatOverrides {
  model?: string;
  thinking?: ThinkingSetting;
}

/**
 * What a chat's panel replays when its webview (re)loads: the events in order and the newest gauge.
 * It belongs to the chat, not to the view: a view may show another chat, and a chat another view.
 */
export class ChatReplay {
  /** The session these events are of (set when one starts): a rebuild of the same one carries its tool records. */
  sessionId: string | undefined;
  private events: AgentEvent[] = [];
  private latestGauge: GaugeState | undefined;

  /** The events the panel shows, in order. */
  get history(): readonly AgentEvent[] {
    return this.events;
  }

  get gauge(): GaugeState | undefined {
    return this.latestGauge;
  }

  /** The gauge is state, not history: only the newest matters (the panel gets it as 'gauge'). */
  setGauge(gauge: GaugeState): void {
    this.latestGauge = gauge;
  }

  /** Keeps an event as the panel needs it replayed: consecutive text (or thinking) deltas merged, so a long session's buffer stays small. */
  record(event: AgentEvent): void {
    const last = this.events.at(-1);
    if ((event.type === 'text_delta' || event.type === 'thinking_delta') && last?.type === event.type && last.turnId === event.turnId) {
      this.events[this.events.length - 1] = { ...last, text: last.text + event.text };
    } else if (event.type === 'context') {
      // Gauge updates are state (setGauge), not history.
    } else if (event.type !== 'tool_call_progress' && event.type !== 'subagent_progress') {
      // Streamed output and a subagent's running figures are live only: the finish carries what stays.
      this.events.push(event);
    }
  }

  /** The tool cards' live records in this replay (the chat's own calls; a subagent's stay in its transcript). */
  toolRecords(): ToolRecords {
    const records = new Map<string, { durationMs?: number; approvals: ApprovalEvent[] }>();
    const of = (id: string) => records.get(id) ?? records.set(id, { approvals: [] }).get(id)!;
    for (const event of this.events) {
      if ((event.type === 'approval_needed' || event.type === 'approval_resolved') && event.childId === undefined) of(event.toolUseId).approvals.push(event);
      else if (event.type === 'tool_call_finished') of(event.toolUseId).durationMs = event.durationMs;
    }
    return records;
  }

  /**
   * A resumed session's history, as the fold rebuilt it; `carried`: the records of the replay it
   * replaces (the same chat rebuilt), each put back on its card: the duration, and the approval
   * before the result.
   */
  restore(events: readonly AgentEvent[], carried?: ToolRecords): void {
    for (const event of events) {
      const record = event.type === 'tool_call_finished' ? carried?.get(event.toolUseId) : undefined;
      if (!record || event.type !== 'tool_call_finished') {
        this.events.push(event);
        continue;
      }
      for (const approval of record.approvals) this.events.push({ ...approval, turnId: event.turnId });
      this.events.push(record.durationMs === undefined ? event : { ...event, durationMs: record.durationMs });
    }
  }

  reset(): void {
    this.events = [];
    this.latestGauge = undefined;
  }

  /** What the user wrote in the turn that began at `checkpoint` (Edit puts it back in the composer). */
  userTextOf(checkpoint: number): string | undefined {
    for (const event of this.events) if (event.type === 'turn_started' && event.checkpoint === checkpoint) return event.userText;
    return undefined;
  }
}

/**
 * One chat: the session it runs on (once started), a start under way, the scope whose events reach
 * the panel, whether a send is between Enter and its turn, whether changed settings wait for the next
 * message, and what the panel replays.
 */
export class ChatState {
  readonly replay = new ChatReplay();
  /** A send is between the user's Enter and the turn's start (session start, model info). */
  sending = false;
  /** Key, settings or trust changed: the next message restarts the session on its own transcript. */
  needsRestart = false;
  /** The mode picked before the chat's session began (the next one after New Chat); undefined: `evergreen.defaultMode`. */
  nextMode: string | undefined;
  /** Set on a chat that only shows a transcript (a background chat's, which works in its worktree): why nothing can be sent here. */
  readOnly: { title: string; reason: string } | undefined;
  /** What this chat runs with in place of the settings (`/model`, `/thinking`), until New Chat or a resume of another. */
  overrides: ChatOverrides = {};
  private current: StartedSession | undefined;
  private starting: Promise<StartedSession> | undefined;
  /** The shown session's scope: a new one for every session start, so old events are dropped. */
  private scope: SessionScope | undefined;
  /** The scope of a session being started: it becomes the shown one when the session is adopted. */
  private pendingScope: SessionScope | undefined;

  /** `sessionChanged`: told whenever the chat gets a session or loses it (the `evergreen.chatActive` context key follows it). */
  constructor(private readonly sessionChanged: (open: boolean) => void = () => undefined) {}

  /** The session the chat runs on; undefined before the first message and after New Chat. */
  get active(): StartedSession | undefined {
    return this.current;
  }

  /** A send or a turn is under way. */
  get busy(): boolean {
    return this.sending || this.current?.session.busy === true;
  }

  /** The running session, or the one `start` makes: started once, however many ask while it starts. */
  ensureStarted(start: () => Promise<StartedSession>): Promise<StartedSession> {
    if (this.current) return Promise.resolve(this.current);
    this.starting ??= start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Resolves once a start under way has ended (its failure is reported to whoever asked for it). */
  async startSettled(): Promise<void> {
    await this.starting?.catch(() => undefined);
  }

  /**
   * A scope for the session about to start. The shown session keeps its own until the new one is
   * adopted: then the previous one's late events (a cancelled turn's last words) are dropped, and a
   * restart that fails (a mistyped /model) leaves the chat on its session, its events still shown.
   */
  beginScope(onEvent: (event: CoreAgentEvent) => void): SessionScope {
    this.pendingScope?.end();
    this.pendingScope = new SessionScope(onEvent);
    return this.pendingScope;
  }

  /**
   * The session just started becomes the chat's; the one it replaces is closed (its MCP servers
   * stopped, its lock released unless the new one, a restart on the same transcript, holds it too).
   */
  adopt(started: StartedSession): void {
    if (this.pendingScope) {
      this.scope?.end();
      this.scope = this.pendingScope;
      this.pendingScope = undefined;
    }
    const previous = this.current;
    this.current = started;
    this.sessionChanged(true);
    if (previous && previous !== started) void previous.close();
  }

  /** Remembers the running turn, so a switch can wait for its last events. */
  track<T>(turn: Promise<T>): Promise<T> {
    return this.scope ? this.scope.track(turn) : turn;
  }

  /** Stops the running turn (if any) and waits for it, so its last events land before a switch. */
  async stopTurn(): Promise<void> {
    if (this.current?.session.cancel()) await this.scope?.settled();
  }

  /** The chat leaves the panel: its events are no longer shown and its session is closed (the transcript stays for a resume). */
  close(): void {
    this.release();
    this.sessionChanged(false);
  }

  /** The window is closing: the running turn is cancelled, then the session closed. */
  dispose(): void {
    this.current?.session.cancel();
    this.release();
  }

  private release(): void {
    this.scope?.end();
    this.pendingScope?.end();
    this.scope = undefined;
    this.pendingScope = undefined;
    const closing = this.current;
    this.current = undefined;
    void closing?.close();
  }
}

/**
 * What the extension decides about its open chats (issue 31), apart from VS Code so the fast tier
 * tests it: each chat's activity as its events move it (working, waiting for an approval, done,
 * failed, stopped), the queue that keeps at most `evergreen.chats.maxRunning` turns running at
 * once, when a chat out of sight asks for the user's attention, and the words of the Chats list
 * and the status bar. Titles come from the model's text (a session's title is its first message),
 * so they go through escapeLine like every other untrusted line shown.
 */
import * as l10n from '@vscode/l10n';
import type { AgentEvent as CoreAgentEvent, TurnStopReason } from '../core/agent/events';
import type { Worded } from '../core/texts/userText';

/** An event as the front ends show it (src/frontends/words/wordEvent.ts). */
type AgentEvent = Worded<CoreAgentEvent>;
import { formatCost } from '../core/model/cost';
import { escapeLine } from '../core/visibleText';
import { SESSION_ID_PATTERN } from '../core/storage/sessionStore';

/** `evergreen.chats.maxRunning`'s default and range: turns of different chats running at once. */
export const DEFAULT_MAX_RUNNING_CHATS = 3;
export const MAX_RUNNING_CHATS_RANGE = { min: 1, max: 20 } as const;

/** Where a chat is: nothing sent yet (idle), its turn waiting for a run slot (queued), running, waiting for the user, or how its last turn ended. */
export type ChatActivity = 'idle' | 'queued' | 'working' | 'waiting' | 'done' | 'failed' | 'stopped';

/** A chat's activity as the board keeps it: the activity and the approvals still open (several may wait at once). */
export interface ChatProgress {
  readonly activity: ChatActivity;
  readonly openApprovals: readonly string[];
}

export const IDLE_PROGRESS: ChatProgress = { activity: 'idle', openApprovals: [] };

/** How a turn's end reads in the list: a refusal or a full window is a turn that did not do its job. */
function finishedActivity(stopReason: TurnStopReason): ChatActivity {
  if (stopReason === 'cancelled') return 'stopped';
  if (stopReason === 'end_turn' || stopReason === 'stop_sequence') return 'done';
  return 'failed';
}

/** The chat's progress after one of its events; any other event leaves it as it was. */
export function progressAfter(progress: ChatProgress, event: AgentEvent): ChatProgress {
  switch (event.type) {
    case 'turn_started':
      return { activity: 'working', openApprovals: [] };
    case 'approval_needed':
      return { activity: 'waiting', openApprovals: [...progress.openApprovals.filter((id) => id !== event.toolUseId), event.toolUseId] };
    case 'approval_resolved': {
      const openApprovals = progress.openApprovals.filter((id) => id !== event.toolUseId);
      // A late answer after the turn ended leaves the turn's end as it was.
      const running = progress.activity === 'waiting' || progress.activity === 'working';
      return { activity: !running ? progress.activity : openApprovals.length > 0 ? 'waiting' : 'working', openApprovals };
    }
    case 'turn_finished':
      return { activity: finishedActivity(event.stopReason), openApprovals: [] };
    default:
      return progress;
  }
}

/** What a chat out of sight tells the user: it waits for an approval, or its turn ended. */
export type Attention = 'approval' | 'finished';

/**
 * Whether a change of a chat's activity calls the user: only for a chat not shown (the shown one
 * speaks in the panel), only when it starts waiting (not for a second approval while the first
 * still waits) or its turn ends.
 */
export function attentionFor(before: ChatActivity, after: ChatActivity, shown: boolean): Attention | undefined {
  if (shown || before === after) return undefined;
  if (after === 'waiting') return 'approval';
  if ((after === 'done' || after === 'failed' || after === 'stopped') && (before === 'working' || before === 'waiting')) return 'finished';
  return undefined;
}

/** The notification for a chat that needs the user. */
export function attentionText(attention: Attention, title: string, activity: ChatActivity): string {
  const name = `"${escapeLine(title)}"`;
  if (attention === 'approval') return l10n.t('Evergreen: the chat {0} is waiting for your approval.', name);
  if (activity === 'failed') return l10n.t('Evergreen: the chat {0} stopped with an error.', name);
  if (activity === 'stopped') return l10n.t('Evergreen: the chat {0} was stopped.', name);
  return l10n.t('Evergreen: the chat {0} finished.', name);
}

/** The status bar's count of chats that need nothing from the user yet (working, queued) and that wait for them; '' when none. */
export function activityCounts(activities: readonly ChatActivity[]): string {
  const working = activities.filter((activity) => activity === 'working' || activity === 'queued').length;
  const waiting = activities.filter((activity) => activity === 'waiting').length;
  const parts = [...(working > 0 ? [l10n.t('{0} working', working)] : []), ...(waiting > 0 ? [l10n.t('{0} waiting', waiting)] : [])];
  return parts.join(', ');
}

// A function, so each word is looked up in the bundle the extension configured at activation.
const activityWords = (): Record<ChatActivity, string> => ({
  idle: l10n.t('new'),
  queued: l10n.t('queued'),
  working: l10n.t('working'),
  waiting: l10n.t('waiting for approval'),
  done: l10n.t('done'),
  failed: l10n.t('failed'),
  stopped: l10n.t('stopped'),
});

/** What the Chats list shows of one chat. */
export interface ChatListFacts {
  title: string;
  activity: ChatActivity;
  /** The context gauge's percent of the window, once known. */
  contextPercent?: number;
  costUsd?: number;
  shown: boolean;
}

export interface ChatListRow {
  label: string;
  description: string;
  tooltip: string;
}

/** The tooltip's line of the chat's context and cost, each when known. */
function contextLine(facts: ChatListFacts): string[] {
  const percent = facts.contextPercent === undefined ? undefined : `${facts.contextPercent}%`;
  const cost = facts.costUsd === undefined ? undefined : formatCost(facts.costUsd);
  if (percent !== undefined && cost !== undefined) return [l10n.t('Context {0}, cost {1}', percent, cost)];
  if (percent !== undefined) return [l10n.t('Context {0}', percent)];
  return cost === undefined ? [] : [l10n.t('Context {0}', cost)];
}

export function chatListRow(facts: ChatListFacts): ChatListRow {
  const state = activityWords()[facts.activity];
  const figures = [...(facts.contextPercent !== undefined ? [`${facts.contextPercent}%`] : []), ...(facts.costUsd !== undefined ? [formatCost(facts.costUsd)] : [])];
  const title = escapeLine(facts.title);
  return {
    label: title,
    description: [state, ...figures, ...(facts.shown ? [l10n.t('shown')] : [])].join(' · '),
    tooltip: [`${title} (${state})`, ...contextLine(facts), facts.shown ? l10n.t('Shown in the chat panel.') : l10n.t('Click to show it in the chat panel.')].join('\n'),
  };
}

/** A chat's hold on a run slot (a RunQueue bound to the chat). */
export interface ChatRunSlot {
  /** Resolves once the chat may run a turn; rejects when it left the queue first (Cancel, the chat closed). */
  acquire(): Promise<void>;
  release(): void;
  /** Takes the chat's waiting turn out of the queue; false when it was not queued. */
  leave(): boolean;
}

/**
 * At most `max` chats run a turn at once; the others wait their turn in order. A chat holds its
 * slot from the start of its turn to its end; a queued one can leave the queue (its send cancelled
 * or its chat closed). Changing `max` lets waiting chats in at once when it grew.
 */
export class RunQueue {
  private readonly running = new Set<string>();
  private readonly waiting: Array<{ chatId: string; admit: () => void; refuse: (error: Error) => void }> = [];

  constructor(
    private max: number,
    /** Told whenever a chat enters or leaves the queue or a slot (the list shows "queued"). */
    private readonly changed: () => void = () => undefined,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`maxRunning must be a whole number of at least 1, not ${max}`);
  }

  /** Resolves when the chat may run its turn (at once when a slot is free); rejects if it leaves the queue first. */
  acquire(chatId: string): Promise<void> {
    if (this.running.has(chatId)) return Promise.reject(new Error(`chat ${chatId} already holds a run slot`));
    if (this.running.size < this.max && this.waiting.length === 0) {
      this.running.add(chatId);
      this.changed();
      return Promise.resolve();
    }
    return new Promise<void>((admit, refuse) => {
      this.waiting.push({ chatId, admit, refuse });
      this.changed();
    });
  }

  /** The chat's turn ended: its slot goes to the first in the queue. Releasing a chat that holds none changes nothing. */
  release(chatId: string): void {
    if (!this.running.delete(chatId)) return;
    this.admitWaiting();
    this.changed();
  }

  /** Takes a queued chat out of the queue (its acquire rejects with `reason`); false when it was not queued. */
  leave(chatId: string, reason: string): boolean {
    const index = this.waiting.findIndex((entry) => entry.chatId === chatId);
    if (index < 0) return false;
    const [entry] = this.waiting.splice(index, 1);
    entry?.refuse(new Error(reason));
    this.changed();
    return true;
  }

  setMax(max: number): void {
    if (!Number.isInteger(max) || max < 1) throw new Error(`maxRunning must be a whole number of at least 1, not ${max}`);
    this.max = max;
    if (this.admitWaiting()) this.changed();
  }

  isQueued(chatId: string): boolean {
    return this.waiting.some((entry) => entry.chatId === chatId);
  }

  isRunning(chatId: string): boolean {
    return this.running.has(chatId);
  }

  private admitWaiting(): boolean {
    let admitted = false;
    while (this.running.size < this.max && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      this.running.add(next.chatId);
      next.admit();
      admitted = true;
    }
    return admitted;
  }
}

/** Where the open chats are kept for the next start of this workspace (its workspaceState). */
export const OPEN_CHATS_KEY = 'openChats';

/** An open chat as the next start finds it: its session, and what it was doing when last remembered. */
export interface RememberedChat {
  sessionId: string;
  activity: ChatActivity;
}

/** What is kept of the open chats: each one with a session, in the list's order, and the one shown. */
export interface RememberedChats {
  chats: RememberedChat[];
  shown?: string;
}

/** A chat's activity that a closing window interrupts: its turn was running, queued or waiting for the user. */
export function isInterrupted(activity: ChatActivity): boolean {
  return activity === 'working' || activity === 'queued' || activity === 'waiting';
}

/** What the list shows a reopened chat as, before it is shown: how its last turn ended, or stopped when the window ended it. */
export function reopenedActivity(activity: ChatActivity): ChatActivity {
  if (isInterrupted(activity)) return 'stopped';
  return activity === 'idle' ? 'done' : activity;
}

const ACTIVITIES: readonly ChatActivity[] = ['idle', 'queued', 'working', 'waiting', 'done', 'failed', 'stopped'];

/**
 * The remembered chats read back from workspaceState, which another version or a damaged profile
 * may have written: what does not read as a chat (a session id the store would refuse, a repeat) is
 * left out and counted in `dropped` for the log; an unknown activity reads as done.
 */
export function readRememberedChats(value: unknown): RememberedChats & { dropped: number } {
  const record = typeof value === 'object' && value !== null ? (value as { chats?: unknown; shown?: unknown }) : {};
  const listed = Array.isArray(record.chats) ? (record.chats as unknown[]) : [];
  const chats: RememberedChat[] = [];
  for (const item of listed) {
    const chat = typeof item === 'object' && item !== null ? (item as { sessionId?: unknown; activity?: unknown }) : {};
    if (typeof chat.sessionId !== 'string' || !SESSION_ID_PATTERN.test(chat.sessionId) || chats.some((kept) => kept.sessionId === chat.sessionId)) continue;
    const activity = ACTIVITIES.find((known) => known === chat.activity) ?? 'done';
    chats.push({ sessionId: chat.sessionId, activity });
  }
  const shown = typeof record.shown === 'string' && chats.some((chat) => chat.sessionId === record.shown) ? record.shown : undefined;
  return { chats, ...(shown ? { shown } : {}), dropped: (value === undefined ? 0 : listed.length - chats.length) + (Array.isArray(record.chats) || value === undefined ? 0 : 1) };
}

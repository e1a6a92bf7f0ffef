/**
 * Extended thinking in the turn loop (issue 21): which requests ask for it, and the history a
 * resumed session can send. The setting is resolved once per session (model/thinking.ts); here,
 * per request, a tool loop whose newest reply cannot open with a thinking block that goes back
 * (unsigned, cut, or another model's) runs without thinking for the rest of that turn, since
 * Anthropic's budget form refuses such a request. Thinking text itself is never edited.
 */
import type { ProviderId } from '../model/backend';
import { userTextForLog } from '../texts/userText';
import { userText } from '../texts/userText';
import { blocksOf } from '../model/content';
import type { MessageParam } from '../model/messages';
import type { ThinkingForm } from '../model/models';
import type { ThinkingNotice, ThinkingRequest } from '../model/thinking';
import type { Logger } from '../logger';
import { isSignedThinking } from '../context/liveView';
import type { AgentEvent } from './events';

/** What a session asks of every request: the budget and how its model takes it. */
export interface SessionThinking {
  request: ThinkingRequest;
  form: ThinkingForm;
}

export type ThinkingNoticeEvent = Extract<AgentEvent, { type: 'thinking_notice' }>;

/** Thinking is off for the rest of a turn whose tool loop cannot send a thinking block back. */
export const THINKING_OFF_FOR_TURN = userText('start.thinkingOffForTurn', {});

/** Per-request thinking for one session. */
export class TurnThinking {
  /** The turn thinking was turned off for (it stays off until the next turn). */
  private offFor: string | undefined;

  constructor(
    private readonly thinking: SessionThinking | undefined,
    private readonly emit: (event: ThinkingNoticeEvent) => void,
    private readonly logger: Logger,
  ) {}

  /** `{ thinking }` to spread into the request, or nothing. */
  forRequest(turnId: string, messages: readonly MessageParam[]): { thinking?: ThinkingRequest } {
    if (!this.thinking || this.offFor === turnId) return {};
    if (this.thinking.form === 'budget' && !opensWithThinking(messages)) {
      this.offFor = turnId;
      this.notice(turnId, { level: 'warning', message: THINKING_OFF_FOR_TURN });
      return {};
    }
    return { thinking: this.thinking.request };
  }

  /** A back end's word that it changed what it sends (a refused reasoning_effort), said once as a notice. */
  notice(turnId: string | undefined, notice: ThinkingNotice): void {
    if (notice.level === 'warning') this.logger.warn(userTextForLog(notice.message));
    else this.logger.info(userTextForLog(notice.message));
    this.emit({ type: 'thinking_notice', ...(turnId ? { turnId } : {}), ...notice });
  }
}

/**
 * With thinking on, Anthropic wants the reply that made the newest tool calls to open with a
 * (signed) thinking block when the request ends with their results. True when that holds or the
 * request does not end with tool results.
 */
export function opensWithThinking(messages: readonly MessageParam[]): boolean {
  const last = messages.at(-1);
  if (!last || last.role !== 'user' || !blocksOf(last).some((block) => block.type === 'tool_result')) return true;
  const reply = messages.at(-2);
  if (!reply || reply.role !== 'assistant') return true;
  const first = blocksOf(reply)[0];
  return first !== undefined && isSignedThinking(first);
}

/** Where a stored reply came from (the transcript's message entry). */
export interface MessageOrigin {
  provider?: string | undefined;
  model?: string | undefined;
}

/**
 * A resumed history for a back end that cannot take thinking another model wrote: thinking is
 * left out of every reply that another provider or model wrote (the conversation itself is kept,
 * and the transcript keeps the blocks). Returns the history to send from and the models whose
 * thinking was left out, for the one note that says so.
 */
export function withoutForeignThinking(canonical: readonly MessageParam[], origins: readonly (MessageOrigin | undefined)[], current: { provider: ProviderId; model: string }): { messages: MessageParam[]; foreign: string[] } {
  const foreign = new Set<string>();
  const messages = canonical.map((message, index) => {
    const origin = origins[index];
    if (message.role !== 'assistant' || typeof message.content === 'string' || !origin?.model) return message;
    if (origin.provider === current.provider && origin.model === current.model) return message;
    const kept = message.content.filter((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking');
    if (kept.length === message.content.length) return message;
    foreign.add(`${origin.provider ?? 'unknown'}/${origin.model}`);
    // A reply of thinking alone keeps a placeholder: the API refuses an empty assistant message.
    return { role: 'assistant' as const, content: kept.length > 0 ? kept : [{ type: 'text' as const, text: '[Thinking by another model, not sent to this one.]' }] };
  });
  return { messages, foreign: [...foreign] };
}

/** The note for a resume whose stored thinking cannot go to this model. */
export function foreignThinkingNotice(foreign: readonly string[], current: { provider: ProviderId; model: string }): ThinkingNotice {
  return {
    level: 'info',
    message: userText('start.thinkingForeign', { models: foreign, current: `${current.provider}/${current.model}` }),
  };
}

/**
 * The core's events as a front end shows them: every UserText in words. The extension words each
 * event once before the panel, its replay buffer and its listeners see it; the CLI before it prints
 * or writes stream-json, so a program reading the stream gets sentences, as before.
 * Each event that carries a UserText has a case here: the return type (`Worded<AgentEvent>`) does
 * not accept one that still holds a kind.
 */
import type { AgentEvent } from '../../core/agent/events';
import type { Worded } from '../../core/texts/userText';
import { word } from './index';
import { wordGauge } from './wordGauge';

export type WordedEvent = Worded<AgentEvent>;

export function wordEvent(event: AgentEvent): WordedEvent {
  switch (event.type) {
    case 'storage_warning':
    case 'sandbox_notice':
    case 'web_notice':
    case 'mcp_notice':
    case 'customization_notice':
    case 'instructions_notice':
    case 'thinking_notice':
    case 'mode_notice':
    case 'hook_notice':
    case 'context_window_learned':
      return { ...event, message: word(event.message) };
    case 'retrying':
      return { ...event, reason: word(event.reason) };
    case 'error': {
      const { hint, ...rest } = event;
      return { ...rest, message: word(event.message), ...(hint ? { hint: word(hint) } : {}) };
    }
    case 'tier':
      return { ...event, detail: word(event.detail) };
    case 'context':
      return { ...event, gauge: wordGauge(event.gauge) };
    case 'compaction_failed':
      return { ...event, message: word(event.message), hint: word(event.hint) };
    default:
      return event;
  }
}

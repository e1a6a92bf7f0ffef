/**
 * The core's events as a front end shows them: every UserText in words. The extension words each
 * event once before the panel, its replay buffer and its listeners see it; the CLI before it prints
 * or writes stream-json, so a program reading the stream gets sentences, as before.
 * Each event that carries a UserText has a case here: the return type (`Worded<AgentEvent>`) does
 * not accept one that still holds a kind.
 */
import type { AgentEvent, ApprovalSummary } from '../../core/agent/events';
import type { Worded } from '../../core/texts/userText';
import { headlineLine } from '../../core/tools/headline';
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
    case 'mode_changed': {
      const { description, ...rest } = event;
      return { ...rest, ...(description ? { description: word(description) } : {}) };
    }
    case 'context':
      return { ...event, gauge: wordGauge(event.gauge) };
    case 'compaction_failed':
      return { ...event, message: word(event.message), hint: word(event.hint) };
    case 'tool_call_started': {
      const { headline, ...rest } = event;
      return { ...rest, ...(headline ? { headline: headlineLine(word(headline)) } : {}) };
    }
    case 'approval_needed':
      return { ...event, request: wordApproval(event.request) };
    default:
      return event;
  }
}

/** An approval card's request as the front end shows it (the CLI's terminal approver words its ApprovalRequest the same way). */
export function wordApproval(request: ApprovalSummary): Worded<ApprovalSummary> {
  switch (request.kind) {
    case 'write': {
      const { protectedReason, ...rest } = request;
      return { ...rest, ...(protectedReason ? { protectedReason: word(protectedReason) } : {}) };
    }
    case 'mcp': {
      const { serverHints, ...rest } = request;
      return { ...rest, ...(serverHints ? { serverHints: serverHints.map(word) } : {}) };
    }
    case 'sandbox_changes':
      return { ...request, changes: request.changes.map((change) => ({ ...change, reason: word(change.reason) })) };
    default:
      return request;
  }
}

/**
 * Subagent events as the parent's transcript keeps them: `subagent_started` and
 * `subagent_finished` are recorded as `event` entries (the live-only progress is not), and the
 * fold turns them back into display events so a resumed chat shows its subagents as they were.
 * A leaf module (types only): the fold imports it without pulling in the agent loop.
 */
import { isUsageCounts } from '../model/usage';
import { SUBAGENT_TYPES, type SubagentType } from '../tools/taskInput';
import type { AgentEvent, SubagentStatus } from './events';

export type SubagentRecordedEvent = Extract<AgentEvent, { type: 'subagent_started' | 'subagent_finished' }>;

export const SUBAGENT_EVENT_NAMES: ReadonlySet<string> = new Set<SubagentRecordedEvent['type']>(['subagent_started', 'subagent_finished']);

const STATUSES: readonly SubagentStatus[] = ['done', 'error', 'cancelled', 'limit'];

/** The transcript entry's data: the event without its type (the entry's name) and turn (a replay numbers its own turns). */
export function subagentRecordData(event: SubagentRecordedEvent): Record<string, unknown> {
  const { type: _type, turnId: _turnId, ...data } = event;
  return data;
}

/** The display event for a recorded entry; undefined for a malformed one (skipped on replay, never fatal). */
export function subagentEventFromRecord(name: string, data: Record<string, unknown>, turnId: string): SubagentRecordedEvent | undefined {
  const { toolUseId, childId } = data;
  if (typeof toolUseId !== 'string' || typeof childId !== 'string') return undefined;
  if (name === 'subagent_started') {
    const { description, agentType, transcriptPath } = data;
    if (typeof description !== 'string' || typeof transcriptPath !== 'string') return undefined;
    if (typeof agentType !== 'string' || !(SUBAGENT_TYPES as readonly string[]).includes(agentType)) return undefined;
    return { type: 'subagent_started', turnId, toolUseId, childId, description, agentType: agentType as SubagentType, transcriptPath };
  }
  if (name === 'subagent_finished') {
    const { status, report, usage, costUsd, unpricedRequests, toolCalls, elapsedMs } = data;
    if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) return undefined;
    if (typeof report !== 'string' || !isUsageCounts(usage) || typeof costUsd !== 'number') return undefined;
    return {
      type: 'subagent_finished',
      turnId,
      toolUseId,
      childId,
      status: status as SubagentStatus,
      report,
      usage,
      costUsd,
      ...(typeof unpricedRequests === 'number' && unpricedRequests > 0 ? { unpricedRequests } : {}),
      toolCalls: typeof toolCalls === 'number' ? toolCalls : 0,
      elapsedMs: typeof elapsedMs === 'number' ? elapsedMs : 0,
    };
  }
  return undefined;
}

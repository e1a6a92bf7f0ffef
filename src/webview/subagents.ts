/**
 * A subagent in the chat: the parent's `task` tool card holds one card for its child (keyed by the
 * parent's tool-use id) with the child's live status, its approvals (each answered by the child's
 * own tool-use id) and, at the end, its report. Pure, like chatModel.ts, so it is tested in node.
 */
import { formatCost, type AgentEvent } from '../protocol';
import { t } from './strings';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_needed' }>['request'];
export type SubagentEvent = Extract<AgentEvent, { type: 'subagent_started' | 'subagent_progress' | 'subagent_finished' }>;
export type ChildApprovalEvent = Extract<AgentEvent, { type: 'approval_needed' | 'approval_resolved' }>;
export type SubagentOutcome = Extract<AgentEvent, { type: 'subagent_finished' }>['status'];

export interface ChildApproval {
  /** The child's tool call: the key the host's approval broker answers. */
  toolUseId: string;
  request: ApprovalRequest;
  decided: boolean | undefined;
  /** A web fetch's host allowed for this workspace, not just once. */
  always?: true;
}

export interface SubagentCard {
  childId: string;
  description: string;
  agentType: string;
  /** Undefined while the child runs. */
  outcome: SubagentOutcome | undefined;
  toolCalls: number;
  /** What the child's context holds (live only: a replayed card has none). */
  tokens: number | undefined;
  elapsedMs: number | undefined;
  lastTool: string | undefined;
  report: string | undefined;
  costUsd: number | undefined;
  /** The child's requests with no known price (0: none): its cost then reads "price unknown". */
  unpricedRequests: number;
  /** Open prompts first come first; a few answered ones stay so the user sees what was decided. */
  approvals: ChildApproval[];
}

/** Answered approvals a card keeps (a general child may ask dozens of times; the transcript has them all). */
export const MAX_ANSWERED_APPROVALS = 3;

function newCard(childId: string, description = '', agentType = ''): SubagentCard {
  return { childId, description, agentType, outcome: undefined, toolCalls: 0, tokens: undefined, elapsedMs: undefined, lastTool: undefined, report: undefined, costUsd: undefined, unpricedRequests: 0, approvals: [] };
}

/** The card after a subagent event for its parent call; undefined when the event changes nothing. */
export function applySubagentEvent(card: SubagentCard | undefined, event: SubagentEvent): SubagentCard | undefined {
  switch (event.type) {
    case 'subagent_started': {
      const next = card?.childId === event.childId ? card : newCard(event.childId);
      next.description = event.description;
      next.agentType = event.agentType;
      return next;
    }
    case 'subagent_progress': {
      // Progress is live only and may trail the finish: a finished card keeps its final figures.
      if (card?.outcome !== undefined) return undefined;
      const next = card ?? newCard(event.childId);
      next.toolCalls = event.toolCalls;
      next.tokens = event.tokens;
      next.elapsedMs = event.elapsedMs;
      next.lastTool = event.lastTool ?? next.lastTool;
      return next;
    }
    case 'subagent_finished': {
      const next = card ?? newCard(event.childId);
      next.outcome = event.status;
      next.report = event.report;
      next.toolCalls = event.toolCalls;
      next.elapsedMs = event.elapsedMs;
      next.costUsd = event.costUsd;
      next.unpricedRequests = event.unpricedRequests ?? 0;
      // A prompt still open when the child ended can no longer be answered.
      next.approvals = next.approvals.filter((approval) => approval.decided !== undefined);
      return next;
    }
  }
}

/**
 * The parent's call ended without the child's finish event (a session that stopped mid-child and
 * was resumed: the call is answered with an interruption naming the child transcript). The card
 * ends with what the parent got instead of showing "running" for ever; undefined when it had ended.
 */
export function endWithParentResult(card: SubagentCard, content: string, isError: boolean): SubagentCard | undefined {
  if (card.outcome !== undefined) return undefined;
  card.outcome = isError ? 'error' : 'done';
  card.report = content;
  card.approvals = card.approvals.filter((approval) => approval.decided !== undefined);
  return card;
}

/** The card after one of its child's approval events; undefined when the event changes nothing. */
export function applyChildApproval(card: SubagentCard | undefined, event: ChildApprovalEvent): SubagentCard | undefined {
  if (event.type === 'approval_needed') {
    // An approval before the start event (it never should be) still gets a card to be answered in.
    const next = card ?? newCard(event.childId ?? '');
    if (next.outcome !== undefined) return undefined;
    next.approvals = [...next.approvals.filter((approval) => approval.toolUseId !== event.toolUseId), { toolUseId: event.toolUseId, request: event.request, decided: undefined }];
    return next;
  }
  const approval = card?.approvals.find((candidate) => candidate.toolUseId === event.toolUseId);
  if (!card || !approval) return undefined;
  approval.decided = event.approved;
  if (event.always) approval.always = true;
  const answered = card.approvals.filter((candidate) => candidate.decided !== undefined);
  const dropped = new Set(answered.slice(0, Math.max(0, answered.length - MAX_ANSWERED_APPROVALS)));
  card.approvals = card.approvals.filter((candidate) => !dropped.has(candidate));
  return card;
}

export function pendingApprovals(card: SubagentCard): ChildApproval[] {
  return card.approvals.filter((approval) => approval.decided === undefined);
}

export function outcomeText(outcome: SubagentOutcome): string {
  return t(`subagent.${outcome}`);
}

/** The card's state in words (never by colour alone). */
export function subagentStatusText(card: SubagentCard): string {
  if (card.outcome !== undefined) return outcomeText(card.outcome);
  return pendingApprovals(card).length > 0 ? t('subagent.needsApproval') : t('subagent.running');
}

export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** "3 tool calls · 12,345 tokens in context · 4.2 s · last: read_file" (live), or the final figures and cost. */
export function subagentFigures(card: SubagentCard): string {
  const parts = [card.toolCalls === 1 ? t('subagent.oneToolCall') : t('subagent.toolCalls', card.toolCalls.toLocaleString('en-US'))];
  if (card.outcome === undefined && card.tokens !== undefined) parts.push(t('subagent.tokensInContext', card.tokens.toLocaleString('en-US')));
  if (card.elapsedMs !== undefined) parts.push(formatElapsed(card.elapsedMs));
  if (card.outcome === undefined && card.lastTool) parts.push(t('subagent.lastTool', card.lastTool));
  if (card.outcome !== undefined && card.costUsd !== undefined) parts.push(formatCost(card.costUsd, card.unpricedRequests, 4, t('insights.priceUnknown')));
  return parts.join(' · ');
}

/**
 * The DOM of a subagent card (the parent's `task` tool card once its child started): what the
 * child does, its live figures, its approvals, its report and a link to its transcript. Browser
 * code; main.ts passes in the few helpers it shares so this module has no side effects.
 */
import type { ChatItem } from './chatModel';
import { renderMarkdown } from './markdown';
import { pendingApprovals, subagentFigures, subagentStatusText, type ChildApproval, type SubagentCard } from './subagents';
import { t } from './strings';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

export interface SubagentViewDeps {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K];
  /** The approval box of approvalView.ts, answered by the child's own tool-use id. */
  renderApproval(toolUseId: string, approval: Omit<ChildApproval, 'toolUseId'>): HTMLElement;
  openTranscript(childId: string): void;
}

/**
 * What a re-render would change besides the live figures: when it is the same, a progress event
 * only rewrites the figures in place, so a focused button (Open transcript, Apply) keeps focus.
 */
function shape(card: SubagentCard): string {
  return JSON.stringify([card.outcome, card.description, card.agentType, card.report !== undefined, card.approvals.map((approval) => [approval.toolUseId, approval.decided])]);
}

function label(card: SubagentCard): string {
  const description = card.description || t('subagent.task');
  return card.agentType ? t('subagent.labelTyped', card.agentType, description, subagentStatusText(card)) : t('subagent.label', description, subagentStatusText(card));
}

export function renderSubagentCard(item: ToolItem, card: SubagentCard, deps: SubagentViewDeps): HTMLElement {
  const { el } = deps;
  const status = subagentStatusText(card);
  const element = el('div', `eg-tool eg-subagent eg-subagent-${card.outcome ?? (pendingApprovals(card).length > 0 ? 'awaiting-approval' : 'running')}`);
  element.setAttribute('role', 'group');
  element.setAttribute('aria-label', label(card));
  element.dataset.shape = shape(card);
  element.dataset.childId = card.childId;

  const head = el('div', 'eg-subagent-head');
  head.append(el('span', 'eg-tool-name', item.name));
  if (card.agentType) head.append(el('span', 'eg-subagent-type', card.agentType));
  head.append(el('span', 'eg-subagent-description', card.description), el('span', 'eg-subagent-status', status));
  element.append(head);

  const figures = el('div', 'eg-subagent-figures', subagentFigures(card));
  element.append(figures);

  for (const approval of card.approvals) element.append(deps.renderApproval(approval.toolUseId, approval));

  if (card.report !== undefined) {
    const report = el('details', 'eg-subagent-report');
    report.open = true;
    const body = el('div', 'eg-markdown');
    body.innerHTML = renderMarkdown(card.report || t('subagent.noReport')); // Sanitized by renderMarkdown.
    report.append(el('summary', undefined, t('subagent.report')), body);
    element.append(report);
  }

  if (card.childId) {
    const actions = el('div', 'eg-subagent-actions');
    const open = el('button', 'eg-link', t('subagent.openTranscript'));
    open.type = 'button';
    open.title = t('subagent.openTranscriptTitle');
    open.setAttribute('aria-label', t('subagent.openTranscriptAria', card.description || card.childId));
    open.addEventListener('click', () => deps.openTranscript(card.childId));
    actions.append(open);
    element.append(actions);
  }
  return element;
}

/** Updates a rendered card in place when only its live figures changed; false when it needs a fresh element. */
export function patchSubagentCard(element: HTMLElement, item: ChatItem): boolean {
  if (item.kind !== 'tool' || !item.subagent || !element.classList.contains('eg-subagent') || element.dataset.shape !== shape(item.subagent)) return false;
  const figures = element.querySelector(':scope > .eg-subagent-figures');
  if (!figures) return false;
  const text = subagentFigures(item.subagent);
  if (figures.textContent !== text) figures.textContent = text;
  return true;
}

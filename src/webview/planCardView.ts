/**
 * The plan card (issue 28): the plan the model proposed with exit_plan_mode, rendered as sanitized
 * Markdown, with its steps counted, a note box, and **Build it** (the agent mode goes on with the
 * steps as the task list) and **Keep planning** (the note goes back to the model). Once decided, or
 * once the conversation went on without a decision, the card says so and offers no buttons. Browser
 * code; main.ts passes in the helpers it shares.
 */
import type { PlanDecisionKind, WebviewRequester, WebviewStringKey } from '../protocol';
import type { ChatItem } from './chatModel';
import { renderMarkdown } from './markdown';
import { t } from './strings';

type PlanItem = Extract<ChatItem, { kind: 'plan' }>;

export interface PlanCardDeps {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K];
  /** Sends the decision; resolves once the host took it (a failure is shown by the caller), so the buttons come back. */
  decide(toolUseId: string, decision: PlanDecisionKind, note: string): Promise<boolean>;
}

/** The card's helpers: a decision sends its request, marking the chat busy until the host took it (a refusal gives the composer back). */
export function planCardDeps(el: PlanCardDeps['el'], send: WebviewRequester, setBusy: (busy: boolean) => void): PlanCardDeps {
  return {
    el,
    async decide(toolUseId, decision, note) {
      setBusy(true);
      const reply = await send('planDecision', { toolUseId, decision, ...(note.trim() ? { note } : {}) });
      if (!reply.ok) setBusy(false);
      return reply.ok;
    },
  };
}

const STATE_TEXT: Readonly<Record<Exclude<PlanItem['state'], 'pending'>, WebviewStringKey>> = {
  build: 'plan.stateBuild',
  keep_planning: 'plan.stateKeepPlanning',
  closed: 'plan.stateClosed',
};

export function renderPlanCard(item: PlanItem, deps: PlanCardDeps): HTMLElement {
  const { el } = deps;
  const card = el('section', `eg-plan eg-plan-${item.state}`);
  card.setAttribute('aria-label', t('plan.label'));
  const steps = item.steps.length;
  card.append(el('div', 'eg-plan-title', steps === 0 ? t('plan.titleNoSteps') : steps === 1 ? t('plan.titleOneStep') : t('plan.titleSteps', steps)));
  const body = el('div', 'eg-markdown eg-plan-body');
  body.innerHTML = renderMarkdown(item.plan); // Sanitized by renderMarkdown.
  card.append(body);
  if (item.state !== 'pending') {
    card.append(el('div', 'eg-plan-state', t(STATE_TEXT[item.state])));
    return card;
  }
  const noteId = `eg-plan-note-${item.toolUseId}`;
  const label = el('label', 'eg-muted', t('plan.note'));
  label.htmlFor = noteId;
  const note = el('textarea', 'eg-plan-note');
  note.id = noteId;
  note.rows = 2;
  const build = el('button', 'eg-button eg-plan-build', t('plan.build'));
  build.type = 'button';
  build.title = t('plan.buildTitle');
  const keep = el('button', 'eg-button eg-secondary eg-plan-keep', t('plan.keep'));
  keep.type = 'button';
  keep.title = t('plan.keepTitle');
  const decide = (decision: PlanDecisionKind) => {
    build.disabled = keep.disabled = true;
    void deps.decide(item.toolUseId, decision, note.value).then((ok) => {
      if (!ok) build.disabled = keep.disabled = false;
    });
  };
  build.addEventListener('click', () => decide('build'));
  keep.addEventListener('click', () => decide('keep_planning'));
  const actions = el('div', 'eg-plan-actions');
  actions.append(build, keep);
  card.append(label, note, actions);
  return card;
}

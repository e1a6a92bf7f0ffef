/**
 * A hook run's small line in the chat (issue 29): event, command, time and outcome; opened, where it
 * came from, what it wrote (a preview) and a link to all of it. Browser code; main.ts passes in the
 * helpers it shares, so this module has no side effects.
 */
import { visibleCommandLine, type HookRunView, type WebviewStringKey } from '../protocol';
import type { ChatItem } from './chatModel';
import { t } from './strings';

export interface HookViewDeps {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K];
  /** Opens a saved output read-only (the host checks it is this session's). */
  openSavedOutput(file: string): void;
}

const OUTCOME_TEXT: Readonly<Record<HookRunView['outcome'], WebviewStringKey>> = {
  ok: 'hook.ok',
  blocked: 'hook.blocked',
  denied: 'hook.denied',
  asked: 'hook.asked',
  allowed: 'hook.allowed',
  allow_refused: 'hook.allow_refused',
  stopped: 'hook.stopped',
  error: 'hook.error',
  timeout: 'hook.timeout',
  too_large: 'hook.too_large',
  not_started: 'hook.not_started',
  cancelled: 'hook.cancelled',
};

/** How a run ended, in words (never by colour alone): "denied the call (exit 2)". */
export function hookOutcomeText(run: HookRunView): string {
  const outcome = t(OUTCOME_TEXT[run.outcome]);
  return run.exitCode !== null && run.exitCode !== 0 ? t('hook.exitCode', outcome, run.exitCode) : outcome;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function renderHookLine(item: Extract<ChatItem, { kind: 'hook' }>, deps: HookViewDeps): HTMLElement {
  const { el } = deps;
  const { run } = item;
  const quiet = run.outcome === 'ok' || run.outcome === 'allowed' || run.outcome === 'cancelled';
  const details = el('details', `eg-hook${quiet ? '' : ' eg-hook-attention'}`);
  const summary = el('summary', undefined);
  // The command is the hook's as written (a workspace's file may hold anything): its invisible characters shown.
  summary.append(el('span', 'eg-hook-event', t('hook.event', run.event)), el('span', 'eg-hook-command', visibleCommandLine(run.command)), el('span', 'eg-hook-time', duration(run.durationMs)), el('span', 'eg-hook-outcome', hookOutcomeText(run)));
  details.append(summary);
  details.append(el('div', 'eg-muted', t(run.scope === 'workspace' ? 'hook.fromWorkspace' : 'hook.from', run.source)));
  if (run.sandboxNote) details.append(el('div', 'eg-muted', run.sandboxNote));
  details.append(el('pre', 'eg-hook-output', run.output ?? t('hook.noOutput')));
  const file = run.outputFile;
  if (file) {
    const link = el('button', 'eg-link eg-saved-output', t('hook.fullOutput'));
    link.type = 'button';
    link.title = t('hook.fullOutputTitle', file);
    link.addEventListener('click', () => deps.openSavedOutput(file));
    details.append(link);
  }
  return details;
}

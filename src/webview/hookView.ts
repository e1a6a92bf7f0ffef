/**
 * A hook run's small line in the chat (issue 29): event, command, time and outcome; opened, where it
 * came from, what it wrote (a preview) and a link to all of it. Browser code; main.ts passes in the
 * helpers it shares, so this module has no side effects.
 */
import { visibleCommandLine, type HookRunView } from '../protocol';
import type { ChatItem } from './chatModel';

export interface HookViewDeps {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K];
  /** Opens a saved output read-only (the host checks it is this session's). */
  openSavedOutput(file: string): void;
}

const OUTCOME_TEXT: Readonly<Record<HookRunView['outcome'], string>> = {
  ok: 'ok',
  blocked: 'blocked',
  denied: 'denied the call',
  asked: 'asked you',
  allowed: 'allowed the call',
  allow_refused: 'its allow was refused',
  stopped: 'stopped the agent',
  error: 'failed',
  timeout: 'timed out',
  too_large: 'too much output',
  not_started: 'did not run',
  cancelled: 'cancelled',
};

/** How a run ended, in words (never by colour alone): "denied the call (exit 2)". */
export function hookOutcomeText(run: HookRunView): string {
  return `${OUTCOME_TEXT[run.outcome]}${run.exitCode !== null && run.exitCode !== 0 ? ` (exit ${run.exitCode})` : ''}`;
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
  summary.append(el('span', 'eg-hook-event', `${run.event} hook`), el('span', 'eg-hook-command', visibleCommandLine(run.command)), el('span', 'eg-hook-time', duration(run.durationMs)), el('span', 'eg-hook-outcome', hookOutcomeText(run)));
  details.append(summary);
  details.append(el('div', 'eg-muted', `From ${run.source}${run.scope === 'workspace' ? " (the workspace's, run in the sandbox)" : ''}.`));
  if (run.sandboxNote) details.append(el('div', 'eg-muted', run.sandboxNote));
  details.append(el('pre', 'eg-hook-output', run.output ?? '(no output shown)'));
  const file = run.outputFile;
  if (file) {
    const link = el('button', 'eg-link eg-saved-output', 'full output');
    link.type = 'button';
    link.title = `Open the whole output of this run (read-only): ${file}`;
    link.addEventListener('click', () => deps.openSavedOutput(file));
    details.append(link);
  }
  return details;
}

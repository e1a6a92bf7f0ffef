/**
 * The words of the Background Chats view (issue 31): a worktree chat as a row, what a discard
 * would lose, and what bringing changes home did. No `vscode` here, so they are tested in the fast
 * tier. Every name, path and commit subject shown may come from the chat's model (it named the
 * files and wrote the commits): each goes through escapeLine, which shows control and format
 * characters instead of letting them act.
 */
import * as l10n from '@vscode/l10n';
import type { TurnStopReason } from '../core/agent/events';
import type { ApprovalRequest } from '../core/approvals/approval';
import { errorMessage } from '../core/logger';
import { escapeLine } from '../core/visibleText';
import type { DiscardPlan } from '../core/worktrees/discard';
import { WorktreeError, type CleanUpResult, type WorktreeHealth, type WorktreeRecord } from '../core/worktrees/manager';
import type { BringHomeResult } from '../core/worktrees/review';
import { word } from './words';

/** The `viewItem` of a row, by whether its worktree can be used: the menus offer each action only where it can act. */
export const CHAT_ITEM_CONTEXT = { ready: 'backgroundChat.ready', gone: 'backgroundChat.gone' } as const;

/** How many file names a message lists before it says how many more there are. */
export const MAX_LISTED_FILES = 20;

// A function, so each word is looked up in the bundle the extension configured at activation.
const healthWords = (): Record<WorktreeHealth['kind'], string> => ({
  ready: l10n.t('ready'),
  'folder-missing': l10n.t('folder deleted'),
  'repository-missing': l10n.t('repository gone'),
  broken: l10n.t('broken'),
});

/** What the row knows of the chat's changes: a count, or why it could not be read. */
export type ChangesCount = { kind: 'count'; files: number; commits: number } | { kind: 'unreadable'; reason: string } | { kind: 'not-read' };

export interface ChatRow {
  label: string;
  description: string;
  tooltip: string;
  contextValue: string;
}

/** One worktree chat as the tree view shows it: its name, then branch, state and files changed. */
export function chatRow(record: WorktreeRecord, health: WorktreeHealth, changes: ChangesCount, running = false): ChatRow {
  const state = running ? l10n.t('working') : healthWords()[health.kind];
  const changed =
    changes.kind === 'count' ? (changes.files === 1 ? l10n.t('1 file changed') : l10n.t('{0} files changed', changes.files)) : changes.kind === 'unreadable' ? l10n.t('changes unreadable') : '';
  const base = record.base.slice(0, 12);
  const tooltip = [
    `${escapeLine(record.branch)} (${state})`,
    l10n.t('Folder: {0}', escapeLine(record.folder)),
    record.baseBranch === undefined ? l10n.t('From: {0}', base) : l10n.t('From: {0} at {1}', escapeLine(record.baseBranch), base),
    ...(changes.kind === 'count' ? [l10n.t('{0}, {1} commit(s)', changed, changes.commits)] : []),
    ...(changes.kind === 'unreadable' ? [l10n.t('The changes cannot be read: {0}', escapeLine(changes.reason))] : []),
    ...(health.kind === 'ready' ? [] : [l10n.t('{0} Discard it to clean it up.', escapeLine(word(health.reason)))]),
    ...(record.task === undefined ? [] : [l10n.t('Task: {0}', escapeLine(record.task))]),
  ].join('\n');
  return {
    label: escapeLine(record.name),
    description: [escapeLine(record.branch), state, changed].filter((part) => part !== '').join(' · '),
    tooltip,
    contextValue: health.kind === 'ready' ? CHAT_ITEM_CONTEXT.ready : CHAT_ITEM_CONTEXT.gone,
  };
}

function listed(files: readonly string[]): string[] {
  const shown = files.slice(0, MAX_LISTED_FILES).map((file) => `  ${escapeLine(file)}`);
  return files.length > MAX_LISTED_FILES ? [...shown, `  ${l10n.t('… and {0} more', files.length - MAX_LISTED_FILES)}`] : shown;
}

/** What cleaning up a worktree whose folder was deleted by hand did: its branch stays when it holds commits. */
export function cleanedUpText(result: CleanUpResult): string {
  const branch = result.branchKept
    ? l10n.t("Its branch {0} is kept: it holds {1} commit(s) of the chat's (merge it, or delete it with git branch -D).", escapeLine(result.branch), result.commits)
    : l10n.t('Its branch {0} held no commit of its own and was deleted.', escapeLine(result.branch));
  return l10n.t("Evergreen: the folder of the background chat {0} was deleted, so Evergreen forgot the chat and Git's record of its worktree. {1}", escapeLine(result.name), branch);
}

/** The modal before a discard: a one-line question and the list of everything it would lose. */
export function discardWarning(plan: DiscardPlan): { message: string; detail: string } {
  const { record } = plan;
  const message = l10n.t('Discard the background chat {0}? Its worktree and the branch {1} are removed.', escapeLine(record.name), escapeLine(record.branch));
  if (!plan.folderExists && plan.commitCount === 0) return { message, detail: l10n.t('Its folder {0} was deleted already; nothing else is lost.', escapeLine(record.folder)) };
  const lines: string[] = [];
  if (plan.uncommitted.length > 0) lines.push(l10n.t('{0} uncommitted file(s) are lost:', plan.uncommitted.length), ...listed(plan.uncommitted));
  if (plan.commitCount > 0) {
    lines.push(l10n.t('{0} commit(s) that only this branch holds are lost:', plan.commitCount), ...plan.commits.map((commit) => `  ${commit.sha.slice(0, 12)} ${escapeLine(commit.subject)}`));
    if (plan.commitCount > plan.commits.length) lines.push(`  ${l10n.t('… and {0} more', plan.commitCount - plan.commits.length)}`);
  }
  if (lines.length === 0) lines.push(l10n.t('Nothing is lost that is not also elsewhere (no uncommitted files, no commits of its own).'));
  return { message, detail: lines.join('\n') };
}

/** The modal before bringing home files that configure tools or run commands. */
export function protectedWarning(record: WorktreeRecord, files: readonly { path: string; reason: string }[]): { message: string; detail: string } {
  return {
    message: l10n.t('The chat {0} changed {1} file(s) that run commands or configure your tools. Bring them home too?', escapeLine(record.name), files.length),
    detail: files.map((file) => `${escapeLine(file.path)}: ${escapeLine(file.reason)}`).join('\n'),
  };
}

/** What bringing a chat's changes home did, in the user's words, with a next step where one is needed. */
export function bringHomeText(record: WorktreeRecord, result: BringHomeResult): { level: 'info' | 'error'; message: string } {
  switch (result.kind) {
    case 'applied':
      return { level: 'info', message: l10n.t('Applied {0} file(s) of {1} to your checkout as uncommitted changes. Review them in Source Control.', result.files.length, escapeLine(record.branch)) };
    case 'merged':
      return { level: 'info', message: l10n.t('Merged {0} into your branch as {1}.', escapeLine(record.branch), result.commit.slice(0, 12)) };
    case 'nothing':
      return { level: 'info', message: l10n.t('{0} has nothing to bring home.', escapeLine(record.branch)) };
    case 'conflict': {
      const reason = escapeLine(word(result.reason));
      return { level: 'error', message: result.files.length > 0 ? l10n.t('{0} In the way: {1}.', reason, result.files.slice(0, MAX_LISTED_FILES).map(escapeLine).join(', ')) : reason };
    }
  }
}

/** What the user reads of a failure around a worktree: a WorktreeError in this front end's words, else the error's own message. */
export function worktreeFailure(error: unknown): string {
  return error instanceof WorktreeError ? word(error.said) : errorMessage(error);
}

/** What a background chat tells the model when it asks for something the user would be asked about. */
export const BACKGROUND_REFUSAL = "This chat runs in the background, where nothing that needs the user's approval is allowed. Do what you can without it, and say what you would have needed.";

/** How a background chat's one turn ended, for the notification and the tests. */
export interface BackgroundOutcome {
  name: string;
  stop: TurnStopReason | 'failed';
  /** The last error the chat reported, or why it could not run. */
  error: string | undefined;
  /** What was refused because it needed an approval, in the words of its request. */
  refused: string[];
}

/** A refused request in a few words (its command, path or host are the model's: shown escaped). */
export function describeRequest(request: ApprovalRequest): string {
  switch (request.kind) {
    case 'write':
      return l10n.t('write {0}', escapeLine(request.path));
    case 'shell':
    case 'sandbox_changes':
      return l10n.t('run {0}', escapeLine(request.command));
    case 'web':
      return l10n.t('fetch from {0}', escapeLine(request.host));
    case 'mcp':
    case 'hook':
      return l10n.t('use {0}', escapeLine(request.tool));
  }
}

/** The finishing notification's words: how the turn ended, and what was refused. */
export function outcomeText(outcome: BackgroundOutcome): { message: string; failed: boolean } {
  const failed = outcome.stop === 'failed' || outcome.stop === 'error';
  const ended = failed
    ? l10n.t('Evergreen: the background chat {0} stopped with an error: {1}.', outcome.name, outcome.error ?? l10n.t('the log has the details'))
    : outcome.stop === 'end_turn'
      ? l10n.t('Evergreen: the background chat {0} finished.', outcome.name)
      : l10n.t('Evergreen: the background chat {0} stopped ({1}).', outcome.name, outcome.stop);
  const shown = outcome.refused.slice(0, 3).join('; ') + (outcome.refused.length > 3 ? '; …' : '');
  const refused = outcome.refused.length > 0 ? ` ${l10n.t("It was refused {0} action(s) that need your approval ({1}); do that part in the panel's chat.", outcome.refused.length, shown)}` : '';
  return { message: escapeLine(`${ended}${refused}`), failed };
}

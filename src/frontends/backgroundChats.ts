/**
 * The words of the Background Chats view (issue 31): a worktree chat as a row, what a discard
 * would lose, and what bringing changes home did. No `vscode` here, so they are tested in the fast
 * tier. Every name, path and commit subject shown may come from the chat's model (it named the
 * files and wrote the commits): each goes through escapeLine, which shows control and format
 * characters instead of letting them act.
 */
import type { TurnStopReason } from '../core/agent/events';
import type { ApprovalRequest } from '../core/approvals/approval';
import { escapeLine } from '../core/visibleText';
import type { DiscardPlan } from '../core/worktrees/discard';
import type { CleanUpResult, WorktreeHealth, WorktreeRecord } from '../core/worktrees/manager';
import type { BringHomeResult } from '../core/worktrees/review';

/** The `viewItem` of a row, by whether its worktree can be used: the menus offer each action only where it can act. */
export const CHAT_ITEM_CONTEXT = { ready: 'backgroundChat.ready', gone: 'backgroundChat.gone' } as const;

/** How many file names a message lists before it says how many more there are. */
export const MAX_LISTED_FILES = 20;

const HEALTH_WORDS: Record<WorktreeHealth['kind'], string> = {
  ready: 'ready',
  'folder-missing': 'folder deleted',
  'repository-missing': 'repository gone',
  broken: 'broken',
};

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
  const state = running ? 'working' : HEALTH_WORDS[health.kind];
  const changed = changes.kind === 'count' ? `${changes.files} file${changes.files === 1 ? '' : 's'} changed` : changes.kind === 'unreadable' ? 'changes unreadable' : '';
  const tooltip = [
    `${escapeLine(record.branch)} (${state})`,
    `Folder: ${escapeLine(record.folder)}`,
    `From: ${record.baseBranch === undefined ? '' : `${escapeLine(record.baseBranch)} at `}${record.base.slice(0, 12)}`,
    ...(changes.kind === 'count' ? [`${changed}, ${changes.commits} commit(s)`] : []),
    ...(changes.kind === 'unreadable' ? [`The changes cannot be read: ${escapeLine(changes.reason)}`] : []),
    ...(health.kind === 'ready' ? [] : [`${escapeLine(health.reason)} Discard it to clean it up.`]),
    ...(record.task === undefined ? [] : [`Task: ${escapeLine(record.task)}`]),
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
  return files.length > MAX_LISTED_FILES ? [...shown, `  … and ${files.length - MAX_LISTED_FILES} more`] : shown;
}

/** What cleaning up a worktree whose folder was deleted by hand did: its branch stays when it holds commits. */
export function cleanedUpText(result: CleanUpResult): string {
  const branch = result.branchKept
    ? `Its branch ${escapeLine(result.branch)} is kept: it holds ${result.commits} commit(s) of the chat's (merge it, or delete it with git branch -D).`
    : `Its branch ${escapeLine(result.branch)} held no commit of its own and was deleted.`;
  return `Evergreen: the folder of the background chat ${escapeLine(result.name)} was deleted, so Evergreen forgot the chat and Git's record of its worktree. ${branch}`;
}

/** The modal before a discard: a one-line question and the list of everything it would lose. */
export function discardWarning(plan: DiscardPlan): { message: string; detail: string } {
  const { record } = plan;
  const message = `Discard the background chat ${escapeLine(record.name)}? Its worktree and the branch ${escapeLine(record.branch)} are removed.`;
  if (!plan.folderExists && plan.commitCount === 0) return { message, detail: `Its folder ${escapeLine(record.folder)} was deleted already; nothing else is lost.` };
  const lines: string[] = [];
  if (plan.uncommitted.length > 0) lines.push(`${plan.uncommitted.length} uncommitted file(s) are lost:`, ...listed(plan.uncommitted));
  if (plan.commitCount > 0) {
    lines.push(`${plan.commitCount} commit(s) that only this branch holds are lost:`, ...plan.commits.map((commit) => `  ${commit.sha.slice(0, 12)} ${escapeLine(commit.subject)}`));
    if (plan.commitCount > plan.commits.length) lines.push(`  … and ${plan.commitCount - plan.commits.length} more`);
  }
  if (lines.length === 0) lines.push('Nothing is lost that is not also elsewhere (no uncommitted files, no commits of its own).');
  return { message, detail: lines.join('\n') };
}

/** The modal before bringing home files that configure tools or run commands. */
export function protectedWarning(record: WorktreeRecord, files: readonly { path: string; reason: string }[]): { message: string; detail: string } {
  return {
    message: `The chat ${escapeLine(record.name)} changed ${files.length} file(s) that run commands or configure your tools. Bring them home too?`,
    detail: files.map((file) => `${escapeLine(file.path)}: ${escapeLine(file.reason)}`).join('\n'),
  };
}

/** What bringing a chat's changes home did, in the user's words, with a next step where one is needed. */
export function bringHomeText(record: WorktreeRecord, result: BringHomeResult): { level: 'info' | 'error'; message: string } {
  switch (result.kind) {
    case 'applied':
      return { level: 'info', message: `Applied ${result.files.length} file(s) of ${escapeLine(record.branch)} to your checkout as uncommitted changes. Review them in Source Control.` };
    case 'merged':
      return { level: 'info', message: `Merged ${escapeLine(record.branch)} into your branch as ${result.commit.slice(0, 12)}.` };
    case 'nothing':
      return { level: 'info', message: `${escapeLine(record.branch)} has nothing to bring home.` };
    case 'conflict':
      return { level: 'error', message: `${escapeLine(result.reason)}${result.files.length > 0 ? ` In the way: ${result.files.slice(0, MAX_LISTED_FILES).map(escapeLine).join(', ')}.` : ''}` };
  }
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
      return `write ${escapeLine(request.path)}`;
    case 'shell':
    case 'sandbox_changes':
      return `run ${escapeLine(request.command)}`;
    case 'web':
      return `fetch from ${escapeLine(request.host)}`;
    case 'mcp':
    case 'hook':
      return `use ${escapeLine(request.tool)}`;
  }
}

/** The finishing notification's words: how the turn ended, and what was refused. */
export function outcomeText(outcome: BackgroundOutcome): { message: string; failed: boolean } {
  const failed = outcome.stop === 'failed' || outcome.stop === 'error';
  const how = failed ? `stopped with an error: ${outcome.error ?? 'the log has the details'}` : outcome.stop === 'end_turn' ? 'finished' : `stopped (${outcome.stop})`;
  const shown = outcome.refused.slice(0, 3).join('; ') + (outcome.refused.length > 3 ? '; …' : '');
  const refused = outcome.refused.length > 0 ? ` It was refused ${outcome.refused.length} action(s) that need your approval (${shown}); do that part in the panel's chat.` : '';
  return { message: escapeLine(`Evergreen: the background chat ${outcome.name} ${how}.${refused}`), failed };
}

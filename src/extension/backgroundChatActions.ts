import * as path from 'node:path';
import * as vscode from 'vscode';
import { GitError } from '../core/git';
import { errorMessage, type Logger } from '../core/logger';
import { discardWorktree, planDiscard, uncommittedFiles } from '../core/worktrees/discard';
import { WorktreeError, type WorktreeRecord } from '../core/worktrees/manager';
import { applyChoices, applyToCheckout, fileAtBase, mergeBranch, protectedChanges, worktreeChanges, type ChangedFile, type WorktreeChanges } from '../core/worktrees/review';
import { verbatim } from '../core/texts/userText';
import { bringHomeText, discardWarning, MAX_LISTED_FILES, protectedWarning, worktreeFailure } from '../frontends/backgroundChats';
import { word } from '../frontends/words';
import { applyAcceptedText, reviewFiles } from '../frontends/hunkReview';
import { escapeLine } from '../core/visibleText';
import { isChangeNode, nodeKeys, type ChangeNode } from './backgroundChanges';
import type { BackgroundChatsView } from './backgroundChatsView';
import type { CommandId } from './manifest';

/** The read-only left side of a review diff: a file as it was at the chat's branch point. */
export const WORKTREE_BASE_SCHEME = 'evergreen-worktree-base';

/** What the view's actions are given: the row's record (or one of its Changes rows), or a chat's name (from the palette, the tests). */
type ChatArgument = WorktreeRecord | ChangeNode | string | undefined;

/**
 * The Background Chats view's actions (issue 31): review, apply, merge and discard, each a thin
 * adapter over core/worktrees with the user's confirmation where something is brought home or lost.
 */
export function registerBackgroundChatActions(view: BackgroundChatsView, logger: Logger, showLog: () => void): vscode.Disposable[] {
  // `changes`: whether the action can change the chats (then the view reads them again); a review changes nothing.
  const register = (id: CommandId, run: (chat: WorktreeRecord, ...rest: unknown[]) => Promise<void>, changes = true) =>
    vscode.commands.registerCommand(`evergreen.${id}`, async (argument: ChatArgument, ...rest: unknown[]) => {
      try {
        const chat = await resolveChat(view, argument);
        if (chat) await run(chat, ...rest);
      } catch (error) {
        reportFailure(error, logger, showLog);
      } finally {
        if (changes) view.refresh();
      }
    });
  return [
    vscode.workspace.registerTextDocumentContentProvider(WORKTREE_BASE_SCHEME, new BaseContent(view)),
    vscode.commands.registerCommand(`evergreen.${'refreshBackgroundChats' satisfies CommandId}`, () => view.refresh()),
    register('reviewBackgroundChanges', (chat, file, line) => review(chat, typeof file === 'string' ? file : undefined, typeof line === 'number' ? line : undefined), false),
    register('applyBackgroundChanges', apply),
    register('applyAcceptedBackgroundChanges', (chat) => applyAccepted(view, chat)),
    register('mergeBackgroundBranch', merge),
    register('openBackgroundWorktree', (chat) => openInNewWindow(view, chat), false),
    registerDecision(view, 'acceptBackgroundChange', 'accepted'),
    registerDecision(view, 'rejectBackgroundChange', 'rejected'),
    register('discardBackgroundChat', (chat) => discard(view, chat)),
  ];
}

/** The chat an action is for: the row's record, the named chat, or one the user picks. */
async function resolveChat(view: BackgroundChatsView, argument: ChatArgument): Promise<WorktreeRecord | undefined> {
  if (isChangeNode(argument)) return argument.record;
  if (typeof argument === 'object') return argument;
  // Read afresh: a chat made a moment ago may not be in the view's last reading yet.
  view.refresh();
  const { chats, message } = await view.current();
  if (typeof argument === 'string') {
    const found = chats.find((chat) => chat.record.name === argument);
    if (!found) throw new WorktreeError('name', verbatim(vscode.l10n.t('There is no background chat named "{0}" in this repository; the Background Chats view lists them.', argument)));
    return found.record;
  }
  if (chats.length === 0) {
    void vscode.window.showInformationMessage(message === undefined ? vscode.l10n.t('Evergreen: No background chats in this repository.') : vscode.l10n.t('Evergreen: {0}', message));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    chats.map((chat) => ({ label: chat.row.label, description: chat.row.description, record: chat.record })),
    { title: vscode.l10n.t('Evergreen: which background chat?') },
  );
  return picked?.record;
}

function reportFailure(error: unknown, logger: Logger, showLog: () => void): void {
  logger.error('a background chat action failed', error);
  // The core's errors already say what to do next; anything else points at the log.
  const known = error instanceof WorktreeError || error instanceof GitError;
  const text = known ? vscode.l10n.t('Evergreen: {0}', escapeLine(worktreeFailure(error))) : vscode.l10n.t('Evergreen: {0}. The log has the details.', escapeLine(errorMessage(error)));
  const showLogs = vscode.l10n.t('Show Logs');
  void vscode.window.showErrorMessage(text, showLogs).then((choice) => {
    if (choice === showLogs) showLog();
  });
}

function baseUri(chat: WorktreeRecord, file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: WORKTREE_BASE_SCHEME, path: `/${file}`, query: new URLSearchParams({ chat: chat.name, checkout: chat.checkout }).toString() });
}

/** The worktree's side of a diff: its file on disk, or an empty base-scheme document for a deleted one. */
function worktreeUri(chat: WorktreeRecord, file: ChangedFile): vscode.Uri {
  if (file.status === 'deleted') return vscode.Uri.from({ scheme: WORKTREE_BASE_SCHEME, path: `/${file.path}`, query: new URLSearchParams({ chat: chat.name, checkout: chat.checkout, empty: '1' }).toString() });
  return vscode.Uri.file(path.join(chat.folder, ...file.path.split('/')));
}

class BaseContent implements vscode.TextDocumentContentProvider {
  constructor(private readonly view: BackgroundChatsView) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    if (query.get('empty') === '1') return '';
    const chat = await this.view.manager.find(query.get('checkout') ?? '', query.get('chat') ?? '');
    if (!chat) return vscode.l10n.t('(The background chat {0} is gone; its base cannot be shown.)', query.get('chat') ?? '');
    return (await fileAtBase(chat, uri.path.slice(1))).toString('utf8');
  }
}

/** Each changed file in VS Code's diff editor, base on the left: one file on its own, several in one multi-file diff. */
async function review(chat: WorktreeRecord, only: string | undefined, line: number | undefined): Promise<void> {
  const changes = await worktreeChanges(chat);
  const files = only === undefined ? changes.files : changes.files.filter((file) => file.path === only);
  if (only !== undefined && files.length === 0) throw new WorktreeError('name', verbatim(vscode.l10n.t('The chat {0} did not change {1}; Review Changes lists what it changed.', chat.name, only)));
  if (files.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0} has not changed anything yet.', escapeLine(chat.branch)));
    return;
  }
  const sides = files.map((file) => ({ file, left: baseUri(chat, file.from ?? file.path), right: worktreeUri(chat, file) }));
  if (sides.length === 1) {
    const [{ file, left, right }] = sides as [(typeof sides)[number]];
    // A hunk's row opens its file at the hunk's first line.
    const at = line === undefined ? {} : { selection: new vscode.Range(Math.max(0, line - 1), 0, Math.max(0, line - 1), 0) };
    await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0} ({1}: base ↔ worktree)', escapeLine(file.path), escapeLine(chat.name)), { preview: false, ...at });
    return;
  }
  // VS Code adds the count of files to the title itself.
  await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('Evergreen: {0}', escapeLine(chat.name)), sides.map(({ right, left }) => [right, left, right]));
}

/** Asks before files that run commands or configure tools come home; true when none did or the user agreed. */
async function protectedAgreed(chat: WorktreeRecord, changes: WorktreeChanges, action: string, only?: ReadonlySet<string>): Promise<boolean> {
  const guarded = protectedChanges(changes).filter((file) => only === undefined || only.has(file.path));
  if (guarded.length === 0) return true;
  const { message, detail } = protectedWarning(chat, guarded);
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
}

function tell(chat: WorktreeRecord, result: Parameters<typeof bringHomeText>[1]): void {
  const { level, message } = bringHomeText(chat, result);
  if (level === 'info') void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}', message));
  else void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen: {0}', message));
}

async function apply(chat: WorktreeRecord): Promise<void> {
  const changes = await worktreeChanges(chat);
  if (!(await protectedAgreed(chat, changes, vscode.l10n.t('Apply All')))) return;
  tell(chat, await applyToCheckout(changes));
}

/** Accept or Reject on a hunk's or a file's row (its inline buttons); a decision only, nothing is applied yet. */
function registerDecision(view: BackgroundChatsView, id: CommandId, decision: 'accepted' | 'rejected'): vscode.Disposable {
  return vscode.commands.registerCommand(`evergreen.${id}`, (node: unknown) => {
    if (!isChangeNode(node)) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: accept or reject a hunk or a file with its buttons in the Changes of a background chat (expand the chat in the Background Chats view).'));
      return;
    }
    view.decisions.decide(node.record, nodeKeys(node), decision);
    view.redraw(node);
  });
}

/** Brings home only what the user accepted, hunk by hunk, as uncommitted changes; a conflict names the hunks in the way. */
async function applyAccepted(view: BackgroundChatsView, chat: WorktreeRecord): Promise<void> {
  const changes = await worktreeChanges(chat);
  const plan = view.decisions.plan(chat, await reviewFiles(changes));
  if (plan.choices.length > 0 && !(await protectedAgreed(chat, changes, vscode.l10n.t('Apply Accepted'), new Set(plan.choices.map((choice) => choice.path))))) return;
  const result = plan.choices.length === 0 ? ({ kind: 'nothing' } as const) : await applyChoices(changes, plan.choices);
  if (result.kind === 'applied') view.decisions.markApplied(chat, plan.keys);
  const { level, message } = applyAcceptedText(chat, plan, result);
  if (level === 'info') void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}', message));
  else void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen: {0}', message));
}

/** The worktree as a workspace of its own, in a new window (to run or test the chat's work there). */
async function openInNewWindow(view: BackgroundChatsView, chat: WorktreeRecord): Promise<void> {
  const health = await view.manager.health(chat);
  if (health.kind !== 'ready') throw new WorktreeError('git', verbatim(vscode.l10n.t('{0} Discard it to clean it up.', word(health.reason))));
  await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(chat.folder), { forceNewWindow: true });
}

async function merge(chat: WorktreeRecord): Promise<void> {
  const changes = await worktreeChanges(chat);
  const left = await uncommittedFiles(chat);
  if (left.length > 0) {
    const action = vscode.l10n.t('Merge Commits Only');
    const listed = left.slice(0, MAX_LISTED_FILES).map(escapeLine).join('\n');
    const files = left.length > MAX_LISTED_FILES ? vscode.l10n.t('{0}\n… and {1} more', listed, left.length - MAX_LISTED_FILES) : listed;
    const detail = vscode.l10n.t("A merge brings the branch's commits only. These {0} uncommitted file(s) of the worktree stay behind (Apply Changes brings them as uncommitted changes):\n{1}", left.length, files);
    if ((await vscode.window.showWarningMessage(vscode.l10n.t('Merge {0} without its uncommitted files?', escapeLine(chat.branch)), { modal: true, detail }, action)) !== action) return;
  }
  if (!(await protectedAgreed(chat, changes, vscode.l10n.t('Merge')))) return;
  tell(chat, await mergeBranch(chat));
}

async function discard(view: BackgroundChatsView, chat: WorktreeRecord): Promise<void> {
  const health = await view.manager.health(chat);
  if (health.kind === 'repository-missing') {
    const forget = vscode.l10n.t('Forget It');
    if ((await vscode.window.showWarningMessage(vscode.l10n.t('{0} Forget the background chat {1}?', escapeLine(word(health.reason)), escapeLine(chat.name)), { modal: true }, forget)) === forget) await view.manager.forget(chat);
    return;
  }
  const plan = await planDiscard(chat);
  const { message, detail: lost } = discardWarning(plan);
  const accepted = view.decisions.acceptedNotApplied(chat);
  const detail = accepted > 0 ? vscode.l10n.t('{0}\nYou accepted {1} change(s) of it that are not applied to your checkout yet (Apply Accepted Changes brings them home first).', lost, accepted) : lost;
  const action = vscode.l10n.t('Discard');
  if ((await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) !== action) return;
  await discardWorktree(view.manager, plan);
  view.decisions.forget(chat);
  void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: discarded {0}; its worktree and {1} are gone.', escapeLine(chat.name), escapeLine(chat.branch)));
}

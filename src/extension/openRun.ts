/**
 * "Evergreen: Open Run…" (issue 32): a CI run's artifact (the .zip GitHub serves, or its unpacked
 * folder) imported into this workspace's session storage and opened as a chat with its whole
 * history, gauge and cost; then the run's branch fetched and checked out if the user wants it.
 * The import and every refusal are the core's (core/archive); this module asks and shows.
 */
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { importSessionArchive, type ImportResult } from '../core/archive/importSession';
import { SessionArchiveError } from '../core/archive/layout';
import { workspaceRepository } from '../core/archive/repository';
import type { Logger } from '../core/logger';
import { worktreeFailure } from '../frontends/backgroundChats';
import { childProcessEnv } from '../core/secrets';
import type { FileSessionStore } from '../core/storage/sessionStore';
import { WorktreeError, type WorktreeManager } from '../core/worktrees/manager';
import { nameProblem } from '../core/worktrees/names';

export interface OpenRunDeps {
  store: FileSessionStore;
  /** Opens a stored session as the chat (what "Resume Session…" does after its picker). */
  resume(sessionId: string): Promise<void>;
  logger: Logger;
  /** The background chats' worktrees: a run's branch can open in one of its own, for review. */
  worktrees: WorktreeManager;
  /** Shows a worktree just made in the Background Chats view (its file watcher may not see outside the workspace). */
  worktreeMade(): void;
}

export function registerOpenRun(deps: OpenRunDeps): vscode.Disposable {
  return vscode.commands.registerCommand('evergreen.openRun', async (target?: vscode.Uri) => {
    const source = target ?? (await pickRun());
    if (source) await openRun(source.fsPath, deps);
  });
}

/** Windows and Linux dialogs pick files or folders, not both: the user says which first. */
async function pickRun(): Promise<vscode.Uri | undefined> {
  const kind = await vscode.window.showQuickPick(
    [
      { label: vscode.l10n.t('A downloaded .zip'), description: vscode.l10n.t('the artifact as GitHub serves it'), folder: false },
      { label: vscode.l10n.t('An unpacked folder'), description: vscode.l10n.t('the folder that holds evergreen-run.json'), folder: true },
    ],
    { title: vscode.l10n.t('Open an Evergreen run'), placeHolder: vscode.l10n.t('What did you download?') },
  );
  if (!kind) return undefined;
  const picked = await vscode.window.showOpenDialog({
    title: vscode.l10n.t('Open an Evergreen run'),
    openLabel: vscode.l10n.t('Open Run'),
    canSelectFiles: !kind.folder,
    canSelectFolders: kind.folder,
    canSelectMany: false,
    ...(kind.folder ? {} : { filters: { [vscode.l10n.t('Evergreen run')]: ['zip'] } }),
  });
  return picked?.[0];
}

async function openRun(source: string, deps: OpenRunDeps): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  let result: ImportResult;
  try {
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Evergreen: importing the run…') }, async () =>
      importSessionArchive(deps.store, source, {
        workspaceRepository: folder ? await workspaceRepository(folder) : undefined,
        confirm: async (warnings) => {
          const importAnyway = vscode.l10n.t('Import Anyway');
          return (await vscode.window.showWarningMessage(warnings.join('\n'), { modal: true }, importAnyway)) === importAnyway;
        },
      }),
    );
  } catch (error) {
    if (error instanceof SessionArchiveError && error.kind === 'already-imported') {
      const id = /session (\S+)/.exec(error.message)?.[1];
      const openIt = vscode.l10n.t('Open It');
      const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: {0}.', error.message), ...(id ? [openIt] : []));
      if (choice === openIt && id) await deps.resume(id);
      return;
    }
    deps.logger.error(`could not import the run ${source}`, error);
    const reason = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(vscode.l10n.t("Evergreen did not import the run: {0}. Nothing was added to this workspace's chats.", reason));
    return;
  }
  if (result.status !== 'imported') return;
  await deps.resume(result.sessionId);
  if (result.transcriptProblems.length > 0) void vscode.window.showWarningMessage(vscode.l10n.t("Evergreen: {0} line(s) of the run's transcript cannot be read; the chat was restored without them.", result.transcriptProblems.length));
  const branch = result.manifest.run?.branch;
  if (branch && folder) void offerBranch(branch, folder, deps);
}

/** A branch name a run's manifest may give: nothing Git could read as an option or a revision expression. */
const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;

/**
 * The run's branch, fetched: checked out in the user's checkout (the chat continues on its files),
 * or in a background chat's worktree of its own, where its changes are reviewed hunk by hunk and
 * brought home as the user picks, the checkout untouched.
 */
async function offerBranch(branch: string, folder: string, deps: OpenRunDeps): Promise<void> {
  if (!BRANCH.test(branch)) {
    deps.logger.warn(`the run names a branch Evergreen will not check out: ${JSON.stringify(branch)}`);
    return;
  }
  const checkOut = vscode.l10n.t('Fetch and Check Out');
  const background = vscode.l10n.t('Review in a Worktree');
  const choice = await vscode.window.showInformationMessage(vscode.l10n.t("The run's changes are on the branch {0}.", branch), checkOut, background, vscode.l10n.t('Not Now'));
  if (choice === checkOut) await checkOutBranch(branch, folder, deps.logger);
  else if (choice === background) await openInWorktree(branch, folder, deps);
}

async function checkOutBranch(branch: string, folder: string, logger: Logger): Promise<void> {
  try {
    await fetchBranch(branch, folder);
    await git(folder, ['switch', branch]);
    void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: checked out {0}; the chat continues on its files.', branch));
  } catch (error) {
    logger.error(`could not check out ${branch}`, error);
    void vscode.window.showErrorMessage(
      vscode.l10n.t('Evergreen could not check out {0}: {1} Commit or stash your changes, then run git fetch origin {0} && git switch {0}.', branch, error instanceof Error ? error.message : String(error)),
    );
  }
}

async function openInWorktree(branch: string, folder: string, deps: OpenRunDeps): Promise<void> {
  try {
    await fetchBranch(branch, folder);
    const startPoint = `refs/remotes/origin/${branch}`;
    const task = vscode.l10n.t('The GitHub Actions run on {0}', branch);
    // A run's branch is evergreen/<run id>: the worktree takes that name when it is free, else one made from the task.
    const given = branch.replace(/^evergreen\//, '');
    const create = (name: string | undefined) => deps.worktrees.create({ checkout: folder, name, task, startPoint });
    const record = await create(nameProblem(given) ? undefined : given).catch((error: unknown) => (error instanceof WorktreeError && error.kind === 'name' ? create(undefined) : Promise.reject(error)));
    deps.worktreeMade();
    const show = vscode.l10n.t('Show Background Chats');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t("Evergreen: the run's changes are in the worktree {0} on {1}. Review them hunk by hunk in Background Chats and apply what you keep; the chat goes on in your checkout.", record.folder, record.branch),
      show,
    );
    if (choice === show) await vscode.commands.executeCommand('evergreen.backgroundChats.focus');
  } catch (error) {
    deps.logger.error(`could not open ${branch} in a worktree`, error);
    void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen could not open {0} in a worktree: {1} Check that origin has the branch (git fetch origin {0}), then try Open Run… again.', branch, worktreeFailure(error)));
  }
}

function fetchBranch(branch: string, folder: string): Promise<void> {
  return git(folder, ['fetch', 'origin', `refs/heads/${branch}:refs/remotes/origin/${branch}`]);
}

function git(cwd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...childProcessEnv(process.env), GIT_TERMINAL_PROMPT: '0' }, timeout: 120_000 }, (error, _stdout, stderr) => (error ? reject(new Error(String(stderr || error.message).trim())) : resolve()));
  });
}

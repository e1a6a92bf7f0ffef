import * as vscode from 'vscode';
import type { ApprovalRequest, Approver } from '../core/approvals/approval';
import { startAgentSession, type AgentConfig, type StartedSession } from '../core/agent/factory';
import type { AgentEvent } from '../core/agent/events';
import { word } from '../frontends/words';
import { errorMessage, type Logger } from '../core/logger';
import type { SecretRedactor } from '../core/secrets';
import { escapeLine } from '../core/visibleText';
import type { FileSessionStore } from '../core/storage/sessionStore';
import { discardWorktree, planDiscard } from '../core/worktrees/discard';
import { gitAccessOf, WorktreeError, type WorktreeRecord } from '../core/worktrees/manager';
import { BACKGROUND_REFUSAL, describeRequest, outcomeText, worktreeFailure, type BackgroundOutcome } from '../frontends/backgroundChats';
import type { ApiKeyStore } from './apiKey';
import type { BackgroundChatsView } from './backgroundChatsView';
import type { CommandId } from './manifest';
import { readSessionConfig } from './sessionConfig';


/**
 * Runs chats in their own worktrees beside the panel's chat (issue 31): each is its own
 * AgentSession, started here with the settings the panel uses, and runs one turn (the task).
 * The behaviour chosen for approvals is the simplest safe one: whatever the panel's chat would ask
 * the user about is refused, with a reason the model reads (nothing is queued, nothing is approved
 * by itself); what the settings allow without asking runs as it would in the panel. The workspace's
 * MCP servers and hooks do not start for a background chat: they run commands the user consented to
 * for the panel's chat. A notification says when a chat finishes, with what it was refused.
 */
export class BackgroundChatRunner implements vscode.Disposable {
  private readonly runs = new Map<string, { abort: AbortController; done: Promise<BackgroundOutcome> }>();
  /** How each chat started in this window ended (a few words each, kept for the window's life). */
  private readonly ended = new Map<string, BackgroundOutcome>();

  constructor(
    private readonly deps: {
      view: BackgroundChatsView;
      store: FileSessionStore;
      apiKeys: ApiKeyStore;
      workspaceState: vscode.Memento;
      memoryRoot: string;
      logger: Logger;
      redactor: SecretRedactor;
      /** The workspace folder a new chat works in (in a multi-root workspace, the panel's choice; may ask). */
      folderForStart: () => Promise<string>;
    },
  ) {}

  /** The chats working now, by worktree name. */
  running(): ReadonlySet<string> {
    return new Set(this.runs.keys());
  }

  /** How a chat started in this window ends or ended (the tests wait on it); undefined for any other. */
  outcome(name: string): Promise<BackgroundOutcome> | undefined {
    const ended = this.ended.get(name);
    return ended ? Promise.resolve(ended) : this.runs.get(name)?.done;
  }

  /**
   * Makes the worktree and starts the chat on `task`; resolves once it runs (its turn goes on
   * without blocking anything). Throws WorktreeError (not a repository: offer a normal chat) or the
   * session's own start error; a worktree whose session could not start is removed again.
   */
  async start(task: string): Promise<WorktreeRecord> {
    const folder = await this.deps.folderForStart();
    // The settings, memory and consents of the checkout's folder; the session itself works in the worktree.
    const { config } = await readSessionConfig(this.deps.apiKeys, this.deps.workspaceState, { overrides: {}, memoryRoot: this.deps.memoryRoot }, folder);
    const { mcp: _mcp, hooks: _hooks, ...withoutCommands } = config;
    let record = await this.deps.view.manager.create({ checkout: folder, task });
    const refused: string[] = [];
    let lastError: string | undefined;
    let started: StartedSession;
    try {
      started = await this.startSession(record, withoutCommands, refused, (message) => (lastError = message));
    } catch (error) {
      // Nothing ran in it yet: the new worktree and its branch go with the failed start.
      await discardWorktree(this.deps.view.manager, await planDiscard(record)).catch((cleanup: unknown) => this.deps.logger.error(`the unused worktree ${record.name} could not be removed`, cleanup));
      throw error;
    }
    record = await this.deps.view.manager.attachSession(record, started.handle.id);
    const abort = new AbortController();
    const name = record.name;
    const done = (async (): Promise<BackgroundOutcome> => {
      try {
        const stop = await started.session.send(task, abort.signal);
        return { name, stop, error: lastError, refused };
      } catch (error) {
        this.deps.logger.error(`the background chat ${name} failed`, error);
        return { name, stop: 'failed', error: errorMessage(error), refused };
      } finally {
        await started.handle.flushMeta().catch((error: unknown) => this.deps.logger.error('could not write meta.json', error));
        await started.close().catch((error: unknown) => this.deps.logger.error(`closing the background chat ${name} failed`, error));
      }
    })();
    this.runs.set(name, { abort, done });
    this.deps.view.refresh();
    void done.then((outcome) => {
      this.ended.set(name, outcome);
      this.runs.delete(name);
      this.deps.view.refresh();
      if (!abort.signal.aborted) this.notify(outcome);
    });
    return record;
  }

  private startSession(record: WorktreeRecord, config: AgentConfig, refused: string[], onError: (message: string) => void): Promise<StartedSession> {
    return startAgentSession({
      config,
      logger: this.deps.logger,
      redactor: this.deps.redactor,
      workspaceRoot: record.folder,
      worktree: gitAccessOf(record),
      store: this.deps.store,
      approver: refusingApprover((request) => refused.push(describeRequest(request))),
      onEvent: (event: AgentEvent) => {
        if (event.type === 'error') onError(word(event.message));
      },
    });
  }

  private notify(outcome: BackgroundOutcome): void {
    const { message, failed } = outcomeText(outcome);
    const review = vscode.l10n.t('Review Changes');
    const shown = failed ? vscode.window.showErrorMessage(message, review) : vscode.window.showInformationMessage(message, review);
    void shown.then((choice) => {
      if (choice === review) void vscode.commands.executeCommand('evergreen.reviewBackgroundChanges', outcome.name);
    });
  }

  /** Closing the window stops every background chat; its transcript stays for a resume. */
  dispose(): void {
    for (const run of this.runs.values()) run.abort.abort();
  }
}

/** An approver that refuses everything it is asked, telling the front end what it refused. */
export function refusingApprover(onRefused: (request: ApprovalRequest) => void): Approver {
  return {
    requestApproval: (request) => {
      onRefused(request);
      return Promise.resolve({ approved: false, reason: BACKGROUND_REFUSAL });
    },
  };
}

/** "Evergreen: New Background Chat…": asks for the task (unless given) and starts the chat in a new worktree. */
export function registerNewBackgroundChat(runner: BackgroundChatRunner, logger: Logger, showLog: () => void): vscode.Disposable {
  return vscode.commands.registerCommand(`evergreen.${'newBackgroundChat' satisfies CommandId}`, async (given?: unknown) => {
    const task =
      typeof given === 'string'
        ? given
        : await vscode.window.showInputBox({
            title: vscode.l10n.t('Evergreen: New Background Chat'),
            prompt: vscode.l10n.t('What should the chat do? It works on a new branch in its own worktree; your checkout is not touched.'),
            ignoreFocusOut: true,
            validateInput: (text) => (text.trim() === '' ? vscode.l10n.t('Describe the task.') : undefined),
          });
    if (task === undefined || task.trim() === '') return undefined;
    try {
      const record = await runner.start(task.trim());
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: the background chat {0} is working on {1}; you will be told when it finishes.', escapeLine(record.name), escapeLine(record.branch)));
      return record.name;
    } catch (error) {
      logger.error('a background chat could not start', error);
      if (error instanceof WorktreeError && error.kind === 'unavailable') {
        const normal = vscode.l10n.t('Start a Normal Chat');
        if ((await vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0}', escapeLine(word(error.said))), normal)) === normal) await vscode.commands.executeCommand('evergreen.newChat');
        return undefined;
      }
      const logs = vscode.l10n.t('Show Logs');
      if ((await vscode.window.showErrorMessage(vscode.l10n.t('Evergreen: the background chat could not start: {0}', escapeLine(worktreeFailure(error))), logs)) === logs) showLog();
      return undefined;
    }
  });
}

import * as vscode from 'vscode';
import { configureWords } from '../frontends/words';
import { shutdownOsSandbox } from '../core/sandbox/srt';
import { FileSessionStore } from '../core/storage/sessionStore';
import type { ApprovalRequest } from '../core/approvals/approval';
import { knownSecrets, SecretRedactor } from '../core/secrets';
import { ApiKeyStore } from './apiKey';
import { registerBackgroundChatActions } from './backgroundChatActions';
import { BackgroundChatRunner, registerNewBackgroundChat } from './backgroundChatRunner';
import { BackgroundChatsView } from './backgroundChatsView';
import { registerCheckpointReview } from './checkpointReview';
import { Chats } from './chats';
import { ChatEditorTab } from './chatEditorTab';
import { ChatsView, registerChatsCommands } from './chatsView';
import { CHAT_VIEW_ID, ChatViewProvider } from './chatViewProvider';
import { registerCommands } from './commands';
import { registerOpenRun } from './openRun';
import { workspaceFolder } from './slashCommands';
import { ChatContextKeys } from './contextKeys';
import { InsightsPanel } from './insightsPanel';
import { createLog } from './log';
import { ProposedChanges } from './proposedChanges';
import { readSettings } from './settings';
import { settingName } from '../frontends/settingsTable';
import { ContextStatusBar } from './statusBar';
import { ContextBreakdownDocument } from './contextBreakdownDocument';
import { McpLogChannels } from './mcpServers';
import { testApiFor, type EvergreenApi } from './testApi';
import { TranscriptDocuments } from './transcriptDocuments';
import { WorkspaceWebDomains } from './webAccess';
import { killTrackedChildren } from '../core/shell/processGroup';
import { WorktreeManager } from '../core/worktrees/manager';

/**
 * The composition root: every part is built here, in the order they need each other (nothing gets
 * a reference to its owner after construction), and registered to be disposed. The test API is
 * returned only to the integration tests' extension host.
 */
export async function activate(context: vscode.ExtensionContext): Promise<EvergreenApi | undefined> {
  try {
    // What the core and the shared front-end code say, in the user's language (their English is the key, as for vscode.l10n.t).
    configureWords({ locale: vscode.env.language, voice: 'extension', ...(vscode.l10n.bundle ? { bundle: vscode.l10n.bundle } : {}) });
    const storageRoot = context.storageUri ?? context.globalStorageUri;
    await vscode.workspace.fs.createDirectory(storageRoot);

    // One redaction for the log, the panel and every session's events: the sessions teach it their keys.
    const redactor = new SecretRedactor(knownSecrets(undefined, process.env));
    const log = createLog(redactor);
    const logger = log.logger;
    const store = new FileSessionStore(storageRoot.fsPath, undefined, logger);
    const view = new ChatViewProvider(context.extensionUri, logger, redactor);
    const statusBar = new ContextStatusBar();
    const apiKeys = new ApiKeyStore(context.secrets);
    const proposedChanges = new ProposedChanges();
    const contextKeys = new ChatContextKeys((key, value) => vscode.commands.executeCommand('setContext', key, value), logger);
    // The worktree chats' records and (by default) their folders live in this workspace's storage.
    // The view asks the runner which chats work; the runner refreshes the view (read only once both exist: register() below).
    const backgroundChats = new BackgroundChatsView(new WorktreeManager({ storageRoot: storageRoot.fsPath, logger }), logger, (): ReadonlySet<string> => runner.running(), () => chats.shown.folders.current() ?? workspaceFolder());
    const runner: BackgroundChatRunner = new BackgroundChatRunner({ view: backgroundChats, store, apiKeys, workspaceState: context.workspaceState, memoryRoot: context.globalStorageUri.fsPath, logger, redactor, folderForStart: () => chats.shown.folders.forStart(undefined) });
    backgroundChats.register();
    // Every open chat (each its own state, approvals, folder and controller) over the services they share.
    const mcpLogs = new McpLogChannels();
    const breakdownDocument = new ContextBreakdownDocument();
    const chats: Chats = new Chats(
      { mcpLogs, breakdownDocument, proposedChanges, store, apiKeys, logger, redactor, workspaceState: context.workspaceState, memoryRoot: context.globalStorageUri.fsPath, backgroundChatOf: async (sessionId) => (await backgroundChats.manager.findBySession(sessionId))?.name, chats: { newChat: () => chats.newChat(), openSession: (sessionId) => chats.openSession(sessionId) } },
      { view, contextKeys, statusBar, workspaceState: context.workspaceState, showProposedChange: (request) => showProposedChange(request, proposedChanges), editorTab: () => new ChatEditorTab(context.extensionUri, logger, redactor) },
      { logger, maxRunning: readSettings().chats.maxRunning },
    );
    const chatsView = new ChatsView(chats);
    // Disposed in this order: the chats first (their turns cancelled, their sessions closed), then what they used.
    context.subscriptions.push(
      chats,
      // Stopped with the panel's chats, before the services they share.
      runner,
      proposedChanges,
      mcpLogs,
      breakdownDocument,
      chatsView,
      ...registerChatsCommands(chats),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(settingName('chats.maxRunning'))) chats.setMaxRunning(readSettings().chats.maxRunning);
      }),
      // No retainContextWhenHidden: a re-shown view says 'ready' again and gets the full state replayed.
      vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, view),
      ...registerCommands(chats, apiKeys, new WorkspaceWebDomains(context.workspaceState), view),
      registerOpenRun({ store, resume: (sessionId) => chats.openSession(sessionId), logger, worktrees: backgroundChats.manager, worktreeMade: () => backgroundChats.refresh() }),
      new TranscriptDocuments(store, logger, context.extensionUri),
      new InsightsPanel(context.extensionUri, { store, logger, redactor, active: () => chats.shown.state.active }),
      backgroundChats,
      ...registerBackgroundChatActions(backgroundChats, logger, () => log.channel.show()),
      registerNewBackgroundChat(runner, logger, () => log.channel.show()),
      // The chat the sidebar shows: its checkpoints are the ones reviewed.
      registerCheckpointReview({ get active() { return chats.shown.state.active; }, get busy() { return chats.shown.state.busy; } }, logger),
      view,
      statusBar,
      // Last, after the sessions: the command sandbox's proxy servers live as long as the extension.
      { dispose: () => void shutdownOsSandbox().catch((error: unknown) => logger.error(`stopping the command sandbox failed: ${error instanceof Error ? error.message : String(error)}`)) },
      log.channel,
    );
    // The chats this workspace's last window left open come back (in the background: activation does not wait on their sessions).
    void chats.restore();
    // Other extensions must not drive the chat or answer its approvals: the API is the integration tests' alone.
    return testApiFor(context.extensionMode, () => ({ storageUri: storageRoot, view, chats, chatsView, backgroundChats, backgroundRunner: runner }));
  } catch (error) {
    // Activation failures reach the user with a next step instead of a silent dead sidebar.
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen failed to start: {0}', message), vscode.l10n.t('Show Logs')).then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.showLogs');
    });
    throw error;
  }
}

/** An approval prompt's extra UI for the shown chat: a write opens in the diff editor, the way VS Code users review changes. */
async function showProposedChange(request: ApprovalRequest, proposedChanges: ProposedChanges): Promise<(() => void) | undefined> {
  if (request.kind !== 'write' || !request.absolutePath || request.newContent === undefined) return undefined;
  return proposedChanges.show(request.absolutePath, request.path, request.newContent, request.isNew);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions; a child that outlives that (an MCP
  // server slow to stop) is killed with its process group, so none outlives the window.
  killTrackedChildren();
}

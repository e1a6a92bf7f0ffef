import * as vscode from 'vscode';
import { shutdownOsSandbox } from '../core/sandbox/srt';
import { FileSessionStore } from '../core/storage/sessionStore';
import { knownSecrets, SecretRedactor } from '../core/secrets';
import type { AttachmentRequest } from '../protocol';
import { ApiKeyStore } from './apiKey';
import { ChatController } from './chatController';
import { CHAT_VIEW_ID, ChatViewProvider } from './chatViewProvider';
import { registerCommands } from './commands';
import { createLog } from './log';
import { ContextStatusBar } from './statusBar';
import { TranscriptDocuments } from './transcriptDocuments';
import { parseWebviewMessage } from './webviewRequests';
import { killTrackedChildren } from '../core/shell/processGroup';

/**
 * What activate() returns: a narrow view for the integration tests (and other extensions),
 * so they can observe the chat webview without reaching into internals.
 */
export interface EvergreenApi {
  readonly storageUri: vscode.Uri;
  /** Resolves when the chat webview's script has run and said `ready` (proves it loaded under the CSP). */
  whenChatReady(): Promise<void>;
  /** The HTML the chat view was last given (CSP, nonce, script URI). */
  chatHtml(): string | undefined;
  /** Sends a chat message as if typed in the panel (with the composer's chips); resolves when the agent's turn ends. */
  sendMessage(text: string, attachments?: AttachmentRequest[]): Promise<void>;
  /** Compacts the current conversation (as the command does, without the focus prompt). */
  compact(focus?: string): Promise<{ ok: boolean; message: string }>;
  /** Undoes the newest compaction (as the command does, without the message toast). */
  undoCompaction(): Promise<{ ok: boolean; message: string }>;
  /** The tool call waiting for the user's approval, if any. */
  pendingApproval(): string | undefined;
  /** Resumes a saved session as "Resume Session…" does after its picker. */
  resume(sessionId: string): Promise<void>;
  /** The event types the chat panel shows for the current session, in order. */
  chatEventTypes(): string[];
  /** Answers an approval as the panel's buttons do (the same validated webview message). */
  decideApproval(toolUseId: string, approved: boolean): Promise<void>;
  /** A subagent card's "Open transcript", as the panel sends it (through the same message guard). */
  openSubagentTranscript(childId: string): Promise<void>;
  /** The current session's id and the latest context gauge. */
  contextState(): { sessionId: string | undefined; usedTokens: number | undefined; window: number | undefined; tooltip: string | undefined };
  /** "Reload Instructions" without the toast: the session rebuilt on its transcript with the files read again. */
  reloadInstructions(): Promise<{ ok: boolean; message: string }>;
}

export async function activate(context: vscode.ExtensionContext): Promise<EvergreenApi> {
  try {
    const storageRoot = context.storageUri ?? context.globalStorageUri;
    await vscode.workspace.fs.createDirectory(storageRoot);

    // One redaction for the log, the panel and every session's events: the sessions teach it their keys.
    const redactor = new SecretRedactor(knownSecrets(undefined, process.env));
    const log = createLog(redactor);
    const view = new ChatViewProvider(context.extensionUri, log.logger, redactor);
    const statusBar = new ContextStatusBar();
    const apiKeys = new ApiKeyStore(context.secrets);
    const controller = new ChatController({ view, statusBar, apiKeys, storageRoot, extensionUri: context.extensionUri, logger: log.logger, redactor, workspaceState: context.workspaceState });
    context.subscriptions.push(
      log.channel,
      view,
      statusBar,
      controller,
      // No retainContextWhenHidden: a re-shown view says 'ready' again and gets the full state replayed.
      vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, view),
      ...registerCommands(controller, apiKeys),
      new TranscriptDocuments(new FileSessionStore(storageRoot.fsPath, undefined, log.logger), log.logger),
      // Last, after the sessions: the command sandbox's proxy servers live as long as the extension.
      { dispose: () => void shutdownOsSandbox().catch((error: unknown) => log.logger.error(`stopping the command sandbox failed: ${error instanceof Error ? error.message : String(error)}`)) },
    );
    return {
      storageUri: storageRoot,
      whenChatReady: () => view.whenReady(),
      chatHtml: () => view.html,
      sendMessage: (text, attachments) => controller.sendMessage(text, attachments),
      compact: (focus) => controller.compactNow(focus),
      undoCompaction: () => controller.undoCompactionNow(),
      pendingApproval: () => controller.pendingApprovalToolUseId(),
      resume: (sessionId) => controller.resumeSessionById(sessionId),
      chatEventTypes: () => controller.chatEventTypes(),
      decideApproval: (toolUseId, approved) => controller.handleWebviewMessage({ type: 'approvalDecision', toolUseId, approved }),
      openSubagentTranscript: async (childId) => {
        const message = parseWebviewMessage({ type: 'openSubagentTranscript', requestId: 0, childId });
        if (!message) throw new Error(`the panel would refuse the child id ${JSON.stringify(childId)}`);
        await controller.handleWebviewMessage(message);
      },
      contextState: () => controller.contextState(),
      reloadInstructions: () => controller.reloadInstructionsNow(),
    };
  } catch (error) {
    // Activation failures reach the user with a next step instead of a silent dead sidebar.
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`Evergreen failed to start: ${message}`, 'Show Logs').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.showLogs');
    });
    throw error;
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions; a child that outlives that (an MCP
  // server slow to stop) is killed with its process group, so none outlives the window.
  killTrackedChildren();
}

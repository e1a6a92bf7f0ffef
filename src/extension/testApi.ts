import * as vscode from 'vscode';
import { gaugeTooltipText, type AttachmentRequest } from '../protocol';
import type { BackgroundOutcome } from '../frontends/backgroundChats';
import type { ChatActivity } from '../frontends/chatBoard';
import type { BackgroundChatRunner } from './backgroundChatRunner';
import { isChangeNode } from './backgroundChanges';
import type { BackgroundChatsElement, BackgroundChatsView } from './backgroundChatsView';
import type { WorktreeRecord } from '../core/worktrees/manager';
import type { Chats } from './chats';
import type { ChatsView } from './chatsView';
import type { ChatViewProvider } from './chatViewProvider';
import { parseWebviewMessage } from './webviewRequests';

/**
 * What activate() returns to the integration tests (test/integration), and only to them: in
 * `ExtensionMode.Test`. Any other installed extension would otherwise be able to send messages
 * and answer approvals in the user's chat.
 */
/** A row of a tree view as the tests read it, with the element its actions are given. */
export interface TreeRow {
  label: string;
  description: string;
  contextValue: string;
  node: unknown;
}

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
  /** Any request as the panel sends it (the mode picker's setMode, a plan card's planDecision), through the same message guard; its reply's value. */
  panelRequest(request: Record<string, unknown>): Promise<unknown>;
  /** The current session's id and the latest context gauge. */
  contextState(): { sessionId: string | undefined; usedTokens: number | undefined; window: number | undefined; tooltip: string | undefined };
  /** "Reload Instructions" without the toast: the session rebuilt on its transcript with the files read again. */
  reloadInstructions(): Promise<{ ok: boolean; message: string }>;
  /** How a background chat started in this window ended (undefined: none of that name is running). */
  backgroundOutcome(name: string): Promise<BackgroundOutcome> | undefined;
  /** The Background Chats view's rows as its tree shows them, read again first, and the message above them. */
  backgroundChats(): Promise<{ rows: Array<{ name: string; label: string; description: string; contextValue: string }>; message: string | undefined }>;
  /** The Chats list's rows as its tree shows them, oldest chat first (the panel's calls above act on the shown one). */
  openChats(): Array<{ id: string; label: string; description: string; activity: ChatActivity; shown: boolean; inEditor: boolean; waiting: string[] }>;
  /** Sends a message in any open chat (an editor tab's too) as its page would; resolves when its turn ends. */
  sendMessageIn(chatId: string, text: string): Promise<void>;
  /** The Chats view's badge (undefined: none), which VS Code adds to the Evergreen icon's. */
  chatsBadge(): number | undefined;
  /** A background chat's Changes as its tree shows them: each file's row and its hunks' rows, with the node the row's actions are given. */
  backgroundChanges(name: string): Promise<Array<TreeRow & { hunks: TreeRow[] }>>;
}

export interface TestApiParts {
  storageUri: vscode.Uri;
  view: ChatViewProvider;
  chats: Chats;
  chatsView: ChatsView;
  backgroundChats: BackgroundChatsView;
  backgroundRunner: BackgroundChatRunner;
}

/** The test API in the integration tests' extension host (`ExtensionMode.Test`); nothing in any other. */
export function testApiFor(mode: vscode.ExtensionMode, parts: () => TestApiParts): EvergreenApi | undefined {
  return mode === vscode.ExtensionMode.Test ? createTestApi(parts()) : undefined;
}

/** The test API over the parts activate() built: it reads the shown chat's state and broker, and drives its controller as the panel and the commands do. */
function createTestApi(parts: TestApiParts): EvergreenApi {
  const { view, chats } = parts;
  // Read at each call: New Chat and the Chats list change which chat is shown.
  const shown = () => chats.shown;
  return {
    storageUri: parts.storageUri,
    whenChatReady: () => view.whenReady(),
    chatHtml: () => view.html,
    sendMessage: (text, attachments) => shown().controller.sendMessage(text, attachments),
    compact: (focus) => shown().controller.compaction.compactNow(focus),
    undoCompaction: () => shown().controller.compaction.undoCompactionNow(),
    pendingApproval: () => shown().approvals.waiting()[0],
    resume: (sessionId) => chats.openSession(sessionId),
    chatEventTypes: () => shown().state.replay.history.map((event) => event.type),
    decideApproval: (toolUseId, approved) => shown().controller.handleWebviewMessage({ type: 'approvalDecision', toolUseId, approved }),
    openSubagentTranscript: async (childId) => {
      const message = parseWebviewMessage({ type: 'openSubagentTranscript', requestId: 0, childId });
      if (!message) throw new Error(`the panel would refuse the child id ${JSON.stringify(childId)}`);
      await shown().controller.handleWebviewMessage(message);
    },
    panelRequest: async (request) => {
      const message = parseWebviewMessage({ ...request, requestId: 0 });
      if (!message) throw new Error(`the panel's message guard would refuse ${JSON.stringify(request)}`);
      return shown().controller.handleWebviewMessage(message);
    },
    contextState: () => {
      const { state } = shown();
      const gauge = state.replay.gauge;
      return { sessionId: state.active?.handle.id, usedTokens: gauge?.usedTokens, window: gauge?.window, tooltip: gauge ? gaugeTooltipText(gauge.reading.tooltip) : undefined };
    },
    reloadInstructions: () => shown().controller.reloadInstructionsNow(),
    backgroundOutcome: (name) => parts.backgroundRunner.outcome(name),
    backgroundChats: async () => {
      const tree = parts.backgroundChats;
      tree.refresh();
      const records = (await tree.getChildren()).filter((element) => !isChangeNode(element)) as WorktreeRecord[];
      const rows = records.map((record) => {
        const item = tree.getTreeItem(record);
        return { name: record.name, label: String(item.label), description: String(item.description), contextValue: item.contextValue ?? '' };
      });
      return { rows, message: (await tree.current()).message };
    },
    openChats: () =>
      chats.all.map((chat) => {
        const item = parts.chatsView.getTreeItem(chat);
        const label = typeof item.label === 'object' ? item.label.label : String(item.label);
        return { id: chat.id, label, description: String(item.description), activity: chats.activityOf(chat), shown: chat === chats.shown, inEditor: !chat.inSidebar, waiting: chat.approvals.waiting() };
      }),
    sendMessageIn: (chatId, text) => {
      const chat = chats.all.find((open) => open.id === chatId);
      if (!chat) throw new Error(`no open chat ${chatId}`);
      return chat.controller.sendMessage(text);
    },
    chatsBadge: () => parts.chatsView.treeView.badge?.value,
    backgroundChanges: async (name) => {
      const tree = parts.backgroundChats;
      tree.refresh();
      const record = (await tree.current()).chats.find((chat) => chat.record.name === name)?.record;
      if (!record) throw new Error(`no background chat named ${name}`);
      const row = (node: BackgroundChatsElement): TreeRow => {
        const item = tree.getTreeItem(node);
        return { label: String(item.label), description: String(item.description), contextValue: item.contextValue ?? '', node };
      };
      return Promise.all((await tree.getChildren(record)).map(async (file) => ({ ...row(file), hunks: (await tree.getChildren(file)).map(row) })));
    },
  };
}

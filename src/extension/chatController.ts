import * as vscode from 'vscode';
import type { AgentEvent as CoreAgentEvent } from '../core/agent/events';
import { verbatim } from '../core/texts/userText';
import { wordEvent } from '../frontends/words/wordEvent';
import { ERROR_ACTION_COMMANDS, type AgentEvent, type ErrorAction, type GaugeState, type ViewState, type WebviewCommand, type WebviewRequest, type WebviewRequestName, type WebviewRequests, type AttachmentRequest } from '../protocol';
import { startAgentSession, type StartedSession } from '../core/agent/factory';
import { noChatToReload, reloadedOutcome, reloadRefusal, type Outcome } from './instructionsReload';
import type { Logger } from '../core/logger';
import type { SecretRedactor } from '../core/secrets';
import { PROVIDER_INFO } from '../core/model/backend';
import { defaultModelFor } from '../core/model/models';
import { SETTINGS_SECTION } from '../frontends/settingsTable';
import type { FileSessionStore } from '../core/storage/sessionStore';
import type { ApiKeyStore } from './apiKey';
import type { ApprovalBroker } from './approvalBroker';
import type { ChatState } from './chatState';
import type { ChatSurface } from './chatViewProvider';
import type { ContextBreakdownDocument } from './contextBreakdownDocument';
import { Disposable } from './disposable';
import { errorText, extensionHint } from './errorHints';
import { openChatLink, openSavedOutput } from './links';
import { settingChangeEffect } from './settingChanges';
import type { ProposedChanges } from './proposedChanges';
import { pickSession, refusedBackgroundResume } from './sessionPicker';
import { readSessionConfig, readPricing } from './sessionConfig';
import { readSettings } from './settings';
import { apiKeyRequired } from './settingsValues';
import type { ContextStatusBar } from './statusBar';
import { showMcpServers, type McpLogChannels } from './mcpServers';
import { showHooks } from './hooksList';
import { restoreCheckpointFromChat, type CheckpointRestoreHost } from './checkpointRestore';
import { ChatCompaction } from './compactDialog';
import { ComposerContext } from './composerContext';
import type { ChatContextKeys } from './contextKeys';
import type { ChatRunSlot } from '../frontends/chatBoard';
import type { ChatFolders } from './chatFolders';
import { answerWebviewRequest, handleWebviewRequest, type WebviewRequestHandlers } from './webviewRequests';
import { ChatModes } from './chatModes';
import { ChatSlashCommands, CommandFiles, workspaceFolder } from './slashCommands';
import { planSlash } from '../frontends/slashCommands';
import { openWorkspaceMemory } from './memoryFolder';
import { webviewStrings } from './webviewStrings';
import { showSessionStartWarnings } from './sessionStartWarnings';

/**
 * Adapts the core agent to VS Code: settings, secrets, trust and the webview. Holds no agent
 * logic — it starts sessions, forwards their events and answers the user's commands — and no
 * conversation state: the chat's is in `chat`, the session's in the core. One controller drives one
 * chat on one surface; several chats (issue 31, chats.ts) are one controller each over the same
 * services, each surface showing in the panel only while its chat is the one shown.
 */
export class ChatController extends Disposable {
  private readonly composer: ComposerContext;
  private readonly modes: ChatModes;
  private readonly commandFiles = new CommandFiles(() => ({ workspaceRoot: workspaceFolder(), trusted: vscode.workspace.isTrusted }));
  private readonly slash: ChatSlashCommands;
  /** Compact Conversation and Undo Last Compaction on this chat. */
  readonly compaction: ChatCompaction;

  constructor(
    private readonly deps: {
      /** Where this chat is shown (the sidebar view while it is the chat shown there). */
      surface: ChatSurface;
      /** This chat's state: its session, its replay buffer, its flags. */
      chat: ChatState;
      /** This chat's open approval prompts. */
      approvals: ApprovalBroker;
      proposedChanges: ProposedChanges;
      store: FileSessionStore;
      /** The status bar's gauge: this chat's only while it is shown. */
      statusBar: Pick<ContextStatusBar, 'update'>;
      apiKeys: ApiKeyStore;
      logger: Logger;
      /** The redaction the log and the panel use; each session teaches it its key. */
      redactor: SecretRedactor;
      /** The when-clause keys that follow the shown chat (a turn running): this chat's events only while it is shown. */
      contextKeys: Pick<ChatContextKeys, 'onEvent'>;
      /** Where the consent to a workspace's MCP servers and hooks is remembered (the workspace's state). */
      workspaceState: vscode.Memento;
      /** Which workspace folder the chat works in (multi-root workspaces). */
      folders: ChatFolders;
      /** Evergreen's storage for what outlives a workspace's sessions: each workspace's memory folder is under it. */
      memoryRoot: string;
      /** The MCP servers' output channels, one per server name for every chat. */
      mcpLogs: McpLogChannels;
      /** The one "Show Context Breakdown" document (its file system scheme is registered once). */
      breakdownDocument: ContextBreakdownDocument;
      /** The background chat a session belongs to (its worktree's name), which the panel must not resume in the checkout. */
      backgroundChatOf: (sessionId: string) => Promise<string | undefined>;
      /** A turn starts only in a run slot (`evergreen.chats.maxRunning`): it waits here while the slots are taken. */
      runSlot: ChatRunSlot;
      /** Every event of this chat, after the panel's wording: the Chats list and the attention follow it. */
      onEvent: (event: AgentEvent) => void;
      /** The chats around this one: New Chat opens another, a resumed session opens in a chat of its own (or the one that has it). */
      chats: { newChat(): Promise<void>; openSession(sessionId: string): Promise<void> };
    },
  ) {
    super();
    this.composer = this._register(new ComposerContext((message) => this.deps.surface.post(message), this.deps.logger, () => this.deps.folders.current()));
    this.compaction = new ChatCompaction(deps.chat, () => this.postState(), () => this.focusInput());
    this.modes = new ChatModes(deps.chat, (message) => this.deps.surface.post({ type: 'notice', level: 'info', message }));
    // The built-in commands act through this chat's own actions.
    this.slash = new ChatSlashCommands({
      chat: this.deps.chat,
      store: this.deps.store,
      say: (level, message) => this.say(level, message),
      restart: (sessionId) => this.startSession(sessionId, true),
      newChat: () => this.deps.chats.newChat(),
      resumeSession: () => this.resumeSession(),
      resumeSessionById: (sessionId) => this.deps.chats.openSession(sessionId),
      compact: (focus) => this.compaction.compact(focus),
      showContextBreakdown: () => this.showContextBreakdown(),
      openMemory: () => this.openMemory(),
      modes: this.modes,
      send: (text) => this.sendMessage(text),
    });
    // Every checked request from the panel gets its reply: the handler's value, or its error in words.
    this._register(deps.surface.onMessage((request) => void answerWebviewRequest(request, (checked) => this.handleWebviewMessage(checked), (reply) => this.deps.surface.post(reply))));
    const restartLater = () => {
      this.deps.chat.needsRestart = true;
      void this.postState();
    };
    this._register(deps.apiKeys.onDidChange(restartLater));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(restartLater));
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        const effect = settingChangeEffect((section) => event.affectsConfiguration(section));
        if (effect === 'restart') restartLater();
        else if (effect === 'live') this.applyLiveSettings();
      }),
    );
  }

  override dispose(): void {
    // The window is closing: the turn is cancelled; each MCP server's group gets SIGTERM now, SIGKILL after its grace.
    this.deps.chat.dispose();
    super.dispose();
  }

  private get chat(): ChatState {
    return this.deps.chat;
  }

  /** Every request from the panel (already validated by parseWebviewMessage): its reply's value, or a throw (the error reply). */
  handleWebviewMessage<Name extends WebviewRequestName>(request: WebviewRequest<Name>): Promise<WebviewRequests[Name][1]> {
    return handleWebviewRequest(this.webviewHandlers, request);
  }

  private readonly webviewHandlers: WebviewRequestHandlers = {
    ready: () => this.showInPanel(),
    sendMessage: (request) => this.sendMessage(request.text, request.attachments),
    attachmentQuery: (request) => this.composer.options(request.query),
    commandQuery: (request) => this.commandFiles.options(request.query),
    approvalDecision: async (request) => {
      // A decision for a card already settled (answered elsewhere, or its turn cancelled) changes nothing.
      this.deps.approvals.decide(request.toolUseId, request.approved, request.always === true);
    },
    openLink: (request) => openChatLink(request.href, this.deps.folders.current(), this.deps.logger).catch((error: unknown) => this.deps.logger.error('could not open a chat link', error)),
    // Only the shown session's own folder: a resumed session's is the same folder its notes came from.
    openSavedOutput: (request) => openSavedOutput(request.file, this.chat.active?.handle.toolResultsDir, this.deps.logger).catch((error: unknown) => this.deps.logger.error('could not open a saved output', error)),
    openTranscriptAt: (request) => this.openArchivedTranscript({ compactionIndex: request.compactionIndex }),
    openSubagentTranscript: (request) => this.openArchivedTranscript({ childId: request.childId }),
    restoreCheckpoint: (request) => restoreCheckpointFromChat(this.checkpointHost(), request.checkpoint),
    editMessage: (request) => restoreCheckpointFromChat(this.checkpointHost(), request.checkpoint, 'edit'),
    runCommand: (request) => this.runWebviewCommand(request.command),
    setMode: (request) => this.modes.switchTo(request.mode),
    planDecision: (request) => this.decidePlan(request),
  };

  /** A button of this chat's page or toast: what acts on a chat acts on this one (the palette's act on the chat shown), the rest as the command. */
  private async runWebviewCommand(command: WebviewCommand): Promise<void> {
    const own: Partial<Record<WebviewCommand, () => PromiseLike<unknown> | void>> = {
      openSettings: () => vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_SECTION),
      openFolder: () => vscode.commands.executeCommand('workbench.action.files.openFolder'),
      retry: () => this.retry(),
      compactConversation: () => this.compaction.compact(),
      undoLastCompaction: () => this.compaction.undoLastCompaction(),
      showContextBreakdown: () => this.showContextBreakdown(),
      cancel: () => this.cancel(),
    };
    await (own[command] ?? (() => vscode.commands.executeCommand(`evergreen.${command}`)))();
  }

  /**
   * A message typed in the panel (or sent by the test API): settled when its turn ends; a failure
   * to start it throws. A slash command runs here (a built-in), or becomes the turn it starts (a
   * command file); an unknown one throws, so the panel gives the text back.
   */
  async sendMessage(text: string, attachments: readonly AttachmentRequest[] = []): Promise<void> {
    const catalog = await this.commandFiles.catalog();
    const plan = planSlash(text, catalog);
    if (plan.kind === 'error') throw new Error(plan.message);
    if (plan.kind === 'built-in') {
      // The panel's pending send is always settled by a fresh state.
      try {
        await this.slash.run(plan.command, catalog);
      } finally {
        await this.postState();
      }
      return;
    }
    const { chat } = this;
    if (chat.readOnly) throw new Error(chat.readOnly.reason);
    if (chat.busy) {
      this.deps.surface.post({ type: 'notice', level: 'info', message: vscode.l10n.t('Evergreen is still working on the previous message. Cancel it or wait for it to finish.') });
      return;
    }
    chat.sending = true;
    try {
      await this.inRunSlot(async () => {
        const started = await this.readySession();
        const turn = await this.slash.turnOf(plan, catalog, started);
        for (const notice of turn.notices) this.say('info', notice);
        // Gathered at send time: the selection, problems, terminal and diff as they are now; a command's references after the chips.
        const sent = chat.track(started.session.send(turn.text, undefined, await this.composer.gather([...attachments, ...turn.attachments]), turn.gate ? { gate: turn.gate } : {}));
        chat.sending = false;
        await sent;
      });
    } finally {
      chat.sending = false;
    }
  }

  /**
   * A turn runs in a run slot: while every slot is taken by other chats' turns it waits (the list
   * shows it queued, Cancel takes it out of the queue), and its slot is freed when it ends.
   */
  private async inRunSlot<T>(turn: () => Promise<T>): Promise<T> {
    await this.deps.runSlot.acquire();
    try {
      return await turn();
    } finally {
      this.deps.runSlot.release();
    }
  }

  /** The chat's session, started, or restarted on its transcript when settings, the key, trust or the mode's model changed. */
  private async readySession(): Promise<StartedSession> {
    const { chat } = this;
    const started = await chat.ensureStarted(() => this.startSession(undefined));
    if (chat.needsRestart && started.handle.transcriptWriteError) {
      // The transcript on disk is incomplete: re-resuming from it would lose what only lives in memory.
      chat.needsRestart = false;
      this.deps.surface.post({ type: 'notice', level: 'info', message: vscode.l10n.t('The changed settings apply from the next New Chat: this conversation could not be saved, so it is kept as it is.') });
    } else if (chat.needsRestart) {
      // New key, settings or trust: same transcript and history, a client, tools and instructions built afresh.
      return this.startSession(started.handle.id, true, true);
    }
    return started;
  }

  /** A plan card's Build it or Keep planning: the session switches as decided and goes on (settled when that turn ends). */
  private async decidePlan(request: WebviewRequests['planDecision'][0]): Promise<void> {
    const { chat } = this;
    if (!chat.active) throw new Error(vscode.l10n.t('This plan belongs to a chat that is no longer open; resume its session to decide on it.'));
    if (chat.busy) throw new Error(vscode.l10n.t('Evergreen is still working on the previous message. Cancel it or wait for it to finish.'));
    chat.sending = true;
    try {
      await this.inRunSlot(async () => {
        const started = await this.readySession();
        const turn = chat.track(started.session.decidePlan(request.decision, { toolUseId: request.toolUseId, ...(request.note !== undefined ? { note: request.note } : {}) }));
        chat.sending = false;
        await turn;
        // Built in a mode with a model of its own: the agent mode's model takes over from the next message.
        if (started.session.modes?.wantsOtherModel()) chat.needsRestart = true;
      });
    } finally {
      chat.sending = false;
    }
  }

  /** A line in the chat that stays when the panel reloads (a command's answer, what it could not apply, a turn a closed window stopped). */
  say(level: 'info' | 'warning', message: string): void {
    this.onAgentEvent({ type: 'customization_notice', level, message: verbatim(message) });
  }

  /** "Evergreen: Open Memory" and /memory: this workspace's memory folder. */
  openMemory(): Promise<void> {
    return openWorkspaceMemory(this.deps.memoryRoot);
  }

  /** Prices and approvals apply to the running session as they are: no new client, no lost cache. */
  private applyLiveSettings(): void {
    const { active } = this.chat;
    if (!active) return;
    active.client.setPriceOverrides(readPricing());
    active.session.setApprovalPolicy(readSettings().approvals);
    this.deps.logger.info('applied changed pricing/approval settings to the running session');
  }

  /** The Retry button of a failed turn: the conversation is sent again as it stands. */
  async retry(): Promise<void> {
    const { active } = this.chat;
    if (this.chat.busy) {
      this.deps.surface.post({ type: 'notice', level: 'info', message: vscode.l10n.t('Evergreen is still working. Cancel it or wait for it to finish.') });
      return;
    }
    if (!active || active.session.history.length === 0) {
      this.deps.surface.post({ type: 'notice', level: 'info', message: vscode.l10n.t('Nothing to retry: send a message to start.') });
      return;
    }
    this.chat.sending = true;
    try {
      await this.inRunSlot(() => {
        this.chat.sending = false;
        return this.chat.track(active.session.retry());
      });
    } finally {
      this.chat.sending = false;
    }
  }

  private async startSession(resumeId: string | undefined, keepView = false, reloadInstructions = false): Promise<StartedSession> {
    const { workspaceRoot, config } = await readSessionConfig(this.deps.apiKeys, this.deps.workspaceState, { overrides: this.chat.overrides, memoryRoot: this.deps.memoryRoot }, await this.deps.folders.forStart(resumeId));
    const scope = this.chat.beginScope((event) => this.onAgentEvent(event));
    // The same chat rebuilt (a Restore, its Undo) keeps what its tool cards showed live.
    const carried = resumeId !== undefined && resumeId === this.chat.replay.sessionId ? this.chat.replay.toolRecords() : undefined;
    if (!keepView) this.resetView();
    this.chat.needsRestart = false;
    // A new chat starts in the mode the picker shows; a resumed or restarted one goes on in its own.
    const modes = { ...config.modes, ...(resumeId === undefined ? { start: await this.modes.startMode() } : {}) };
    const started = await startAgentSession({
      config: { ...config, modes, ...(config.mcp ? { mcp: { ...config.mcp, connection: { onStderr: this.deps.mcpLogs.write } } } : {}) },
      logger: this.deps.logger,
      redactor: this.deps.redactor,
      workspaceRoot,
      store: this.deps.store,
      resumeId,
      approver: this.deps.approvals.approver,
      onEvent: scope.listener,
      ...(reloadInstructions && resumeId !== undefined ? { reloadInstructions: true } : {}),
    });
    // The previous session (its MCP servers and whatever they started, its sandbox, its lock) ends with it.
    this.chat.adopt(started);
    if (!keepView) this.chat.replay.restore(started.replay.map(wordEvent), carried);
    this.chat.replay.sessionId = started.handle.id;
    // A resumed (or restarted) session shows its context at once, not after the next message.
    this.updateGauge(started.session.context.gauge());
    showSessionStartWarnings(started);
    return started;
  }

  private resetView(): void {
    this.chat.replay.reset();
    this.deps.statusBar.update(undefined);
  }

  private onAgentEvent(core: CoreAgentEvent): void {
    // What the core says as kinds is worded here, once, for the panel (and its replay buffer), its next steps with this front end's commands.
    const worded = wordEvent(core);
    const event: AgentEvent = worded.type === 'error' && worded.errorHint ? { ...worded, hint: extensionHint(worded.errorHint) } : worded;
    this.deps.contextKeys.onEvent(event);
    if (event.type === 'context') this.updateGauge(event.gauge);
    if (event.type === 'storage_warning') void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0}', event.message));
    if (event.type === 'compaction_failed' && event.breakerOpen) this.offerActions(vscode.l10n.t('Evergreen: {0}. {1}', event.message, event.hint), event.actions);
    this.chat.replay.record(event);
    this.deps.surface.post({ type: 'agentEvent', event });
    this.deps.onEvent(event);
  }

  /** An error toast whose buttons are the core's next steps, run as the panel's buttons run them. */
  private offerActions(message: string, actions: readonly ErrorAction[]): void {
    const words = webviewStrings(); // the panel's button words, in the user's language
    void vscode.window.showErrorMessage(message, ...actions.map((action) => words[`action.${action}`])).then(async (choice) => {
      const action = actions.find((candidate) => words[`action.${candidate}`] === choice);
      if (!action) return;
      await this.runWebviewCommand(ERROR_ACTION_COMMANDS[action].command).catch((error: unknown) => this.deps.logger.error(`could not run "${choice}"`, error));
    });
  }

  private updateGauge(gauge: GaugeState): void {
    this.chat.replay.setGauge(gauge);
    this.deps.surface.post({ type: 'gauge', gauge });
    this.deps.statusBar.update(gauge);
  }

  /** The chat comes into the panel (its webview loaded, or the chat switched to): its whole state replayed, the editor's context offered. */
  async showInPanel(): Promise<void> {
    this.deps.statusBar.update(this.chat.replay.gauge);
    await this.postState();
    this.composer.postEditorContext();
  }

  private async postState(): Promise<void> {
    const { active, replay } = this.chat;
    const state: ViewState = {
      sessionId: active?.handle.id,
      model: active?.client.model ?? readSettings().model ?? defaultModelFor(readSettings().provider),
      providerLabel: PROVIDER_INFO[active?.client.provider ?? readSettings().provider].label,
      // A send still starting or queued for a run slot is busy too: its Cancel takes it back.
      status: this.chat.busy ? 'busy' : 'idle',
      // "Ready to chat": a local OpenAI-compatible server may need no key at all.
      hasApiKey: (await this.deps.apiKeys.get(readSettings().provider)) !== undefined || !apiKeyRequired(readSettings(), process.env),
      trusted: vscode.workspace.isTrusted,
      gauge: replay.gauge,
      history: [...replay.history],
      modes: await this.modes.picker(),
    };
    this.deps.surface.resetPending();
    this.deps.surface.post({ type: 'state', state });
  }

  // ---- commands ------------------------------------------------------------------------------

  async showMcpServers(): Promise<void> {
    await showMcpServers(this.chat.active?.mcp, this.deps.mcpLogs);
  }

  async showHooks(): Promise<void> {
    await showHooks(this.chat.active?.hooks);
  }

  /** "Evergreen: Switch Mode…". */
  async switchMode(): Promise<void> {
    await this.modes.pick();
  }

  cancel(): void {
    if (this.deps.runSlot.leave()) return;
    if (!this.chat.active?.session.cancel()) void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: nothing is running.'));
  }

  /** The chat shown, its message box focused (after a dialog or a notification took the focus). */
  async focusInput(): Promise<void> {
    await this.deps.surface.focusInput();
  }

  /** A divider's "transcript" link (at that compaction) or a subagent card's (that child of this session; the tab checks it exists). */
  private async openArchivedTranscript(at: { compactionIndex: number } | { childId: string }): Promise<void> {
    const sessionId = this.chat.active?.handle.id;
    if (sessionId) await vscode.commands.executeCommand('evergreen.openArchivedTranscript', { sessionId, ...at });
  }

  private checkpointHost(): CheckpointRestoreHost {
    return {
      active: () => this.chat.active,
      busy: () => this.chat.busy,
      userTextOf: (checkpoint) => this.chat.replay.userTextOf(checkpoint),
      rebuild: (sessionId) => this.resumeSessionById(sessionId),
      setComposer: (text) => this.deps.surface.post({ type: 'composerText', text }),
      focusInput: () => this.focusInput(),
      diffs: this.deps.proposedChanges,
      logger: this.deps.logger,
    };
  }

  /** "Reload Instructions": the open chat rebuilt on its transcript with the files read again (one cache rewrite). */
  async reloadInstructionsNow(): Promise<Outcome> {
    await this.chat.startSettled();
    const { active } = this.chat;
    const refused = reloadRefusal(active, this.chat.sending);
    if (refused || !active) return refused ?? { ok: true, message: noChatToReload() };
    try {
      const started = await this.startSession(active.handle.id, true, true);
      await this.postState();
      return reloadedOutcome(started);
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }

  async showContextBreakdown(): Promise<void> {
    await this.deps.breakdownDocument.showFor(this.chat.active);
  }

  async resumeSession(): Promise<void> {
    const openId = this.chat.active?.handle.id;
    // The open chat's title and counts may still be on their way to disk: the list reads them there.
    await this.chat.active?.handle.flushMeta();
    const sessionId = await pickSession(this.deps.store, vscode.l10n.t('Resume which session?'), openId);
    // The chat already open is shown, not restarted (a restart would re-read its instructions); another opens in a chat of its own.
    if (sessionId && sessionId === openId) await this.deps.surface.reveal();
    else if (sessionId) await this.deps.chats.openSession(sessionId);
  }

  /** Resume in this chat, in place of its session, without the picker (chats.ts opens a resumed session in a chat; a checkpoint rebuilds the same one). */
  async resumeSessionById(sessionId: string, reveal = true): Promise<void> {
    if (await refusedBackgroundResume(this.deps.backgroundChatOf, sessionId)) return;
    // Another chat runs with the settings again; the same one (a checkpoint's rebuild) keeps its /model and /thinking.
    if (sessionId !== this.chat.active?.handle.id) this.chat.overrides = {};
    await this.chat.stopTurn();
    await this.chat.startSettled();
    this.chat.close();
    try {
      await this.startSession(sessionId);
      await this.postState();
      if (reveal) await this.deps.surface.reveal();
    } catch (error) {
      // The old chat is closed: the panel must not keep showing it as if it were still live.
      this.chat.close();
      this.resetView();
      await this.postState();
      this.deps.logger.error(`could not resume session ${sessionId}`, error);
      void vscode.window.showErrorMessage(vscode.l10n.t('Evergreen could not resume the session: {0} The transcript is unchanged; try Resume Session again or start a New Chat.', errorText(error)));
    }
  }
}

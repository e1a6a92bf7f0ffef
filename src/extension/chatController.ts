import * as vscode from 'vscode';
import { ERROR_ACTION_COMMANDS, type AgentEvent, type ErrorAction, type GaugeState, type ViewState, type WebviewCommand, type WebviewRequest, type WebviewRequestName, type WebviewRequests, type AttachmentRequest } from '../protocol';
import { parseCompactCommand } from '../core/agent/compactCommand';
import { startAgentSession, type StartedSession } from '../core/agent/factory';
import { NO_CHAT_TO_RELOAD, reloadedOutcome, reloadRefusal, type Outcome } from './instructionsReload';
import type { Logger } from '../core/logger';
import type { SecretRedactor } from '../core/secrets';
import { PROVIDER_INFO } from '../core/model/backend';
import { defaultModelFor } from '../core/model/models';
import { settingName, SETTINGS_SECTION } from '../frontends/settingsTable';
import { FileSessionStore } from '../core/storage/sessionStore';
import type { ApiKeyStore } from './apiKey';
import { ApprovalBroker } from './approvalBroker';
import type { ChatViewProvider } from './chatViewProvider';
import { ContextBreakdownDocument } from './contextBreakdownDocument';
import { Disposable } from './disposable';
import { errorText, extensionHint } from './errorHints';
import { openChatLink, openSavedOutput } from './links';
import { SessionScope } from './sessionScope';
import { settingChangeEffect } from './settingChanges';
import { ProposedChanges } from './proposedChanges';
import { pickSession } from './sessionPicker';
import { readSessionConfig, readPricing } from './sessionConfig';
import { readSettings } from './settings';
import { apiKeyRequired } from './settingsValues';
import type { ContextStatusBar } from './statusBar';
import { McpLogChannels, showMcpServers } from './mcpServers';
import { restoreCheckpointFromChat, type CheckpointRestoreHost } from './checkpointRestore';
import { askCompactFocus, withCancellableProgress } from './compactDialog';
import { ComposerContext } from './composerContext';
import { ChatContextKeys } from './contextKeys';
import { handleWebviewRequest, type WebviewRequestHandlers } from './webviewRequests';

/**
 * Adapts the core agent to VS Code: settings, secrets, trust and the webview. Holds no agent
 * logic — it starts sessions, forwards their events and answers the user's commands.
 */
export class ChatController extends Disposable {
  private readonly store: FileSessionStore;
  private readonly proposedChanges: ProposedChanges;
  private readonly mcpLogs: McpLogChannels;
  private readonly breakdownDocument: ContextBreakdownDocument;
  private readonly composer: ComposerContext;
  private readonly contextKeys: ChatContextKeys;
  private current: StartedSession | undefined;
  private starting: Promise<StartedSession> | undefined;
  private events: AgentEvent[] = [];
  private gauge: GaugeState | undefined;
  private readonly approvals: ApprovalBroker;
  /** The shown session's scope: a new one for every session start, so old events are dropped. */
  private scope: SessionScope | undefined;
  /** A send is between the user's Enter and the turn's start (session start, model info). */
  private sending = false;
  /** Key, settings or trust changed: the next message restarts the session on its own transcript. */
  private needsRestart = false;

  constructor(
    private readonly deps: {
      view: ChatViewProvider;
      statusBar: ContextStatusBar;
      apiKeys: ApiKeyStore;
      storageRoot: vscode.Uri;
      extensionUri: vscode.Uri;
      logger: Logger;
      /** The redaction the log and the panel use; each session teaches it its key. */
      redactor: SecretRedactor;
      /** Where the consent to a workspace's MCP servers is remembered (the workspace's state). */
      workspaceState: vscode.Memento;
    },
  ) {
    super();
    this.contextKeys = new ChatContextKeys((key, value) => vscode.commands.executeCommand('setContext', key, value), deps.logger);
    this.store = new FileSessionStore(deps.storageRoot.fsPath, undefined, deps.logger);
    this.proposedChanges = this._register(new ProposedChanges());
    this.mcpLogs = this._register(new McpLogChannels());
    this.approvals = this._register(
      new ApprovalBroker({
        logger: deps.logger,
        show: async (request) => {
          void this.deps.view.reveal();
          // Writes also open in the diff editor, the way VS Code users review changes.
          if (request.kind !== 'write' || !request.absolutePath || request.newContent === undefined) return undefined;
          return this.proposedChanges.show(request.absolutePath, request.path, request.newContent, request.isNew);
        },
      }),
    );
    this.breakdownDocument = this._register(new ContextBreakdownDocument());
    this.composer = this._register(new ComposerContext((message) => this.deps.view.post(message), this.deps.logger));
    this._register(deps.view.handleRequests((request) => this.handleWebviewMessage(request)));
    const restartLater = () => {
      this.needsRestart = true;
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

  /** The panel's conversation; changing it keeps the `evergreen.chatActive` context key true to it. */
  private get active(): StartedSession | undefined {
    return this.current;
  }

  private set active(started: StartedSession | undefined) {
    this.current = started;
    this.contextKeys.chatChanged(started !== undefined);
  }

  override dispose(): void {
    this.active?.session.cancel();
    this.active?.handle.close();
    // The window is closing: each MCP server's group gets SIGTERM now, SIGKILL after its grace.
    void this.active?.mcp?.stopAll();
    super.dispose();
  }

  /** Every request from the panel (already validated by parseWebviewMessage): its reply's value, or a throw (the error reply). */
  handleWebviewMessage<Name extends WebviewRequestName>(request: WebviewRequest<Name>): Promise<WebviewRequests[Name][1]> {
    return handleWebviewRequest(this.webviewHandlers, request);
  }

  private readonly webviewHandlers: WebviewRequestHandlers = {
    ready: async () => {
      await this.postState();
      this.composer.postEditorContext();
    },
    sendMessage: (request) => this.sendMessage(request.text, request.attachments),
    attachmentQuery: (request) => this.composer.options(request.query),
    approvalDecision: async (request) => {
      // A decision for a card already settled (answered elsewhere, or its turn cancelled) changes nothing.
      this.approvals.decide(request.toolUseId, request.approved, request.always === true);
    },
    openLink: (request) => openChatLink(request.href, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, this.deps.logger).catch((error: unknown) => this.deps.logger.error('could not open a chat link', error)),
    // Only the shown session's own folder: a resumed session's is the same folder its notes came from.
    openSavedOutput: (request) => openSavedOutput(request.file, this.active?.handle.toolResultsDir, this.deps.logger).catch((error: unknown) => this.deps.logger.error('could not open a saved output', error)),
    openTranscriptAt: (request) => this.openArchivedTranscript({ compactionIndex: request.compactionIndex }),
    openSubagentTranscript: (request) => this.openArchivedTranscript({ childId: request.childId }),
    restoreCheckpoint: (request) => restoreCheckpointFromChat(this.checkpointHost(), request.checkpoint),
    editMessage: (request) => restoreCheckpointFromChat(this.checkpointHost(), request.checkpoint, 'edit'),
    runCommand: (request) => this.runWebviewCommand(request.command),
  };

  private async runWebviewCommand(command: WebviewCommand): Promise<void> {
    if (command === 'openSettings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_SECTION);
    } else if (command === 'openFolder') {
      await vscode.commands.executeCommand('workbench.action.files.openFolder');
    } else if (command === 'retry') {
      await this.retry();
    } else {
      await vscode.commands.executeCommand(`evergreen.${command}`);
    }
  }

  /** A message typed in the panel (or sent by the test API): settled when its turn ends; a failure to start it throws. */
  async sendMessage(text: string, attachments: readonly AttachmentRequest[] = []): Promise<void> {
    const compact = parseCompactCommand(text);
    if (compact) {
      // Typed in the chat: the focus (possibly none) is already given, no input box; the panel's
      // pending send is always settled by a fresh state.
      try {
        await this.compact(compact.focus ?? '');
      } finally {
        await this.postState();
      }
      return;
    }
    if (this.sending || this.active?.session.busy) {
      this.deps.view.post({ type: 'notice', level: 'info', message: 'Evergreen is still working on the previous message. Cancel it or wait for it to finish.' });
      return;
    }
    this.sending = true;
    try {
      let started = await this.ensureSession();
      if (this.needsRestart && started.handle.transcriptWriteError) {
        // The transcript on disk is incomplete: re-resuming from it would lose what only lives in memory.
        this.needsRestart = false;
        this.deps.view.post({ type: 'notice', level: 'info', message: 'The changed settings apply from the next New Chat: this conversation could not be saved, so it is kept as it is.' });
      } else if (this.needsRestart) {
        // New key, settings or trust: same transcript and history, a client, tools and instructions built afresh.
        started = await this.startSession(started.handle.id, true, true);
      }
      // Gathered at send time: the selection, problems, terminal and diff as they are now.
      const turn = started.session.send(text, undefined, await this.composer.gather(attachments));
      this.scope?.track(turn);
      this.sending = false;
      await turn;
    } finally {
      this.sending = false;
    }
  }

  /** Prices and approvals apply to the running session as they are: no new client, no lost cache. */
  private applyLiveSettings(): void {
    if (!this.active) return;
    this.active.client.setPriceOverrides(readPricing());
    this.active.session.setApprovalPolicy(readSettings().approvals);
    this.deps.logger.info('applied changed pricing/approval settings to the running session');
  }

  /** The Retry button of a failed turn: the conversation is sent again as it stands. */
  async retry(): Promise<void> {
    if (this.sending || this.active?.session.busy) {
      this.deps.view.post({ type: 'notice', level: 'info', message: 'Evergreen is still working. Cancel it or wait for it to finish.' });
      return;
    }
    if (!this.active || this.active.session.history.length === 0) {
      this.deps.view.post({ type: 'notice', level: 'info', message: 'Nothing to retry: send a message to start.' });
      return;
    }
    const turn = this.active.session.retry();
    this.scope?.track(turn);
    await turn;
  }

  private ensureSession(): Promise<StartedSession> {
    if (this.active) return Promise.resolve(this.active);
    this.starting ??= this.startSession(undefined).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Stops the running turn (if any) and waits for it, so its last events land before a switch. */
  private async stopCurrentTurn(): Promise<void> {
    if (this.active?.session.cancel()) await this.scope?.settled();
  }

  private async startSession(resumeId: string | undefined, keepView = false, reloadInstructions = false): Promise<StartedSession> {
    const { workspaceRoot, config } = await readSessionConfig(this.deps.apiKeys, this.deps.workspaceState);
    this.scope?.end();
    const scope = (this.scope = new SessionScope((event) => this.onAgentEvent(event)));
    if (!keepView) this.resetView();
    this.needsRestart = false;
    const started = await startAgentSession({
      config: config.mcp ? { ...config, mcp: { ...config.mcp, connection: { onStderr: this.mcpLogs.write } } } : config,
      logger: this.deps.logger,
      redactor: this.deps.redactor,
      workspaceRoot,
      store: this.store,
      resumeId,
      approver: this.approvals.approver,
      onEvent: scope.listener,
      ...(reloadInstructions && resumeId !== undefined ? { reloadInstructions: true } : {}),
    });
    if (this.active && this.active.handle.id !== started.handle.id) this.active.handle.close();
    // The previous session's MCP servers (and whatever they started) end with it.
    if (this.active && this.active !== started) void this.active.mcp?.stopAll();
    this.active = started;
    if (!keepView) this.events.push(...started.replay);
    // A resumed (or restarted) session shows its context at once, not after the next message.
    this.updateGauge(started.session.context.gauge());
    const modelInfoWarning = started.client.modelInfoWarning;
    if (modelInfoWarning) {
      void vscode.window.showWarningMessage(`Evergreen: ${modelInfoWarning} Using a context window of ${started.window.toLocaleString('en-US')} tokens; set "${settingName('contextWindow')}" if it differs.`, 'Open Settings').then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', settingName('contextWindow'));
      });
    }
    if (started.transcriptProblems.length > 0) {
      const lines = started.transcriptProblems.map((problem) => problem.line).join(', ');
      void vscode.window.showWarningMessage(`Evergreen: ${started.transcriptProblems.length} unreadable line(s) of this session's transcript were skipped (line ${lines}); the rest of the conversation was restored.`);
    }
    return started;
  }

  private resetView(): void {
    this.events = [];
    this.gauge = undefined;
    this.deps.statusBar.update(undefined);
  }

  private onAgentEvent(core: AgentEvent): void {
    // A next step the core gives as a kind is worded here, once, for the panel (and its replay buffer).
    const event: AgentEvent = core.type === 'error' && core.errorHint ? { ...core, hint: extensionHint(core.errorHint) } : core;
    this.contextKeys.onEvent(event);
    if (event.type === 'context') this.updateGauge(event.gauge);
    if (event.type === 'storage_warning') void vscode.window.showWarningMessage(`Evergreen: ${event.message}`);
    if (event.type === 'compaction_failed' && event.breakerOpen) this.offerActions(`Evergreen: ${event.message}. ${event.hint}`, event.actions);
    // Consecutive text (or thinking) deltas are merged so a long session's replay buffer stays small.
    const last = this.events.at(-1);
    if ((event.type === 'text_delta' || event.type === 'thinking_delta') && last?.type === event.type && last.turnId === event.turnId) {
      this.events[this.events.length - 1] = { ...last, text: last.text + event.text };
    } else if (event.type === 'context') {
      // Gauge updates are state, not history: only the newest matters (sent as 'gauge').
    } else if (event.type !== 'tool_call_progress' && event.type !== 'subagent_progress') {
      // Streamed output and a subagent's running figures are live only: the finish carries what stays.
      this.events.push(event);
    }
    this.deps.view.post({ type: 'agentEvent', event });
  }

  /** An error toast whose buttons are the core's next steps, run as the panel's buttons run them. */
  private offerActions(message: string, actions: readonly ErrorAction[]): void {
    const labels = actions.map((action) => ERROR_ACTION_COMMANDS[action].label);
    void vscode.window.showErrorMessage(message, ...labels).then(async (choice) => {
      const action = actions.find((candidate) => ERROR_ACTION_COMMANDS[candidate].label === choice);
      if (!action) return;
      await this.runWebviewCommand(ERROR_ACTION_COMMANDS[action].command).catch((error: unknown) => this.deps.logger.error(`could not run "${choice}"`, error));
    });
  }

  private updateGauge(gauge: GaugeState): void {
    this.gauge = gauge;
    this.deps.view.post({ type: 'gauge', gauge: this.gauge });
    this.deps.statusBar.update(this.gauge);
  }

  private async postState(): Promise<void> {
    const state: ViewState = {
      sessionId: this.active?.handle.id,
      model: this.active?.client.model ?? readSettings().model ?? defaultModelFor(readSettings().provider),
      providerLabel: PROVIDER_INFO[this.active?.client.provider ?? readSettings().provider].label,
      status: this.active?.session.busy ? 'busy' : 'idle',
      // "Ready to chat": a local OpenAI-compatible server may need no key at all.
      hasApiKey: (await this.deps.apiKeys.get(readSettings().provider)) !== undefined || !apiKeyRequired(readSettings(), process.env),
      trusted: vscode.workspace.isTrusted,
      gauge: this.gauge,
      history: this.events,
    };
    this.deps.view.resetPending();
    this.deps.view.post({ type: 'state', state });
  }

  // ---- commands ------------------------------------------------------------------------------

  async showMcpServers(): Promise<void> {
    await showMcpServers(this.active?.mcp, this.mcpLogs);
  }

  async newChat(): Promise<void> {
    if (this.active?.session.busy) {
      const choice = await vscode.window.showWarningMessage('Evergreen is still working. Stop it and start a new chat?', 'Stop and Start New');
      if (!choice) return;
      await this.stopCurrentTurn();
    }
    // A session still starting would otherwise become active after the switch, its turn invisible.
    await this.starting?.catch(() => undefined);
    this.scope?.end();
    this.scope = undefined;
    this.closeActive();
    this.resetView();
    await this.postState();
    await this.deps.view.reveal();
  }

  /** Closes the chat's transcript and stops its MCP servers (and whatever they started): a chat left behind keeps no process. */
  private closeActive(): void {
    this.active?.handle.close();
    void this.active?.mcp?.stopAll();
    this.active = undefined;
  }

  cancel(): void {
    if (!this.active?.session.cancel()) {
      void vscode.window.showInformationMessage('Evergreen: nothing is running.');
    }
  }

  /** "Compact Conversation": asks for optional focus instructions (unless given; '' = none), then compacts with progress. */
  async compact(focus?: string): Promise<void> {
    if (!this.active || this.active.session.history.length === 0) {
      void vscode.window.showInformationMessage('Evergreen: nothing to compact yet. Start a chat in the Evergreen view first.');
      return;
    }
    if (this.active.session.busy) {
      void vscode.window.showInformationMessage('Evergreen is working; it compacts by itself when the context fills up. Cancel or wait, then compact.');
      return;
    }
    // From the palette or the gauge: first say what it will do, then ask for the focus.
    const chosen = focus === undefined ? await askCompactFocus(this.active.session) : { focus: focus || undefined };
    if (!chosen) return;
    const outcome = await withCancellableProgress('Evergreen: compacting the conversation…', (signal) => this.compactNow(chosen.focus, signal));
    if (outcome.ok) void vscode.window.showInformationMessage(`Evergreen: ${outcome.message}`);
    else void vscode.window.showWarningMessage(`Evergreen: ${outcome.message}`);
  }

  /** Compaction without UI prompts (the command's core; also the API the integration tests use). */
  async compactNow(focus?: string, signal?: AbortSignal): Promise<{ ok: boolean; message: string }> {
    if (!this.active) return { ok: false, message: 'Nothing to compact yet: no conversation is open.' };
    try {
      const outcome = await this.active.session.compact(focus, signal);
      await this.postState();
      return outcome;
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }

  /** "Undo Last Compaction" (command and the divider's Undo button): says how it went. */
  async undoLastCompaction(): Promise<void> {
    const outcome = await this.undoCompactionNow();
    if (outcome.ok) void vscode.window.showInformationMessage(`Evergreen: ${outcome.message}`);
    else void vscode.window.showWarningMessage(`Evergreen: ${outcome.message}`);
  }

  /** The undo without UI (the command's core; also the API the integration tests use). */
  async undoCompactionNow(): Promise<{ ok: boolean; message: string }> {
    if (!this.active) return { ok: false, message: 'Nothing to undo: no conversation is open.' };
    try {
      const outcome = await this.active.session.undoLastCompaction();
      if (outcome.ok) await this.postState();
      return outcome;
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }

  /** A divider's "transcript" link (at that compaction) or a subagent card's (that child of this session; the tab checks it exists). */
  private async openArchivedTranscript(at: { compactionIndex: number } | { childId: string }): Promise<void> {
    const sessionId = this.active?.handle.id;
    if (sessionId) await vscode.commands.executeCommand('evergreen.openArchivedTranscript', { sessionId, ...at });
  }

  private checkpointHost(): CheckpointRestoreHost {
    return {
      active: () => this.active,
      busy: () => this.sending || this.active?.session.busy === true,
      userTextOf: (checkpoint) => this.events.flatMap((event) => (event.type === 'turn_started' && event.checkpoint === checkpoint ? [event.userText] : []))[0],
      rebuild: (sessionId) => this.resumeSessionById(sessionId),
      setComposer: (text) => this.deps.view.post({ type: 'composerText', text }),
      diffs: this.proposedChanges,
      logger: this.deps.logger,
    };
  }

  /** The event types the chat shows, in order (what a re-created panel replays). */
  chatEventTypes(): string[] {
    return this.events.map((event) => event.type);
  }

  /** The tool call waiting for the user's approval, if any. */
  pendingApprovalToolUseId(): string | undefined {
    return this.approvals.waiting()[0];
  }

  contextState(): { sessionId: string | undefined; usedTokens: number | undefined; window: number | undefined; tooltip: string | undefined } {
    return { sessionId: this.active?.handle.id, usedTokens: this.gauge?.usedTokens, window: this.gauge?.window, tooltip: this.gauge?.reading.tooltip };
  }

  /** "Reload Instructions": the open chat rebuilt on its transcript with the files read again (one cache rewrite). */
  async reloadInstructionsNow(): Promise<Outcome> {
    await this.starting?.catch(() => undefined);
    const refused = reloadRefusal(this.active, this.sending);
    if (refused || !this.active) return refused ?? { ok: true, message: NO_CHAT_TO_RELOAD };
    try {
      const started = await this.startSession(this.active.handle.id, true, true);
      await this.postState();
      return reloadedOutcome(started);
    } catch (error) {
      return { ok: false, message: errorText(error) };
    }
  }

  async showContextBreakdown(): Promise<void> {
    await this.breakdownDocument.showFor(this.active);
  }

  async resumeSession(): Promise<void> {
    const sessionId = await pickSession(this.store, 'Resume which session?');
    if (sessionId) await this.resumeSessionById(sessionId);
  }

  /** Resume without the picker (the command's core; also the test API). */
  async resumeSessionById(sessionId: string): Promise<void> {
    await this.stopCurrentTurn();
    await this.starting?.catch(() => undefined);
    this.closeActive();
    try {
      this.active = await this.startSession(sessionId);
      await this.postState();
      await this.deps.view.reveal();
    } catch (error) {
      // The old chat is closed: the panel must not keep showing it as if it were still live.
      this.scope?.end();
      this.scope = undefined;
      this.resetView();
      await this.postState();
      this.deps.logger.error(`could not resume session ${sessionId}`, error);
      void vscode.window.showErrorMessage(`Evergreen could not resume the session: ${errorText(error)} The transcript is unchanged; try Resume Session again or start a New Chat.`);
    }
  }
}

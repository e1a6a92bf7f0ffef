/**
 * Hooks in a session (issue 29): where each event fires and what its outcome does. The hooks core
 * (src/core/hooks) loads, sorts, runs and decides; this module is the session's side of it:
 *
 * - every run is a `hook_run` event (the chat's small line), recorded in the transcript so a resumed
 *   chat shows it, with its whole output saved where tier 0 saves tool outputs;
 * - every notice is a `hook_notice` event, recorded too; nothing a hook does stops the session;
 * - what a hook adds for the model goes through tier 0 and into a recorded message as a hook note
 *   (hooks/notes.ts), so the gauge counts it and a resume sends the same;
 * - the session calls in at its places: a session's start and end, a prompt, a call (round.ts), the
 *   end of a turn, a compaction (the engine's `compactionHooks`), an approval, an idle chat.
 *
 * A subagent's session gets `forSubagent`: the same hooks (and the chat's turned-off ones), its
 * PreToolUse and PostToolUse with `agent_id`, SubagentStop in place of Stop, and no SessionStart,
 * UserPromptSubmit, SessionEnd or idle notification (those are the chat's).
 */
import * as path from 'node:path';
import { userText, userTextForLog, type UserText } from '../texts/userText';
import type { CompactionHooks } from '../context/engineTypes';
import { writeNew } from '../context/tier0';
import { errorMessage, type Logger } from '../logger';
import type { ContentBlockParam } from '../model/messages';
import type { ToolUseBlock } from '../model/content';
import type { ApprovalDecision, ApprovalRequest } from '../approvals/approval';
import type { CommandSandbox } from '../shell/commandSandbox';
import type { CompactionTrigger } from '../storage/transcript';
import { decideHookOutcome, hooksFor, runHooks, type ConfiguredHook, type HookCall, type HookOutcomeFor, type HookSession, type HookText } from '../hooks';
import type { HookRunRecord } from '../hooks/decisions';
import { runView, savedRunText, type HookRecordName } from './hookRuns';
import type { HookAgent, HookEventName, NotificationType, SessionEndReason, SessionStartSource } from '../hooks/events';
import { hookNoteText } from '../hooks/notes';
import type { TreeContainment } from '../shell/processTree';
import type { AgentEvent } from './events';
import type { SecretRedactor } from '../secrets';
import type { SessionHandle } from '../storage/sessionStore';
import type { StartScope } from './startScope';

/** Tier 0, lent by the session: a hook's text as the history will hold it. */
export type HookTier0 = (input: { toolUseId: string; toolName: string; content: string }) => Promise<string>;

/** Where a hook fires from: its turn (for the chat) and the signal that cancels it with the turn. */
export interface HookSite {
  turnId?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface SessionHooksOptions {
  /** The hooks that may run: the user's, and the workspace's the user consented to. */
  hooks: readonly ConfiguredHook[];
  session: HookSession;
  /** The session's OS sandbox: workspace hooks run only in it. */
  sandbox?: Pick<CommandSandbox, 'wrap'> | undefined;
  /** The environment hooks start from (default process.env; provider keys are removed). */
  env?: NodeJS.ProcessEnv | undefined;
  emit(event: AgentEvent): void;
  /** The session's transcript (runs and notices are recorded) and its tool-results folder (outputs are saved). */
  store?: { append: (entry: { type: 'event'; ts: string; name: HookRecordName; data: Record<string, unknown> }) => void; readonly toolResultsDir: string } | undefined;
  logger: Logger;
  /** The session's redaction: what a hook wrote is redacted before it is shown, saved or sent. */
  redact?: <T>(value: T) => T;
  /** In a subagent: which one (its tool calls carry it; its Stop is SubagentStop). */
  agent?: (HookAgent & { transcriptPath: string }) | undefined;
  now?: () => number;
  /** Test seam: force the process-group fallback. */
  containment?: TreeContainment;
}

/** What a PreToolUse gate decided for a call: refused (the model reads why), or run, maybe already allowed. */
export type CallGate = { refusal: string } | { preApproved: boolean };

/** What round.ts needs of the hooks around each call. */
export interface CallHooks {
  beforeCall(call: { turnId: string; toolUse: ToolUseBlock; signal: AbortSignal; approve: (request: ApprovalRequest) => Promise<ApprovalDecision> }): Promise<CallGate>;
  afterCall(call: { turnId: string; toolUse: ToolUseBlock; result: { content: string; isError: boolean }; signal: AbortSignal }): Promise<void>;
}

const HOOK_TRIGGER = (trigger: CompactionTrigger): 'manual' | 'auto' => (trigger === 'manual' ? 'manual' : 'auto');
const reasonsOf = (texts: readonly HookText[]): string => texts.map((text) => text.text).join('\n');


export class SessionHooks implements CallHooks {
  /** The hooks turned off for this chat ("Evergreen: Hooks"), by consent key; shared with its subagents. */
  private readonly off: Set<string>;
  /** Text for the model waiting for the next place a message carries it (SessionStart's, PreToolUse's, PostToolUse's). */
  private pending: { event: HookEventName; text: HookText }[] = [];
  /** A hook asked (`continue: false`) to end the turn; the session ends it after the round. */
  private stopAsked: HookText | undefined;
  /** Notifications run in the background; a close waits for them (each within its timeout). */
  private readonly background = new Set<Promise<unknown>>();
  private ended: Promise<void> | undefined;
  /** SessionStart ran: only a session that began has a SessionEnd (a start that failed before it has none). */
  private began = false;
  private notes = 0;

  constructor(
    private readonly options: SessionHooksOptions,
    off?: Set<string>,
  ) {
    this.off = off ?? new Set();
  }

  /** The same hooks for a subagent: its events, its transcript, its identity. */
  forSubagent(agent: HookAgent & { transcriptPath: string }, parts: Pick<SessionHooksOptions, 'emit' | 'store'>): SessionHooks {
    return new SessionHooks({ ...this.options, ...parts, agent }, this.off);
  }

  /** Every hook of the session with whether it runs in this chat. */
  list(): { hook: ConfiguredHook; on: boolean }[] {
    return this.options.hooks.map((hook) => ({ hook, on: !this.off.has(hook.consentKey) }));
  }

  /** Turns a hook off (or back on) for this chat; a New Chat has them all on again. */
  setOn(consentKey: string, on: boolean): void {
    if (on) this.off.delete(consentKey);
    else this.off.add(consentKey);
  }

  private get inSubagent(): boolean {
    return this.options.agent !== undefined;
  }

  /** Runs an event's hooks, shows and records what they did, and returns the outcome (redacted). Never throws. */
  async fire<C extends HookCall>(call: C, site: HookSite): Promise<HookOutcomeFor<C['event']>> {
    const active = this.options.hooks.filter((hook) => !this.off.has(hook.consentKey));
    if (hooksFor(active, call).length === 0) return decideHookOutcome(call, []);
    let outcome: HookOutcomeFor<C['event']>;
    try {
      outcome = await runHooks(active, call, {
        session: this.options.session,
        ...(site.signal ? { signal: site.signal } : {}),
        ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
        ...(this.options.env ? { env: this.options.env } : {}),
        ...(this.options.containment ? { containment: this.options.containment } : {}),
      });
    } catch (error) {
      // runHooks never throws by design; should it, the session goes on as if no hook had run.
      this.options.logger.error(`the ${call.event} hooks failed`, error);
      this.notice('warning', userText('hooks.couldNotRun', { event: call.event, error: errorMessage(error) }), site.turnId);
      return decideHookOutcome(call, []);
    }
    const redacted = this.options.redact ? this.options.redact(outcome) : outcome;
    await this.report(redacted, site.turnId);
    return redacted;
  }

  private async report(outcome: { records: readonly HookRunRecord[]; notices: readonly { level: 'warning' | 'info'; message: UserText }[] }, turnId: string | undefined): Promise<void> {
    for (const record of outcome.records) {
      const view = runView(record, await this.saveOutput(record));
      this.record('hook_run', { run: view });
      this.options.emit({ type: 'hook_run', ...(turnId ? { turnId } : {}), run: view });
    }
    for (const notice of outcome.notices) this.notice(notice.level, notice.message, turnId);
  }

  /** A notice for the user, recorded so a resumed chat shows it where it was. */
  notice(level: 'warning' | 'info', message: UserText, turnId: string | undefined): void {
    if (level === 'warning') this.options.logger.warn(userTextForLog(message));
    this.record('hook_notice', { level, message });
    this.options.emit({ type: 'hook_notice', ...(turnId ? { turnId } : {}), level, message });
  }

  private record(name: HookRecordName, data: Record<string, unknown>): void {
    this.options.store?.append({ type: 'event', ts: new Date(this.options.now?.() ?? Date.now()).toISOString(), name, data });
  }

  /** The run's whole output, next to the tool outputs; none when it wrote nothing or asked not to be shown. */
  private async saveOutput(record: HookRunRecord): Promise<string | undefined> {
    const dir = this.options.store?.toolResultsDir;
    if (!dir || record.suppressOutput || (record.stdout === '' && record.stderr === '')) return undefined;
    try {
      return await writeNew(dir, `hook-${record.event}`, savedRunText(record));
    } catch (error) {
      this.options.logger.error(`could not save the output of the ${record.event} hook "${record.command}" in ${path.basename(dir)}`, error);
      return undefined;
    }
  }

  // ---- the session's places -------------------------------------------------------------------

  /** SessionStart (a new chat, a resume, after a compaction): its text rides with the next message. */
  async start(source: SessionStartSource, site: HookSite = {}, model?: string): Promise<void> {
    if (this.inSubagent) return;
    this.began = true;
    const outcome = await this.fire({ event: 'SessionStart', source, ...(model === undefined ? {} : { model }) }, site);
    this.queue('SessionStart', outcome.context);
  }

  /**
   * UserPromptSubmit, before the prompt is recorded: blocked (the user reads why and what to do; nothing is sent),
   * or the notes that go before the prompt (what waited: SessionStart's) and after it (this hook's).
   */
  async beforePrompt(prompt: string, turnId: string, signal: AbortSignal, tier0: HookTier0): Promise<{ blocked: { message: UserText; hint: UserText } } | { before: ContentBlockParam[]; after: ContentBlockParam[] }> {
    if (this.inSubagent) return { before: await this.takeNotes(turnId, tier0), after: [] };
    const outcome = await this.fire({ event: 'UserPromptSubmit', prompt }, { turnId, signal });
    // A blocked prompt is not sent: what waited for it waits for the next one.
    if (outcome.blockedBy.length > 0) return { blocked: { message: userText('hooks.promptBlocked', { reasons: reasonsOf(outcome.blockedBy) }), hint: userText('hooks.promptBlockedHint', {}) } };
    return { before: await this.takeNotes(turnId, tier0), after: await this.notesFor('UserPromptSubmit', outcome.context, turnId, tier0) };
  }

  /** PreToolUse: deny is the call's refusal, ask an approval, allow no prompt (decidePreApproved). */
  async beforeCall(call: { turnId: string; toolUse: ToolUseBlock; signal: AbortSignal; approve: (request: ApprovalRequest) => Promise<ApprovalDecision> }): Promise<CallGate> {
    const { toolUse } = call;
    const outcome = await this.fire({ event: 'PreToolUse', toolName: toolUse.name, toolInput: toolUse.input, toolUseId: toolUse.id, ...this.agentField() }, call);
    this.queue('PreToolUse', outcome.context);
    if (outcome.stop) {
      this.stopAsked ??= outcome.stop;
      return { refusal: `Not run: a hook stopped the agent (${outcome.stop.text}).` };
    }
    const permission = outcome.permission;
    if (!permission) return { preApproved: false };
    if (permission.decision === 'deny') return { refusal: `Blocked by a PreToolUse hook: ${reasonsOf(permission.reasons) || 'no reason given'}` };
    if (permission.decision === 'allow') return { preApproved: true };
    const decision = await call.approve({ kind: 'hook', tool: toolUse.name, input: JSON.stringify(toolUse.input, null, 2), reasons: permission.reasons.map((reason) => reason.text) });
    if (decision.approved) return { preApproved: true };
    return { refusal: `Not run: a hook asked the user about this call and the user declined it.${decision.reason ? ` ${decision.reason}` : ''}` };
  }

  /** PostToolUse, after tier 0: its feedback and context ride after the round's results. */
  async afterCall(call: { turnId: string; toolUse: ToolUseBlock; result: { content: string; isError: boolean }; signal: AbortSignal }): Promise<void> {
    const { toolUse } = call;
    const outcome = await this.fire({ event: 'PostToolUse', toolName: toolUse.name, toolInput: toolUse.input, toolUseId: toolUse.id, result: call.result, ...this.agentField() }, call);
    this.queue('PostToolUse', [...outcome.feedback, ...outcome.context]);
    if (outcome.stop) this.stopAsked ??= outcome.stop;
  }

  private agentField(): { agent?: HookAgent } {
    const agent = this.options.agent;
    return agent ? { agent: { id: agent.id, type: agent.type } } : {};
  }

  /** A hook asked to end the turn (continue: false): the reason, once; the session ends the turn after the round. */
  takeStop(turnId: string): string | undefined {
    const stop = this.stopAsked;
    this.stopAsked = undefined;
    if (!stop) return undefined;
    this.notice('info', userText('hooks.endedTurn', { reason: stop.text }), turnId);
    return stop.text;
  }

  /**
   * Stop (or SubagentStop) when the model ends its turn: the notes to go on with (a hook blocked
   * the stop), or undefined to stop. `continuations`: how often hooks kept this turn going already.
   */
  async onStop(turnId: string, lastAssistantMessage: string, continuations: number, signal: AbortSignal, tier0: HookTier0): Promise<ContentBlockParam[] | undefined> {
    const agent = this.options.agent;
    const outcome = agent
      ? await this.fire({ event: 'SubagentStop', agent: { id: agent.id, type: agent.type }, agentTranscriptPath: agent.transcriptPath, lastAssistantMessage, continuations }, { turnId, signal })
      : await this.fire({ event: 'Stop', lastAssistantMessage, continuations }, { turnId, signal });
    if (outcome.stop) this.notice('info', userText('hooks.endedTurn', { reason: outcome.stop.text }), turnId);
    if (outcome.continueWith.length === 0) return undefined;
    return [...(await this.takeNotes(turnId, tier0)), ...(await this.notesFor(outcome.event, outcome.continueWith, turnId, tier0))];
  }

  /** Notification: runs in the background (an approval must not wait for it); a close waits for it. */
  notify(notificationType: NotificationType, message: string, turnId?: string): void {
    if (this.inSubagent && notificationType === 'idle_prompt') return;
    const run = this.fire({ event: 'Notification', notificationType, message, title: 'Evergreen' }, { turnId }).catch((error: unknown) => this.options.logger.error('a Notification hook failed', error));
    this.background.add(run);
    void run.finally(() => this.background.delete(run));
  }

  /** PreCompact and PostCompact around a summary; after one, SessionStart(compact) too. */
  compactionHooks(): CompactionHooks {
    return {
      before: async (trigger, focus, signal) => {
        const outcome = await this.fire({ event: 'PreCompact', trigger: HOOK_TRIGGER(trigger), customInstructions: focus ?? '' }, { signal });
        if (outcome.blockedBy.length > 0) return { skip: `a PreCompact hook blocked it: ${reasonsOf(outcome.blockedBy)}` };
        const parts = [focus, ...outcome.focus.map((text) => text.text)].filter((part): part is string => part !== undefined && part.trim() !== '');
        return { focus: parts.length > 0 ? parts.join('\n\n') : undefined };
      },
      after: async (trigger, summary, signal) => {
        await Promise.all([this.fire({ event: 'PostCompact', trigger: HOOK_TRIGGER(trigger), summary }, { signal }), this.start('compact', { signal })]);
      },
    };
  }

  /** Text waiting for the next message that can carry it (the next prompt, or the next round's results). */
  async takeNotes(turnId: string, tier0: HookTier0): Promise<ContentBlockParam[]> {
    const waiting = this.pending;
    this.pending = [];
    const notes: ContentBlockParam[] = [];
    for (const { event, text } of waiting) notes.push(...(await this.notesFor(event, [text], turnId, tier0)));
    return notes;
  }

  private queue(event: HookEventName, texts: readonly HookText[]): void {
    for (const text of texts) this.pending.push({ event, text });
  }

  private async notesFor(event: HookEventName, texts: readonly HookText[], turnId: string, tier0: HookTier0): Promise<ContentBlockParam[]> {
    const notes: ContentBlockParam[] = [];
    for (const text of texts) {
      const content = await tier0({ toolUseId: `${turnId}-hook-${++this.notes}`, toolName: `${event} hook`, content: text.text });
      notes.push({ type: 'text', text: hookNoteText(event, text.command, content) });
    }
    return notes;
  }

  /**
   * The session closes: notifications still running finish (a "done" notification after the last
   * turn of a script must not be lost), then SessionEnd runs, each hook within its timeout. Once: a
   * second call waits for the first.
   */
  end(reason: SessionEndReason = 'other'): Promise<void> {
    this.ended ??= (async () => {
      await Promise.allSettled([...this.background]);
      if (this.began) await this.fire({ event: 'SessionEnd', reason }, {});
    })();
    return this.ended;
  }
}

/** What a front end decided about hooks (its loading and consent: hooks/load.ts, hooks/consent.ts). */
export interface HooksConfig {
  /** The hooks that may run: the user's, and the workspace's the user consented to (or the CLI trusted). */
  hooks: readonly ConfiguredHook[];
  /** Said once at the session's start: settings with problems, workspace hooks left out and how to allow them. */
  notices: readonly { level: 'warning' | 'info'; message: UserText }[];
  /** The environment hooks start from (the CLI's own; default process.env). */
  env?: NodeJS.ProcessEnv | undefined;
  /** Test seam: force the process-group fallback. */
  containment?: TreeContainment;
}

/**
 * The session's hooks (none when none may run), after telling the user what the front end found.
 * SessionEnd runs as the session closes, before the sandbox and the transcript are given back.
 */
export function sessionHooksFor(
  config: HooksConfig | undefined,
  parts: Pick<SessionHooksOptions, 'logger' | 'emit'> & {
    handle: Pick<SessionHandle, 'id' | 'transcriptPath' | 'toolResultsDir' | 'append'>;
    projectDir: string;
    sandbox: CommandSandbox | undefined;
    redactor: SecretRedactor;
    scope: Pick<StartScope, 'onRelease'>;
    now: (() => number) | undefined;
  },
): SessionHooks | undefined {
  for (const notice of config?.notices ?? []) {
    if (notice.level === 'warning') parts.logger.warn(userTextForLog(notice.message));
    parts.emit({ type: 'hook_notice', ...notice });
  }
  if (!config || config.hooks.length === 0) return undefined;
  const workspace = config.hooks.filter((hook) => hook.origin.scope === 'workspace');
  if (workspace.length > 0 && parts.sandbox?.state.kind !== 'on') {
    parts.emit({ type: 'hook_notice', level: 'warning', message: userText('hooks.workspaceHooksNeedSandbox', { count: workspace.length }) });
  }
  const { handle } = parts;
  const hooks = new SessionHooks({
    hooks: config.hooks,
    session: { sessionId: handle.id, transcriptPath: handle.transcriptPath, projectDir: parts.projectDir },
    sandbox: parts.sandbox,
    store: handle,
    logger: parts.logger,
    emit: parts.emit,
    redact: (value) => parts.redactor.value(value),
    ...(parts.now ? { now: parts.now } : {}),
    ...(config.env ? { env: config.env } : {}),
    ...(config.containment ? { containment: config.containment } : {}),
  });
  parts.scope.onRelease('the hooks (SessionEnd)', () => hooks.end());
  return hooks;
}

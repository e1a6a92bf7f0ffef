import * as os from 'node:os';
import { realpathSync } from 'node:fs';
import { userText, type UserText } from '../texts/userText';
import * as path from 'node:path';
import type { McpConfigProblem, McpServerConfig } from '../mcp/config';
import { McpManager } from '../mcp/manager';
import { ShadowGit } from '../checkpoints/shadowGit';
import { CheckpointStore } from '../checkpoints/store';
import { cacheEconomicsFor, CONTEXT_DEFAULTS, type ContextDefaults } from '../context/defaults';
import { windowInUse } from '../context/learnedWindow';
import { foldTranscript, type FoldResult } from './fold';
import { redactingLogger, silentLogger, type Logger } from '../logger';
import type { ModelBackend, ModelInfo, ProviderId } from '../model/backend';
import type { MessageParam } from '../model/messages';
import { createBackend } from '../model/createBackend';
import { priceFor, type ModelPrice } from '../model/models';
import { knownSecrets, SecretRedactor, type KnownSecret } from '../secrets';
import type { FileSessionStore, SessionHandle, TranscriptProblem } from '../storage/sessionStore';
import type { ApprovalPolicy, Approver } from '../approvals/approval';
import type { ToolRegistry } from '../tools/registry';
import { NodeWorkspace } from '../workspace/workspace';
import type { AgentEvent, AgentEventListener } from './events';
import { AgentSession, type ContextConfig } from './session';
import { createSubagentRunner, interruptedTaskResult, SUBAGENT_DEFAULTS, type SubagentLimits } from './subagents';
import { buildSystemPrompt, customizationSectionsOf, instructionsOf, workspaceRootLine } from './systemPrompt';
import { instructionFileBudget, readSessionInstructions, type InstructionSettings } from './instructions';
import { NestedInstructions } from '../instructions/instructionFiles';
import { DISABLED_SANDBOX, type CommandSandbox } from '../shell/commandSandbox';
import { createOsSandbox, type OsSandboxOptions } from '../sandbox/srt';
import { resolveThinking, type ThinkingNotice, type ThinkingSetting } from '../model/thinking';
import { foreignThinkingNotice, withoutForeignThinking, type SessionThinking } from './thinkingTurn';
import { StartScope } from './startScope';
import type { SessionModes } from './modes';
import { sessionModes, startingMode, type ModeSettings } from './modeStart';
import { announceStart } from './startNotices';
import { sessionHooksFor, type HooksConfig, type SessionHooks } from './hooks';
import { customizationSections, loadSessionSkills, type CustomizationNotice, type MemorySettings, type SessionSkills, type SkillSettings } from './customization';
import { serverToolsFor, sessionTools, type WebSettings } from './sessionTools';

export type { WebSettings } from './sessionTools';

/** Everything a front end (VS Code, CLI) decides; the core builds the rest the same way for both. */
export interface AgentConfig {
  /** Which back end serves the session (default anthropic); apiKey, baseURL and model are that provider's. */
  provider?: ProviderId | undefined;
  apiKey: string | undefined;
  baseURL: string | undefined;
  model: string | undefined;
  maxOutputTokens: number;
  approvalPolicy: ApprovalPolicy;
  /** Workspace trust: false removes the write and shell tools. */
  trusted: boolean;
  /** false: no checkpoints (nothing to restore later); default on in a trusted workspace. */
  checkpoints?: boolean;
  ripgrepPath: string | undefined;
  priceOverrides?: Record<string, ModelPrice>;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** `evergreen.contextWindow` / --context-window; else the Models API's max_input_tokens, else 200k. */
  contextWindow?: number | undefined;
  autoCompactPercent?: number | undefined;
  /** Overrides of the engine's numbers (tests, benchmarks, power users). */
  contextSettings?: Partial<ContextDefaults>;
  /** Replaces the context engine (benchmarks of other strategies). */
  contextStrategy?: ContextConfig['strategy'];
  now?: () => number;
  maxToolRoundsPerTurn?: number;
  /** How long the Models API may take at startup before the session goes on with default limits. */
  modelInfoTimeoutMs?: number;
  /** Subagents (the `task` tool): concurrency, step and time limits; SUBAGENT_DEFAULTS fills the rest. */
  subagents?: Partial<SubagentLimits>;
  /** The OS sandbox for shell commands (default: on, no network). */
  sandbox?: SandboxSettings;
  /** MCP servers the front end resolved (consent already given for the workspace's), and what to tell the user. */
  mcp?: McpSettings;
  /**
   * The environment whose provider credentials are guarded (default: process.env). The CLI passes
   * the one it started with, since it removes the keys from its own environment once read.
   */
  secretEnv?: NodeJS.ProcessEnv;
  /** Project instruction files (`evergreen.instructions.*`, `--no-instructions`); absent: on, the default user file. */
  instructions?: InstructionSettings;
  /** `evergreen.thinking` / `--thinking` (issue 21); absent: off. */
  thinking?: ThinkingSetting;
  /** The web tools (issue 30); absent: web_fetch with no host allowed beforehand (each asks), no search. */
  web?: WebSettings;
  /** Modes (issue 28): the mode to start in, plan mode's MCP tools; absent: the recorded mode (else agent), no MCP tool in plan mode. */
  modes?: ModeSettings;
  /** The user's hooks and the workspace's consented ones (issue 29); absent: none. */
  hooks?: HooksConfig;
  /** Skills (issue 28): listed in a new chat's prompt, loaded with the `skill` tool; absent: none. */
  skills?: SkillSettings;
  /** Memory (issue 28): the `memory` tool over a per-workspace folder, its listing in a new chat's prompt; absent: none. */
  memory?: MemorySettings;
}


export interface SandboxSettings {
  /** `evergreen.sandbox.enabled` / `--no-sandbox`: off runs commands unconfined, with a warning at every session start. */
  enabled: boolean;
  /** Domains commands may reach; none means no network. */
  allowedDomains: readonly string[];
  /** Replaces the OS sandbox (tests of what the session does when it is unavailable). */
  create?: (options: OsSandboxOptions) => Promise<CommandSandbox>;
}

export interface McpSettings {
  servers: readonly McpServerConfig[];
  problems: readonly McpConfigProblem[];
  /** Said once at session start (e.g. workspace servers left out for want of consent, and how to allow them). */
  notices: readonly UserText[];
  /** Timeouts (tests shorten them), and where each stderr line of a server goes (its log channel in VS Code). */
  connection?: { startTimeoutMs?: number; callTimeoutMs?: number; onStderr?(server: string, line: string): void };
}

/** What Evergreen tells MCP servers it is (the protocol's clientInfo). */
const MCP_CLIENT_VERSION = '0.1.0';

export interface StartedSession {
  session: AgentSession;
  /** The session's MCP servers (undefined when none is configured): front ends list them. */
  mcp: McpManager | undefined;
  /** The model back end (Anthropic or OpenAI-compatible): front ends see only the neutral interface. */
  client: ModelBackend;
  /** The session's tools: a slash command's tool list is checked against them. */
  tools: ToolRegistry;
  handle: SessionHandle;
  /** Display events for a resumed history (empty for a new session), compaction dividers included. */
  replay: AgentEvent[];
  /** The resolved context window. */
  window: number;
  /** Transcript lines skipped on resume, with their line numbers (for the user). */
  transcriptProblems: TranscriptProblem[];
  /** The session's checkpoints (undefined in an untrusted workspace or when turned off): front ends list and restore them. */
  checkpoints: CheckpointStore | undefined;
  /** The session's hooks (undefined when none may run): "Evergreen: Hooks" lists them and turns one off for the chat. */
  hooks: SessionHooks | undefined;
  /**
   * Gives back everything the start acquired, newest first: the MCP servers (and whatever they
   * started), the sandbox's private folder, the transcript's lock. Cancel a running turn first;
   * the transcript stays on disk for a resume. Once: a second call waits for the first.
   */
  close(): Promise<void>;
}

export interface StartOptions {
  config: AgentConfig;
  workspaceRoot: string;
  store: FileSessionStore;
  resumeId?: string | undefined;
  approver: Approver;
  onEvent: AgentEventListener;
  signal?: AbortSignal;
  logger?: Logger;
  /**
   * The front end's redaction (the CLI's output, the extension's log and panel use the same one):
   * the session teaches it its key and credentials, and sends every event and log line through it.
   */
  redactor?: SecretRedactor;
  /** "Reload Instructions": a resumed session reads its instruction files again and records the new system prompt. */
  reloadInstructions?: boolean;
  /** Called as each step of START_STEPS begins; tests throw here to fail the start at that step. */
  onStep?: (step: StartStep) => void;
  /** The workspace is this chat's Git worktree (issue 31): its Git may write its part of the main repository, and the storage around it does not make it read-only. */
  worktree?: OsSandboxOptions['worktree'];
}

/**
 * The steps of a start, in order. Any of them may fail; what the steps before it acquired is then
 * given back, newest first (test/unit/agent.startCleanup.test.ts fails the start at each one).
 */
export const START_STEPS = ['model', 'transcript', 'modes', 'sandbox', 'hooks', 'checkpoints', 'mcp', 'tools', 'prompt', 'session', 'notices'] as const;
export type StartStep = (typeof START_STEPS)[number];

type RunStep = <T>(step: StartStep, run: () => T | Promise<T>) => Promise<T>;

/**
 * Creates or resumes a session. The system prompt is recorded in the transcript so a resumed
 * session sends the same prefix it had (a changed prompt would also invalidate the cache).
 * A start that fails leaves nothing running or locked, and no new session folder.
 */
export async function startAgentSession(options: StartOptions): Promise<StartedSession> {
  const outputs = redactedOutputs(options);
  const scope = new StartScope(outputs.logger);
  const step: RunStep = async (name, run) => {
    options.onStep?.(name);
    return run();
  };
  try {
    return await startInOrder(options, { ...outputs, scope, step });
  } catch (error) {
    await scope.rollback();
    throw error;
  }
}

/**
 * The session's secrets, taught to the front end's redactor, and the logger and event listener that
 * every log line and event leaves the session through: a server's words (a refused option, a failed
 * models call, an MCP server's error body) may quote the key back.
 */
function redactedOutputs(options: StartOptions): RedactedOutputs {
  const secrets = knownSecrets(options.config.apiKey, options.config.secretEnv ?? process.env);
  const redactor = options.redactor ?? new SecretRedactor();
  redactor.learn(secrets);
  return {
    secrets,
    redactor,
    logger: redactingLogger(options.logger ?? silentLogger, (text) => redactor.text(text)),
    onEvent: (event) => options.onEvent(redactor.value(event)),
  };
}

interface RedactedOutputs {
  secrets: KnownSecret[];
  redactor: SecretRedactor;
  logger: Logger;
  onEvent: AgentEventListener;
}

async function startInOrder(options: StartOptions, { logger, secrets, redactor, onEvent, scope, step }: RedactedOutputs & { scope: StartScope; step: RunStep }): Promise<StartedSession> {
  const { config } = options;
  const connect = (model: string | undefined) => connectModel(config, model, logger, options.signal);
  // Fail fast, before anything is written: a wrong key, an unreachable server or an unknown model
  // throws a ModelError here and leaves no empty session behind.
  const configured = await step('model', () => connect(config.model));
  const opened = await step('transcript', () => openOrCreate(options, configured.client.model, logger, scope));
  const { handle, folded, transcriptProblems } = opened;
  // The mode to start in (asked for, or the one recorded) may run on a model of its own.
  const starting = await step('modes', () => startingMode({ settings: config.modes, workspaceRoot: options.workspaceRoot, trusted: config.trusted, folded: folded?.mode, connected: configured, connect, logger }));
  const { client, modelInfo, window } = starting.connected;
  const sandbox = await step('sandbox', () => sandboxFor(options, handle, logger, scope));
  const hooks = await step('hooks', () => sessionHooksFor(config.hooks, { handle, projectDir: options.workspaceRoot, sandbox, logger, redactor, emit: onEvent, scope, now: config.now }));
  const checkpoints = await step('checkpoints', () => checkpointsFor(options, handle, logger));
  const mcp = await step('mcp', () => mcpFor(options, handle, { logger, redactor, scope }));
  // Built before what reads it (tools, instructions, subagents), so none needs the session itself.
  const engineWindow = liveWindow(window, folded?.engine.learnedWindow);
  const engineNumbers = { ...CONTEXT_DEFAULTS, ...config.contextSettings };
  const { tools, mcpTools, skills, readOnlyMemory } = await step('tools', async () => {
    const skills = await loadSessionSkills(config.skills, { workspaceRoot: options.workspaceRoot, trusted: config.trusted, recordedPrompt: opened.systemPrompt });
    return { skills, ...sessionTools(config, { client, mcp, sandbox, secrets, resolvedWindow: window, window: engineWindow.now, engineNumbers, skills: skills.offered }) };
  });
  // Instruction files are read when the prompt is built (a new session, a reload) and never again:
  // a resumed session sends the prompt it recorded, so its cached prefix stays.
  const fileBudget = () => instructionFileBudget(engineWindow.now(), engineNumbers.charsPerToken);
  const prompt = await step('prompt', () =>
    opened.systemPrompt !== undefined ? { systemPrompt: opened.systemPrompt, notices: [], customization: [] } : recordNewPrompt(options, handle, { toolNames: tools.list().map((tool) => tool.name), maxFileChars: fileBudget(), skills, secrets, logger }),
  );
  const { session, thinkingNotices } = await step('session', () =>
    buildSession(options, { client, tools, readOnlyMemory, readRoots: skills.readRoots, handle, folded, checkpoints, hooks, logger, onEvent, window, modelMax: modelInfo?.maxOutputTokens, systemPrompt: prompt.systemPrompt, fileBudget, engineWindow, modes: sessionModes(starting, { planMcpTools: config.modes?.planMcpTools ?? [], tools, sandbox, handle, onEvent, client, now: config.now ?? Date.now }) }),
  );
  await step('notices', () => {
    onEvent({ type: 'session_started', sessionId: handle.id, model: client.model, resumed: options.resumeId !== undefined });
    // Web search is on, but neither this back end nor a SearXNG instance can run it.
    const webSearchMissing = config.web?.search === true && !client.capabilities.serverWebSearch && !config.web.searxng;
    announceStart({ logger, onEvent }, { thinking: thinkingNotices, sandbox, webSearchMissing, mcp, mcpTools, mcpSettings: config.mcp, mcpDeferShare: engineNumbers.mcpDeferShare, promptNotices: prompt.notices, customization: [...skills.notices, ...prompt.customization] });
    for (const notice of starting.notices) onEvent({ type: 'mode_notice', ...notice });
    if (starting.recordStart) session.modes?.switchTo(starting.mode.name, 'start');
    // Its text rides with the first message.
    return hooks?.start(options.resumeId === undefined ? 'startup' : 'resume', {}, client.model);
  });
  // The fold is pure and knows no tools: the replayed cards get their headlines here.
  const replay = (folded?.display ?? []).map((event) => redactor.value(event.type === 'tool_call_started' ? replayedCall(tools, event) : event));
  return { session, client, tools, handle, replay, window, transcriptProblems, mcp, checkpoints, hooks, close: () => scope.release() };
}

/**
 * The window the session's engine works with now: the configured one, or the smaller one a server
 * proved (a resumed session's from its fold, later ones from the engine's event). The tools page by
 * it and a subagent starts with it.
 */
function liveWindow(configured: number, learned: number | undefined): { now(): number; watch(listener: AgentEventListener): AgentEventListener } {
  let current = windowInUse(configured, learned);
  return {
    now: () => current,
    watch: (listener) => (event) => {
      if (event.type === 'context_window_learned') current = windowInUse(current, event.window);
      listener(event);
    },
  };
}


/** The session itself, with its subagent runner, subfolder instructions and checkpoints. */
function buildSession(
  options: StartOptions,
  parts: {
    client: ModelBackend;
    tools: ToolRegistry;
    /** The tools with a memory that only views (explore subagents); undefined: no memory. */
    readOnlyMemory: ToolRegistry | undefined;
    /** Folders outside the workspace read_file may read (the user's own skills). */
    readRoots: readonly string[];
    handle: SessionHandle;
    folded: FoldResult | undefined;
    checkpoints: CheckpointStore | undefined;
    hooks: SessionHooks | undefined;
    logger: Logger;
    /** The session's events, redacted. */
    onEvent: AgentEventListener;
    window: number;
    modelMax: number | undefined;
    systemPrompt: string;
    fileBudget: () => number;
    engineWindow: ReturnType<typeof liveWindow>;
    modes: SessionModes;
  },
): { session: AgentSession; thinkingNotices: ThinkingNotice[] } {
  const { config, store } = options;
  const { client, tools, handle, folded, checkpoints, logger, window, systemPrompt } = parts;
  const thinking = thinkingFor(config, client, window, parts.modelMax, folded);
  // Subfolders' files are only read where the workspace's own are (on, and trusted).
  const nested = config.instructions?.enabled !== false && config.trusted ? new NestedInstructions(new NodeWorkspace(options.workspaceRoot), parts.fileBudget) : undefined;
  handle.onWriteError((message) => parts.onEvent({ type: 'storage_warning', message }));
  // The parent's context settings; its subagents get the same ones (without the parent's resumed state).
  // The provider's price ratios decide when a tier edit repays its cache rewrite; explicit settings win.
  const settings = { ...cacheEconomicsFor(priceFor(client.model, config.priceOverrides, client.provider)), ...config.contextSettings };
  const context: Omit<ContextConfig, 'initial'> = {
    window,
    autoCompactPercent: config.autoCompactPercent,
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(config.now ? { now: config.now } : {}),
    ...(config.contextStrategy ? { strategy: config.contextStrategy } : {}),
  };
  const subagents = createSubagentRunner(
    {
      client, tools, workspaceRoot: options.workspaceRoot, sessionStorage: store.rootDir, worktree: options.worktree !== undefined, approver: options.approver, maxOutputTokens: config.maxOutputTokens, context, currentWindow: parts.engineWindow.now, logger, limits: { ...SUBAGENT_DEFAULTS, ...config.subagents },
      instructions: { section: () => instructionsOf(systemPrompt), ...(nested ? { nested } : {}) },
      ...(parts.hooks ? { hooks: parts.hooks } : {}),
      // A child lists the skills and memory its parent listed, reads the same skill folders, and an explore child only views memory.
      customization: { sections: customizationSectionsOf(systemPrompt), readRoots: parts.readRoots, ...(parts.readOnlyMemory ? { readOnlyMemory: parts.readOnlyMemory } : {}) },
    },
    handle,
  );
  const session = new AgentSession({
    client,
    tools,
    // Read-only access to this session's own folder: persisted outputs and the transcript a summary points to.
    // Evergreen's storage (every session) is protected: a write there always asks.
    // The user's own skills' folders too, so read_file opens the files a loaded skill lists.
    workspace: new NodeWorkspace(options.workspaceRoot, [handle.dir, ...parts.readRoots], { sessionStorage: store.rootDir, worktree: options.worktree !== undefined }),
    approver: options.approver,
    approvalPolicy: config.approvalPolicy,
    systemPrompt,
    ...serverToolsFor(config, client),
    ...thinking.sessionOptions, // maxOutputTokens, thinking, history
    store: handle,
    onEvent: parts.engineWindow.watch(parts.onEvent),
    logger,
    context: {
      ...context,
      initial: folded?.engine,
    },
    ...(config.maxToolRoundsPerTurn !== undefined ? { maxToolRoundsPerTurn: config.maxToolRoundsPerTurn } : {}),
    subagents,
    ...(nested ? { instructions: nested } : {}),
    ...(parts.hooks ? { hooks: parts.hooks } : {}),
    ...(checkpoints ? { checkpoints: { begin: async (message: string, entries: number) => (await checkpoints.begin(message, entries)).number, end: () => checkpoints.end() }, recordWrite: (file: string, prior: Buffer | undefined) => checkpoints.beforeWrite(file, prior) } : {}),
    ...(folded ? { interruptedToolResult: interruptedTaskResult(folded.display), subagentCostUsd: folded.totals.subagentCostUsd } : {}),
    modes: parts.modes,
  });
  return { session, thinkingNotices: thinking.notices };
}

/** The back end for `model` (undefined: the provider's default), with the model's info and window: an unknown model fails here. */
async function connectModel(config: AgentConfig, model: string | undefined, logger: Logger, signal: AbortSignal | undefined): Promise<{ client: ModelBackend; modelInfo: ModelInfo | undefined; window: number }> {
  const client = createBackend({
    provider: config.provider ?? 'anthropic',
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    model,
    ...(config.priceOverrides ? { priceOverrides: config.priceOverrides } : {}),
    ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
    ...(config.retryBaseDelayMs !== undefined ? { retryBaseDelayMs: config.retryBaseDelayMs } : {}),
    ...(config.modelInfoTimeoutMs !== undefined ? { modelInfoTimeoutMs: config.modelInfoTimeoutMs } : {}),
    logger,
  });
  const modelInfo = await client.getModelInfo(signal);
  return { client, modelInfo, window: await client.contextWindow(config.contextWindow, signal) };
}

/**
 * `evergreen.thinking` for this model: the request every turn makes, the reply reserve raised by
 * its budget (the engine then keeps room for both; the reserve is at most 20% of the window and
 * the model's limit), the history to resume from (thinking another provider or model wrote left
 * out), and what to tell the user when the setting could not be used as written.
 */
function thinkingFor(
  config: AgentConfig,
  client: ModelBackend,
  window: number,
  modelMax: number | undefined,
  folded: FoldResult | undefined,
): { sessionOptions: { maxOutputTokens: number; thinking?: SessionThinking; history: MessageParam[] }; notices: ThinkingNotice[] } {
  const reserveCap = Math.floor(window * CONTEXT_DEFAULTS.maxReserveShare);
  const outputCap = modelMax ? Math.min(reserveCap, modelMax) : reserveCap;
  const resolved = resolveThinking(config.thinking ?? 'off', { provider: client.provider, model: client.model, maxOutputTokens: config.maxOutputTokens, outputCap, ...(modelMax ? { modelOutputLimit: modelMax } : {}) });
  const resumed = folded ? withoutForeignThinking(folded.canonical, folded.origins, client) : { messages: [], foreign: [] };
  const notices = [resolved.notice, resumed.foreign.length > 0 ? foreignThinkingNotice(resumed.foreign, client) : undefined].filter((notice): notice is ThinkingNotice => notice !== undefined);
  const thinking = resolved.request ? { thinking: { request: resolved.request, form: resolved.facts.form } } : {};
  return { sessionOptions: { maxOutputTokens: resolved.maxOutputTokens, ...thinking, history: resumed.messages }, notices };
}

/** A new (or reloaded) session's system prompt, recorded, with the instruction files, skills and memory as they are now. */
async function recordNewPrompt(
  options: StartOptions,
  handle: SessionHandle,
  parts: { toolNames: string[]; maxFileChars: number; skills: SessionSkills; secrets: readonly KnownSecret[]; logger: Logger },
): Promise<{ systemPrompt: string; notices: { level: 'warning' | 'info'; message: UserText }[]; customization: CustomizationNotice[] }> {
  const { config } = options;
  const instructions = await readSessionInstructions({ settings: config.instructions, workspaceRoot: options.workspaceRoot, trusted: config.trusted, maxFileChars: parts.maxFileChars });
  const notices: { level: 'warning' | 'info'; message: UserText }[] = instructions.notices.map((message) => ({ level: 'warning', message }));
  const files = instructions.files.join(', ');
  if (instructions.files.length > 0) notices.push({ level: 'info', message: userText(options.reloadInstructions ? 'instructions.reloaded' : 'instructions.read', { files }) });
  else if (options.reloadInstructions) notices.push({ level: 'info', message: userText('instructions.reloadedNone', {}) });
  const customization = await customizationSections(parts.skills, config.memory, parts.secrets, parts.logger);
  const systemPrompt = buildSystemPrompt({
    workspaceRoot: options.workspaceRoot,
    platform: `${os.platform()} ${os.arch()}`,
    date: new Date().toISOString().slice(0, 10),
    toolNames: parts.toolNames,
    ...customization.sections,
    instructions: instructions.section,
  });
  handle.append({ type: 'system_prompt', ts: new Date().toISOString(), text: systemPrompt });
  return { systemPrompt, notices, customization: customization.notices };
}

/** A replayed call's card as the live one had it: the tool's headline, and its own card (memory), from the recorded input. */
function replayedCall(tools: ToolRegistry, event: Extract<AgentEvent, { type: 'tool_call_started' }>): AgentEvent {
  const card = tools.card(event.name, event.input);
  return { ...event, headline: tools.headline(event.name, event.input), ...(card ? { card } : {}) };
}

/** The session's MCP servers, started (only in a trusted workspace: they run commands); undefined when none is configured. */
async function mcpFor(options: StartOptions, handle: SessionHandle, { logger, redactor, scope }: { logger: Logger; redactor: SecretRedactor; scope: StartScope }): Promise<McpManager | undefined> {
  const servers = options.config.mcp?.servers ?? [];
  if (!options.config.trusted || servers.length === 0) return undefined;
  const connection = options.config.mcp?.connection;
  const onStderr = connection?.onStderr;
  // A server's log is a log line like any other: it may print the key it was given.
  const redacted = onStderr ? { onStderr: (server: string, line: string) => onStderr(server, redactor.text(line)) } : {};
  const manager = new McpManager(servers, { logger, clientVersion: MCP_CLIENT_VERSION, filesDir: path.join(handle.dir, 'mcp-files'), ...connection, ...redacted });
  // Before they start: a start that fails half-way still stops the servers that did start.
  scope.onRelease('the MCP servers', () => manager.stopAll());
  await manager.startAll();
  return manager;
}

/**
 * The session's transcript: a new one, or the resumed one folded. A resumed system prompt that
 * names another workspace root is dropped (the caller rebuilds and records it).
 */
async function openOrCreate(
  options: StartOptions,
  model: string,
  logger: Logger,
  scope: StartScope,
): Promise<{ handle: SessionHandle; folded: FoldResult | undefined; systemPrompt: string | undefined; transcriptProblems: TranscriptProblem[] }> {
  const { store } = options;
  if (!options.resumeId) {
    const handle = await store.create({ model, workspace: options.workspaceRoot });
    // Lock released first, folder removed last: a chat that never began leaves no empty session to resume.
    scope.onRollback('the new session folder', () => store.discard(handle.id));
    scope.onRelease('the transcript lock', () => handle.close());
    return { handle, folded: undefined, systemPrompt: undefined, transcriptProblems: [] };
  }
  const opened = await store.open(options.resumeId);
  scope.onRelease('the transcript lock', () => opened.handle.close());
  // Resume is the fold and nothing else: the same live view, anchor and display as before.
  const folded = foldTranscript(opened.transcript.entries);
  // Reload Instructions: the prompt is rebuilt with the files as they are now (one cache rewrite).
  if (options.reloadInstructions) return { handle: opened.handle, folded, systemPrompt: undefined, transcriptProblems: opened.transcript.problems };
  // Resumed from another folder (a moved checkout, another --workspace): the recorded prompt would
  // send the model to the old root, so it is rebuilt and recorded (costs one cache rewrite).
  if (folded.systemPrompt !== undefined && !folded.systemPrompt.split('\n').includes(workspaceRootLine(options.workspaceRoot))) {
    logger.warn(`session ${options.resumeId} was recorded for another workspace root; its system prompt now names ${options.workspaceRoot}`);
    return { handle: opened.handle, folded, systemPrompt: undefined, transcriptProblems: opened.transcript.problems };
  }
  return { handle: opened.handle, folded, systemPrompt: folded.systemPrompt, transcriptProblems: opened.transcript.problems };
}

/** Checkpoints only where tools can change files (a trusted workspace); without Git, the tools' own records alone (said once). */
async function checkpointsFor(options: StartOptions, handle: SessionHandle, logger: Logger): Promise<CheckpointStore | undefined> {
  if (!options.config.trusted || options.config.checkpoints === false) return undefined;
  const git = await ShadowGit.available();
  if (!git) logger.warn('checkpoints: Git is not installed, so only files changed by write_file and edit_file can be restored (not what shell commands change)');
  return new CheckpointStore(handle.dir, realpathSync(options.workspaceRoot), git, logger);
}

/** Every shell command runs in the OS sandbox; without the shell tool (untrusted) there is nothing to confine. */
async function sandboxFor(options: StartOptions, handle: SessionHandle, logger: Logger, scope: StartScope): Promise<CommandSandbox | undefined> {
  const { config, store } = options;
  if (!config.trusted) return undefined;
  const settings = config.sandbox ?? { enabled: true, allowedDomains: [] };
  if (!settings.enabled) return DISABLED_SANDBOX;
  const sandbox = await (settings.create ?? createOsSandbox)({ workspaceRoot: options.workspaceRoot, storageRoot: store.rootDir, sessionDir: handle.dir, allowedDomains: settings.allowedDomains, logger, worktree: options.worktree });
  if (sandbox.dispose) scope.onRelease("the sandbox's session folder", () => sandbox.dispose?.());
  return sandbox;
}




import * as os from 'node:os';
import { ModelClient, type MessageParam } from '../model/client';
import type { ModelPrice } from '../model/models';
import type { FileSessionStore, SessionHandle } from '../storage/sessionStore';
import type { ApprovalPolicy, Approver } from '../tools/approval';
import { createToolRegistry } from '../tools/registry';
import { NodeWorkspace } from '../tools/workspace';
import type { AgentEvent, AgentEventListener } from './events';
import { eventsFromHistory } from './replay';
import { AgentSession } from './session';
import { buildSystemPrompt } from './systemPrompt';

/** Everything a front end (VS Code, CLI) decides; the core builds the rest the same way for both. */
export interface AgentConfig {
  apiKey: string | undefined;
  baseURL: string | undefined;
  model: string | undefined;
  maxOutputTokens: number;
  approvalPolicy: ApprovalPolicy;
  /** Workspace trust: false removes the write and shell tools. */
  trusted: boolean;
  ripgrepPath: string | undefined;
  priceOverrides?: Record<string, ModelPrice>;
  maxRetries?: number;
  retryBaseDelayMs?: number;
}

export interface StartedSession {
  session: AgentSession;
  client: ModelClient;
  handle: SessionHandle;
  /** Display events for a resumed history (empty for a new session). */
  replay: AgentEvent[];
}

const SYSTEM_PROMPT_EVENT = 'system_prompt';

/**
 * Creates or resumes a session. The system prompt is recorded in the transcript so a resumed
 * session sends the same prefix it had (a changed prompt would also invalidate the cache).
 */
export async function startAgentSession(options: {
  config: AgentConfig;
  workspaceRoot: string;
  store: FileSessionStore;
  resumeId?: string | undefined;
  approver: Approver;
  onEvent: AgentEventListener;
  signal?: AbortSignal;
}): Promise<StartedSession> {
  const { config, store } = options;
  const client = new ModelClient({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    model: config.model,
    ...(config.priceOverrides ? { priceOverrides: config.priceOverrides } : {}),
    ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
    ...(config.retryBaseDelayMs !== undefined ? { retryBaseDelayMs: config.retryBaseDelayMs } : {}),
  });
  // Fail fast, before anything is written: a wrong key, an unreachable server or an unknown model
  // throws a ModelError here and leaves no empty session behind.
  await client.getModelInfo(options.signal);
  // No context engine is wired into sessions yet, so the model is not offered a compact tool that could only fail.
  const tools = createToolRegistry({ trusted: config.trusted, ripgrepPath: config.ripgrepPath, compact: false });
  let handle: SessionHandle;
  let history: AgentEvent[] = [];
  const messages: MessageParam[] = [];
  let systemPrompt: string | undefined;
  if (options.resumeId) {
    const opened = await store.open(options.resumeId);
    handle = opened.handle;
    for (const entry of opened.transcript.entries) {
      if (entry.type === 'message') messages.push(entry.message);
      else if (entry.type === 'event' && entry.name === SYSTEM_PROMPT_EVENT && typeof entry.data.text === 'string') systemPrompt = entry.data.text;
    }
    history = eventsFromHistory(messages);
  } else {
    handle = await store.create({ model: client.model, workspace: options.workspaceRoot });
  }
  if (systemPrompt === undefined) {
    systemPrompt = buildSystemPrompt({
      workspaceRoot: options.workspaceRoot,
      platform: `${os.platform()} ${os.arch()}`,
      date: new Date().toISOString().slice(0, 10),
      toolNames: tools.list().map((tool) => tool.name),
    });
    handle.append({ type: 'event', ts: new Date().toISOString(), name: SYSTEM_PROMPT_EVENT, data: { text: systemPrompt } });
  }
  const session = new AgentSession({
    client,
    tools,
    workspace: new NodeWorkspace(options.workspaceRoot, [handle.toolResultsDir]),
    approver: options.approver,
    approvalPolicy: config.approvalPolicy,
    systemPrompt,
    maxOutputTokens: config.maxOutputTokens,
    store: handle,
    history: messages,
    onEvent: options.onEvent,
  });
  options.onEvent({ type: 'session_started', sessionId: handle.id, model: client.model, resumed: options.resumeId !== undefined });
  return { session, client, handle, replay: history };
}

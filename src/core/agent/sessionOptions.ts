/** What an agent session is built from: its options and the context-management seam it drives. */
import type { ContextEngine, ContextEngineOptions, EngineSnapshot } from '../context/engine';
import type { ContextDefaults } from '../context/defaults';
import type { Logger } from '../logger';
import type { ModelBackend } from '../model/backend';
import type { MessageParam } from '../model/messages';
import type { ToolUseBlock } from '../model/content';
import type { SessionHandle } from '../storage/sessionStore';
import type { ApprovalPolicy, Approver } from '../tools/approval';
import type { ToolRegistry } from '../tools/registry';
import type { Workspace } from '../tools/workspace';
import type { AgentEventListener } from './events';
import type { SubagentRunner } from './subagents';

/** How the session's context is managed; the seeds' strategies in the benchmark implement the same seam. */
export type ContextStrategy = Pick<ContextEngine, 'prepareRequest' | 'onResponse' | 'onToolResult' | 'recoverFromTooLong' | 'compact' | 'requestCompactFromTool' | 'gauge' | 'liveView'> &
  /** Optional: the streaming estimate, the tier preview and the current window split (the benchmark's strategies have none). */
  Partial<Pick<ContextEngine, 'estimateWithPending' | 'tierSavings' | 'budget'>> &
  /** Optional: the compaction preview and its undo (the benchmark's strategies have neither). */
  Partial<Pick<ContextEngine, 'previewCompaction' | 'undoLastCompaction'>>;

export interface ContextConfig {
  window: number;
  autoCompactPercent?: number | undefined;
  settings?: Partial<ContextDefaults>;
  /** State rebuilt by foldTranscript (resume). */
  initial?: EngineSnapshot | undefined;
  now?: () => number;
  /** Replaces the engine (benchmarks of other strategies); receives the options the engine would get. */
  strategy?: (options: ContextEngineOptions) => ContextStrategy;
}
export interface AgentSessionOptions {
  client: ModelBackend;
  tools: ToolRegistry;
  workspace: Workspace;
  /** The interactive side of approvals (webview card, terminal prompt); the policy decides when it is asked. */
  approver: Approver;
  approvalPolicy: ApprovalPolicy;
  systemPrompt: string;
  maxOutputTokens: number;
  /** Persistence; without it the session lives in memory only (tests). */
  store?: SessionHandle;
  /** History of a resumed session. */
  history?: MessageParam[];
  onEvent: AgentEventListener;
  context: ContextConfig;
  logger?: Logger;
  maxToolRoundsPerTurn?: number;
  /** Runs the `task` tool's children (subagents.ts); absent in a subagent, which cannot launch more. */
  subagents?: SubagentRunner;
  /** A resumed session's subagent spending so far (foldTranscript's totals). */
  subagentCostUsd?: number;
  /** On resume, the answer for a tool call a crash left unanswered (a task call names its child's transcript). */
  interruptedToolResult?: (toolUse: ToolUseBlock) => string | undefined;
}

/** What an agent session is built from: its options and the context-management seam it drives. */
import type { ContextEngine } from '../context/engine';
import type { ContextEngineOptions, EngineSnapshot } from '../context/engineTypes';
import type { ContextDefaults } from '../context/defaults';
import type { Logger } from '../logger';
import type { ModelBackend } from '../model/backend';
import type { MessageParam, ServerTools } from '../model/messages';
import type { RequestCost } from '../model/cost';
import type { UsageCounts } from '../model/models';
import type { ToolUseBlock } from '../model/content';
import type { SessionHandle } from '../storage/sessionStore';
import type { ApprovalPolicy, Approver } from '../approvals/approval';
import type { ToolRegistry } from '../tools/registry';
import type { TaskInput } from '../tools/taskInput';
import type { ToolResult } from '../tools/types';
import type { NestedInstructions } from '../instructions/instructionFiles';
import type { Workspace } from '../workspace/workspace';
import type { AgentEvent, AgentEventListener } from './events';
import type { SubagentRecordedEvent } from './subagentEvents';
import type { SessionThinking } from './thinkingTurn';
import type { SessionModes } from './modes';
import type { SessionHooks } from './hooks';

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
  /** Server-side tools every request offers (Anthropic's web search, issue 30); absent: none. */
  serverTools?: ServerTools;
  maxOutputTokens: number;
  /** Extended thinking for every request (the setting resolved for this model); absent: none. */
  thinking?: SessionThinking;
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
  /** Subfolders' instruction files, added as notes when a tool works there; absent: none (`--no-instructions`, untrusted). */
  instructions?: Pick<NestedInstructions, 'notesFor'>;
  /** A checkpoint before each turn and after it (checkpoints/store.ts); absent in a subagent and where nothing is stored. */
  checkpoints?: TurnCheckpoints;
  /** Told before a write tool replaces a workspace file, with its bytes then (undefined: absent): the checkpoint keeps them. */
  recordWrite?: (absolutePath: string, prior: Buffer | undefined) => Promise<void>;
  /** The session's mode (agent/modes.ts): its gate, its limits, the switch told at the next turn; absent in a subagent (no modes). */
  modes?: SessionModes;
  /** The user's hooks at each step (agent/hooks.ts); absent: none configured. */
  hooks?: SessionHooks;
}

/** What the session needs of a checkpoint store. */
export interface TurnCheckpoints {
  /** `transcriptEntries`: where a rewind to this checkpoint cuts the transcript. */
  /** Resolves to the checkpoint's number. */
  begin(message: string, transcriptEntries: number): Promise<number>;
  end(): Promise<void>;
}

/** One `task` call as the parent session sees it. */
export interface SubagentCall {
  turnId: string;
  /** The parent's task call. */
  toolUseId: string;
  signal: AbortSignal;
  /** The parent's approval policy as it stands now (a child follows the same one). */
  approvalPolicy: ApprovalPolicy;
  /** Live events into the parent's stream. */
  emit(event: AgentEvent): void;
  /** Recorded into the parent's transcript (replayed on resume). */
  record(event: SubagentRecordedEvent): void;
  /** A child's request, counted in the parent's totals (usage event, transcript, meta, cost). */
  recordUsage(usage: UsageCounts, cost: RequestCost, childId: string): void;
  /** The parent's checkpoint keeps what a child's writes replace, too. */
  recordWrite?: (absolutePath: string, prior: Buffer | undefined) => Promise<void>;
}

/** Runs the `task` tool's children; subagents.ts implements it (it builds child sessions, so the session sees only this seam). */
export interface SubagentRunner {
  run(input: TaskInput, call: SubagentCall): Promise<ToolResult>;
  /** Changed approval settings reach the running children too, from their next tool call on. */
  setApprovalPolicy(policy: ApprovalPolicy): void;
}

// Shared contract of the agent's tools. Pure TypeScript: never import 'vscode' here or in any
// file of src/core/tools (the VS Code layer adapts these interfaces).
import type { ImageMediaType } from '../model/messages';
import type { ApprovalDecision, ApprovalRequest } from '../approvals/approval';
import type { PlanProposal } from '../todos/planSteps';
import type { TodoItem } from '../todos/todos';
import type { RecalledSlice, RecallSource } from './recallTypes';
import type { SubagentType, TaskInput } from './taskInput';
import type { Workspace } from '../workspace/workspace';
import type { MemoryCard } from '../memory/commands';
import type { UserText } from '../texts/userText';


export type ToolKind = 'read' | 'write' | 'shell' | 'meta';

/** An image a tool returns for the model to see, already checked against the providers' limits (model/images.ts). */
export interface ToolImage {
  mediaType: ImageMediaType;
  /** The bytes, base64. */
  data: string;
}

/**
 * What a call did that the session acts on, beyond its result text: the tool states the fact, the
 * session dispatches each kind to its one handler (agent/effects.ts). A new feature that only
 * informs the session adds a kind here and a handler there, not a field on ToolResult or ToolContext.
 */
export type ToolEffect =
  /** `todo_write`: the task list as it is now (the session emits it as a `todos` event). */
  | { kind: 'todos_changed'; items: readonly TodoItem[] }
  /** Real paths of the workspace folders whose files the call read or listed (after the round, the session adds their AGENTS.md / CLAUDE.md). */
  | { kind: 'folders_read'; folders: readonly string[] }
  /**
   * `recall`: `content` (the result the tool returned) is a slice of a text already on disk, so the
   * transcript stores a reference to it rather than a second copy, as long as the recorded result is
   * still exactly `content` (not redacted, not cut by tier 0).
   */
  | { kind: 'recalled'; slice: RecalledSlice; content: string }
  /**
   * A write tool is about to replace `path` (a real path), whose bytes are `prior` now (undefined:
   * absent): the turn's checkpoint keeps them. Reported through `ctx.report` before the write, not
   * with the result: the bytes must be kept before they are gone, in the order the writes happen.
   */
  | { kind: 'file_will_change'; path: string; prior: Buffer | undefined }
  /** `exit_plan_mode`: the model proposes this plan; the session shows it for the user's decision and ends the turn. */
  | { kind: 'plan_proposed'; plan: PlanProposal };

export type ToolEffectKind = ToolEffect['kind'];

/** What a web_fetch card shows besides the text: the final URL, the status, the size (the saved copy is tier 0's note in the content). */
export interface WebFetchDetails {
  /** The URL the page came from, after redirects. */
  url: string;
  status: number;
  contentType?: string;
  /** Bytes read (after decompression). */
  bytes: number;
  /** The body was longer than the cap and was cut. */
  truncated: boolean;
  redirects?: string[];
  /** Answered from the session's copy, not fetched again. */
  fromCache?: true;
}

/**
 * What a call's card shows beyond its headline, worked out from the call's input alone (so a resumed
 * chat shows the same card): presentation, which the session passes on with `tool_call_started` and
 * never acts on. One kind per tool that has a card of its own.
 */
export type ToolCard = { kind: 'memory' } & MemoryCard;

export interface ToolResult {
  content: string;
  /** Images the model sees after `content` (image blocks in the tool_result); `content` names each in words too. */
  images?: readonly ToolImage[];
  isError?: boolean;
  /** Set when the call stopped because ctx.signal was aborted (lets the agent tell cancel from failure). */
  cancelled?: boolean;
  /** What the call did that the session acts on once the result is in (see ToolEffect); only what really happened. */
  effects?: readonly ToolEffect[];
  /**
   * `web_fetch`: what its card shows (the session passes it on with tool_call_finished). Presentation
   * of the result, like `images`, not something the session acts on (that would be an effect).
   */
  web?: WebFetchDetails;
}

export interface ToolContext {
  /** Confined file access for the workspace. */
  workspace: Workspace;
  /** The call's tool-use id (absent where a tool runs outside a session, as in some tests): names what the call saves. */
  toolUseId?: string;
  /** Cancellation: tools stop promptly and return a cancelled result or throw an AbortError. */
  signal: AbortSignal;
  /** Streamed output (run_shell) for the UI. */
  onProgress(chunk: string): void;
  /** Already wraps the approval policy; tools call it before writing / running. */
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  /**
   * An effect the session must handle before the tool goes on (today: `file_will_change`); resolves
   * once it is handled. Every other effect goes with the result. Absent where no session listens.
   */
  report?(effect: ToolEffect): Promise<void>;
  // Capabilities: what a tool asks of the agent running it, during its run, because the answer is
  // its result. Absent where the agent cannot offer it (no context engine, inside a subagent); a tool
  // that needs one says so in its result when it is absent. A tool that only informs the agent
  // returns an effect instead; one that needs a service of its own gets it when it is created.
  /** Summarizes the conversation before the next request (the `compact` tool); resolves to what the engine decided, in words. */
  requestCompact?(focus: string | undefined): Promise<string>;
  /** Runs a child agent on the request and resolves to its report (the `task` tool): the child works during the call, under its signal. */
  runSubagent?(input: TaskInput): Promise<ToolResult>;
  /** The session's full history on disk (the `recall` tool); absent when nothing is saved. */
  recall?: RecallSource;
  /** What the session's mode forbids this call (plan mode); absent: nothing beyond the tool's own rules. */
  restrictions?: CallRestrictions;
}

/**
 * Limits a mode puts on calls of tools it still offers (modes/modeTools.ts decides them): the tool
 * list stays one for every mode, so a tool honours these per call.
 */
export interface CallRestrictions {
  /** run_shell: the whole workspace read-only for the command (the sandbox's flag), and never outside the sandbox. */
  readOnlyWorkspace: boolean;
  /** task: the subagent types it may start. */
  subagentTypes: readonly SubagentType[];
}

export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
  /** Open like the API's InputSchema, so specs pass straight to the SDK. */
  [key: string]: unknown;
}

/**
 * What a tool's results are, as the context engine sees them: the engine knows no tool by name, only
 * these. Today it treats 'read' and 'search' specially (tier 2 snips an older read of the same file
 * part, and all but the newest searches of a tool; a compaction restores recently read files); the
 * other kinds say what a result is and get the default treatment.
 */
export type ToolContextKind = 'read' | 'search' | 'shell' | 'subagent' | 'write' | 'other';

/** The file a read shows. Two reads with the same path and part supersede each other (`part`: the range, e.g. offset and limit). */
export interface ReadTarget {
  path: string;
  part?: string;
}

interface ToolContextPolicy {
  /** false: tier 3 never clears an old result (it is tiny and explains what happened). Default true. */
  clearable?: boolean;
  /**
   * 'never': tier 0 never saves an oversized result to a file, only cuts it head + tail over the cut size.
   * For a tool that pages its own output (a read of a saved output must not be saved again). Default 'default'.
   */
  persist?: 'never' | 'default';
  /** Defined outside Evergreen (an MCP server's tool): its definition counts on the breakdown's "MCP tools" line. */
  external?: true;
}

/** A tool's declaration to the context engine, in its own definition; `target` gets the tool's parsed input. */
export type ToolContextDeclaration<Input> = ToolContextPolicy &
  (
    | {
        kind: 'read';
        /** The file a call reads; undefined when its input names none. */
        target(input: Input): ReadTarget | undefined;
      }
    | { kind: Exclude<ToolContextKind, 'read'> }
  );

/** The declaration as the engine gets it: `target` takes a call's input as recorded (untrusted; the tool parses it). */
export type ToolContextTraits = ToolContextDeclaration<unknown>;

/** How the engine learns a tool's traits by name (built from the tool registry where the engine is made). */
export type ToolTraitsLookup = (name: string) => ToolContextTraits;

/**
 * A tool that declares nothing (an MCP tool, a future built-in): its old results may be cleared, an oversized
 * one is saved to a file, and it is never assumed reproducible or superseded (never snipped).
 */
export const DEFAULT_TOOL_CONTEXT: ToolContextTraits = { kind: 'other' };

export interface ToolDefinition<Input> {
  name: string;
  description: string;
  kind: ToolKind;
  /** Set on a tool an MCP server provides: the server's name as configured (the approval allow list is matched with it and mcpTool). */
  mcpServer?: string;
  /** Set on a tool an MCP server provides: the tool's name as the server lists it. */
  mcpTool?: string;
  /** What the context engine needs to know about this tool's results; absent = DEFAULT_TOOL_CONTEXT. */
  context?: ToolContextDeclaration<Input>;
  /** Calls of this tool that follow each other in one response run at the same time (`task`). */
  parallel?: boolean;
  /** JSON schema sent to the API. A built-in tool derives it from its zod schema (defineTool, toolInput.ts). */
  inputSchema: ToolInputSchema;
  /** Throws ToolInputError with a clear message for missing / wrongly typed args (a built-in tool: its zod schema's check). */
  parse(input: unknown): Input;
  /**
   * One line for the tool's card in the chat ("src/a.ts", "npm test"): the tool knows what matters.
   * The model's value alone is `verbatim`; words of ours around it are a kind (texts/approvals.ts).
   */
  headline(input: Input): UserText;
  /** A card of its own for the chat (memory writes), from the parsed input; absent: the plain tool card. */
  card?(input: Input): ToolCard;
  run(input: Input, ctx: ToolContext): Promise<ToolResult>;
}

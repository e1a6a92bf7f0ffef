// Shared contract of the agent's tools. Pure TypeScript: never import 'vscode' here or in any
// file of src/core/tools (the VS Code layer adapts these interfaces).
import type { ImageMediaType } from '../model/messages';
import type { ApprovalDecision, ApprovalRequest } from '../approvals/approval';
import type { TodoItem } from '../todos/todos';
import type { RecalledSlice, RecallSource } from './recallTypes';
import type { TaskInput } from './taskInput';
import type { Workspace } from '../workspace/workspace';


export type ToolKind = 'read' | 'write' | 'shell' | 'meta';

/** An image a tool returns for the model to see, already checked against the providers' limits (model/images.ts). */
export interface ToolImage {
  mediaType: ImageMediaType;
  /** The bytes, base64. */
  data: string;
}

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

export interface ToolResult {
  content: string;
  /** Images the model sees after `content` (image blocks in the tool_result); `content` names each in words too. */
  images?: readonly ToolImage[];
  isError?: boolean;
  /** Set when the call stopped because ctx.signal was aborted (lets the agent tell cancel from failure). */
  cancelled?: boolean;
  /** Set by `todo_write`: the task list as it is now (the session emits it as a `todos` event). */
  todos?: readonly TodoItem[];
  /** Real paths of the workspace folders whose files the call read or listed (the session adds their AGENTS.md / CLAUDE.md). */
  readFolders?: readonly string[];
  /**
   * Set by `recall`: `content` is a slice of a text already on disk, so the transcript stores a reference to it
   * rather than a second copy. Only valid while `content` is exactly what the tool returned (dropped otherwise).
   */
  recalled?: RecalledSlice;
  /** Set by `web_fetch`: what its card shows (the session puts it on tool_call_finished). */
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
  // What the agent running the call offers any tool beyond files and approvals; absent where it cannot
  // (no context engine, inside a subagent). A tool that needs one says so in its result when it is absent.
  /** Summarizes the conversation before the next request (the `compact` tool); resolves to what happened, in words. */
  requestCompact?(focus: string | undefined): Promise<string>;
  /** Runs a child agent on the request and resolves to its report (the `task` tool). */
  runSubagent?(input: TaskInput): Promise<ToolResult>;
  /** Called just before a write tool replaces `absolutePath`, with its bytes then (undefined: absent), so a checkpoint can restore it. */
  beforeWrite?(absolutePath: string, prior: Buffer | undefined): Promise<void>;
  /** The session's full history on disk (the `recall` tool); absent when nothing is saved. */
  recall?: RecallSource;
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
  /** JSON schema sent to the API. */
  inputSchema: ToolInputSchema;
  /** Throws ToolInputError with a clear message for missing / wrongly typed args. */
  parse(input: unknown): Input;
  /** One line for the tool's card in the chat ("src/a.ts", "npm test"): the tool knows what matters. */
  headline(input: Input): string;
  run(input: Input, ctx: ToolContext): Promise<ToolResult>;
}

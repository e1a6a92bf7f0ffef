/**
 * What the core puts on tool cards and approval cards, as kinds with data (src/core/texts/userText.ts);
 * src/frontends/words/approvals.ts words them. A path, a pattern, a URL or a command the model
 * gave is data (alone on a card it is `verbatim`: not our English); the words around it are ours.
 */
import type { NoData } from './value';

/** Why a write to a path always asks (approvals/protectedPaths.ts): one reason per kind of file. */
export type ProtectedWhy =
  | 'git'
  | 'gitSelectors'
  | 'gitHead'
  | 'gitHooks'
  | 'ci'
  | 'editor'
  | 'devContainer'
  | 'mcpServers'
  | 'packageScripts'
  | 'yarn'
  | 'toolCode'
  | 'buildCode'
  | 'maven'
  | 'toolVersions'
  | 'buildFiles'
  | 'environmentFiles'
  | 'shellStartup'
  | 'pythonBuild'
  | 'pythonStartup'
  | 'cargo'
  | 'containers'
  | 'goModules'
  | 'buildDefinitions'
  | 'rustToolchain'
  | 'pythonPackages'
  | 'nodeBins'
  | 'toolSettings'
  | 'toolFiles'
  | 'msbuild'
  | 'versionFiles'
  | 'devEnvironments'
  | 'ideSettings'
  | 'evergreenData'
  | 'pluginSettings'
  | 'ssh'
  | 'packageManagers'
  | 'vscodeUser'
  | 'vscodeExtensions'
  | 'userTools'
  | 'sessionStorage'
  | 'gitDirectory'
  | 'virtualenv';

/** The kind that says a `ProtectedWhy` ('git' -> 'approval.protectedGit'). */
export type ProtectedWhyKind<Why extends ProtectedWhy = ProtectedWhy> = `approval.protected${Capitalize<Why>}`;

/** The protected reasons' kinds: no data, the reason is the sentence. */
export type ProtectedWhyTexts = { [Why in ProtectedWhy as ProtectedWhyKind<Why>]: NoData };

/** Tool cards' headlines (`ToolDefinition.headline`): the model's values with our words around them. */
export interface ToolHeadlineTexts {
  /** read_file from a line on. `line` is an identifier (not locale-formatted). */
  'tool.readFromLine': { path: string; line: string };
  'tool.editAll': { path: string };
  /** recall of a saved text from a character on. `offset` is a position (not locale-formatted). */
  'tool.recallFrom': { id: string; offset: string };
  'tool.grep': { pattern: string; path: string };
  'tool.grepGlob': { pattern: string; path: string; glob: string };
  'tool.listFiles': { path: string; pattern: string };
  'tool.fetchWithPrompt': { url: string; prompt: string };
  'tool.task': { agentType: string; description: string };
  /** An MCP call: `input` the arguments as compact JSON (cut). */
  'tool.mcpCall': { server: string; tool: string; input: string };
  /** A memory command other than rename: `command` is its name as the model calls it (view, create, …). */
  'tool.memory': { command: string; path: string };
  'tool.memoryRename': { from: string; to: string };
  /** exit_plan_mode: the plan's first line and how many steps it has. */
  'tool.planSteps': { title: string; count: number };
  /** todo_write: how many items are done of all, and the one in progress. */
  'tool.todos': { done: number; total: number };
  'tool.todosCurrent': { done: number; total: number; current: string };
}

type HeldWhyKind = ProtectedWhyKind | 'approval.heldWhyClaude' | 'approval.heldWhyJetBrains' | 'approval.heldWhyOutside';

/**
 * Why a new entry a sandboxed command made waits for the user: one of these kinds, without data.
 * A UserText (each member is one), spelled out here: importing userText.ts would be an import cycle.
 */
export type HeldWhyText = { [K in HeldWhyKind]: { kind: K; data: NoData } }[HeldWhyKind];

/** What an approval card says beyond the request's own data. */
export interface ApprovalCardTexts {
  /** What an MCP server claims about a tool (its annotations): each claim a kind. */
  'approval.hintReadOnly': NoData;
  'approval.hintDestructive': NoData;
  'approval.hintIdempotent': NoData;
  'approval.hintOpenWorld': NoData;
  /**
   * Why a sandboxed command's write waits for the user (sandbox/gitGuard.ts): `path` and `where`
   * are workspace paths, `name` a Git file's name; a new protected entry says its own `why`.
   */
  'approval.heldNew': { path: string; why: HeldWhyText };
  'approval.heldWhyClaude': NoData;
  'approval.heldWhyJetBrains': NoData;
  'approval.heldWhyOutside': NoData;
  'approval.heldGitLink': NoData;
  'approval.heldGitFile': NoData;
  'approval.heldLinkInGitDir': { where: string };
  'approval.heldGitHook': { where: string };
  'approval.heldGitRedirect': { name: string; where: string };
  'approval.heldGitConfig': { where: string };
}

export interface ApprovalTexts extends ProtectedWhyTexts, ToolHeadlineTexts, ApprovalCardTexts {}

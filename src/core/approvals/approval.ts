// Approval policy for writes and shell commands.
//
// Policy semantics (the settings map 1:1 onto ApprovalPolicy):
// - writes: 'auto' approves every write inside the workspace except to files that configure what
//   commands run (protectedPaths.ts, beside this file), which always ask; 'ask' asks the interactive side.
// - shell: commands run in the OS sandbox (src/core/sandbox); 'auto' and the allow-list apply only
//   while it works (or after the user turned it off); running outside it, or while it is
//   unavailable, always asks — no setting and no --yes grants that. Nor does either grant what a
//   sandboxed command wrote that would run outside it (sandbox_changes: Git hooks and config, …).
// - shell: 'auto' approves EVERY command, including the hazardous constructs listed below. It is
//   the user's explicit "never ask me" switch (like Claude Code's bypass mode); a half-auto mode
//   that still prompts for `$(...)` would be unpredictable and still not safe (`rm -rf ~` has no
//   special syntax), so we do not pretend. Untrusted workspaces get no shell tool at all.
// - shell: 'ask' + shellAllowList: a command is auto-approved only if the analyzer in
//   shell/shellAnalysis.ts fully understands it (no expansion bash could evaluate, no assignment, no
//   eval-like builtin or wrapper, no option that makes a known program run code or write files)
//   and EVERY simple command in it starts with an allow-list entry on whole words. Anything else asks.
// - web: a fetch from a host the user has not allowed (`evergreen.web.allowedDomains`, --allow-web,
//   or an earlier "always for this domain") asks every time; web_fetch checks those lists itself
//   (core/web/access.ts) and asks only for the rest, so here it always asks. No setting and no
//   --yes grants it: a fetch can carry the workspace's content to any server in its URL, which
//   --yes never opens (the sandbox's network needs --allow-domain too).
import { protectedWriteWhy } from './protectedPaths';
import { protectedWhyText } from './texts';
import type { UserText } from '../texts/userText';
import type { SandboxChange } from '../shell/commandSandbox';

export type { SandboxChange } from '../shell/commandSandbox';
import { matchShellAllowList } from '../shell/shellAnalysis';


export type ApprovalRequest =
  | {
      kind: 'write';
      /** Workspace-relative path (what the user sees). */
      path: string;
      /** Unified diff of the change. */
      diff: string;
      isNew: boolean;
      /** Absolute real path, e.g. for a diff editor. */
      absolutePath?: string;
      /** The full new content, e.g. for a diff editor. */
      newContent?: string;
      /**
       * Set when the file configures what commands run, so it asks even with writes on auto: the UI
       * shows why (a kind of approval.protected…). The write tools set it from the real target on
       * disk (protectedWriteReasonAt).
       */
      protectedReason?: UserText;
    }
  | {
      kind: 'shell';
      command: string;
      description?: string;
      /** How the command will run; absent means as with the sandbox turned off. */
      isolation?: ShellIsolation;
      /** The model's reason for running outside the sandbox (isolation 'outside'). */
      outsideReason?: string;
    }
  | {
      kind: 'mcp';
      /** The server's name (from the user's or the workspace's configuration) and its own name for the tool: what the allow list matches. */
      server: string;
      tool: string;
      /** The name the model called (`mcp__server__tool`, made fit and unique). */
      fullName: string;
      /** The arguments as pretty-printed JSON: exactly what the server receives. */
      arguments: string;
      /** What the server says about the tool (its annotations), each claim a kind: shown, never a reason to skip asking. */
      serverHints?: UserText[];
    }
  | {
      /**
       * A sandboxed command wrote files that would make a program outside the sandbox run commands
       * (a Git hook or configuration, a new `.vscode`, …). They reach the workspace only with the
       * user's own yes: no setting and no --yes grants it, as for leaving the sandbox.
       */
      kind: 'sandbox_changes';
      /** The command that wrote them. */
      command: string;
      changes: SandboxChange[];
    }
  | {
      /**
       * A PreToolUse hook answered "ask" for this call: the user decides before it runs (no setting,
       * no --yes and no allow-list answers for them: the hook asked for a person).
       */
      kind: 'hook';
      /** The tool the model called. */
      tool: string;
      /** Its input as pretty-printed JSON. */
      input: string;
      /** Why the hooks ask, in their words (not a check). */
      reasons: string[];
    }
  | {
      /** web_fetch wants to contact a host the user has not allowed yet (each redirect target asks again). */
      kind: 'web';
      /** The URL about to be requested (credentials removed). */
      url: string;
      /** The host the answer is about: "always" allows it in this workspace. */
      host: string;
      /** Set when the request follows a redirect: the URL that sent it here. */
      redirectedFrom?: string;
    };

/**
 * sandbox: confined by the OS sandbox; disabled: the user turned the sandbox off; unavailable: it
 * cannot run here; outside: the model asked to run this one command unconfined.
 */
export type ShellIsolation = 'sandbox' | 'disabled' | 'unavailable' | 'outside';

/**
 * `always`: only for a `web` request, the user allowed its host for this workspace, not just this
 * fetch (the front end remembers it through core/web/access.ts's WebDomainMemory).
 */
export type ApprovalDecision = { approved: true; always?: true } | { approved: false; reason?: string };

/** Which tool call an approval belongs to: a UI with several prompts open resolves each by it. */
export interface ApprovalContext {
  toolUseId: string;
  /** Set when a subagent asks: its description, so a prompt outside its chat card (the terminal) says who asks. */
  subagent?: string;
}

/** The interactive side (VS Code UI, terminal prompt). */
export interface Approver {
  requestApproval(request: ApprovalRequest, signal: AbortSignal, context?: ApprovalContext): Promise<ApprovalDecision>;
}

export interface ApprovalPolicy {
  writes: 'ask' | 'auto';
  shell: 'ask' | 'auto';
  /** Command prefixes, matched on whole words (`git status` allows `git status -s`). */
  shellAllowList: string[];
  /** MCP tool calls: 'ask' (the default) or 'auto'. */
  mcp?: 'ask' | 'auto';
  /** MCP tools that never ask: full names (`mcp__github__get_issue`) or a server's all (`mcp__github__*`). */
  mcpAllowList?: string[];
}

/** MCP tools are offered as `mcp__<server>__<tool>` (Claude Code's convention); mcp/names.ts hands the names out. */
export const MCP_TOOL_PREFIX = 'mcp__';

/** A server's or tool's name as it may stand in a tool name: every character outside `[A-Za-z0-9_-]` replaced. */
export function mcpNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Which MCP tool a call is: its server's and its own name as configured and listed, and the name it is offered under. */
export interface McpToolIdentity {
  server: string;
  tool: string;
  fullName: string;
}

/** An offered tool's identity for the allow list (undefined for a tool no MCP server provides). */
export function mcpIdentityOf(tool: { name: string; mcpServer?: string | undefined; mcpTool?: string | undefined }): McpToolIdentity | undefined {
  return tool.mcpServer === undefined ? undefined : { server: tool.mcpServer, tool: tool.mcpTool ?? '', fullName: tool.name };
}

/**
 * Whether an MCP tool is on the allow list: `mcp__<server>__*` or `mcp__<server>__<tool>` with the
 * names as the server is configured and lists the tool, or the offered name when that begins with the
 * server's own name. Never by the sanitized server name: "a_b"'s entry must not reach a server "a.b".
 */
export function matchMcpAllowList(identity: McpToolIdentity, allowList: readonly string[]): boolean {
  const serverPrefix = `${MCP_TOOL_PREFIX}${identity.server}__`;
  // Compared whole, never as a prefix: server "a"'s wildcard must not allow the tools of a server named "a__b".
  const accepted = new Set([`${serverPrefix}*`, `${serverPrefix}${identity.tool}`]);
  // A tool whose own name was sanitized, on a server whose name was not: the name on its card works too.
  if (identity.fullName.startsWith(serverPrefix)) accepted.add(identity.fullName);
  return allowList.some((entry) => accepted.has(entry));
}

/** Why a write request always asks: the reason its tool found on disk (the real target), else the one its path's name gives. */
function protectedReasonOf(request: Extract<ApprovalRequest, { kind: 'write' }>): UserText | undefined {
  if (request.protectedReason) return request.protectedReason;
  const why = protectedWriteWhy(request.path);
  return why === undefined ? undefined : protectedWhyText(why);
}

export function decide(policy: ApprovalPolicy, request: ApprovalRequest): 'auto' | 'ask' {
  // A file that decides what a later (maybe allow-listed) command runs always asks.
  if (request.kind === 'write') return policy.writes === 'auto' && protectedReasonOf(request) === undefined ? 'auto' : 'ask';
  // What would run outside the sandbox is the user's own decision, every time.
  if (request.kind === 'sandbox_changes') return 'ask';
  // A host nobody allowed: the user answers (the allow lists were applied before asking).
  if (request.kind === 'web') return 'ask';
  // A hook asked for the user's own answer.
  if (request.kind === 'hook') return 'ask';
  // An MCP server may do anything its author wrote; its own hints (read-only, …) are claims, not checks.
  if (request.kind === 'mcp') return policy.mcp === 'auto' || matchMcpAllowList(request, policy.mcpAllowList ?? []) ? 'auto' : 'ask';
  // The allow-list and `auto` judge a command's text; they are only safe where the kernel holds the
  // boundary (or the user turned the sandbox off knowingly). Leaving the sandbox is asked every time.
  if (request.isolation === 'unavailable' || request.isolation === 'outside') return 'ask';
  if (policy.shell === 'auto') return 'auto';
  // With the sandbox off (or no isolation named) only read-only programs and words are approved.
  return matchShellAllowList(request.command, policy.shellAllowList, { readOnly: request.isolation !== 'sandbox' }).allowed ? 'auto' : 'ask';
}

/**
 * A call the user or a PreToolUse hook already allowed (issue 29): it asks no more, except for what
 * never goes unasked whatever a setting says — a file that configures what commands run, a command
 * outside the sandbox or without one, what a sandboxed command wrote that would run outside it, a
 * host nobody allowed, another hook's question. An allow never widens the sandbox.
 */
export function decidePreApproved(request: ApprovalRequest): 'auto' | 'ask' {
  if (request.kind === 'write') return protectedReasonOf(request) === undefined ? 'auto' : 'ask';
  if (request.kind === 'shell') return request.isolation === 'sandbox' ? 'auto' : 'ask';
  return request.kind === 'mcp' ? 'auto' : 'ask';
}

/** `preApproved`: this call was allowed before it ran (decidePreApproved says what still asks). */
export function createPolicyApprover(policy: ApprovalPolicy, interactive: Approver, options: { preApproved?: boolean } = {}): Approver {
  return {
    requestApproval(request, signal, context) {
      if (decide(policy, request) === 'auto' || (options.preApproved === true && decidePreApproved(request) === 'auto')) return Promise.resolve({ approved: true });
      const protectedReason = request.kind === 'write' ? protectedReasonOf(request) : undefined;
      if (request.kind === 'write' && protectedReason !== undefined) return interactive.requestApproval({ ...request, protectedReason }, signal, context);
      return interactive.requestApproval(request, signal, context);
    },
  };
}

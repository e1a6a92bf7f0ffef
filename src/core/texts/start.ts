/** What the core says about a session's start: the sandbox, web search, MCP, thinking, a mode's start, transcripts that cannot be saved, as kinds with data (src/core/texts/userText.ts); src/frontends/words/start.ts words them. */
import type { NestedText, NoData } from './value';

/** The command sandbox: how it holds the workspace, why it cannot run, and the exact fix. */
interface SandboxTexts {
  /** It works without the workspace overlay; `why`: each probe's problem (the OS's words). */
  'start.sandboxWithoutOverlay': { why: string };
  /** The user turned it off: the extension names its setting, the CLI its flag. */
  'start.sandboxOff': NoData;
  /** `problem`: what the probe or the platform said; `fix`: one of the fix kinds below. */
  'start.sandboxUnavailable': { problem: string; fix: NestedText };
  'start.sandboxInstallMac': { command: string };
  'start.sandboxInstallLinux': { command: string };
  'start.sandboxUnsupportedPlatform': NoData;
  'start.sandboxUserNamespacesOff': { command: string };
  'start.sandboxUnprivilegedUserNamespacesOff': { command: string };
  'start.sandboxAppArmorRestricts': { command: string; persist: string };
  /** In a container: the devcontainer.json `runArgs` to add, and why (the container blockers, joined). */
  'start.sandboxContainerFix': { runArgs: string; why: NestedText };
  'start.sandboxContainerBlockers': { first: NestedText; rest: NestedText };
  'start.sandboxContainerSeccomp': { option: string };
  'start.sandboxContainerAppArmor': { option: string };
  'start.sandboxContainerMaskedProc': { option: string };
}

/** Web search that cannot run here, and MCP at session start: configuration problems, consent, names, failures. */
interface McpStartTexts {
  'start.webSearchMissing': { setting: NestedText };
  'start.mcpToolsDeferred': { tools: number; tokens: number; share: number };
  /** `problem`: one of the configuration kinds below, or a check's own words (verbatim). */
  'start.mcpConfigProblem': { where: string; problem: NestedText };
  /** `error`: the JSON parser's code for it. */
  'start.mcpConfigNotJson': { error: string; line: string; column: string };
  'start.mcpConfigNotObject': NoData;
  'start.mcpConfigNoServerMap': NoData;
  'start.mcpConfigServersNotObject': NoData;
  'start.mcpConfigUnreadable': { error: string };
  'start.mcpServerNameTaken': { name: string; earlier: string };
  /** Workspace servers without the user's consent (`servers`: `"name" (file: command)` each); each front end says how it allows them. */
  'start.mcpServersWithheld': { servers: readonly string[] };
  /** Servers whose names read the same once fit for a tool name (`servers`: `"name" (mcp__part__…)` each). */
  'start.mcpNameCollision': { servers: readonly string[]; sanitized: string; allowEntry: string };
  'start.mcpServerFailed': { name: string; reason: string };
}

/** How thinking was resolved for the session and for a turn. */
interface ThinkingTexts {
  'start.thinkingLowered': { used: number; wanted: number; advice: NestedText };
  /** `sent`, `asked`: the API's effort values (low, medium, high). */
  'start.thinkingEffortLowered': { sent: string; asked: string; advice: NestedText };
  'start.thinkingRoomModelLimit': { model: string; cap: number };
  'start.thinkingRoomWindow': { setting: NestedText };
  'start.thinkingUnsupportedAuto': { model: string };
  'start.thinkingUnsupported': { setting: NestedText; budget: number; model: string };
  /** `minBudget` is the API's fixed minimum, written as the API documents it. */
  'start.thinkingNoRoom': { outputCap: number; minBudget: string; replyFloor: number; advice: NestedText };
  'start.thinkingForeign': { models: readonly string[]; current: string };
  'start.thinkingOffForTurn': NoData;
  /** `said`: the server's own message. */
  'start.reasoningEffortRefused': { server: string; model: string; said: string };
}

/** Transcripts that cannot be written (the session goes on in memory). */
interface StorageTexts {
  'start.storageDiskFull': { file: string };
  'start.storageReadOnly': { code: string; file: string };
  /** `error`: the OS's message. */
  'start.storageUnwritable': { file: string; error: string };
}

export interface StartTexts extends SandboxTexts, McpStartTexts, ThinkingTexts, StorageTexts {}


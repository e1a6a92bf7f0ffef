/** Words for a session's start: the sandbox, web search, MCP, thinking, a mode's start, transcripts that cannot be saved (the kinds are in src/core/texts/start.ts). */
import type { StartTexts } from '../../core/texts/start';
import { wordsFor } from './template';

const NOT_SAVED = 'The conversation goes on, but it is not being saved; free space or fix the permissions, then start a New Chat to save again.';
const SANDBOX_OFF = 'shell commands run with your full permissions, and the allow-list and auto approval apply to them unconfined.';
const WORKSPACE_SERVERS = 'This workspace defines MCP servers that did not start: {servers}. A server from the workspace runs a command the repository chose, so it needs your consent:';
const NO_THINKING_MODEL = "{model} cannot be asked to think (Evergreen's model table lists no thinking for it)";
const THINKING_UNSUPPORTED = `asks for {budget} tokens of thinking, but ${NO_THINKING_MODEL}; this session runs without it. Pick a model that thinks (e.g. a Claude 4 or an o-series model) or set it to "off".`;

export const START_WORDS = wordsFor<StartTexts>()({
  'start.sandboxWithoutOverlay':
    'The command sandbox works, but the workspace overlay is not available here ({why}), so files such as .vscode or .mcp.json that do not exist yet are held by empty read-only placeholders while a command runs (git add -A can fail on them) and a Git redirect a command creates is moved aside only when it ends. util-linux 2.38 or later and Linux 5.11 or later give the overlay.',
  'start.sandboxOff': {
    extension: `The command sandbox is off (evergreen.sandbox.enabled): ${SANDBOX_OFF}`,
    cli: `The command sandbox is off (--no-sandbox): ${SANDBOX_OFF}`,
  },
  'start.sandboxUnavailable': 'The command sandbox cannot run here ({problem}), so every shell command asks first; the allow-list and auto approval are suspended until it works. To fix: {fix}',
  'start.sandboxInstallMac': '{command} (sandbox-exec ships with macOS)',
  'start.sandboxInstallLinux': '{command} (Debian/Ubuntu; other distributions: the bubblewrap, socat and ripgrep packages)',
  'start.sandboxUnsupportedPlatform': {
    extension: 'the sandbox supports Linux and macOS; on this system set evergreen.sandbox.enabled to false to run commands unconfined',
    cli: 'the sandbox supports Linux and macOS; on this system run with --no-sandbox to run commands unconfined',
  },
  'start.sandboxUserNamespacesOff': 'user namespaces are turned off (user.max_user_namespaces is 0): {command}',
  'start.sandboxUnprivilegedUserNamespacesOff': 'unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone is 0): {command}',
  'start.sandboxAppArmorRestricts':
    'AppArmor restricts unprivileged user namespaces here (Ubuntu 24.04 and later): {command}, and to keep it after a restart {persist} (or an AppArmor profile that allows userns for /usr/bin/bwrap and /usr/bin/unshare)',
  'start.sandboxContainerFix': 'add to .devcontainer/devcontainer.json "runArgs": [{runArgs}] (or the same --security-opt flags to docker run), then rebuild the container ({why})',
  'start.sandboxContainerBlockers': '{first}; {rest}',
  'start.sandboxContainerSeccomp': "{option}: Docker's default seccomp profile refuses the calls that make user namespaces",
  'start.sandboxContainerAppArmor': "{option}: the container's AppArmor profile (docker-default) refuses the mounts the sandbox makes",
  'start.sandboxContainerMaskedProc': "{option}: the container's /proc has masked paths, so the sandbox cannot mount its own /proc",

  'start.webSearchMissing': 'Web search is on, but this back end has no search of its own: set {setting} to a SearXNG instance; until then the model has no web_search tool.',
  'start.mcpToolsDeferred': "The MCP servers' {tools} tools would take ~{tokens} tokens of every request (over {share}% of the window): the model finds them with mcp_search and calls them with mcp_call.",
  'start.mcpConfigProblem': 'MCP configuration {where}: {problem}. Fix it and start a new chat.',
  'start.mcpConfigNotJson': 'not valid JSON: {error} at line {line}, column {column}',
  'start.mcpConfigNotObject': 'must be a JSON object',
  'start.mcpConfigNoServerMap': 'has neither "servers" (VS Code\'s mcp.json) nor "mcpServers" (Claude Code\'s .mcp.json)',
  'start.mcpConfigServersNotObject': 'must be an object of server definitions',
  'start.mcpConfigUnreadable': 'cannot be read: {error}',
  'start.mcpServerNameTaken': 'a server named "{name}" is already defined in {earlier}; this one is ignored (rename one of them)',
  'start.mcpServersWithheld': {
    extension: `${WORKSPACE_SERVERS} allow them when Evergreen asks at the start of a New Chat.`,
    cli: `${WORKSPACE_SERVERS} run with --trust-workspace-mcp to allow them.`,
  },
  'start.mcpNameCollision':
    'The MCP servers {servers} all read "{sanitized}" once made fit for a tool name, so their tools are named apart as shown. An allow-list entry names a server as configured ({allowEntry}), so it never reaches another of them.',
  'start.mcpServerFailed': 'MCP server "{name}": {reason}. Its tools are not available in this chat; fix it and start a new chat.',

  'start.thinkingLowered': 'Thinking uses {used} tokens, not {wanted}: {advice}',
  'start.thinkingEffortLowered': 'Thinking effort is {sent}, not {asked}: {advice}',
  'start.thinkingRoomModelLimit': '{model} writes at most {cap} tokens a reply; a model with a larger output limit has room for more.',
  'start.thinkingRoomWindow': {
    extension: 'the reply reserve is at most 20% of the context window; raise "{setting}" for a larger one.',
    cli: 'the reply reserve is at most 20% of the context window; raise {setting} for a larger one.',
  },
  'start.thinkingUnsupportedAuto': `Thinking is off: ${NO_THINKING_MODEL}.`,
  'start.thinkingUnsupported': { extension: `"{setting}" ${THINKING_UNSUPPORTED}`, cli: `{setting} ${THINKING_UNSUPPORTED}` },
  'start.thinkingNoRoom': 'Thinking is off: with {outputCap} tokens for the reply and its thinking, no budget of {minBudget} tokens fits beside a {replyFloor}-token reply; {advice}',
  'start.thinkingForeign': 'This conversation holds thinking written by {models}; {current} cannot take it, so it is left out of requests. The conversation is kept, and the transcript still has it.',
  'start.thinkingOffForTurn':
    'Thinking is off for the rest of this turn: the reply that called these tools does not open with a thinking block that can be sent back (it was unsigned, cut short, or written by another model), and the API refuses thinking then. It is back on from your next message.',
  'start.reasoningEffortRefused': 'The server at {server} refuses reasoning_effort for {model}, so this session runs without thinking (the server said: {said}).',

  'start.storageDiskFull': `The disk is full: Evergreen cannot write the transcript {file}. ${NOT_SAVED}`,
  'start.storageReadOnly': `The session storage is not writable ({code}): Evergreen cannot write the transcript {file}. ${NOT_SAVED}`,
  'start.storageUnwritable': `Evergreen cannot write the transcript {file}: {error}. ${NOT_SAVED}`,
});

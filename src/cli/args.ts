import { parseArgs } from 'node:util';
import { parseSubagentLimits, type SubagentLimits, type SubagentLimitValues } from '../core/agent/subagentLimits';
import { parseFileAttachment, type AttachmentSpec } from '../core/agent/attachments';
import { parseContextOverrides } from '../core/context/defaults';
import { parseAllowedDomains } from '../core/sandbox/policy';
import { parseSearxngUrl } from '../core/web/searxng';
import { parseWebDomains } from '../core/web/domains';
import { allowListEntryProblem } from '../core/shell/shellAnalysis';
import { parseProvider, PROVIDERS, type ProviderId } from '../core/model/backend';
import { PROVIDER_FACTS } from '../core/model/models';
import { SETTINGS } from '../frontends/settingsTable';
import { parseThinkingSetting, THINKING_DEFAULTS, type ThinkingSetting } from '../core/model/thinking';
import { isMcpToolEntry } from '../core/modes/modeTools';

export interface CliOptions {
  prompts: string[];
  workspace: string;
  storageDir: string | undefined;
  /** The model back end (--provider; default anthropic). */
  provider: ProviderId;
  model: string | undefined;
  baseUrl: string | undefined;
  contextWindow: number | undefined;
  autoCompactPercent: number | undefined;
  maxOutputTokens: number;
  /** --max-tool-rounds: tool rounds one turn may take. */
  maxToolRoundsPerTurn: number;
  /** --thinking off|auto|N: extended thinking (reasoning effort on OpenAI's reasoning models). */
  thinking: ThinkingSetting;
  verbose: boolean;
  /** --context-setting KEY=VALUE overrides of the engine's numbers. */
  contextSettings: Record<string, number>;
  /** --subagent-* limits that were given (the rest keep their defaults). */
  subagents: Partial<SubagentLimits>;
  yes: boolean;
  /** --allow-command PREFIX (repeatable): the shell allow-list (`evergreen.approvals.shellAllowList`). */
  shellAllowList: string[];
  /** --no-sandbox: shell commands run unconfined (warned at every session start). */
  sandbox: boolean;
  /** --require-sandbox: stop before the first prompt (exit 3) when the sandbox cannot run here. */
  requireSandbox: boolean;
  /** --allow-domain (and --allow-package-registries): what sandboxed commands may reach. */
  allowedDomains: string[];
  /** --allow-web: hosts web_fetch may fetch from without asking (exact ones may be private addresses). */
  webDomains: string[];
  /** --web-search: the model may search the web (Anthropic's server tool, or SearXNG with --searxng-url). */
  webSearch: boolean;
  /** --searxng-url: the SearXNG instance web search uses on the openai back end. */
  searxngUrl: string | undefined;
  /** --no-instructions: no AGENTS.md, CLAUDE.md or other instruction file is read. */
  instructions: boolean;
  /** --mode NAME: the mode to start (or, with --resume, go on) in; undefined: a new session's agent, a resumed one's own. */
  mode: string | undefined;
  /** --plan-mcp-tool: the MCP tools plan mode offers. */
  planMcpTools: string[];
  /** --build-plan (with --resume): build the plan the session proposed; the first -p, if any, goes with it. */
  buildPlan: boolean;
  /** --no-memory: no memory tool and no memory listing in the prompt. */
  memory: boolean;
  /** --mcp-config files (user-level MCP servers). */
  mcpConfigFiles: string[];
  /** --trust-workspace-mcp: the workspace's own MCP servers may start. */
  trustWorkspaceMcp: boolean;
  /** --settings FILE or JSON (repeatable): hooks in Claude Code's settings format (`evergreen.hooks`). */
  settings: string[];
  /** --trust-workspace-hooks: the workspace's own hooks may run (in the sandbox). */
  trustWorkspaceHooks: boolean;
  resume: string | undefined;
  /** --attach and --image: what the first message carries. */
  attachments: AttachmentSpec[];
  /** --list-checkpoints / --restore-checkpoint N (with --resume): a checkpoint command instead of prompts. */
  checkpointCommand: CheckpointCommand | undefined;
  /** --export-session ID FILE / --import-session FILE: a session archive command instead of prompts. */
  archiveCommand: ArchiveCommand | undefined;
  /** --worktree [NAME]: run in a new Git worktree of the workspace ('' : a name made from the prompt). */
  worktree: string | undefined;
  /** --list-worktrees, --worktree-changes/--apply-worktree/--merge-worktree/--discard-worktree NAME: a worktree command instead of prompts. */
  worktreeCommand: WorktreeCommand | undefined;
  outputFormat: 'text' | 'stream-json';
  help: boolean;
}

export type ArchiveCommand = { kind: 'export'; sessionId: string; file: string } | { kind: 'import'; file: string };
export type WorktreeCommand = { kind: 'list' } | { kind: 'changes' | 'apply' | 'merge' | 'discard'; name: string };

export type CheckpointCommand = { kind: 'list' } | { kind: 'restore'; number: number; scope: 'files-and-conversation' | 'files' | 'conversation' };

export const USAGE = `Usage: evergreen [options] [-p PROMPT]...

Runs the Evergreen agent headless on a workspace. Each -p is one user turn, in order;
without -p the prompt is read from standard input. A prompt "/compact [focus]" compacts the
conversation instead (e.g. --resume ID -p "/compact the API decisions").

Options:
  -p, --prompt TEXT            a user message (repeatable: one turn each)
      --attach PATH[:FROM-TO]  attach a file (or lines FROM-TO of it) or a folder's listing to the first
                               message (repeatable); read now, as the model would read it
      --image PATH             attach an image (PNG, JPEG, GIF or WebP) to the first message (repeatable);
                               a PNG or JPEG over the models' limits is resized
  -w, --workspace DIR          workspace folder (default: current directory)
      --storage-dir DIR        where sessions are stored (default: ~/.evergreen)
      --provider NAME          model back end: anthropic (default) or openai (OpenAI, or any
                               OpenAI-compatible server: vLLM, Ollama, LM Studio, llama.cpp)
  -m, --model ID               model id (default: ${PROVIDER_FACTS.anthropic.defaultModel}; ${PROVIDER_FACTS.openai.defaultModel} with --provider openai)
      --base-url URL           API base URL (default: ANTHROPIC_BASE_URL, or OPENAI_BASE_URL with
                               --provider openai, else the provider's own)
      --context-window N       context window in tokens (default: what the server says about the
                               model, else ${PROVIDER_FACTS.anthropic.fallbackWindow} on anthropic; on openai the known model's window,
                               else ${PROVIDER_FACTS.openai.fallbackWindow} — set it for a local server whose context is smaller)
      --auto-compact-percent P auto-compact at P% of the usable window (default: usable window - 13000)
      --max-output-tokens N    tokens reserved for each reply (default: ${SETTINGS.maxOutputTokens.default}; capped at 20% of the window)
      --max-tool-rounds N      tool rounds one turn may take before the agent stops and reports
                               (default: ${SETTINGS.maxToolRoundsPerTurn.default}; up to ${SETTINGS.maxToolRoundsPerTurn.max.toLocaleString('en-US')}, for long autonomous turns)
      --thinking off|auto|N    extended thinking: off (default), auto (${THINKING_DEFAULTS.autoBudgetTokens} tokens on models that think, off
                               on the rest) or a budget of N tokens (at least ${THINKING_DEFAULTS.minBudgetTokens}); reasoning_effort on OpenAI's
                               reasoning models (under ${THINKING_DEFAULTS.mediumEffortFrom} low, under ${THINKING_DEFAULTS.highEffortFrom} medium, else high)
  -y, --yes                    approve file writes, shell commands and MCP tool calls without asking (a
                               command that asks to leave the sandbox still asks, and is declined without a terminal)
      --allow-command PREFIX   run commands that start with PREFIX on whole words without asking (repeatable;
                               e.g. "git status"); the sandbox still confines them, and with --no-sandbox
                               only read-only programs and options are approved (uniq IN, not uniq IN OUT)
      --mcp-config FILE        MCP servers to use (repeatable): VS Code's mcp.json or Claude Code's .mcp.json format
      --trust-workspace-mcp    also start the servers the workspace defines (.vscode/mcp.json, .mcp.json): they
                               run commands the repository chose, so they never start without this flag
      --settings FILE          hooks from FILE (repeatable), in Claude Code's settings.json format ({"hooks": …});
                               ~/.claude/settings.json and ~/.evergreen/settings.json are read too
      --trust-workspace-hooks  also run the hooks the workspace defines (.claude/settings.json,
                               .claude/settings.local.json, .evergreen/settings.json), in the sandbox:
                               they run commands the repository chose, so they never run without this flag
      --no-sandbox             run shell commands unconfined instead of in the OS sandbox (bubblewrap on
                               Linux, Seatbelt on macOS); warned at every session start
      --require-sandbox        stop before anything is sent (exit code 3) when the sandbox cannot run here,
                               saying why and how to fix it, instead of asking before every command (CI)
      --allow-domain DOMAIN    let sandboxed commands reach DOMAIN (repeatable; "*.example.com" for its
                               subdomains); without any, commands have no network
      --allow-package-registries
                               allow the common package registries (npm, PyPI, crates.io, Go, RubyGems, Maven)
      --allow-web DOMAIN       let web_fetch fetch from DOMAIN without asking (repeatable; "*.example.com" for
                               its subdomains); only an exact entry may be a private or loopback address.
                               Other hosts ask at the terminal and are declined without one (--yes does
                               not cover web fetches)
      --web-search             let the model search the web (Anthropic's server-side search, billed per
                               search; with --provider openai, the SearXNG instance of --searxng-url)
      --searxng-url URL        a SearXNG instance (JSON API on) for web search on the openai back end;
                               EVERGREEN_SEARXNG_KEY, if set, is sent to it as a bearer token
      --mode NAME              start in this mode: agent (default), plan (researches and proposes a plan,
                               changing nothing: no file writes, commands only in the sandbox with the
                               workspace read-only) or a custom mode from .evergreen/modes, .github/agents
                               or .github/chatmodes (and ~/.evergreen/modes); with --resume, go on in it
      --plan-mcp-tool NAME     an MCP tool plan mode may offer (repeatable): mcp__server__tool or mcp__server__*
      --build-plan             with --resume: build the plan the session proposed (exit_plan_mode): switch to
                               the agent mode with its steps as the task list and go on; a -p goes with it
      --no-instructions        read no instruction file (by default ~/.evergreen/AGENTS.md, then the
                               workspace's AGENTS.md, CLAUDE.md, .github/copilot-instructions.md and a
                               subfolder's AGENTS.md or CLAUDE.md when the agent works there)
      --no-memory              no memory: the model neither reads nor writes the notes it keeps for this
                               workspace (by default in <storage-dir>/memory/, listed in each new session)
      --resume SESSION_ID      continue a stored session
      --list-checkpoints       with --resume: print the session's checkpoints (one before each message)
      --restore-checkpoint N   with --resume: put the files and the conversation back to checkpoint N
                               (--files-only or --conversation-only for one of them); files changed
                               outside Evergreen since then are kept and listed
      --export-session ID FILE write session ID (transcript, saved outputs, images, checkpoints' records)
                               to FILE as a .zip, the same archive a GitHub Actions run uploads
      --import-session FILE    import a session archive (a run's artifact .zip as GitHub serves it, or
                               its unpacked folder) into the storage; continue it with --resume ID
      --worktree [NAME]        work in a new Git worktree on the branch evergreen/NAME (a name made from the
                               prompt when none is given), outside the workspace; the workspace is not touched.
                               Prints the branch and folder; --resume finds the worktree again
      --list-worktrees         print the worktrees Evergreen made for this workspace's repository
      --worktree-changes NAME  print what the chat in worktree NAME changed since its branch point, as a patch
      --apply-worktree NAME    apply those changes to the workspace as uncommitted changes (nothing is changed
                               when one does not apply)
      --merge-worktree NAME    merge the branch evergreen/NAME into the workspace's branch (undone on a conflict);
                               both need --yes when the chat changed files that run commands (package.json, .vscode, …)
      --discard-worktree NAME  remove the worktree and its branch; without --yes, only prints what would be lost
      --output-format FORMAT   text (default) or stream-json (one JSON event per line)
      --context-setting K=V    override one of the context engine's numbers (repeatable), e.g. snipUtilization=0.5
      --subagent-concurrency N subagents running at once (${SETTINGS['subagents.maxConcurrent'].min}-${SETTINGS['subagents.maxConcurrent'].max}, default ${SETTINGS['subagents.maxConcurrent'].default})
      --subagent-max-tool-rounds N
                               tool rounds a subagent may take before it hands back what it has
                               (default ${SETTINGS['subagents.maxToolRounds'].default})
      --subagent-time-limit MIN
                               minutes of work per subagent before it hands back what it has; waiting
                               for an approval does not count (default ${SETTINGS['subagents.timeLimitMinutes'].default})
  -v, --verbose                log the context engine's decisions, retries and errors to stderr
  -h, --help                   show this help

Text output shows control, bidi and zero-width characters from the model as visible escapes
(\\x1b, \\r, \\u202e); stream-json keeps the exact text (as JSON \\u escapes).

Environment: ANTHROPIC_API_KEY (the key) and ANTHROPIC_BASE_URL for anthropic; OPENAI_API_KEY and
OPENAI_BASE_URL (e.g. http://localhost:11434/v1) for openai; EVERGREEN_MODELS_TIMEOUT_MS (how long
to wait for the model's limits at startup before going on with default limits; default 10000).`;

export class UsageError extends Error {
  override name = 'UsageError';
}

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new UsageError(`${name} must be a positive integer, got "${value}"`);
  return parsed;
}

/** --max-tool-rounds: a whole number within the setting's range. */
function toolRounds(value: string | undefined): number {
  const spec = SETTINGS.maxToolRoundsPerTurn;
  const parsed = positiveInteger(dashed(FLAG.maxToolRounds), value);
  if (parsed === undefined) return spec.default;
  if (parsed > spec.max) throw new UsageError(`${dashed(FLAG.maxToolRounds)} must be at most ${spec.max}, got "${value}"`);
  return parsed;
}

/**
 * The flags that set what a VS Code setting sets, named by the settings table (so a flag, its
 * setting and their defaults and ranges cannot drift apart); the rest are the CLI's own.
 */
const FLAG = {
  provider: SETTINGS.provider.cli,
  model: SETTINGS.model.cli,
  baseUrl: SETTINGS.baseUrl.cli,
  contextWindow: SETTINGS.contextWindow.cli,
  maxOutputTokens: SETTINGS.maxOutputTokens.cli,
  maxToolRounds: SETTINGS.maxToolRoundsPerTurn.cli,
  thinking: SETTINGS.thinking.cli,
  autoCompactPercent: SETTINGS.autoCompactPercent.cli,
  contextSetting: SETTINGS.compression.cli,
  subagentConcurrency: SETTINGS['subagents.maxConcurrent'].cli,
  subagentMaxToolRounds: SETTINGS['subagents.maxToolRounds'].cli,
  subagentTimeLimit: SETTINGS['subagents.timeLimitMinutes'].cli,
  yes: SETTINGS['approvals.writes'].cli,
  allowCommand: SETTINGS['approvals.shellAllowList'].cli,
  noSandbox: SETTINGS['sandbox.enabled'].cli,
  allowDomain: SETTINGS['sandbox.allowedDomains'].cli,
  allowPackageRegistries: SETTINGS['sandbox.allowPackageRegistries'].cli,
  mcpConfig: SETTINGS['mcp.servers'].cli,
  settings: SETTINGS.hooks.cli,
  noInstructions: SETTINGS['instructions.enabled'].cli,
  noMemory: SETTINGS['memory.enabled'].cli,
  allowWeb: SETTINGS['web.allowedDomains'].cli,
  webSearch: SETTINGS['web.search'].cli,
  searxngUrl: SETTINGS['web.searxngUrl'].cli,
  mode: SETTINGS.defaultMode.cli,
  planMcpTool: SETTINGS['plan.mcpTools'].cli,
} as const;

const dashed = (flag: string): string => `--${flag}`;

function contextSettings(pairs: string[]): Record<string, number> {
  const raw: Record<string, number> = {};
  for (const pair of pairs) {
    const match = /^([A-Za-z]+)=(.+)$/.exec(pair);
    if (!match) throw new UsageError(`${dashed(FLAG.contextSetting)} takes KEY=NUMBER, got "${pair}"`);
    raw[match[1]!] = Number(match[2]);
  }
  const { settings, problems } = parseContextOverrides(raw);
  if (problems.length > 0) throw new UsageError(`${dashed(FLAG.contextSetting)}: ${problems.join('; ')}`);
  return settings as Record<string, number>;
}

const SUBAGENT_FLAGS: Record<keyof SubagentLimitValues, string> = {
  maxConcurrent: dashed(FLAG.subagentConcurrency),
  maxToolRounds: dashed(FLAG.subagentMaxToolRounds),
  timeLimitMinutes: dashed(FLAG.subagentTimeLimit),
};

function subagentLimits(flags: Record<keyof SubagentLimitValues, string | undefined>): Partial<SubagentLimits> {
  // A number is checked as one; anything else is shown as written in the error.
  const value = (raw: string | undefined): unknown => (raw === undefined ? undefined : raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw);
  const { limits, problems } = parseSubagentLimits(
    { maxConcurrent: value(flags.maxConcurrent), maxToolRounds: value(flags.maxToolRounds), timeLimitMinutes: value(flags.timeLimitMinutes) },
    (key) => SUBAGENT_FLAGS[key],
  );
  // On the command line a bad value stops the run (the settings warn and use the default instead).
  if (problems.length > 0) throw new UsageError(problems.map((problem) => problem.replace(/; using \S+$/, '')).join('; '));
  return limits;
}

function percent(name: string, value: string | undefined): number | undefined {
  const parsed = positiveInteger(name, value);
  const { min, max } = SETTINGS.autoCompactPercent;
  if (parsed !== undefined && (parsed < min || parsed > max)) throw new UsageError(`${name} must be between ${min} and ${max}, got "${value}"`);
  return parsed;
}

/** `--export-session ID FILE` takes two words, which parseArgs cannot express: taken out of argv first. */
function takeExportSession(argv: readonly string[]): { rest: string[]; command: ArchiveCommand | undefined } {
  const at = argv.indexOf('--export-session');
  if (at < 0) return { rest: [...argv], command: undefined };
  const [sessionId, file] = [argv[at + 1], argv[at + 2]];
  if (sessionId === undefined || file === undefined || sessionId.startsWith('-') || file.startsWith('-')) throw new UsageError('--export-session takes a session id and a file: --export-session ID FILE.zip');
  if (sessionId.trim() === '') throw new UsageError('--export-session needs a session id, got an empty string');
  const rest = [...argv.slice(0, at), ...argv.slice(at + 3)];
  if (rest.includes('--export-session')) throw new UsageError('give --export-session once');
  return { rest, command: { kind: 'export', sessionId, file } };
}

export function parseCliArgs(rawArgv: string[], cwd: string): CliOptions {
  const exported = takeExportSession(rawArgv);
  const argv = exported.rest;
  let parsed;
  try {
    parsed = parseArgs({
      args: bareWorktreeFlag(argv),
      allowPositionals: false,
      options: {
        prompt: { type: 'string', short: 'p', multiple: true },
        workspace: { type: 'string', short: 'w' },
        'storage-dir': { type: 'string' },
        [FLAG.provider]: { type: 'string' },
        [FLAG.model]: { type: 'string', short: 'm' },
        [FLAG.baseUrl]: { type: 'string' },
        [FLAG.contextWindow]: { type: 'string' },
        [FLAG.maxOutputTokens]: { type: 'string' },
        [FLAG.maxToolRounds]: { type: 'string' },
        [FLAG.thinking]: { type: 'string' },
        [FLAG.autoCompactPercent]: { type: 'string' },
        verbose: { type: 'boolean', short: 'v', default: false },
        [FLAG.contextSetting]: { type: 'string', multiple: true },
        [FLAG.subagentConcurrency]: { type: 'string' },
        [FLAG.subagentMaxToolRounds]: { type: 'string' },
        [FLAG.subagentTimeLimit]: { type: 'string' },
        [FLAG.yes]: { type: 'boolean', short: 'y', default: false },
        [FLAG.allowCommand]: { type: 'string', multiple: true },
        [FLAG.noSandbox]: { type: 'boolean', default: false },
        [FLAG.noInstructions]: { type: 'boolean', default: false },
        [FLAG.noMemory]: { type: 'boolean', default: false },
        [FLAG.allowDomain]: { type: 'string', multiple: true },
        [FLAG.allowPackageRegistries]: { type: 'boolean', default: false },
        [FLAG.mcpConfig]: { type: 'string', multiple: true },
        [FLAG.allowWeb]: { type: 'string', multiple: true },
        [FLAG.webSearch]: { type: 'boolean', default: false },
        [FLAG.searxngUrl]: { type: 'string' },
        [FLAG.mode]: { type: 'string' },
        [FLAG.planMcpTool]: { type: 'string', multiple: true },
        'build-plan': { type: 'boolean', default: false },
        'trust-workspace-mcp': { type: 'boolean', default: false },
        'require-sandbox': { type: 'boolean', default: false },
        [FLAG.settings]: { type: 'string', multiple: true },
        'trust-workspace-hooks': { type: 'boolean', default: false },
        resume: { type: 'string' },
        attach: { type: 'string', multiple: true },
        image: { type: 'string', multiple: true },
        'list-checkpoints': { type: 'boolean', default: false },
        'restore-checkpoint': { type: 'string' },
        'files-only': { type: 'boolean', default: false },
        'conversation-only': { type: 'boolean', default: false },
        'import-session': { type: 'string' },
        worktree: { type: 'string' },
        'list-worktrees': { type: 'boolean', default: false },
        'worktree-changes': { type: 'string' },
        'apply-worktree': { type: 'string' },
        'merge-worktree': { type: 'string' },
        'discard-worktree': { type: 'string' },
        'output-format': { type: 'string', default: 'text' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values;
  // An empty id (an unset shell variable: --resume "$ID") must not quietly start a new session.
  if (values.resume !== undefined && values.resume.trim() === '') throw new UsageError('--resume needs a session id, got an empty string (run without --resume to start a new session)');
  const format = values['output-format'];
  if (format !== 'text' && format !== 'stream-json') throw new UsageError(`--output-format must be "text" or "stream-json", got "${format}"`);
  if (values['build-plan'] === true && ((values.attach?.length ?? 0) > 0 || (values.image?.length ?? 0) > 0)) throw new UsageError('--attach and --image go with a prompt, not with --build-plan (build the plan, then attach with the next --resume)');
  if (values['require-sandbox'] && values[FLAG.noSandbox]) throw new UsageError(`give --require-sandbox or ${dashed(FLAG.noSandbox)}, not both`);
  const provider = values[FLAG.provider] === undefined ? SETTINGS.provider.default : parseProvider(values[FLAG.provider]);
  if (!provider) throw new UsageError(`${dashed(FLAG.provider)} must be ${PROVIDERS.map((name) => `"${name}"`).join(' or ')}, got "${values[FLAG.provider]}"`);
  return {
    prompts: (values.prompt ?? []).filter((prompt) => prompt.trim().length > 0),
    workspace: values.workspace ?? cwd,
    storageDir: values['storage-dir'],
    provider,
    model: values[FLAG.model],
    baseUrl: values[FLAG.baseUrl],
    contextWindow: positiveInteger(dashed(FLAG.contextWindow), values[FLAG.contextWindow]),
    autoCompactPercent: percent(dashed(FLAG.autoCompactPercent), values[FLAG.autoCompactPercent]),
    verbose: values.verbose ?? false,
    contextSettings: contextSettings(values[FLAG.contextSetting] ?? []),
    subagents: subagentLimits({ maxConcurrent: values[FLAG.subagentConcurrency], maxToolRounds: values[FLAG.subagentMaxToolRounds], timeLimitMinutes: values[FLAG.subagentTimeLimit] }),
    maxOutputTokens: positiveInteger(dashed(FLAG.maxOutputTokens), values[FLAG.maxOutputTokens]) ?? SETTINGS.maxOutputTokens.default,
    maxToolRoundsPerTurn: toolRounds(values[FLAG.maxToolRounds]),
    thinking: thinkingArg(values[FLAG.thinking]),
    yes: values[FLAG.yes] ?? false,
    shellAllowList: allowCommands(values[FLAG.allowCommand] ?? []),
    sandbox: !(values[FLAG.noSandbox] ?? false),
    requireSandbox: values['require-sandbox'] ?? false,
    instructions: !(values[FLAG.noInstructions] ?? false),
    mode: modeArg(values[FLAG.mode], values['build-plan'] === true),
    planMcpTools: planMcpTools(values[FLAG.planMcpTool] ?? []),
    buildPlan: buildPlanArg(values['build-plan'] === true, values.resume),
    memory: !(values[FLAG.noMemory] ?? false),
    allowedDomains: allowedDomains(values[FLAG.allowDomain] ?? [], values[FLAG.allowPackageRegistries] ?? false),
    mcpConfigFiles: values[FLAG.mcpConfig] ?? [],
    webDomains: webDomains(values[FLAG.allowWeb] ?? []),
    webSearch: values[FLAG.webSearch] ?? false,
    searxngUrl: searxngUrl(values[FLAG.searxngUrl]),
    trustWorkspaceMcp: values['trust-workspace-mcp'] ?? false,
    settings: values[FLAG.settings] ?? [],
    trustWorkspaceHooks: values['trust-workspace-hooks'] ?? false,
    resume: values.resume,
    checkpointCommand: checkpointCommand(values),
    archiveCommand: archiveCommand(exported.command, values['import-session'], values.resume !== undefined || values['list-checkpoints'] === true || values['restore-checkpoint'] !== undefined),
    worktree: values.worktree?.trim(),
    worktreeCommand: worktreeCommand(values),
    attachments: [...(values.attach ?? []).map(attachmentArg), ...(values.image ?? []).map((file): AttachmentSpec => ({ kind: 'image', path: file }))],
    outputFormat: format,
    help: values.help ?? false,
  };
}

/** --mode: a name (which modes exist is known once the workspace's files are read: an unknown one stops the run then, naming them). */
function modeArg(value: string | undefined, buildPlan: boolean): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`${dashed(FLAG.mode)} needs a mode name, e.g. "plan" (an empty one would quietly keep the session's mode)`);
  if (buildPlan) throw new UsageError(`give ${dashed(FLAG.mode)} or --build-plan, not both (building a plan switches to the agent mode)`);
  return value.trim();
}

function planMcpTools(entries: readonly string[]): string[] {
  const bad = entries.filter((entry) => !isMcpToolEntry(entry.trim()));
  if (bad.length > 0) throw new UsageError(`${dashed(FLAG.planMcpTool)} takes an MCP tool name such as mcp__github__get_issue or mcp__github__*, got ${bad.map((entry) => JSON.stringify(entry)).join(', ')}`);
  return entries.map((entry) => entry.trim());
}

function buildPlanArg(buildPlan: boolean, resume: string | undefined): boolean {
  if (buildPlan && resume === undefined) throw new UsageError('--build-plan needs --resume SESSION_ID (the session whose plan to build)');
  return buildPlan;
}

/** --thinking: "off", "auto" or a budget of at least 1024 tokens; anything else stops the run, saying what is accepted. */
function thinkingArg(value: string | undefined): ThinkingSetting {
  if (value === undefined) return SETTINGS.thinking.default;
  const parsed = parseThinkingSetting(value);
  if ('problem' in parsed) throw new UsageError(`${dashed(FLAG.thinking)} ${parsed.problem}`);
  return parsed.setting;
}

/** A path that ends in "/" is a folder's listing; "path:10-40" is part of a file. */
function attachmentArg(value: string): AttachmentSpec {
  try {
    return value.endsWith('/') ? { kind: 'folder', path: value } : parseFileAttachment(value);
  } catch (error) {
    throw new UsageError(`--attach: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `--worktree` takes an optional name: given bare (last, or before another option), it means "a name made from the prompt". */
function bareWorktreeFlag(argv: string[]): string[] {
  return argv.map((arg, index) => (arg === '--worktree' && (index + 1 >= argv.length || argv[index + 1]!.startsWith('-')) ? '--worktree=' : arg));
}

const WORKTREE_FLAGS = { 'worktree-changes': 'changes', 'apply-worktree': 'apply', 'merge-worktree': 'merge', 'discard-worktree': 'discard' } as const;

function worktreeCommand(values: { 'list-worktrees'?: boolean; worktree?: string; resume?: string } & Partial<Record<keyof typeof WORKTREE_FLAGS, string>>): WorktreeCommand | undefined {
  if (values.worktree !== undefined && values.resume !== undefined) throw new UsageError('--resume finds the session\'s worktree by itself: leave out --worktree');
  const given = (Object.keys(WORKTREE_FLAGS) as (keyof typeof WORKTREE_FLAGS)[]).filter((flag) => values[flag] !== undefined);
  const commands = [...(values['list-worktrees'] ? ['list-worktrees'] : []), ...given];
  if (commands.length > 1) throw new UsageError(`give one worktree command at a time, got ${commands.map((flag) => `--${flag}`).join(' and ')}`);
  if (commands.length === 1 && (values.worktree !== undefined || values.resume !== undefined)) throw new UsageError(`--${commands[0]} runs no chat: leave out --worktree and --resume`);
  if (values['list-worktrees']) return { kind: 'list' };
  const flag = given[0];
  if (flag === undefined) return undefined;
  const name = values[flag]!.trim();
  if (name === '') throw new UsageError(`--${flag} needs a worktree's name (--list-worktrees shows them)`);
  return { kind: WORKTREE_FLAGS[flag], name };
}

function checkpointCommand(values: { resume?: string; 'list-checkpoints'?: boolean; 'restore-checkpoint'?: string; 'files-only'?: boolean; 'conversation-only'?: boolean }): CheckpointCommand | undefined {
  const list = values['list-checkpoints'] === true;
  const restore = values['restore-checkpoint'];
  const filesOnly = values['files-only'] === true;
  const conversationOnly = values['conversation-only'] === true;
  if ((filesOnly || conversationOnly) && restore === undefined) throw new UsageError('--files-only and --conversation-only go with --restore-checkpoint N');
  if (filesOnly && conversationOnly) throw new UsageError('give --files-only or --conversation-only, not both (without either, both are restored)');
  if (list && restore !== undefined) throw new UsageError('give --list-checkpoints or --restore-checkpoint, not both');
  if (!list && restore === undefined) return undefined;
  if (values.resume === undefined) throw new UsageError(`${list ? '--list-checkpoints' : '--restore-checkpoint'} needs --resume SESSION_ID (the session whose checkpoints they are)`);
  if (list) return { kind: 'list' };
  const number = positiveInteger('--restore-checkpoint', restore)!;
  return { kind: 'restore', number, scope: filesOnly ? 'files' : conversationOnly ? 'conversation' : 'files-and-conversation' };
}

function archiveCommand(exported: ArchiveCommand | undefined, importFile: string | undefined, otherCommand: boolean): ArchiveCommand | undefined {
  if (exported && importFile !== undefined) throw new UsageError('give --export-session or --import-session, not both');
  const command = exported ?? (importFile === undefined ? undefined : { kind: 'import' as const, file: importFile });
  if (command && otherCommand) throw new UsageError(`--${command.kind}-session runs alone: not with --resume or a checkpoint command`);
  if (command?.kind === 'import' && command.file.trim() === '') throw new UsageError('--import-session needs a file or folder, got an empty string');
  return command;
}

/** --allow-command: each must be one plain command prefix, or the setting would ignore it silently. */
function allowCommands(entries: readonly string[]): string[] {
  for (const entry of entries) {
    const problem = allowListEntryProblem(entry);
    if (problem !== undefined) throw new UsageError(`${dashed(FLAG.allowCommand)} ${JSON.stringify(entry)}: ${problem}; give one command prefix such as "git status"`);
  }
  return entries.map((entry) => entry.trim());
}

function allowedDomains(entries: readonly string[], packageRegistries: boolean): string[] {
  const parsed = parseAllowedDomains(entries, packageRegistries);
  if (parsed.problems.length > 0) throw new UsageError(`${dashed(FLAG.allowDomain)}: ${parsed.problems.join('; ')}`);
  return parsed.domains;
}

function webDomains(entries: readonly string[]): string[] {
  const parsed = parseWebDomains(entries);
  if (parsed.problems.length > 0) throw new UsageError(`${dashed(FLAG.allowWeb)}: ${parsed.problems.join('; ')}`);
  return parsed.domains;
}

function searxngUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseSearxngUrl(value);
  if ('problem' in parsed) throw new UsageError(`${dashed(FLAG.searxngUrl)}: ${parsed.problem}`);
  return parsed.url;
}

/**
 * What the user reads about each setting: its category in the Settings editor, its place there,
 * and its description (markdown, English). scripts/manifest.ts writes these into package.json's
 * `contributes.configuration` (as `%key%` references into package.nls.json) and into docs/settings.md's
 * settings tables, beside what settingsTable.ts says about the setting's behaviour. Only the
 * generator imports this file, so no bundle carries the prose. Numbers the core owns are read
 * from it, so a description cannot name a stale default.
 */
import { CONTEXT_DEFAULTS } from '../core/context/defaults';
import { THINKING_DEFAULTS } from '../core/model/thinking';
import { PROVIDER_FACTS } from '../core/model/models';
import { PROVIDERS, type ProviderId } from '../core/model/providers';
import type { SettingKey } from './settingsTable';

/** The Settings editor's subheadings under Evergreen, in this order (issue 33). */
export const SETTING_CATEGORIES = {
  model: 'Model',
  context: 'Context',
  approvals: 'Approvals & Sandbox',
  mcp: 'MCP',
  hooks: 'Hooks',
  attachments: 'Attachments',
  advanced: 'Advanced',
} as const;

export type SettingCategory = keyof typeof SETTING_CATEGORIES;

export interface SettingText {
  readonly category: SettingCategory;
  /**
   * Its place within the category, for the settings most people change; VS Code lists these
   * first, in this order, and the rest after them alphabetically.
   */
  readonly order?: number;
  /** Markdown; `#<a setting's full name>#` links to that setting in the Settings editor. */
  readonly description: string;
  /** One per enum value, in the table's enum order. */
  readonly enumDescriptions?: readonly string[];
  /** What the Settings editor says when a value misses the table's pattern. */
  readonly patternErrorMessage?: string;
}

const n = (value: number) => value.toLocaleString('en-US');
const window = (provider: ProviderId) => n(PROVIDER_FACTS[provider].fallbackWindow);
const ONLY_USER = 'User settings only: a workspace cannot loosen approvals.';

const PROVIDER_DESCRIPTIONS: Readonly<Record<ProviderId, string>> = {
  anthropic: 'Anthropic Messages API (Claude models): `evergreen.model`, `evergreen.baseUrl`.',
  openai: 'OpenAI Chat Completions API, or any OpenAI-compatible server (gateways, vLLM, Ollama, LM Studio, llama.cpp): `evergreen.openai.model`, `evergreen.openai.baseUrl`.',
};

export const SETTING_TEXT: { readonly [K in SettingKey]: SettingText } = {
  provider: {
    category: 'model',
    order: 1,
    description:
      'Which model back end the agent uses. Each provider has its own key ("Evergreen: Set API Key" sets the active provider\'s), model and base URL. Changing it mid-conversation keeps the history: the next message goes to the new provider. User settings only (like the base URLs): a workspace cannot change where your code is sent.',
    enumDescriptions: PROVIDERS.map((id) => PROVIDER_DESCRIPTIONS[id]),
  },
  model: {
    category: 'model',
    order: 2,
    description: "Claude model id used when `evergreen.provider` is `anthropic`. Leave empty for Evergreen's default (the current Sonnet model).",
  },
  baseUrl: {
    category: 'model',
    order: 5,
    description:
      'Base URL of the Anthropic Messages API (leave empty for the default; set it for proxies, gateways or Anthropic-compatible local servers). `ANTHROPIC_BASE_URL` is honoured when empty.',
  },
  'openai.model': {
    category: 'model',
    order: 3,
    description: `Model id used when \`evergreen.provider\` is \`openai\` (e.g. \`gpt-4.1\`, \`o4-mini\`, or a local server's model name). Leave empty for \`${PROVIDER_FACTS.openai.defaultModel}\`.`,
  },
  'openai.baseUrl': {
    category: 'model',
    order: 6,
    description:
      'Base URL of an OpenAI-compatible Chat Completions API, including `/v1` (e.g. `http://localhost:11434/v1` for Ollama, `http://localhost:8000/v1` for vLLM). Leave empty for OpenAI; `OPENAI_BASE_URL` is honoured when empty. The key is `OPENAI_API_KEY` or the one set with "Evergreen: Set API Key".',
  },
  thinking: {
    category: 'model',
    order: 4,
    description: `Extended thinking: \`off\`, \`auto\` (${n(THINKING_DEFAULTS.autoBudgetTokens)} tokens on models that think, off on the rest) or a thinking budget in tokens (at least ${n(THINKING_DEFAULTS.minBudgetTokens)}). The reply reserve grows by the budget. Claude 3.7/4 get \`budget_tokens\`, Claude 4.6 and later an effort; OpenAI's reasoning models get \`reasoning_effort\` (under ${n(THINKING_DEFAULTS.mediumEffortFrom)} low, under ${n(THINKING_DEFAULTS.highEffortFrom)} medium, else high). A model without thinking runs without it, with a notice. Applies from the next session (the chat restarts on its transcript).`,
    patternErrorMessage: `"off", "auto" or a budget in tokens (a whole number, at least ${THINKING_DEFAULTS.minBudgetTokens}).`,
  },
  contextWindow: {
    category: 'context',
    order: 1,
    description: `Context window in tokens. Empty: the Models API's \`max_input_tokens\` for the model, else ${window('anthropic')} (provider \`openai\`: the known window of the model, else ${window('openai')}).`,
  },
  autoCompactPercent: {
    category: 'context',
    order: 2,
    description: `Auto-compact threshold as a percentage of the effective window. Empty: effective window minus ${n(CONTEXT_DEFAULTS.autoCompactMargin)} tokens.`,
  },
  maxOutputTokens: {
    category: 'context',
    order: 3,
    description: "Tokens reserved for the model's reply (the effective window is the window minus this).",
  },
  'instructions.enabled': {
    category: 'context',
    order: 4,
    description:
      'Read project instruction files into every new chat: your own `~/.evergreen/AGENTS.md` (or `#evergreen.instructions.userFile#`), then the workspace root\'s `AGENTS.md`, `CLAUDE.md` and `.github/copilot-instructions.md` (a trusted workspace\'s only), with their `@path` imports; a subfolder\'s `AGENTS.md` or `CLAUDE.md` is added when the agent first works there. Changes apply to the next chat or after **Evergreen: Reload Instructions**. User settings only.',
  },
  'instructions.userFile': {
    category: 'context',
    order: 5,
    description: 'Your own instruction file, read first into every chat (`~/` is your home folder). Empty: `~/.evergreen/AGENTS.md`. User settings only.',
  },
  'memory.enabled': {
    category: 'context',
    order: 6,
    description:
      "Let the agent keep notes across chats of a workspace with its `memory` tool, in a folder of Evergreen's storage outside the repository, and list them (names, sizes, first lines) in each new chat. Memory holds what the model chose to write: review or edit it with **Evergreen: Open Memory** or `/memory`. Writes do not ask; each shows as a card in the chat. Read-only in an untrusted workspace. User settings only.",
  },
  'approvals.writes': {
    category: 'approvals',
    order: 1,
    description: `Whether file writes and edits ask for approval (with a diff) or are applied automatically. Files that configure what commands run (\`.git/\`, \`.vscode/\`, \`package.json\`, \`Makefile\`, \`.envrc\`, …) always ask. ${ONLY_USER}`,
  },
  'approvals.shell': {
    category: 'approvals',
    order: 2,
    description: `Whether shell commands ask for approval or run automatically. ${ONLY_USER}`,
  },
  'approvals.shellAllowList': {
    category: 'approvals',
    order: 3,
    description: `Command prefixes that run without asking (e.g. \`git status\`, \`npm test\`). Never applies to what the analyzer cannot fully understand (expansions, substitutions, assignments, pipes into a shell, \`sudo\`, …). With the sandbox off (\`#evergreen.sandbox.enabled#\`), only read-only programs and options are approved (\`uniq IN\`, not \`uniq IN OUT\`); anything else asks. CLI: \`--allow-command\`. ${ONLY_USER}`,
  },
  'approvals.mcp': {
    category: 'approvals',
    order: 8,
    description: "MCP tool calls: `ask` shows the server, the tool and the arguments before each call; `auto` never asks. A server's own hints (read-only, …) never skip asking. User settings only.",
  },
  'approvals.mcpAllowList': {
    category: 'approvals',
    order: 9,
    description: "MCP tools that run without asking: full names (`mcp__github__get_issue`) or all of one server's (`mcp__github__*`). User settings only.",
  },
  'sandbox.enabled': {
    category: 'approvals',
    order: 4,
    description:
      'Run every shell command in an OS sandbox (bubblewrap on Linux, Seatbelt on macOS): writes only inside the workspace and a private temp folder (never `.git/config`, hooks, `.vscode` or the files that configure commands), no network except `#evergreen.sandbox.allowedDomains#`, no view of other processes. The shell allow-list and auto approval apply only while the sandbox works. Turning it off runs commands with your full permissions (warned at every session start). User settings only.',
  },
  'sandbox.allowedDomains': {
    category: 'approvals',
    order: 5,
    description: 'Domains sandboxed commands may reach, e.g. `github.com` or `*.example.com` (its subdomains). Empty: no network. User settings only.',
  },
  'sandbox.allowPackageRegistries': {
    category: 'approvals',
    order: 6,
    description: 'Also allow the common package registries (npm, PyPI, crates.io, Go modules, RubyGems, Maven Central) so installs work in the sandbox. User settings only.',
  },
  'web.allowedDomains': {
    category: 'approvals',
    order: 7,
    description:
      'Hosts `web_fetch` may fetch from without asking, e.g. `docs.python.org` or `*.mozilla.org` (its subdomains). Other hosts ask each time (allow once, always for that host in this workspace, or decline; "Evergreen: Web Access" lists and forgets the ones allowed always). Private, loopback, link-local and cloud-metadata addresses are refused unless listed here exactly (no `*.`): a host listed may resolve to one, and an address listed (`127.0.0.1`) may be reached under a host you approve (`localhost`). User settings only: a workspace can never pre-approve a host.',
  },
  'web.search': {
    category: 'advanced',
    description:
      "Let the model search the web. Anthropic: Anthropic's server-side web search (billed per search, shown in the cost). OpenAI-compatible: your SearXNG instance at `#evergreen.web.searxngUrl#` (no search tool without one). Queries go to the search provider; results come back as untrusted text. User settings only.",
  },
  'web.searxngUrl': {
    category: 'advanced',
    description:
      'Base URL of a SearXNG instance with its JSON API on (`search.formats: [json]`), e.g. `http://localhost:8888`, used for web search on the OpenAI-compatible back end. An optional key for a proxy in front of it is kept in SecretStorage ("Evergreen: Set SearXNG Key"). User settings only.',
  },
  'mcp.servers': {
    category: 'mcp',
    order: 1,
    description:
      "Your own MCP servers, in Claude Code's `mcpServers` shape: `{\"name\": {\"command\": \"npx\", \"args\": [\"-y\", \"some-server\"], \"env\": {}}}` or `{\"name\": {\"type\": \"http\", \"url\": \"https://…\", \"headers\": {}}}`. `${env:NAME}` and `${workspaceFolder}` are expanded. The workspace's `.vscode/mcp.json` and `.mcp.json` are read too, but start only with your consent. User settings only.",
  },
  'plan.mcpTools': {
    category: 'mcp',
    order: 2,
    description:
      "MCP tools plan mode offers: full names (`mcp__github__get_issue`) or all of one server's (`mcp__github__*`). Plan mode changes nothing, and an MCP tool may change anything its server can reach, so by default it offers none; list only tools that only read. Their calls still ask as `#evergreen.approvals.mcp#` says. CLI: `--plan-mcp-tool`. User settings only.",
  },
  defaultMode: {
    category: 'advanced',
    description:
      'The mode a new chat starts in: `agent` (works on the task), `plan` (researches and proposes a plan, changing nothing until you build it) or the name of a custom mode (`.evergreen/modes/*.md`, `.github/agents/*.agent.md`, `.github/chatmodes/*.chatmode.md`). The mode picker in the chat switches at any time; a resumed chat keeps its own. A name that no longer exists starts in `agent`, with a warning. CLI: `--mode`. User settings only.',
  },
  hooks: {
    category: 'hooks',
    order: 1,
    description:
      "Your own hooks, in Claude Code's `hooks` shape: commands run at each step of the agent, e.g. `{\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"~/bin/check-command.sh\", \"timeout\": 30}]}]}`. Also read: `~/.claude/settings.json`, `~/.evergreen/settings.json`, and the workspace's `.claude/settings.json`, `.claude/settings.local.json` and `.evergreen/settings.json`, whose hooks run only with your consent and in the sandbox. The README (Hooks) lists the events and what a hook can decide. User settings only.",
  },
  'attachments.editorContext': {
    category: 'attachments',
    order: 1,
    description: 'What of the active editor a new message carries by itself. Each chip can be removed before sending.',
    enumDescriptions: [
      "The editor's selection is attached to a new message when there is one; the open file is offered as a one-click chip.",
      'Both the open file and the selection are attached.',
      'Neither is attached; both are offered as one-click chips.',
    ],
  },
  maxToolRoundsPerTurn: {
    category: 'advanced',
    order: 1,
    description: 'Tool rounds one turn may take before the agent stops and says where the task stands (you can say "continue"). Raise it for long autonomous turns.',
  },
  'chats.maxRunning': {
    category: 'advanced',
    order: 5,
    description: 'Chats that may run a turn at once. A message sent in another chat waits in the queue (the Chats list shows it as queued) and starts when one of them finishes.',
  },
  'subagents.maxConcurrent': {
    category: 'advanced',
    order: 2,
    description: 'Subagents (the `task` tool) running at once; further `task` calls of the same response wait for a free slot.',
  },
  'subagents.maxToolRounds': {
    category: 'advanced',
    order: 3,
    description: 'Tool rounds a subagent may take before it is stopped and hands back the last text it wrote, with a note.',
  },
  'subagents.timeLimitMinutes': {
    category: 'advanced',
    order: 4,
    description: 'Minutes a subagent may work before it is stopped and hands back the last text it wrote, with a note. Time spent waiting for your approval does not count.',
  },
  pricing: {
    category: 'advanced',
    description: `Per-model price overrides in USD per million tokens, e.g. \`{ "${PROVIDER_FACTS.anthropic.defaultModel}": { "input": 2, "output": 10, "cacheRead": 0.2, "cacheWrite": 2.5 } }\`.`,
  },
  compression: {
    category: 'advanced',
    description:
      'Overrides of the context engine\'s numbers, e.g. `{ "persistThresholdBytes": 20480, "snipUtilization": 0.5, "clearUtilization": 0.4 }`. settings.json offers each key with its default and range as you type; the README (Context engine) says what they do. Unknown keys or bad values are reported and ignored.',
  },
};

/**
 * Every `evergreen.*` setting in one table: its name (the key below, under `evergreen.`), scope,
 * type, range or choices, default, how the extension reads it, what a change does, and the CLI
 * flag that sets the same thing. The extension's settings reader, its change handler and the CLI
 * parser take names, defaults and ranges from here; package.json's `contributes.configuration`
 * (the manifest VS Code reads, with the descriptions users see) and docs/settings.md's settings table
 * are checked against it by test/unit/settings.table.test.ts. Defaults that belong to a part of
 * the core (the output reserve, the subagent limits, the providers) are read from that part, so
 * each number is still written once. It sits in src/frontends, beside the core it reads those
 * defaults from, because only the front ends (the extension and the CLI) import it.
 */
import { SUBAGENT_DEFAULTS, SUBAGENT_LIMIT_RANGES } from '../core/agent/subagentLimits';
import { CONTEXT_DEFAULTS } from '../core/context/defaults';
import { DEFAULT_MAX_TOOL_ROUNDS_PER_TURN, MAX_TOOL_ROUNDS_RANGE } from '../core/agent/session';
import { DEFAULT_PROVIDER, PROVIDERS, type ProviderId } from '../core/model/backend';
import { DEFAULT_MAX_RUNNING_CHATS, MAX_RUNNING_CHATS_RANGE } from './chatBoard';

/** Where a value may come from: 'machine' = user settings (also a remote machine's); 'application' = the local user settings only. */
export type SettingScope = 'machine' | 'application';

/** The JSON Schema type the manifest declares. */
export type SettingType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

export interface SettingSpec {
  readonly scope: SettingScope;
  readonly type: SettingType;
  /** `null` is a value too: unset means "work it out" (the window from the server, …). */
  readonly nullable?: true;
  /** The only values allowed (strings). */
  readonly enum?: readonly string[];
  /** Strings: the pattern a value must match (the Settings UI checks it as it is typed). */
  readonly pattern?: string;
  /** Arrays: the type of each entry. */
  readonly items?: 'string';
  readonly min?: number;
  readonly max?: number;
  readonly default: string | number | boolean | null | readonly string[] | Readonly<Record<string, never>>;
  /**
   * How the extension reads it: 'effective' as VS Code resolves it for its scope; 'user' the
   * user's own value only, so a workspace's .vscode/settings.json is never read for it.
   */
  readonly read: 'effective' | 'user';
  /**
   * A workspace value is named in a warning as ignored: the setting decides what each request
   * costs and how much of the code is sent, so the user should know a repository tried.
   */
  readonly workspaceNotice?: true;
  /** 'live': applied to the running session; 'restart': the session is rebuilt on its own transcript. */
  readonly change: 'live' | 'restart';
  /**
   * Listed in the manifest's `restrictedConfigurations`: in an untrusted workspace VS Code uses
   * no workspace value for it at all (where the code and key go, approvals, the sandbox, prices).
   */
  readonly restrictedWhenUntrusted?: true;
  /** The CLI flag that sets the same thing, without its dashes (several settings may share one). */
  readonly cli?: string;
}

const subagentRange = (key: keyof typeof SUBAGENT_LIMIT_RANGES) => ({ min: SUBAGENT_LIMIT_RANGES[key].min, max: SUBAGENT_LIMIT_RANGES[key].max });

export const SETTINGS = {
  provider: { scope: 'machine', type: 'string', enum: PROVIDERS, default: DEFAULT_PROVIDER, restrictedWhenUntrusted: true, read: 'effective', change: 'restart', cli: 'provider' },
  model: { scope: 'machine', type: 'string', default: '', read: 'user', workspaceNotice: true, change: 'restart', cli: 'model' },
  baseUrl: { scope: 'machine', type: 'string', default: '', restrictedWhenUntrusted: true, read: 'effective', change: 'restart', cli: 'base-url' },
  'openai.model': { scope: 'machine', type: 'string', default: '', read: 'user', workspaceNotice: true, change: 'restart', cli: 'model' },
  'openai.baseUrl': { scope: 'machine', type: 'string', default: '', restrictedWhenUntrusted: true, read: 'effective', change: 'restart', cli: 'base-url' },
  contextWindow: { scope: 'machine', type: 'number', nullable: true, min: 1000, default: null, read: 'user', workspaceNotice: true, change: 'restart', cli: 'context-window' },
  maxOutputTokens: { scope: 'machine', type: 'number', min: 256, default: CONTEXT_DEFAULTS.maxOutputTokens, read: 'user', workspaceNotice: true, change: 'restart', cli: 'max-output-tokens' },
  maxToolRoundsPerTurn: { scope: 'machine', type: 'integer', min: MAX_TOOL_ROUNDS_RANGE.min, max: MAX_TOOL_ROUNDS_RANGE.max, default: DEFAULT_MAX_TOOL_ROUNDS_PER_TURN, read: 'user', workspaceNotice: true, change: 'restart', cli: 'max-tool-rounds' },
  autoCompactPercent: { scope: 'machine', type: 'number', nullable: true, min: 10, max: 100, default: null, read: 'user', workspaceNotice: true, change: 'restart', cli: 'auto-compact-percent' },
  // A string, so the Settings UI shows one text box for "off", "auto" and a budget alike (a number typed in settings.json is taken too).
  thinking: { scope: 'machine', type: 'string', pattern: '^(off|auto|[0-9]+)$', default: 'off', read: 'user', workspaceNotice: true, change: 'restart', cli: 'thinking' },
  // What goes into every request's prefix: the user's choice, never a repository's (its files are read only when trusted).
  'instructions.enabled': { scope: 'machine', type: 'boolean', default: true, read: 'user', workspaceNotice: true, change: 'restart', cli: 'no-instructions' },
  'instructions.userFile': { scope: 'machine', type: 'string', default: '', read: 'user', workspaceNotice: true, change: 'restart' },
  // What the model keeps across chats and reads into each new one: the user's choice, never a repository's.
  'memory.enabled': { scope: 'machine', type: 'boolean', default: true, read: 'user', workspaceNotice: true, change: 'restart', cli: 'no-memory' },
  // Approvals and the sandbox are boundaries a repository must not be able to lower: application
  // scope in the manifest, and read from the user's own settings here as well.
  'approvals.writes': { scope: 'application', type: 'string', enum: ['ask', 'auto'], default: 'ask', restrictedWhenUntrusted: true, read: 'user', change: 'live', cli: 'yes' },
  'approvals.shell': { scope: 'application', type: 'string', enum: ['ask', 'auto'], default: 'ask', restrictedWhenUntrusted: true, read: 'user', change: 'live', cli: 'yes' },
  'approvals.shellAllowList': { scope: 'application', type: 'array', items: 'string', default: [], restrictedWhenUntrusted: true, read: 'user', change: 'live', cli: 'allow-command' },
  'approvals.mcp': { scope: 'application', type: 'string', enum: ['ask', 'auto'], default: 'ask', restrictedWhenUntrusted: true, read: 'user', change: 'live', cli: 'yes' },
  'approvals.mcpAllowList': { scope: 'application', type: 'array', items: 'string', default: [], restrictedWhenUntrusted: true, read: 'user', change: 'live' },
  'attachments.editorContext': { scope: 'machine', type: 'string', enum: ['selection', 'fileAndSelection', 'none'], default: 'selection', read: 'effective', change: 'live' },
  'mcp.servers': { scope: 'application', type: 'object', default: {}, restrictedWhenUntrusted: true, read: 'user', change: 'restart', cli: 'mcp-config' },
  // Plan mode's promise is "changes nothing": an MCP tool may do anything its server's author wrote, so only the user may name the ones it offers.
  'plan.mcpTools': { scope: 'application', type: 'array', items: 'string', default: [], restrictedWhenUntrusted: true, read: 'user', change: 'restart', cli: 'plan-mcp-tool' },
  // A mode may pick its own model, which decides what requests cost: the user's choice, never a repository's.
  defaultMode: { scope: 'machine', type: 'string', default: 'agent', read: 'user', workspaceNotice: true, change: 'live', cli: 'mode' },
  // Hooks run commands at every step: the user's own (a workspace's are read from its files, and run only with consent).
  hooks: { scope: 'application', type: 'object', default: {}, restrictedWhenUntrusted: true, read: 'user', change: 'restart', cli: 'settings' },
  'sandbox.enabled': { scope: 'application', type: 'boolean', default: true, restrictedWhenUntrusted: true, read: 'user', change: 'restart', cli: 'no-sandbox' },
  'sandbox.allowedDomains': { scope: 'application', type: 'array', items: 'string', default: [], restrictedWhenUntrusted: true, read: 'user', change: 'restart', cli: 'allow-domain' },
  'sandbox.allowPackageRegistries': { scope: 'application', type: 'boolean', default: false, restrictedWhenUntrusted: true, read: 'user', change: 'restart', cli: 'allow-package-registries' },
  // Where web_fetch may go without asking: the user's own list (a workspace can never pre-approve a host).
  'web.allowedDomains': { scope: 'application', type: 'array', items: 'string', default: [], restrictedWhenUntrusted: true, read: 'user', change: 'restart', cli: 'allow-web' },
  // Web search costs per search and sends queries out: the user's choice, never a repository's.
  'web.search': { scope: 'machine', type: 'boolean', default: false, read: 'user', workspaceNotice: true, change: 'restart', cli: 'web-search' },
  'web.searxngUrl': { scope: 'machine', type: 'string', default: '', restrictedWhenUntrusted: true, read: 'user', workspaceNotice: true, change: 'restart', cli: 'searxng-url' },
  // How many chats' turns run at once: what the user pays for at a time, so their own choice.
  'chats.maxRunning': { scope: 'machine', type: 'integer', min: MAX_RUNNING_CHATS_RANGE.min, max: MAX_RUNNING_CHATS_RANGE.max, default: DEFAULT_MAX_RUNNING_CHATS, read: 'user', workspaceNotice: true, change: 'live' },
  'subagents.maxConcurrent': { scope: 'machine', type: 'integer', ...subagentRange('maxConcurrent'), default: SUBAGENT_DEFAULTS.maxConcurrent, read: 'user', workspaceNotice: true, change: 'restart', cli: 'subagent-concurrency' },
  'subagents.maxToolRounds': { scope: 'machine', type: 'integer', ...subagentRange('maxToolRounds'), default: SUBAGENT_DEFAULTS.maxToolRounds, read: 'user', workspaceNotice: true, change: 'restart', cli: 'subagent-max-tool-rounds' },
  'subagents.timeLimitMinutes': { scope: 'machine', type: 'integer', ...subagentRange('timeLimitMinutes'), default: SUBAGENT_DEFAULTS.timeLimitMs / 60_000, read: 'user', workspaceNotice: true, change: 'restart', cli: 'subagent-time-limit' },
  // The price table is machine-scoped so a repository cannot make the shown cost read $0; the CLI uses the built-in tables.
  pricing: { scope: 'machine', type: 'object', default: {}, restrictedWhenUntrusted: true, read: 'effective', change: 'live' },
  compression: { scope: 'machine', type: 'object', default: {}, read: 'user', workspaceNotice: true, change: 'restart', cli: 'context-setting' },
} as const satisfies Readonly<Record<string, SettingSpec>>;

export type SettingKey = keyof typeof SETTINGS;

export const SETTING_KEYS = Object.keys(SETTINGS) as readonly SettingKey[];

/** The settings that hold each provider's model and base URL (the provider setting picks which apply). */
export const PROVIDER_SETTINGS: Readonly<Record<ProviderId, { model: SettingKey; baseUrl: SettingKey }>> = {
  anthropic: { model: 'model', baseUrl: 'baseUrl' },
  openai: { model: 'openai.model', baseUrl: 'openai.baseUrl' },
};

/** The section VS Code's configuration API knows the settings under. */
export const SETTINGS_SECTION = 'evergreen';

/** The full name a user sees and writes: `evergreen.contextWindow`. */
export function settingName(key: SettingKey): string {
  return `${SETTINGS_SECTION}.${key}`;
}

/** The CLI flag as typed: `--context-window`; undefined when the CLI has none for it. */
export function cliFlag(key: SettingKey): string | undefined {
  const spec: SettingSpec = SETTINGS[key];
  return spec.cli === undefined ? undefined : `--${spec.cli}`;
}

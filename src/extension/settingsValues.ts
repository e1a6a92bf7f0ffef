/**
 * The `evergreen.*` settings as the extension uses them, parsed from raw values. Pure (no vscode
 * import) so unit tests run it in plain node; settings.ts feeds it from the configuration.
 */
import * as l10n from '@vscode/l10n';
import { parseSubagentLimits, type SubagentLimits } from '../core/agent/subagentLimits';
import { DEFAULT_PROVIDER, parseProvider, PROVIDERS, type ProviderId } from '../core/model/backend';
import { parseAllowedDomains } from '../core/sandbox/policy';
import { parseWebDomains } from '../core/web/domains';
import { parseSearxngUrl } from '../core/web/searxng';
import { parseThinkingSetting, type ThinkingSetting } from '../core/model/thinking';
import { isMcpToolEntry } from '../core/modes/modeTools';
import { PROVIDER_SETTINGS, SETTING_KEYS, settingName, SETTINGS, type SettingKey, type SettingSpec } from '../frontends/settingsTable';

/** Where raw values come from. */
export interface SettingsSource {
  /** The effective value (user, workspace or default, as VS Code resolves it for the setting's scope). */
  get(key: string): unknown;
  /** The user's own value, else the default: a workspace's .vscode/settings.json is never read. */
  userValue(key: string): unknown;
  /** The workspace's (or its folder's) value, if it sets one: only to say that it is ignored. */
  workspaceValue?(key: string): unknown;
}

/**
 * Settings a cloned repository's .vscode/settings.json must not choose: they decide what each
 * request costs and how much of the code is sent (model, window, reply reserve, compaction, the
 * engine's numbers, how many subagents run and for how long). Machine-scoped in the manifest and
 * read from the user's settings only here; a workspace value is reported as ignored.
 */
export const USER_ONLY_SETTINGS: readonly SettingKey[] = SETTING_KEYS.filter((key) => (SETTINGS[key] as SettingSpec).workspaceNotice === true);

export interface EvergreenSettings {
  /** Which back end serves the chat. */
  provider: ProviderId;
  /** The active provider's model; undefined: that provider's default model. */
  model: string | undefined;
  /** The active provider's base URL; undefined: its env variable, else its SDK's default. */
  baseUrl: string | undefined;
  contextWindow: number | undefined;
  maxOutputTokens: number;
  /** Tool rounds one turn may take (a whole number in range; anything else: the default, named as a problem). */
  maxToolRoundsPerTurn: number;
  autoCompactPercent: number | undefined;
  /** `evergreen.thinking`: off, auto or a budget (a bad value: off, named as a problem). */
  thinking: ThinkingSetting;
  approvals: { writes: 'ask' | 'auto'; shell: 'ask' | 'auto'; shellAllowList: string[]; mcp: 'ask' | 'auto'; mcpAllowList: string[] };
  /** `evergreen.mcp.servers` as the user set it (parsed by the MCP loader, which names every problem). */
  mcpServers: unknown;
  /** `evergreen.hooks` as the user set it (parsed by the hooks loader, which names every problem). */
  hooks: unknown;
  /** `evergreen.subagents.*` limits that were set and valid (the rest keep the core's defaults). */
  subagents: Partial<SubagentLimits>;
  /** `evergreen.sandbox.*`, from the user's own settings only. */
  sandbox: { enabled: boolean; allowedDomains: string[] };
  /** `evergreen.web.*`, from the user's own settings only: hosts web_fetch may reach unasked, whether the model may search, SearXNG's URL. */
  web: { allowedDomains: string[]; search: boolean; searxngUrl: string | undefined };
  /** `evergreen.compression` as the user set it (parsed by the context engine's parseContextOverrides). */
  compression: unknown;
  /** `evergreen.instructions.*`: whether instruction files are read, and the user's own file (undefined: the default). */
  instructions: { enabled: boolean; userFile: string | undefined };
  /** `evergreen.defaultMode` (the mode a new chat starts in; checked against the modes there are when a chat starts) and `evergreen.plan.mcpTools`. */
  modes: { defaultMode: string; planMcpTools: string[] };
  /** `evergreen.memory.enabled`: whether the agent keeps and reads its notes for the workspace. */
  memory: { enabled: boolean };
  /** `evergreen.chats.maxRunning`: how many of the open chats may run a turn at once (the rest queue). */
  chats: { maxRunning: number };
  /** Values that could not be used, each with what was used instead (for a warning). */
  problems: string[];
}

/** One setting's raw value, read the way its row in the table says (the user's own value, or as VS Code resolves it). */
export function readSetting(source: SettingsSource, key: SettingKey): unknown {
  return SETTINGS[key].read === 'user' ? source.userValue(key) : source.get(key);
}

export function parseSettings(source: SettingsSource): EvergreenSettings {
  const problems: string[] = [];
  // The workspace may not pick these (USER_ONLY_SETTINGS): said once per setting it tried.
  for (const key of USER_ONLY_SETTINGS) {
    const value = source.workspaceValue?.(key);
    if (value !== undefined && value !== null) problems.push(l10n.t('"{0}" in this workspace\'s settings is ignored: it is read from your user settings only, since it decides what requests cost and send', settingName(key)));
  }
  const read = (key: SettingKey): unknown => readSetting(source, key);
  const optionalNumber = (key: SettingKey): number | undefined => {
    const value = read(key);
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  const wholeNumber = (key: 'maxToolRoundsPerTurn' | 'chats.maxRunning'): number => {
    const spec = SETTINGS[key];
    const value = read(key);
    if (value === undefined || value === null) return spec.default;
    if (typeof value === 'number' && Number.isInteger(value) && value >= spec.min && value <= spec.max) return value;
    problems.push(l10n.t('"{0}" must be a whole number from {1} to {2}, got {3}; using {4}', settingName(key), spec.min, spec.max.toLocaleString('en-US'), JSON.stringify(value), spec.default));
    return spec.default;
  };
  const thinking = (): ThinkingSetting => {
    const value = read('thinking');
    if (value === undefined || value === null) return SETTINGS.thinking.default;
    const parsed = parseThinkingSetting(value);
    if ('setting' in parsed) return parsed.setting;
    problems.push(l10n.t('"{0}" {1}; thinking is off', settingName('thinking'), parsed.problem));
    return 'off';
  };
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() || undefined : undefined);
  // Approvals come from the user's own settings only (the manifest scopes them to the application,
  // and this is the belt to those braces): a workspace's .vscode/settings.json, which the agent or a
  // cloned repository could have written, can never loosen them. Anything but "auto" asks.
  const askOrAuto = (key: 'approvals.writes' | 'approvals.shell' | 'approvals.mcp'): 'ask' | 'auto' => (read(key) === 'auto' ? 'auto' : 'ask');
  // Machine-scoped in the manifest, like the base URLs: which service gets the code is the user's choice, never a repository's.
  const rawProvider = read('provider');
  let provider = parseProvider(rawProvider ?? SETTINGS.provider.default);
  if (!provider) {
    problems.push(l10n.t('"{0}" must be {1}, got {2}; using "{3}"', settingName('provider'), PROVIDERS.map((name) => `"${name}"`).join(' or '), JSON.stringify(rawProvider), DEFAULT_PROVIDER));
    provider = DEFAULT_PROVIDER;
  }
  const keys = PROVIDER_SETTINGS[provider];
  const shellAllowList = read('approvals.shellAllowList');
  const subagents = parseSubagentLimits(
    { maxConcurrent: read('subagents.maxConcurrent'), maxToolRounds: read('subagents.maxToolRounds'), timeLimitMinutes: read('subagents.timeLimitMinutes') },
    (key) => `"${settingName(`subagents.${key}`)}"`,
  );
  problems.push(...subagents.problems);
  // The sandbox is a boundary a repository must not be able to lower: user settings only, like approvals.
  const rawDomains = read('sandbox.allowedDomains');
  const domains = parseAllowedDomains(Array.isArray(rawDomains) ? rawDomains : [], read('sandbox.allowPackageRegistries') === true);
  if (rawDomains !== undefined && !Array.isArray(rawDomains)) problems.push(l10n.t('"{0}" must be a list of domain names; no domains are allowed', settingName('sandbox.allowedDomains')));
  problems.push(...domains.problems.map((problem) => entryIgnored('sandbox.allowedDomains', problem)));
  const rawWeb = read('web.allowedDomains');
  const webDomains = parseWebDomains(Array.isArray(rawWeb) ? rawWeb : []);
  if (rawWeb !== undefined && !Array.isArray(rawWeb)) problems.push(l10n.t('"{0}" must be a list of host names; no host is allowed beforehand', settingName('web.allowedDomains')));
  problems.push(...webDomains.problems.map((problem) => entryIgnored('web.allowedDomains', problem)));
  const planMcpTools = (): string[] => {
    const raw = read('plan.mcpTools');
    const entries = stringList(raw).map((entry) => entry.trim());
    // An entry that names no MCP tool would quietly offer nothing: said, and left out.
    const bad = entries.filter((entry) => !isMcpToolEntry(entry));
    if ((raw !== undefined && !Array.isArray(raw)) || bad.length > 0) {
      const setting = settingName('plan.mcpTools');
      problems.push(
        bad.length > 0
          ? l10n.t('"{0}" takes MCP tool names such as mcp__github__get_issue or mcp__github__*; ignoring {1}', setting, bad.map((entry) => JSON.stringify(entry)).join(', '))
          : l10n.t('"{0}" takes MCP tool names such as mcp__github__get_issue or mcp__github__*; ignoring it', setting),
      );
    }
    return entries.filter((entry) => !bad.includes(entry));
  };
  const rawSearxng = text(read('web.searxngUrl'));
  const searxng = rawSearxng === undefined ? undefined : parseSearxngUrl(rawSearxng);
  if (searxng && 'problem' in searxng) problems.push(l10n.t('"{0}": {1}; web search has no SearXNG instance', settingName('web.searxngUrl'), searxng.problem));
  return {
    provider,
    model: text(read(keys.model)),
    // Base URLs are machine-scoped in the manifest, so VS Code ignores a workspace's value (a
    // repository cannot send the key elsewhere).
    baseUrl: text(read(keys.baseUrl)),
    contextWindow: optionalNumber('contextWindow'),
    maxOutputTokens: optionalNumber('maxOutputTokens') ?? SETTINGS.maxOutputTokens.default,
    maxToolRoundsPerTurn: wholeNumber('maxToolRoundsPerTurn'),
    autoCompactPercent: optionalNumber('autoCompactPercent'),
    thinking: thinking(),
    approvals: {
      writes: askOrAuto('approvals.writes'),
      shell: askOrAuto('approvals.shell'),
      shellAllowList: (Array.isArray(shellAllowList) ? shellAllowList : []).filter((entry): entry is string => typeof entry === 'string'),
      mcp: askOrAuto('approvals.mcp'),
      mcpAllowList: stringList(read('approvals.mcpAllowList')),
    },
    mcpServers: read('mcp.servers'),
    hooks: read('hooks'),
    subagents: subagents.limits,
    // Only an explicit false turns it off (a missing or odd value keeps the default, on).
    sandbox: { enabled: read('sandbox.enabled') !== false, allowedDomains: domains.domains },
    web: { allowedDomains: webDomains.domains, search: read('web.search') === true, searxngUrl: searxng && 'url' in searxng ? searxng.url : undefined },
    compression: read('compression'),
    // Only an explicit false turns them off, as for the sandbox.
    instructions: { enabled: read('instructions.enabled') !== false, userFile: text(read('instructions.userFile')) },
    modes: { defaultMode: text(read('defaultMode')) ?? SETTINGS.defaultMode.default, planMcpTools: planMcpTools() },
    memory: { enabled: read('memory.enabled') !== false },
    chats: { maxRunning: wholeNumber('chats.maxRunning') },
    problems,
  };
}

/**
 * Whether a chat cannot start without a key: always on Anthropic; on OpenAI only against OpenAI
 * itself, since local servers and gateways at a base URL may take none (OpenAI's own API refuses
 * a missing key in the back end anyway).
 */
export function apiKeyRequired(settings: Pick<EvergreenSettings, 'provider' | 'baseUrl'>, env: Readonly<Record<string, string | undefined>>): boolean {
  return settings.provider === 'anthropic' || !(settings.baseUrl || env.OPENAI_BASE_URL?.trim());
}

/** A list setting's entry that was left out, with the reason its parser gave (English: the core's). */
function entryIgnored(key: SettingKey, problem: string): string {
  return l10n.t('"{0}": {1}; that entry is ignored', settingName(key), problem);
}

function stringList(value: unknown): string[] {
  return (Array.isArray(value) ? value : []).filter((entry): entry is string => typeof entry === 'string');
}

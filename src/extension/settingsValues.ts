/**
 * The `evergreen.*` settings as the extension uses them, parsed from raw values. Pure (no vscode
 * import) so unit tests run it in plain node; settings.ts feeds it from the configuration.
 */
import { parseSubagentLimits, type SubagentLimits } from '../core/agent/subagentLimits';
import { DEFAULT_PROVIDER, parseProvider, PROVIDERS, type ProviderId } from '../core/model/backend';
import { CONTEXT_DEFAULTS } from '../core/context/defaults';
import { parseAllowedDomains } from '../core/sandbox/policy';

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
export const USER_ONLY_SETTINGS = [
  'model',
  'openai.model',
  'contextWindow',
  'maxOutputTokens',
  'autoCompactPercent',
  'compression',
  'subagents.maxConcurrent',
  'subagents.maxToolRounds',
  'subagents.timeLimitMinutes',
] as const;

export interface EvergreenSettings {
  /** Which back end serves the chat. */
  provider: ProviderId;
  /** The active provider's model; undefined: that provider's default model. */
  model: string | undefined;
  /** The active provider's base URL; undefined: its env variable, else its SDK's default. */
  baseUrl: string | undefined;
  contextWindow: number | undefined;
  maxOutputTokens: number;
  autoCompactPercent: number | undefined;
  approvals: { writes: 'ask' | 'auto'; shell: 'ask' | 'auto'; shellAllowList: string[] };
  /** `evergreen.subagents.*` limits that were set and valid (the rest keep the core's defaults). */
  subagents: Partial<SubagentLimits>;
  /** `evergreen.sandbox.*`, from the user's own settings only. */
  sandbox: { enabled: boolean; allowedDomains: string[] };
  /** `evergreen.compression` as the user set it (parsed by the context engine's parseContextOverrides). */
  compression: unknown;
  /** Values that could not be used, each with what was used instead (for a warning). */
  problems: string[];
}

/** Setting keys (under `evergreen.`) that hold each provider's model and base URL. */
export const PROVIDER_SETTING_KEYS: Readonly<Record<ProviderId, { model: string; baseUrl: string }>> = {
  anthropic: { model: 'model', baseUrl: 'baseUrl' },
  openai: { model: 'openai.model', baseUrl: 'openai.baseUrl' },
};

export function parseSettings(source: SettingsSource): EvergreenSettings {
  const problems: string[] = [];
  // The workspace may not pick these (USER_ONLY_SETTINGS): said once per setting it tried.
  for (const key of USER_ONLY_SETTINGS) {
    const value = source.workspaceValue?.(key);
    if (value !== undefined && value !== null) problems.push(`"evergreen.${key}" in this workspace's settings is ignored: it is read from your user settings only, since it decides what requests cost and send`);
  }
  const optionalNumber = (key: string): number | undefined => {
    const value = source.userValue(key);
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() || undefined : undefined);
  // Approvals come from the user's own settings only (the manifest scopes them to the application,
  // and this is the belt to those braces): a workspace's .vscode/settings.json, which the agent or a
  // cloned repository could have written, can never loosen them.
  const askOrAuto = (key: string): 'ask' | 'auto' => (source.userValue(key) === 'auto' ? 'auto' : 'ask');
  // Machine-scoped in the manifest, like the base URLs: which service gets the code is the user's choice, never a repository's.
  const rawProvider = source.get('provider');
  let provider = parseProvider(rawProvider ?? DEFAULT_PROVIDER);
  if (!provider) {
    problems.push(`"evergreen.provider" must be ${PROVIDERS.map((name) => `"${name}"`).join(' or ')}, got ${JSON.stringify(rawProvider)}; using "${DEFAULT_PROVIDER}"`);
    provider = DEFAULT_PROVIDER;
  }
  const keys = PROVIDER_SETTING_KEYS[provider];
  const shellAllowList = source.userValue('approvals.shellAllowList');
  const subagents = parseSubagentLimits(
    { maxConcurrent: source.userValue('subagents.maxConcurrent'), maxToolRounds: source.userValue('subagents.maxToolRounds'), timeLimitMinutes: source.userValue('subagents.timeLimitMinutes') },
    (key) => `"evergreen.subagents.${key}"`,
  );
  problems.push(...subagents.problems);
  // The sandbox is a boundary a repository must not be able to lower: user settings only, like approvals.
  const rawDomains = source.userValue('sandbox.allowedDomains');
  const domains = parseAllowedDomains(Array.isArray(rawDomains) ? rawDomains : [], source.userValue('sandbox.allowPackageRegistries') === true);
  if (rawDomains !== undefined && !Array.isArray(rawDomains)) problems.push('"evergreen.sandbox.allowedDomains" must be a list of domain names; no domains are allowed');
  problems.push(...domains.problems.map((problem) => `"evergreen.sandbox.allowedDomains": ${problem}; that entry is ignored`));
  return {
    provider,
    model: text(source.userValue(keys.model)),
    // Base URLs are machine-scoped in the manifest, so VS Code ignores a workspace's value (a
    // repository cannot send the key elsewhere).
    baseUrl: text(source.get(keys.baseUrl)),
    contextWindow: optionalNumber('contextWindow'),
    maxOutputTokens: optionalNumber('maxOutputTokens') ?? CONTEXT_DEFAULTS.maxOutputTokens,
    autoCompactPercent: optionalNumber('autoCompactPercent'),
    approvals: {
      writes: askOrAuto('approvals.writes'),
      shell: askOrAuto('approvals.shell'),
      shellAllowList: (Array.isArray(shellAllowList) ? shellAllowList : []).filter((entry): entry is string => typeof entry === 'string'),
    },
    subagents: subagents.limits,
    sandbox: { enabled: source.userValue('sandbox.enabled') !== false, allowedDomains: domains.domains },
    compression: source.userValue('compression'),
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

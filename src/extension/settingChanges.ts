// What a changed `evergreen.*` setting requires, so a price tweak never restarts the conversation's
// client and an approval change applies to the very next tool call.

/** 'live': applied to the running session; 'restart': the session is rebuilt on its own transcript. */
export type SettingEffect = 'none' | 'live' | 'restart';

const LIVE = ['evergreen.pricing', 'evergreen.approvals'] as const;
// A new back end (provider, model, endpoint, output cap) or a new context engine (window, thresholds,
// numbers); the restarted session keeps its transcript, so a provider switch keeps the history.
const RESTART = ['evergreen.provider', 'evergreen.openai', 'evergreen.model', 'evergreen.baseUrl', 'evergreen.maxOutputTokens', 'evergreen.contextWindow', 'evergreen.autoCompactPercent', 'evergreen.compression'] as const;

export function settingChangeEffect(affects: (section: string) => boolean): SettingEffect {
  if (RESTART.some((section) => affects(section))) return 'restart';
  if (LIVE.some((section) => affects(section))) return 'live';
  // Any other evergreen.* key (a future one) restarts: safe, if not the cheapest.
  return affects('evergreen') ? 'restart' : 'none';
}

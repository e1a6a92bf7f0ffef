// What a changed `evergreen.*` setting requires, so a price tweak never restarts the conversation's
// client and an approval change applies to the very next tool call.
import { SETTING_KEYS, settingName, SETTINGS, SETTINGS_SECTION } from '../frontends/settingsTable';

/** 'live': applied to the running session; 'restart': the session is rebuilt on its own transcript. */
export type SettingEffect = 'none' | 'live' | 'restart';

// A new back end (provider, model, endpoint, output cap) or a new context engine (window, thresholds,
// numbers) restarts; the restarted session keeps its transcript, so a provider switch keeps the history.
const RESTART = SETTING_KEYS.filter((key) => SETTINGS[key].change === 'restart').map(settingName);
const LIVE = SETTING_KEYS.filter((key) => SETTINGS[key].change === 'live').map(settingName);

export function settingChangeEffect(affects: (section: string) => boolean): SettingEffect {
  if (RESTART.some((section) => affects(section))) return 'restart';
  if (LIVE.some((section) => affects(section))) return 'live';
  // Any other evergreen.* key (a future one) restarts: safe, if not the cheapest.
  return affects(SETTINGS_SECTION) ? 'restart' : 'none';
}

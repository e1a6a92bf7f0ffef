import * as vscode from 'vscode';
import { SETTINGS_SECTION, type SettingKey } from '../frontends/settingsTable';
import { parseSettings, readSetting, type EvergreenSettings, type SettingsSource } from './settingsValues';

export type { EvergreenSettings };

/** The `evergreen.*` configuration as settingsValues.ts reads it. */
function configurationSource(): SettingsSource {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return {
    get: (key) => config.get<unknown>(key),
    userValue: (key) => {
      const inspected = config.inspect<unknown>(key);
      return inspected?.globalValue ?? inspected?.defaultValue;
    },
    workspaceValue: (key) => {
      const inspected = config.inspect<unknown>(key);
      return inspected?.workspaceFolderValue ?? inspected?.workspaceValue;
    },
  };
}

/** Reads `evergreen.*` settings (parsed by settingsValues.ts, by the names and defaults of the core's settings table). */
export function readSettings(): EvergreenSettings {
  return parseSettings(configurationSource());
}

/** One setting's raw value (read as its row in the settings table says), for settings parsed elsewhere (pricing). */
export function readRawSetting(key: SettingKey): unknown {
  return readSetting(configurationSource(), key);
}

import * as vscode from 'vscode';
import { parseSettings, type EvergreenSettings } from './settingsValues';

export type { EvergreenSettings };

/** Reads `evergreen.*` settings (parsed by settingsValues.ts, the one place that knows their names). */
export function readSettings(): EvergreenSettings {
  const config = vscode.workspace.getConfiguration('evergreen');
  return parseSettings({
    get: (key) => config.get<unknown>(key),
    userValue: (key) => {
      const inspected = config.inspect<unknown>(key);
      return inspected?.globalValue ?? inspected?.defaultValue;
    },
    workspaceValue: (key) => {
      const inspected = config.inspect<unknown>(key);
      return inspected?.workspaceFolderValue ?? inspected?.workspaceValue;
    },
  });
}

import * as vscode from 'vscode';

/** Reads `evergreen.*` settings; the one place that knows their names. */
export interface EvergreenSettings {
  /** Undefined: the core's default model. */
  model: string | undefined;
  baseUrl: string | undefined;
  contextWindow: number | undefined;
  maxOutputTokens: number;
  autoCompactPercent: number | undefined;
  approvals: { writes: 'ask' | 'auto'; shell: 'ask' | 'auto'; shellAllowList: string[] };
}

export function readSettings(): EvergreenSettings {
  const config = vscode.workspace.getConfiguration('evergreen');
  const optionalNumber = (key: string): number | undefined => {
    const value = config.get<number | null>(key);
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  // Approvals come from the user's own settings only (the manifest scopes them to the application,
  // and this is the belt to those braces): a workspace's .vscode/settings.json, which the agent or a
  // cloned repository could have written, can never loosen them.
  const userValue = <T>(key: string): T | undefined => {
    const inspected = config.inspect<T>(key);
    return inspected?.globalValue ?? inspected?.defaultValue;
  };
  const askOrAuto = (key: string): 'ask' | 'auto' => (userValue<string>(key) === 'auto' ? 'auto' : 'ask');
  return {
    model: config.get<string>('model')?.trim() || undefined,
    baseUrl: config.get<string>('baseUrl')?.trim() || undefined,
    contextWindow: optionalNumber('contextWindow'),
    maxOutputTokens: optionalNumber('maxOutputTokens') ?? 16_000,
    autoCompactPercent: optionalNumber('autoCompactPercent'),
    approvals: {
      writes: askOrAuto('approvals.writes'),
      shell: askOrAuto('approvals.shell'),
      shellAllowList: (userValue<unknown[]>('approvals.shellAllowList') ?? []).filter((entry): entry is string => typeof entry === 'string'),
    },
  };
}

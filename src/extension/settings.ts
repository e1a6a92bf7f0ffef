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
  const askOrAuto = (key: string): 'ask' | 'auto' => (config.get<string>(key) === 'auto' ? 'auto' : 'ask');
  return {
    model: config.get<string>('model')?.trim() || undefined,
    baseUrl: config.get<string>('baseUrl')?.trim() || undefined,
    contextWindow: optionalNumber('contextWindow'),
    maxOutputTokens: optionalNumber('maxOutputTokens') ?? 16_000,
    autoCompactPercent: optionalNumber('autoCompactPercent'),
    approvals: {
      writes: askOrAuto('approvals.writes'),
      shell: askOrAuto('approvals.shell'),
      shellAllowList: (config.get<unknown[]>('approvals.shellAllowList') ?? []).filter((entry): entry is string => typeof entry === 'string'),
    },
  };
}

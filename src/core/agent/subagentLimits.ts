/**
 * How subagents run (issue 10): the limits, their defaults, and the one parser the front ends
 * share for them (VS Code's `evergreen.subagents.*` settings, the CLI's --subagent-* flags), so
 * both accept the same values and say the same thing about a bad one.
 */

export interface SubagentLimits {
  /** Children of one parent running at once; further `task` calls wait for a free slot. */
  maxConcurrent: number;
  /** Tool rounds a child may take before it must hand back what it has. */
  maxToolRounds: number;
  /** Time a child may work (waiting for the user's approval does not count) before it is stopped and hands back what it has. */
  timeLimitMs: number;
}

export const SUBAGENT_DEFAULTS: Readonly<SubagentLimits> = { maxConcurrent: 3, maxToolRounds: 200, timeLimitMs: 15 * 60_000 };

/** The limits as a user writes them (the time in whole minutes); raw values, checked by parseSubagentLimits. */
export interface SubagentLimitValues {
  maxConcurrent?: unknown;
  maxToolRounds?: unknown;
  timeLimitMinutes?: unknown;
}

/**
 * Whole numbers in these ranges: more than 10 children at once multiplies the spending and the
 * rate-limit pressure of one call; the upper bounds keep a typo from making a child unbounded.
 */
export const SUBAGENT_LIMIT_RANGES: Readonly<Record<keyof SubagentLimitValues, { min: number; max: number }>> = {
  maxConcurrent: { min: 1, max: 10 },
  maxToolRounds: { min: 1, max: 10_000 },
  timeLimitMinutes: { min: 1, max: 24 * 60 },
};

const DEFAULT_VALUES: Readonly<Record<keyof SubagentLimitValues, number>> = {
  maxConcurrent: SUBAGENT_DEFAULTS.maxConcurrent,
  maxToolRounds: SUBAGENT_DEFAULTS.maxToolRounds,
  timeLimitMinutes: SUBAGENT_DEFAULTS.timeLimitMs / 60_000,
};

/**
 * The limits that were given and valid; every bad one is named in `problems` (with the default
 * that stays in force) and left out, so a mistake never loosens or disables a limit.
 * `label` names a key as the user wrote it (`evergreen.subagents.maxConcurrent`, `--subagent-concurrency`).
 */
export function parseSubagentLimits(values: SubagentLimitValues, label: (key: keyof SubagentLimitValues) => string): { limits: Partial<SubagentLimits>; problems: string[] } {
  const limits: Partial<SubagentLimits> = {};
  const problems: string[] = [];
  for (const key of Object.keys(SUBAGENT_LIMIT_RANGES) as Array<keyof SubagentLimitValues>) {
    const raw = values[key];
    if (raw === undefined || raw === null) continue;
    const { min, max } = SUBAGENT_LIMIT_RANGES[key];
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) {
      problems.push(`${label(key)} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}; using ${DEFAULT_VALUES[key]}`);
      continue;
    }
    if (key === 'timeLimitMinutes') limits.timeLimitMs = raw * 60_000;
    else limits[key] = raw;
  }
  return { limits, problems };
}

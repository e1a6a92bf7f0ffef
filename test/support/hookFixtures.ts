// Shared pieces of the hooks tests: hooks defined the way a settings file defines them, and a
// finished run of one (the fold's input) without starting a process.
import * as assert from 'node:assert/strict';
import { parseHookSettingsValue, type ConfiguredHook, type HookScope } from '../../src/core/hooks/config';
import type { HookEventName } from '../../src/core/hooks/events';
import type { HookRun } from '../../src/core/hooks/output';
import type { HookProcessResult } from '../../src/core/hooks/runner';

/** One hook as a settings file of `scope` would define it. */
export function defineHook(event: HookEventName, command: string, options: { scope?: HookScope; matcher?: string; timeout?: number; args?: string[] } = {}): ConfiguredHook {
  const scope = options.scope ?? 'user';
  const handler = { type: 'command', command, ...(options.timeout === undefined ? {} : { timeout: options.timeout }), ...(options.args ? { args: options.args } : {}) };
  const settings = parseHookSettingsValue(
    { hooks: { [event]: [{ ...(options.matcher === undefined ? {} : { matcher: options.matcher }), hooks: [handler] }] } },
    { scope, source: scope === 'user' ? '/home/u/.claude/settings.json' : '/ws/.claude/settings.json', label: scope === 'user' ? '~/.claude/settings.json' : '.claude/settings.json' },
  );
  assert.deepEqual(settings.problems, []);
  assert.equal(settings.hooks.length, 1);
  return settings.hooks[0]!;
}

/** A run that exited with `exitCode` and wrote `stdout` / `stderr`. */
export function exitedRun(hook: ConfiguredHook, exitCode: number, stdout = '', stderr = ''): HookRun {
  return finishedRun(hook, { end: 'exited', exitCode, signal: null, stdout, stderr, durationMs: 5 });
}

export function finishedRun(hook: ConfiguredHook, result: HookProcessResult): HookRun {
  return { hook, commandLine: hook.command, sandboxed: hook.origin.scope === 'workspace', result };
}

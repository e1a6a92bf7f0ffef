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

// Claude Code's documented example hooks, written the way its docs and examples/hooks/ write them
// (node instead of python3 or jq, so the tests need nothing the machine may lack); the suites run them unchanged.

/** examples/hooks/bash_command_validator_example.py, in node: checks tool_name, reads tool_input.command, exit 2 with the issues. */
export const BASH_VALIDATOR = `
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (input.tool_name !== 'Bash') process.exit(0);
const command = (input.tool_input || {}).command || '';
const rules = [
  [/^grep\\b(?!.*\\|)/, "Use 'rg' (ripgrep) instead of 'grep' for better performance and features"],
  [/^find\\s+\\S+\\s+-name\\b/, "Use 'rg --files | rg pattern' or 'rg --files -g pattern' instead of 'find -name' for better performance"],
];
const issues = rules.filter(([pattern]) => pattern.test(command)).map(([, message]) => message);
if (issues.length > 0) {
  for (const message of issues) console.error('• ' + message);
  process.exit(2);
}
`;

/** The reference's block-rm.sh: a JSON deny from a PreToolUse hook on Bash. */
export const BLOCK_RM = `
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (input.tool_input.command.includes('rm -rf')) {
  console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Destructive command blocked by hook' } }));
}
`;

/** examples/hooks/post_edit_auto_format_example.py, in node: formats the file tool_input.file_path names after Edit or Write. */
export const FORMATTER = `
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
if (!['Edit', 'Write', 'MultiEdit'].includes(input.tool_name)) process.exit(0);
const file = (input.tool_input || {}).file_path || '';
if (!file || !fs.existsSync(file)) process.exit(0);
fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\\n').map((line) => line.trimEnd()).join('\\n'));
console.error('Auto-formatted ' + require('path').basename(file));
`;

/** The guide's protect-files hook: exit 2 for edits to protected files. */
export const PROTECT_FILES = `
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const file = input.tool_input.file_path || '';
for (const pattern of ['.env', 'package-lock.json', '.git/']) {
  if (file.includes(pattern)) {
    console.error('Blocked: ' + file + " matches protected pattern '" + pattern + "'");
    process.exit(2);
  }
}
`;

/** A Stop hook that checks stop_hook_active, as the reference tells every Stop hook to. */
export const TESTS_MUST_PASS = `
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
if (input.stop_hook_active) process.exit(0);
if (fs.existsSync(process.env.CLAUDE_PROJECT_DIR + '/FAILING')) {
  console.log(JSON.stringify({ decision: 'block', reason: 'Tests are failing: fix them before you stop.' }));
}
`;

/**
 * Evergreen's built-in tools by name, with the names Claude Code gives the same tools: the one
 * table that hooks' matchers and `tool_name` (src/core/hooks/toolNames.ts) and the tool lists of
 * commands, modes and skills (src/core/definitions/toolNames.ts) read, so a name Claude Code users
 * already write means the same tool everywhere. test/unit/tools.definitions.test.ts holds the
 * tools' own definitions to it.
 *
 * The first Claude Code name is the one Claude Code uses today (a hook receives it as `tool_name`);
 * the others are older or overlapping names for the same action (`Agent` was `Task`, `MultiEdit` and
 * `LS` have no tool of their own here). Only equivalents are listed: the same action on the same
 * arguments. `recall`, `compact` and `memory` have none and keep their own names.
 */
export const BUILTIN_TOOLS = {
  read_file: { claudeCode: ['Read'] },
  list_files: { claudeCode: ['Glob', 'LS'] },
  grep_search: { claudeCode: ['Grep'] },
  write_file: { claudeCode: ['Write'] },
  edit_file: { claudeCode: ['Edit', 'MultiEdit'] },
  run_shell: { claudeCode: ['Bash'] },
  recall: {},
  compact: {},
  todo_write: { claudeCode: ['TodoWrite'] },
  task: { claudeCode: ['Task', 'Agent'] },
  skill: { claudeCode: ['Skill'] },
  memory: {},
  exit_plan_mode: { claudeCode: ['ExitPlanMode'] },
  web_fetch: { claudeCode: ['WebFetch'] },
  web_search: { claudeCode: ['WebSearch'] },
} as const satisfies Readonly<Record<string, { readonly claudeCode?: readonly [string, ...string[]] }>>;

export type BuiltinToolName = keyof typeof BUILTIN_TOOLS;

export const BUILTIN_TOOL_NAMES = Object.keys(BUILTIN_TOOLS) as readonly BuiltinToolName[];

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return Object.hasOwn(BUILTIN_TOOLS, name);
}

/** Claude Code's names for a built-in tool, the current one first; none for another tool. */
export function claudeCodeNamesOf(evergreenName: string): readonly string[] {
  if (!isBuiltinToolName(evergreenName)) return [];
  const tool: { readonly claudeCode?: readonly string[] } = BUILTIN_TOOLS[evergreenName];
  return tool.claudeCode ?? [];
}

/** The built-in tool a Claude Code name stands for, if any (`Bash` -> `run_shell`). */
export function toolForClaudeCodeName(claudeName: string): BuiltinToolName | undefined {
  return BUILTIN_TOOL_NAMES.find((name) => claudeCodeNamesOf(name).includes(claudeName));
}

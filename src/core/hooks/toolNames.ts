/**
 * Evergreen's tools as Claude Code's hooks see them, so a hook written for Claude Code works
 * unchanged: its matcher (`Bash`, `Write|Edit`) selects the equivalent tool, and what it reads from
 * stdin (`tool_name == "Bash"`, `tool_input.command`, `tool_input.file_path`) is there. Evergreen's
 * own names and fields stay too: a matcher may say `run_shell`, a hook may read `tool_input.path`.
 *
 * The names come from the one table of tool names (src/core/toolNames.ts); this module adds
 * Claude Code's fields for the arguments and results of the tools that have them. MCP tools are
 * already named `mcp__server__tool`.
 */
import * as path from 'node:path';
import { claudeCodeNamesOf, type BuiltinToolName } from '../toolNames';

/** What a tool call's result looks like to a PostToolUse hook. */
export interface HookToolResult {
  content: string;
  isError: boolean;
}

interface ClaudeFields {
  /** Claude Code's fields for the same arguments (file paths absolute, as Claude Code sends them). */
  input(input: Readonly<Record<string, unknown>>, projectDir: string): Record<string, unknown>;
  /** Claude Code's fields of the tool's response, beside Evergreen's `content` and `is_error`. */
  response?(result: HookToolResult, input: Readonly<Record<string, unknown>>, projectDir: string): Record<string, unknown>;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const absolute = (value: unknown, projectDir: string): string | undefined => (typeof value === 'string' ? path.resolve(projectDir, value) : undefined);

/** Keeps only the fields that have a value (a hook reading a missing field gets nothing, not `null`). */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

const fileResponse = (result: HookToolResult, input: Readonly<Record<string, unknown>>, projectDir: string): Record<string, unknown> =>
  defined({ filePath: absolute(input.path, projectDir), success: !result.isError });

const FIELDS: Readonly<Partial<Record<BuiltinToolName, ClaudeFields>>> = {
  run_shell: {
    input: (input) => defined({ command: text(input.command), description: text(input.description), timeout: input.timeout_ms }),
    // run_shell returns stdout and stderr together, as the terminal showed them.
    response: (result) => ({ stdout: result.content, stderr: '', interrupted: false }),
  },
  write_file: {
    input: (input, projectDir) => defined({ file_path: absolute(input.path, projectDir), content: text(input.content) }),
    response: fileResponse,
  },
  edit_file: {
    input: (input, projectDir) => defined({ file_path: absolute(input.path, projectDir), old_string: text(input.old_string), new_string: text(input.new_string), replace_all: input.replace_all }),
    response: fileResponse,
  },
  read_file: {
    input: (input, projectDir) => defined({ file_path: absolute(input.path, projectDir), offset: input.offset, limit: input.limit }),
  },
  // list_files: `pattern` and `path` (a folder, relative to the workspace) already carry Claude Code's names.
  grep_search: {
    input: (input) => defined({ '-i': input.case_insensitive, head_limit: input.max_results, output_mode: 'content' }),
  },
  task: {
    input: (input) => defined({ subagent_type: text(input.agent_type) }),
  },
};

const fieldsOf = (evergreenName: string): ClaudeFields | undefined => (Object.hasOwn(FIELDS, evergreenName) ? FIELDS[evergreenName as BuiltinToolName] : undefined);

/** The name a hook sees as `tool_name`: Claude Code's for an equivalent tool, the tool's own otherwise. */
export function claudeToolName(evergreenName: string): string {
  return claudeCodeNamesOf(evergreenName)[0] ?? evergreenName;
}

/** Every name a matcher may use for the tool: Claude Code's, its aliases, and Evergreen's. */
export function toolMatchNames(evergreenName: string): readonly string[] {
  return [...claudeCodeNamesOf(evergreenName), evergreenName];
}

/** `tool_input` for a hook: Evergreen's arguments plus Claude Code's names for them. */
export function hookToolInput(evergreenName: string, input: Readonly<Record<string, unknown>>, projectDir: string): Record<string, unknown> {
  const fields = fieldsOf(evergreenName);
  return fields ? { ...input, ...fields.input(input, projectDir) } : { ...input };
}

/** `tool_response` for a PostToolUse hook. */
export function hookToolResponse(evergreenName: string, input: Readonly<Record<string, unknown>>, result: HookToolResult, projectDir: string): Record<string, unknown> {
  const own = { content: result.content, is_error: result.isError };
  const fields = fieldsOf(evergreenName);
  return fields?.response ? { ...own, ...fields.response(result, input, projectDir) } : own;
}

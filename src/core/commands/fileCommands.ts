/**
 * Slash commands from the files users already have: Claude Code's `.claude/commands/**\/*.md`
 * (a subfolder is a namespace: `frontend/component.md` is `/component`, also `/frontend:component`),
 * Copilot's `.github/prompts/*.prompt.md`, Evergreen's `.evergreen/commands/**\/*.md`, and the
 * user's own under `~/.claude/commands` and `~/.evergreen/commands`. Frontmatter: `description`,
 * `argument-hint`, `model`, `mode`/`agent`, `allowed-tools`/`tools` (which only narrow, never
 * approve). The body is the prompt (arguments.ts fills it in).
 */
import { firstLineOf, hintField, listField, modelField, textField } from '../definitions/frontmatter';
import { loadDefinitionFiles, type DefinitionFile } from '../definitions/load';
import { pickByName } from '../definitions/precedence';
import type { DefinitionRoots } from '../definitions/sources';
import { parseToolList, type ToolRestriction } from '../definitions/toolNames';
import { notice, type DefinitionNotice, type DefinitionOrigin } from '../definitions/types';
import { userText, type UserText } from '../texts/userText';
import { BUILT_IN_COMMANDS } from './builtin';

export interface CommandDefinition {
  /** What follows the `/`: `review`, or `frontend:component` for a file in a subfolder. */
  name: string;
  /** The name without its namespace (`component`): typing it alone finds the command when no other has it. */
  shortName: string;
  /** The subfolder(s) it came from, ':'-joined; absent at the top level. */
  namespace?: string;
  description: string;
  argumentHint?: string;
  /** Models to use, first available wins; absent: the session's. */
  model?: readonly string[];
  /** The mode to run in (a mode's name); absent: the current one. */
  mode?: string;
  /** Narrows the tools for the turn the command starts; never approves anything. */
  tools?: ToolRestriction;
  /** The prompt, before arguments are filled in. */
  body: string;
  origin: DefinitionOrigin;
}

/** A name the user can type after `/`: letters, digits, `_`, `.`, `-` (a namespace adds `:`). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Copilot's built-in agents, as Evergreen's modes (Ask changes nothing, so it is plan). */
const COPILOT_AGENTS: Readonly<Record<string, string>> = { ask: 'plan', edit: 'agent', agent: 'agent' };

/** Fields Claude Code or Copilot act on that Evergreen does not. */
const UNSUPPORTED_COMMAND_FIELDS = ['hooks', 'context', 'disallowed-tools'];

function modeOf(file: DefinitionFile, problem: (problem: UserText) => void): string | undefined {
  // Claude Code's `agent` names a subagent for `context: fork`, not a mode; only the other formats pick a mode.
  if (file.origin.format === 'claude') return undefined;
  const field = file.fields.mode !== undefined ? 'mode' : 'agent';
  const value = textField(file.fields, field);
  if (value.problem) problem(value.problem);
  if (value.value === undefined) return undefined;
  return file.origin.format === 'copilot' ? (COPILOT_AGENTS[value.value] ?? value.value) : value.value;
}

function commandOf(file: DefinitionFile, notices: DefinitionNotice[]): CommandDefinition | undefined {
  const shown = file.origin.file;
  const problem = (problem: UserText) => notices.push(notice('invalid-field', shown, userText('customization.fieldIgnored', { file: shown, problem })));
  const parts = file.stem.split('/');
  // Claude Code names a command by its file; Copilot's and Evergreen's files may set `name`.
  const named = file.origin.format === 'claude' ? { value: undefined } : textField(file.fields, 'name');
  if (named.problem) problem(named.problem);
  const shortName = named.value ?? parts[parts.length - 1]!;
  const namespaces = parts.slice(0, -1);
  const invalid = [shortName, ...namespaces].find((part) => !NAME.test(part));
  if (invalid !== undefined) {
    notices.push(notice('invalid-field', shown, userText('customization.commandNameInvalid', { file: shown, name: invalid })));
    return undefined;
  }
  const namespace = namespaces.length > 0 ? namespaces.join(':') : undefined;
  const description = textField(file.fields, 'description');
  if (description.problem) problem(description.problem);
  const argumentHint = hintField(file.fields, 'argument-hint');
  if (argumentHint.problem) problem(argumentHint.problem);
  const model = modelField(file.fields, 'model');
  if (model.problem) problem(model.problem);
  const toolsKey = file.fields['allowed-tools'] !== undefined ? 'allowed-tools' : 'tools';
  const toolsField = listField(file.fields, toolsKey);
  if (toolsField.problem) problem(toolsField.problem);
  let tools: ToolRestriction | undefined;
  if (toolsField.value) {
    const parsed = parseToolList(toolsField.value, { file: shown, field: toolsKey });
    tools = parsed.restriction;
    notices.push(...parsed.notices);
  }
  const mode = modeOf(file, problem);
  const unsupported = UNSUPPORTED_COMMAND_FIELDS.filter((field) => file.fields[field] !== undefined);
  if (unsupported.length > 0) {
    const fields = unsupported.map((field) => `"${field}"`).join(', ');
    notices.push(notice('unsupported-field', shown, userText('customization.commandFieldsUnsupported', { file: shown, fields }), { entries: unsupported }));
  }
  // Claude Code runs !`command` lines before sending; a file never runs anything here: the text is sent as written.
  const shellLines = [...file.body.matchAll(/!`([^`\n]+)`/g)].map((match) => match[1]!);
  if (shellLines.length > 0) {
    const lines = shellLines.map((line) => `\`${line}\``).join(', ');
    notices.push(notice('unsupported-field', shown, userText('customization.commandShellLines', { file: shown, lines }), { entries: shellLines }));
  }
  return {
    name: namespace ? `${namespace}:${shortName}` : shortName,
    shortName,
    ...(namespace ? { namespace } : {}),
    description: description.value ?? firstLineOf(file.body) ?? `Command from ${shown}`,
    ...(argumentHint.value ? { argumentHint: argumentHint.value } : {}),
    ...(model.value ? { model: model.value } : {}),
    ...(mode ? { mode } : {}),
    ...(tools ? { tools } : {}),
    body: file.body,
    origin: file.origin,
  };
}

/** Every command file that loaded, one per name in precedence order (the user's over the workspace's; built-ins over both). */
export async function loadFileCommands(roots: DefinitionRoots): Promise<{ commands: CommandDefinition[]; notices: DefinitionNotice[] }> {
  const loaded = await loadDefinitionFiles('command', roots);
  const notices = [...loaded.notices];
  const commands = loaded.files.map((file) => commandOf(file, notices)).filter((command): command is CommandDefinition => command !== undefined);
  const reserved = new Map(BUILT_IN_COMMANDS.map((command) => [command.name as string, `Evergreen's built-in /${command.name}`]));
  const picked = pickByName(commands, 'command', reserved);
  return { commands: picked.winners, notices: [...notices, ...picked.notices] };
}

/**
 * A prompt that starts with `/name`: a built-in command (typed, for the front end to execute), a
 * command from a file (expanded into the prompt to send), or a clear error that names the near
 * matches. One reading for every front end: the chat, and the CLI's `-p "/name args"`.
 *
 * `/name` must be followed by whitespace or the end, so `/usr/bin/env is missing` is text. A prompt
 * starting with `//` is text too, sent with one slash (`//tmp is full` sends `/tmp is full`).
 */
import { nearNames, wordList } from '../definitions/near';
import type { ToolRestriction } from '../definitions/toolNames';
import { userText, type UserText } from '../texts/userText';
import { substituteArguments, type SubstitutionContext } from './arguments';
import { BUILT_IN_COMMANDS, parseBuiltInCommand, type BuiltInCommand } from './builtin';
import type { CommandDefinition } from './fileCommands';
import { findAtReferences, findMarkdownLinks, type CommandReference } from './references';

export interface SlashInput {
  /** The name after the `/`. */
  name: string;
  /** Everything after the name and the whitespace that follows it (trailing whitespace trimmed). */
  args: string;
}

/** The command a prompt starts with; undefined when it is no command. */
export function parseSlashInput(prompt: string): SlashInput | undefined {
  const match = /^\s*\/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?=\s|$)/.exec(prompt);
  if (!match) return undefined;
  return { name: match[1]!, args: prompt.slice(match[0].length).replace(/^\s+/, '').trimEnd() };
}

/** One row of the composer's `/` picker and one line of /help: a built-in command, a command file or a skill. */
export interface CommandOption {
  /** What follows the `/` (`review`, `frontend:component`). */
  name: string;
  description: string;
  /** What may follow the name (`[pr-number] [priority]`). */
  argumentHint?: string;
  /** `built-in`, or the file it comes from (`.claude/commands/review.md`, `~/.evergreen/commands/x.md`, `.claude/skills/x/SKILL.md`). */
  source: string;
  /** A skill: typing it asks the agent to load and follow the skill. */
  skill?: true;
}

export type SlashResolution =
  /** Not a command: send `text` as the user's message. */
  | { kind: 'text'; text: string }
  | { kind: 'built-in'; command: BuiltInCommand }
  | { kind: 'file'; command: CommandDefinition; args: string }
  /** A skill invoked by its name (a command of the same name wins). */
  | { kind: 'skill'; name: string; args: string }
  /** Not sent: `message` says why and what to type; `suggestions` are the near names (without `/`). */
  | { kind: 'error'; message: UserText; suggestions: string[] };

/** What a prompt asks for, given the file commands that loaded (loadFileCommands) and the skills' names. */
export function resolveSlashCommand(prompt: string, commands: readonly CommandDefinition[], skills: readonly string[] = []): SlashResolution {
  if (/^\s*\/\//.test(prompt)) return { kind: 'text', text: prompt.replace(/^(\s*)\//, '$1') };
  const input = parseSlashInput(prompt);
  if (!input) return { kind: 'text', text: prompt };
  const builtIn = parseBuiltInCommand(input.name, input.args);
  if (builtIn) return 'command' in builtIn ? { kind: 'built-in', command: builtIn.command } : { kind: 'error', message: builtIn.problem, suggestions: [] };
  const exact = commands.find((command) => command.name === input.name);
  if (exact) return { kind: 'file', command: exact, args: input.args };
  const byShortName = commands.filter((command) => command.shortName === input.name);
  if (byShortName.length === 1) return { kind: 'file', command: byShortName[0]!, args: input.args };
  if (byShortName.length > 1) {
    const names = byShortName.map((command) => command.name);
    const choices = byShortName.map((command) => `/${command.name} (${command.origin.file})`).join(', ');
    return { kind: 'error', message: userText('customization.commandAmbiguous', { name: input.name, choices, example: names[0]! }), suggestions: names };
  }
  if (skills.includes(input.name)) return { kind: 'skill', name: input.name, args: input.args };
  const all = [...BUILT_IN_COMMANDS.map((command) => command.name as string), ...commands.map((command) => command.name), ...skills];
  const near = nearNames(input.name, all);
  const message = near.length > 0 ? userText('customization.unknownCommandNear', { name: input.name, near: wordList(near.map((name) => `/${name}`)) }) : userText('customization.unknownCommand', { name: input.name });
  return { kind: 'error', message, suggestions: near };
}

export interface CommandExpansion {
  command: CommandDefinition;
  /** The user message to send. */
  prompt: string;
  /** Files the prompt points at: turn them into attachments with referencesToAttachments. */
  references: CommandReference[];
  /** The command's own choices, for the turn it starts (absent: the session's). */
  model?: readonly string[];
  mode?: string;
  /** Narrows the tools for the turn; it never approves a call. */
  tools?: ToolRestriction;
  /** What the user should know: placeholders with no value. */
  notices: UserText[];
}

/** A file command's prompt with `args` filled in, and what else it asks for. */
export function expandCommand(command: CommandDefinition, args: string, context: SubstitutionContext = {}): CommandExpansion {
  const substituted = substituteArguments(command.body, args, command.origin.format, context);
  const prompt = substituted.text.trim();
  const references: CommandReference[] = findAtReferences(prompt).map((written) => ({ written, base: 'workspace' }));
  if (command.origin.format === 'copilot') references.push(...findMarkdownLinks(command.body).map((written): CommandReference => ({ written, base: 'file' })));
  const notices = substituted.unfilled.length > 0 ? [unfilledNotice(command, substituted.unfilled)] : [];
  return {
    command,
    prompt,
    references,
    ...(command.model ? { model: command.model } : {}),
    ...(command.mode ? { mode: command.mode } : {}),
    ...(command.tools ? { tools: command.tools } : {}),
    notices,
  };
}

/** Placeholders that had no value: named, with what the command takes, and how to give a Copilot input. */
function unfilledNotice(command: CommandDefinition, unfilled: readonly string[]): UserText {
  const data = { command: command.name, placeholders: wordList(unfilled.map((item) => `"${item}"`), 'and'), count: unfilled.length };
  const inputs = unfilled.some((item) => item.startsWith('${input:'));
  if (command.argumentHint) return userText(inputs ? 'customization.inputsUnfilledHint' : 'customization.placeholdersUnfilledHint', { ...data, hint: command.argumentHint });
  return userText(inputs ? 'customization.inputsUnfilled' : 'customization.placeholdersUnfilled', data);
}

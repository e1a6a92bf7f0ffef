/**
 * Slash commands as both front ends run them (the chat's composer and the CLI's `-p "/name args"`):
 * one reading of a typed prompt (core/commands/slash.ts), a file command turned into the turn it
 * starts (its prompt with the arguments filled in, its `@` references as attachments, its tool list
 * as a gate that only refuses), the help text and the picker's rows. The front ends execute the
 * built-in commands themselves.
 */
import { BUILT_IN_COMMANDS, type BuiltInCommand } from '../core/commands/builtin';
import { loadFileCommands, type CommandDefinition } from '../core/commands/fileCommands';
import { referencesToAttachments, type AttachmentRequest } from '../core/commands/references';
import { expandCommand, resolveSlashCommand } from '../core/commands/slash';
import { restrictionGate, restrictionNote } from '../core/commands/toolGate';
import type { SubstitutionContext } from '../core/commands/arguments';
import { chooseModel } from '../core/definitions/modelChoice';
import { nearNames, wordList } from '../core/definitions/near';
import type { DefinitionRoots } from '../core/definitions/sources';
import type { OfferedTool } from '../core/definitions/toolNames';
import type { DefinitionNotice } from '../core/definitions/types';
import type { Workspace } from '../core/workspace/workspace';

/** The command files that loaded, and what their loading found wrong. */
export interface CommandCatalog {
  commands: readonly CommandDefinition[];
  notices: readonly DefinitionNotice[];
}

export function loadCommandCatalog(roots: DefinitionRoots): Promise<CommandCatalog> {
  return loadFileCommands(roots);
}

/** What a typed prompt asks for. */
export type SlashPlan =
  /** Not a command: send `text` (a leading `//` already made one `/`). */
  | { kind: 'message'; text: string }
  | { kind: 'built-in'; command: BuiltInCommand }
  /** A command file: `prepareCommandTurn` turns it into the turn to send once the session is there. */
  | { kind: 'command'; command: CommandDefinition; args: string }
  /** Nothing is sent: `message` says why and what to type. */
  | { kind: 'error'; message: string };

export function planSlash(text: string, catalog: CommandCatalog): SlashPlan {
  const resolved = resolveSlashCommand(text, catalog.commands);
  switch (resolved.kind) {
    case 'text':
      return { kind: 'message', text: resolved.text };
    case 'built-in':
      return { kind: 'built-in', command: resolved.command };
    case 'file':
      return { kind: 'command', command: resolved.command, args: resolved.args };
    case 'error':
      return { kind: 'error', message: resolved.message };
  }
}

/** The session a command's turn is sent to: its tools (for the tool list) and its model. */
export interface CommandTarget {
  tools: { list(): readonly { name: string }[]; get(name: string): OfferedTool | undefined };
  model: string;
}

/** A command's turn, ready to send. */
export interface CommandTurn {
  /** The user message: the command's prompt, arguments filled in, and the tool list's note when it has one. */
  text: string;
  /** Its `@` references and Markdown links, as the composer's attachments. */
  attachments: AttachmentRequest[];
  /** Refuses calls of tools the command does not allow (absent: no tool list). */
  gate?: (toolName: string) => string | undefined;
  /** What the user should know: placeholders without a value, references not attached, fields not applied, the file's own problems. */
  notices: string[];
}

/**
 * A command file's turn: the prompt expanded, its references confined to the workspace and turned
 * into attachments, its tool list told to the model and enforced per call. Its `model` and `mode`
 * are not applied (each would rewrite the cached conversation or needs modes): the notices say so.
 */
export async function prepareCommandTurn(
  plan: Extract<SlashPlan, { kind: 'command' }>,
  where: { catalog: CommandCatalog; workspace: Workspace; substitution?: SubstitutionContext; target: CommandTarget },
): Promise<CommandTurn> {
  const { command } = plan;
  const expansion = expandCommand(command, plan.args, where.substitution ?? {});
  const references = await referencesToAttachments(expansion.references, where.workspace, command.origin.real);
  const notices = [
    ...where.catalog.notices.filter((notice) => notice.file === command.origin.file).map((notice) => notice.message),
    ...expansion.notices,
    ...references.notices,
  ];
  const model = chooseModel(expansion.model, (id) => id === where.target.model);
  if (model.tried.length > 0 && model.model === undefined) {
    notices.push(`/${command.name} asks for the model ${wordList(model.tried.map((name) => `"${name}"`))}; it runs on this chat's model (${where.target.model}), since another model would read the whole conversation again uncached. Switch with /model when you want to.`);
  }
  if (expansion.mode !== undefined) notices.push(`/${command.name} asks for the "${expansion.mode}" mode; modes are not available yet, so it runs in the current one.`);
  let text = expansion.prompt;
  let gate: CommandTurn['gate'];
  if (expansion.tools) {
    const offered = where.target.tools.list().flatMap((spec) => where.target.tools.get(spec.name) ?? []);
    text = `${text}\n\n${restrictionNote(expansion.tools, command.name, offered)}`;
    gate = restrictionGate(expansion.tools, command.name, (name) => where.target.tools.get(name));
  }
  return { text, attachments: references.attachments, ...(gate ? { gate } : {}), notices };
}

/** Where a command comes from, as the picker and /help show it. */
function sourceOf(command: CommandDefinition): string {
  return command.origin.file;
}

/** One row of the `/` picker. */
export interface CommandOption {
  name: string;
  description: string;
  argumentHint?: string;
  /** `built-in`, or the file it comes from (`.claude/commands/review.md`, `~/.evergreen/commands/x.md`). */
  source: string;
}

/** Rows at most, so a huge folder of commands cannot flood the panel. */
export const MAX_COMMAND_OPTIONS = 50;

/** Every command, built-ins first. */
function allOptions(catalog: CommandCatalog): CommandOption[] {
  return [
    ...BUILT_IN_COMMANDS.map((command) => ({ name: command.name as string, description: command.description, ...(command.argumentHint ? { argumentHint: command.argumentHint } : {}), source: 'built-in' })),
    ...catalog.commands.map((command) => ({ name: command.name, description: command.description, ...(command.argumentHint ? { argumentHint: command.argumentHint } : {}), source: sourceOf(command) })),
  ];
}

/** The picker's rows for what follows the `/`: names that start with it first (built-ins before files), then names that contain it. */
export function commandOptions(query: string, catalog: CommandCatalog): CommandOption[] {
  const all = allOptions(catalog);
  const wanted = query.toLowerCase();
  const rank = (option: CommandOption): number => {
    const name = option.name.toLowerCase();
    const short = name.slice(name.lastIndexOf(':') + 1);
    if (name.startsWith(wanted) || short.startsWith(wanted)) return 0;
    return name.includes(wanted) ? 1 : 2;
  };
  return all
    .map((option, order) => ({ option, order, rank: rank(option) }))
    .filter((entry) => entry.rank < 2)
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, MAX_COMMAND_OPTIONS)
    .map((entry) => entry.option);
}

const line = (option: CommandOption): string => `/${option.name}${option.argumentHint ? ` ${option.argumentHint}` : ''}: ${option.description}${option.source === 'built-in' ? '' : ` (${option.source})`}`;

/** `/help` and `/help name`: every command in a line, or one in detail (an unknown one with the near names). */
export function slashHelp(topic: string | undefined, catalog: CommandCatalog): string {
  const options = allOptions(catalog);
  if (topic === undefined) {
    const files = options.filter((option) => option.source !== 'built-in');
    return [
      'Commands (type / in the message box to pick one):',
      ...options.filter((option) => option.source === 'built-in').map(line),
      ...(files.length > 0 ? ['', 'From your command files:', ...files.map(line)] : ['', 'Add your own as Markdown files in .evergreen/commands, .claude/commands or .github/prompts (or ~/.evergreen/commands, ~/.claude/commands).']),
      ...(catalog.notices.length > 0 ? ['', 'Problems with command files:', ...catalog.notices.map((notice) => `- ${notice.message}`)] : []),
      '',
      'Start a message with // to send text that begins with /.',
    ].join('\n');
  }
  const name = topic.replace(/^\//, '');
  const option = options.find((candidate) => candidate.name === name) ?? options.find((candidate) => candidate.name.endsWith(`:${name}`));
  if (!option) {
    const near = nearNames(name, options.map((candidate) => candidate.name));
    return `There is no command /${name}.${near.length > 0 ? ` Did you mean ${wordList(near.map((candidate) => `/${candidate}`))}?` : ''} Type /help for the list.`;
  }
  const command = catalog.commands.find((candidate) => candidate.name === option.name);
  const details = command
    ? [
        ...(command.tools ? [`Tools for its turn: ${command.tools.written.join(', ')} (they only narrow what is offered; approvals still ask).`] : []),
        ...(command.model ? [`Asks for the model: ${command.model.join(', ')} (not applied: /model switches).`] : []),
        ...catalog.notices.filter((notice) => notice.file === command.origin.file).map((notice) => notice.message),
      ]
    : [];
  return [line(option), ...details].join('\n');
}

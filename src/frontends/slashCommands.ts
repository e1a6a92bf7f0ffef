/**
 * Slash commands as both front ends run them (the chat's composer and the CLI's `-p "/name args"`):
 * one reading of a typed prompt (core/commands/slash.ts), a file command turned into the turn it
 * starts (its prompt with the arguments filled in, its `@` references as attachments, its tool list
 * as a gate that only refuses), the help text and the picker's rows. The front ends execute the
 * built-in commands themselves.
 */
import * as l10n from '@vscode/l10n';
import { BUILT_IN_COMMANDS, type BuiltInCommand } from '../core/commands/builtin';
import { loadFileCommands, type CommandDefinition } from '../core/commands/fileCommands';
import { referencesToAttachments, type AttachmentRequest } from '../core/commands/references';
import { expandCommand, resolveSlashCommand, type CommandOption } from '../core/commands/slash';
import { skillRequest, SKILL_TOOL } from '../core/skills/present';
import { loadSkills } from '../core/skills/skills';
import { restrictionGate, restrictionNote } from '../core/commands/toolGate';
import type { SubstitutionContext } from '../core/commands/arguments';
import { chooseModel } from '../core/definitions/modelChoice';
import { nearNames, wordList } from '../core/definitions/near';
import type { DefinitionRoots } from '../core/definitions/sources';
import type { OfferedTool } from '../core/definitions/toolNames';
import type { DefinitionNotice } from '../core/definitions/types';
import type { Workspace } from '../core/workspace/workspace';
import { word } from './words';
import type { Voice } from './words/template';

/** A skill as `/` offers it: typing its name asks the agent to load it. */
export interface SkillEntry {
  name: string;
  description: string;
  /** Its SKILL.md, as the picker shows where it comes from. */
  file: string;
}

/** The command files that loaded, what their loading found wrong, and the skills `/name` can invoke. */
export interface CommandCatalog {
  commands: readonly CommandDefinition[];
  notices: readonly DefinitionNotice[];
  /** A bad skill's notice is the session's to show (at its start), not the picker's. */
  skills: readonly SkillEntry[];
}

export async function loadCommandCatalog(roots: DefinitionRoots): Promise<CommandCatalog> {
  const [files, skills] = await Promise.all([loadFileCommands(roots), loadSkills(roots)]);
  return { ...files, skills: skills.skills.map((skill) => ({ name: skill.name, description: skill.description, file: skill.origin.file })) };
}

/** What a typed prompt asks for. */
export type SlashPlan =
  /** Not a command: send `text` (a leading `//` already made one `/`). */
  | { kind: 'message'; text: string }
  | { kind: 'built-in'; command: BuiltInCommand }
  /** A command file: `prepareCommandTurn` turns it into the turn to send once the session is there. */
  | { kind: 'command'; command: CommandDefinition; args: string }
  /** A skill: `prepareCommandTurn` asks the agent to load it with the skill tool and follow it. */
  | { kind: 'skill'; name: string; args: string }
  /** Nothing is sent: `message` says why and what to type. */
  | { kind: 'error'; message: string };

export function planSlash(text: string, catalog: CommandCatalog): SlashPlan {
  const resolved = resolveSlashCommand(text, catalog.commands, catalog.skills.map((skill) => skill.name));
  switch (resolved.kind) {
    case 'text':
      return { kind: 'message', text: resolved.text };
    case 'built-in':
      return { kind: 'built-in', command: resolved.command };
    case 'file':
      return { kind: 'command', command: resolved.command, args: resolved.args };
    case 'skill':
      return { kind: 'skill', name: resolved.name, args: resolved.args };
    case 'error':
      return { kind: 'error', message: word(resolved.message) };
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
  plan: Extract<SlashPlan, { kind: 'command' | 'skill' }>,
  where: { catalog: CommandCatalog; workspace: Workspace; substitution?: SubstitutionContext; target: CommandTarget },
): Promise<CommandTurn> {
  if (plan.kind === 'skill') return skillTurn(plan, where.target);
  const { command } = plan;
  const expansion = expandCommand(command, plan.args, where.substitution ?? {});
  const references = await referencesToAttachments(expansion.references, where.workspace, command.origin.real);
  const notices = [
    ...where.catalog.notices.filter((notice) => notice.file === command.origin.file).map((notice) => word(notice.message)),
    ...expansion.notices.map(word),
    ...references.notices.map(word),
  ];
  const model = chooseModel(expansion.model, (id) => id === where.target.model);
  if (model.tried.length > 0 && model.model === undefined) {
    notices.push(
      l10n.t(
        "/{0} asks for the model {1}; it runs on this chat's model ({2}), since another model would read the whole conversation again uncached. Switch with /model when you want to.",
        command.name,
        wordList(model.tried.map((name) => `"${name}"`)),
        where.target.model,
      ),
    );
  }
  if (expansion.mode !== undefined) notices.push(l10n.t('/{0} asks for the "{1}" mode; modes are not available yet, so it runs in the current one.', command.name, expansion.mode));
  let text = expansion.prompt;
  let gate: CommandTurn['gate'];
  if (expansion.tools) {
    const offered = where.target.tools.list().flatMap((spec) => where.target.tools.get(spec.name) ?? []);
    text = `${text}\n\n${restrictionNote(expansion.tools, command.name, offered)}`;
    gate = restrictionGate(expansion.tools, command.name, (name) => where.target.tools.get(name));
  }
  return { text, attachments: references.attachments, ...(gate ? { gate } : {}), notices };
}

/**
 * `/skill args`: a message that asks the agent to load the skill, so its body arrives as the tool's
 * result (through the tiers and recall like any other) and nothing is read twice. A chat whose
 * session offers no skill tool (it began before there were skills) cannot load one: the error says
 * what to do, and nothing is sent.
 */
function skillTurn(plan: Extract<SlashPlan, { kind: 'skill' }>, target: CommandTarget): CommandTurn {
  if (!target.tools.get(SKILL_TOOL)) {
    throw new Error(l10n.t('/{0} is a skill, and this chat has no skills to load (its list of skills was fixed when it began). Start a new chat to use it.', plan.name));
  }
  return { text: skillRequest(plan.name, plan.args), attachments: [], notices: [] };
}

/** Rows at most, so a huge folder of commands cannot flood the panel. */
export const MAX_COMMAND_OPTIONS = 50;

/** Every command, built-ins first, then command files, then skills. */
function allOptions(catalog: CommandCatalog): CommandOption[] {
  return [
    ...BUILT_IN_COMMANDS.map((command) => ({ name: command.name as string, description: word(command.description), ...(command.argumentHint ? { argumentHint: word(command.argumentHint) } : {}), source: 'built-in' })),
    ...catalog.commands.map((command) => ({ name: command.name, description: command.description, ...(command.argumentHint ? { argumentHint: command.argumentHint } : {}), source: command.origin.file })),
    // A command of the same name wins (resolveSlashCommand), so its skill is not offered twice.
    ...catalog.skills.filter((skill) => !catalog.commands.some((command) => command.name === skill.name)).map((skill) => ({ name: skill.name, description: skill.description, source: skill.file, skill: true as const })),
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

/**
 * `/help` and `/help name`: every command in a line, or one in detail (an unknown one with the near
 * names). `voice` says how a command is picked there: from the panel's message box, or with -p.
 */
export function slashHelp(topic: string | undefined, catalog: CommandCatalog, voice: Voice): string {
  const options = allOptions(catalog);
  if (topic === undefined) {
    const files = options.filter((option) => option.source !== 'built-in' && !option.skill);
    const skills = options.filter((option) => option.skill);
    return [
      voice === 'extension' ? l10n.t('Commands (type / in the message box to pick one):') : l10n.t('Commands (run one with -p "/name arguments"):'),
      ...options.filter((option) => option.source === 'built-in').map(line),
      ...(files.length > 0
        ? ['', l10n.t('From your command files:'), ...files.map(line)]
        : ['', l10n.t('Add your own as Markdown files in .evergreen/commands, .claude/commands or .github/prompts (or ~/.evergreen/commands, ~/.claude/commands).')]),
      ...(skills.length > 0 ? ['', l10n.t('Skills (/name asks the agent to load one and follow it):'), ...skills.map(line)] : []),
      ...(catalog.notices.length > 0 ? ['', l10n.t('Problems with command files:'), ...catalog.notices.map((notice) => `- ${word(notice.message)}`)] : []),
      '',
      l10n.t('Start a message with // to send text that begins with /.'),
    ].join('\n');
  }
  const name = topic.replace(/^\//, '');
  const option = options.find((candidate) => candidate.name === name) ?? options.find((candidate) => candidate.name.endsWith(`:${name}`));
  if (!option) {
    const near = nearNames(name, options.map((candidate) => candidate.name));
    return near.length > 0
      ? l10n.t('There is no command /{0}. Did you mean {1}? Type /help for the list.', name, wordList(near.map((candidate) => `/${candidate}`)))
      : l10n.t('There is no command /{0}. Type /help for the list.', name);
  }
  const command = catalog.commands.find((candidate) => candidate.name === option.name);
  const details = command
    ? [
        ...(command.tools ? [l10n.t('Tools for its turn: {0} (they only narrow what is offered; approvals still ask).', command.tools.written.join(', '))] : []),
        ...(command.model ? [l10n.t('Asks for the model: {0} (not applied: /model switches).', command.model.join(', '))] : []),
        ...catalog.notices.filter((notice) => notice.file === command.origin.file).map((notice) => word(notice.message)),
      ]
    : [];
  return [line(option), ...details].join('\n');
}

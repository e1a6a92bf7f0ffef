/**
 * Modes: what the agent is for right now, as data. `agent` is today's behaviour; `plan` researches
 * and proposes, changing nothing (modeTools.ts says which tools that leaves); custom modes come from
 * the files users already have: Copilot's `.github/agents/*.agent.md` and `.github/chatmodes/*.chatmode.md`,
 * and `.evergreen/modes/*.md` (also in ~). A file's `description`, `tools` (which only narrows) and
 * `model` are honoured and its body is the mode's instructions.
 */
import { firstLineOf, listField, modelField, textField } from '../definitions/frontmatter';
import { loadDefinitionFiles, type DefinitionFile } from '../definitions/load';
import { pickByName } from '../definitions/precedence';
import type { DefinitionRoots } from '../definitions/sources';
import { parseToolList, type ToolRestriction } from '../definitions/toolNames';
import { notice, type DefinitionNotice, type DefinitionOrigin } from '../definitions/types';
import { userText, verbatim, type UserText } from '../texts/userText';

export const AGENT_MODE = 'agent';
export const PLAN_MODE = 'plan';
export type ModeBase = typeof AGENT_MODE | typeof PLAN_MODE;

export interface ModeDefinition {
  /** What the user picks or types (`/mode plan`, `--mode plan`): a file's `name`, else its file name. */
  name: string;
  /** One line for the picker: a file's own description (or first line) is its author's text, shown as written. */
  description: UserText;
  /** The built-in mode whose tool rules it starts from (custom modes: agent, unless an Evergreen file says `base: plan`). */
  base: ModeBase;
  /** Sent when the mode is chosen (a file's body); agent has none. */
  instructions?: string;
  /** Models to use, the first one available wins (Copilot allows a list); absent: the session's model. */
  model?: readonly string[];
  /** Narrows the base's tools; absent: all of them. */
  tools?: ToolRestriction;
  /** The file it came from; absent for the built-in modes. */
  origin?: DefinitionOrigin;
  /** A file mode's file name without its suffix (`planner` for planner.agent.md): also finds it. */
  fileName?: string;
}

export const PLAN_MODE_INSTRUCTIONS = [
  'You are in plan mode: research the task and propose a plan; change nothing.',
  'Files cannot be written or edited in this mode. run_shell, when it is offered, runs with the whole workspace read-only, so use it to look, not to build (a command that writes will fail; that is expected). Subagents can only explore.',
  'When you have a plan the user can approve, call exit_plan_mode with the plan in Markdown: what will change and why, the risks, and a numbered list of steps, one line each (they become the task list when the user builds the plan).',
  'Do not start the work yourself: the user either builds the plan (the session switches to agent mode) or asks you to keep planning.',
].join('\n');

export const BUILT_IN_MODES: readonly ModeDefinition[] = [
  { name: AGENT_MODE, description: userText('modes.agentDescription', {}), base: AGENT_MODE },
  { name: PLAN_MODE, description: userText('modes.planDescription', {}), base: PLAN_MODE, instructions: PLAN_MODE_INSTRUCTIONS },
];

/** Frontmatter fields other tools act on that Evergreen reads but does not act on. */
const UNSUPPORTED_MODE_FIELDS = ['handoffs', 'agents', 'mcp-servers', 'hooks'];

function modeOf(file: DefinitionFile, notices: DefinitionNotice[]): ModeDefinition | undefined {
  const shown = file.origin.file;
  const problem = (problem: UserText) => notices.push(notice('invalid-field', shown, userText('customization.fieldIgnored', { file: shown, problem })));
  const name = textField(file.fields, 'name');
  if (name.problem) problem(name.problem);
  const modeName = name.value ?? file.stem;
  if (modeName.includes('/') || /[\p{Cc}\p{Cf}]/u.test(modeName)) {
    notices.push(notice('invalid-field', shown, userText('customization.modeNameInvalid', { file: shown, name: modeName })));
    return undefined;
  }
  const description = textField(file.fields, 'description');
  if (description.problem) problem(description.problem);
  const model = modelField(file.fields, 'model');
  if (model.problem) problem(model.problem);
  const toolsField = listField(file.fields, 'tools');
  if (toolsField.problem) problem(toolsField.problem);
  let tools: ToolRestriction | undefined;
  if (toolsField.value) {
    const parsed = parseToolList(toolsField.value, { file: shown, field: 'tools' });
    tools = parsed.restriction;
    notices.push(...parsed.notices);
  }
  let base: ModeBase = AGENT_MODE;
  if (file.origin.format === 'evergreen' && file.fields.base !== undefined) {
    if (file.fields.base === PLAN_MODE || file.fields.base === AGENT_MODE) base = file.fields.base;
    else problem(userText('customization.modeBaseInvalid', { got: JSON.stringify(file.fields.base) }));
  }
  const unsupported = UNSUPPORTED_MODE_FIELDS.filter((field) => file.fields[field] !== undefined);
  if (unsupported.length > 0) {
    const fields = unsupported.map((field) => `"${field}"`).join(', ');
    notices.push(notice('unsupported-field', shown, userText('customization.modeFieldsUnsupported', { file: shown, fields }), { entries: unsupported }));
  }
  const instructions = file.body.trim();
  const ownDescription = description.value ?? firstLineOf(instructions);
  return {
    name: modeName,
    description: ownDescription !== undefined ? verbatim(ownDescription) : userText('modes.customDescription', { file: shown }),
    base,
    ...(instructions !== '' ? { instructions } : {}),
    ...(model.value ? { model: model.value } : {}),
    ...(tools ? { tools } : {}),
    origin: file.origin,
    fileName: file.stem,
  };
}

/** The built-in modes, then every custom mode that loaded, in precedence order; notices for the rest. */
export async function loadModes(roots: DefinitionRoots): Promise<{ modes: ModeDefinition[]; notices: DefinitionNotice[] }> {
  const loaded = await loadDefinitionFiles('mode', roots);
  const notices = [...loaded.notices];
  const custom = loaded.files.map((file) => modeOf(file, notices)).filter((mode): mode is ModeDefinition & { origin: DefinitionOrigin } => mode !== undefined);
  const reserved = new Map(BUILT_IN_MODES.map((mode) => [mode.name, `Evergreen's built-in ${mode.name} mode`]));
  const picked = pickByName(custom, 'mode', reserved);
  return { modes: [...BUILT_IN_MODES, ...picked.winners], notices: [...notices, ...picked.notices] };
}

/** The mode a name picks: its name exactly, then ignoring case, then a file mode's file name. */
export function findMode(modes: readonly ModeDefinition[], name: string): ModeDefinition | undefined {
  const wanted = name.trim();
  const lower = wanted.toLowerCase();
  return modes.find((mode) => mode.name === wanted) ?? modes.find((mode) => mode.name.toLowerCase() === lower) ?? modes.find((mode) => mode.fileName?.toLowerCase() === lower);
}

/** How a switch's block begins (the chat's replay knows it by this, before the user's own words). */
export const MODE_SWITCH_MARK = 'The user switched to the ';

/**
 * The text that tells the model a mode is now on: one small block the session appends to the
 * conversation (never a rewrite of the system prompt, so the cached prefix stays as it is).
 */
export function modeSwitchText(mode: ModeDefinition): string {
  const header = `${MODE_SWITCH_MARK}${mode.name} mode${mode.origin ? ` (defined in ${mode.origin.file})` : ''}.`;
  // A custom mode built on plan keeps plan's rules (and its way out, exit_plan_mode) under its own words.
  const rules = mode.origin && mode.base === PLAN_MODE ? PLAN_MODE_INSTRUCTIONS : undefined;
  const parts = [rules, mode.instructions].filter((part): part is string => part !== undefined);
  if (parts.length === 0) return `${header} Work on the task as usual; every tool offered may be used.`;
  return `${header} Its instructions:\n\n${parts.join('\n\n')}`;
}

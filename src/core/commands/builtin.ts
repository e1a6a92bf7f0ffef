/**
 * Evergreen's own slash commands, parsed into a typed command each front end executes (the chat,
 * the CLI's -p). Their names are reserved: a command file of the same name is reported and unused.
 */
import { parseThinkingSetting, type ThinkingSetting } from '../model/thinking';
import { userText, type UserText } from '../texts/userText';

export type BuiltInCommand =
  | { name: 'help'; topic?: string }
  | { name: 'new' }
  | { name: 'resume'; query?: string }
  | { name: 'compact'; focus?: string }
  | { name: 'context' }
  | { name: 'model'; model?: string }
  | { name: 'mode'; mode?: string }
  | { name: 'thinking'; setting?: ThinkingSetting }
  | { name: 'memory' }
  | { name: 'init' };

export type BuiltInCommandName = BuiltInCommand['name'];

export interface BuiltInCommandInfo {
  name: BuiltInCommandName;
  description: string;
  /** What may follow the name, for the picker; absent: nothing. */
  argumentHint?: string;
}

export const BUILT_IN_COMMANDS: readonly BuiltInCommandInfo[] = [
  { name: 'help', description: 'Lists the commands, or says what one does.', argumentHint: '[command]' },
  { name: 'new', description: 'Starts a new chat.' },
  { name: 'resume', description: 'Opens an earlier chat.', argumentHint: '[title or id]' },
  { name: 'compact', description: 'Summarizes the conversation now to free context, keeping what you name.', argumentHint: '[focus]' },
  { name: 'context', description: 'Shows what the context holds, line by line.' },
  { name: 'model', description: 'Shows the model, or switches to another.', argumentHint: '[model id]' },
  { name: 'mode', description: 'Shows the mode, or switches (agent, plan, or a custom mode).', argumentHint: '[mode]' },
  { name: 'thinking', description: 'Shows or sets extended thinking.', argumentHint: '[off | auto | budget in tokens]' },
  { name: 'memory', description: "Opens this workspace's memory folder." },
  { name: 'init', description: 'Explores the workspace and proposes an AGENTS.md (written through the normal approval).' },
];

export const BUILT_IN_NAMES: ReadonlySet<string> = new Set(BUILT_IN_COMMANDS.map((command) => command.name));

const isBuiltInName = (name: string): name is BuiltInCommandName => BUILT_IN_NAMES.has(name);

/** A built-in command with what follows it; a problem (naming the command) when the arguments do not fit. */
export function parseBuiltInCommand(name: string, args: string): { command: BuiltInCommand } | { problem: UserText } | undefined {
  if (!isBuiltInName(name)) return undefined;
  const rest = args.trim();
  const optional = <K extends string>(key: K): Record<K, string> | Record<string, never> => (rest === '' ? {} : ({ [key]: rest } as Record<K, string>));
  switch (name) {
    case 'new':
    case 'context':
    case 'memory':
    case 'init':
      return rest === '' ? { command: { name } } : { problem: userText('customization.commandTakesNothing', { name }) };
    case 'help':
      return { command: { name, ...optional('topic') } };
    case 'resume':
      return { command: { name, ...optional('query') } };
    case 'compact':
      return { command: { name, ...optional('focus') } };
    case 'mode':
      return { command: { name, ...optional('mode') } };
    case 'model':
      if (/\s/.test(rest)) return { problem: userText('customization.modelTakesOneId', { got: rest }) };
      return { command: { name, ...optional('model') } };
    case 'thinking': {
      if (rest === '') return { command: { name } };
      const parsed = parseThinkingSetting(rest);
      // The setting's problem is thinking's own English (model/thinking.ts), data here.
      return 'problem' in parsed ? { problem: userText('customization.thinkingSettingInvalid', { problem: parsed.problem }) } : { command: { name, setting: parsed.setting } };
    }
  }
}

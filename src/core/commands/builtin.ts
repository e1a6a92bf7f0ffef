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
  /** One line for the picker and /help, worded by each front end. */
  description: UserText;
  /** What may follow the name, for the picker; absent: nothing. */
  argumentHint?: UserText;
}

export const BUILT_IN_COMMANDS: readonly BuiltInCommandInfo[] = [
  { name: 'help', description: userText('commands.helpDescription', {}), argumentHint: userText('commands.helpHint', {}) },
  { name: 'new', description: userText('commands.newDescription', {}) },
  { name: 'resume', description: userText('commands.resumeDescription', {}), argumentHint: userText('commands.resumeHint', {}) },
  { name: 'compact', description: userText('commands.compactDescription', {}), argumentHint: userText('commands.compactHint', {}) },
  { name: 'context', description: userText('commands.contextDescription', {}) },
  { name: 'model', description: userText('commands.modelDescription', {}), argumentHint: userText('commands.modelHint', {}) },
  { name: 'mode', description: userText('commands.modeDescription', {}), argumentHint: userText('commands.modeHint', {}) },
  { name: 'thinking', description: userText('commands.thinkingDescription', {}), argumentHint: userText('commands.thinkingHint', {}) },
  { name: 'memory', description: userText('commands.memoryDescription', {}) },
  { name: 'init', description: userText('commands.initDescription', {}) },
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

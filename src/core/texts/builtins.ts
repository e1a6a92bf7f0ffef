/** What Evergreen's own slash commands and modes are, as kinds (src/core/texts/userText.ts); src/frontends/words/builtins.ts words them. */
import type { NoData } from './value';

/**
 * The built-in commands' and modes' one-line descriptions and argument hints, shown by the `/`
 * picker, /help and the mode picker. A command or mode file's description is its author's text
 * (data, shown as written); a mode file with none is described by where it comes from.
 */
export interface BuiltinTexts {
  // Slash commands (commands/builtin.ts): what each does, and what may follow its name
  'commands.helpDescription': NoData;
  'commands.helpHint': NoData;
  'commands.newDescription': NoData;
  'commands.resumeDescription': NoData;
  'commands.resumeHint': NoData;
  'commands.compactDescription': NoData;
  'commands.compactHint': NoData;
  'commands.contextDescription': NoData;
  'commands.modelDescription': NoData;
  'commands.modelHint': NoData;
  'commands.modeDescription': NoData;
  'commands.modeHint': NoData;
  'commands.thinkingDescription': NoData;
  /** `off` and `auto` are what the user types; only the budget is worded. */
  'commands.thinkingHint': NoData;
  'commands.memoryDescription': NoData;
  'commands.initDescription': NoData;
  // Modes (modes/modes.ts)
  'modes.agentDescription': NoData;
  'modes.planDescription': NoData;
  /** A mode file with no description and no body: `file` as the loaders show it. */
  'modes.customDescription': { file: string };
}

/** What Evergreen's own slash commands and modes are, as kinds (src/core/texts/userText.ts); src/frontends/words/builtins.ts words them. */

/**
 * The built-in commands' and modes' one-line descriptions and argument hints, shown by the `/`
 * picker, /help and the mode picker. A command or mode file's description is its author's text
 * (data, shown as written); a mode file with none is described by where it comes from.
 */
export interface BuiltinTexts {
  // Slash commands (commands/builtin.ts): what each does, and what may follow its name
  'commands.helpDescription': Record<string, never>;
  'commands.helpHint': Record<string, never>;
  'commands.newDescription': Record<string, never>;
  'commands.resumeDescription': Record<string, never>;
  'commands.resumeHint': Record<string, never>;
  'commands.compactDescription': Record<string, never>;
  'commands.compactHint': Record<string, never>;
  'commands.contextDescription': Record<string, never>;
  'commands.modelDescription': Record<string, never>;
  'commands.modelHint': Record<string, never>;
  'commands.modeDescription': Record<string, never>;
  'commands.modeHint': Record<string, never>;
  'commands.thinkingDescription': Record<string, never>;
  /** `off` and `auto` are what the user types; only the budget is worded. */
  'commands.thinkingHint': Record<string, never>;
  'commands.memoryDescription': Record<string, never>;
  'commands.initDescription': Record<string, never>;
  // Modes (modes/modes.ts)
  'modes.agentDescription': Record<string, never>;
  'modes.planDescription': Record<string, never>;
  /** A mode file with no description and no body: `file` as the loaders show it. */
  'modes.customDescription': { file: string };
}

/**
 * "/compact [focus]" typed as a prompt (the chat, the CLI's -p) compacts the conversation instead
 * of sending it. The slash-command parser (commands/slash.ts, commands/builtin.ts) reads it; this
 * keeps the call the front ends use until they take every built-in command from resolveSlashCommand.
 */
import { parseBuiltInCommand } from '../commands/builtin';
import { parseSlashInput } from '../commands/slash';

export const COMPACT_COMMAND = '/compact';

/** The compaction a prompt asks for, with its focus (undefined when none); undefined when the prompt is no /compact. */
export function parseCompactCommand(prompt: string): { focus: string | undefined } | undefined {
  const input = parseSlashInput(prompt);
  if (input?.name !== 'compact') return undefined;
  const parsed = parseBuiltInCommand(input.name, input.args);
  return parsed && 'command' in parsed && parsed.command.name === 'compact' ? { focus: parsed.command.focus } : undefined;
}

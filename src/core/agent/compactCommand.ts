/**
 * "/compact [focus]" typed as a prompt (the chat, the CLI's -p) compacts the conversation instead
 * of sending it; one parser, so every front end reads the same words the same way.
 */
export const COMPACT_COMMAND = '/compact';

/** The compaction a prompt asks for, with its focus (undefined when none); undefined when the prompt is no /compact. */
export function parseCompactCommand(prompt: string): { focus: string | undefined } | undefined {
  const trimmed = prompt.trim();
  if (trimmed !== COMPACT_COMMAND && !trimmed.startsWith(`${COMPACT_COMMAND} `)) return undefined;
  const focus = trimmed.slice(COMPACT_COMMAND.length).trim();
  return { focus: focus || undefined };
}

/** Words for the built-in commands' and modes' descriptions (the kinds are in src/core/texts/builtins.ts). */
import type { BuiltinTexts } from '../../core/texts/builtins';
import { wordsFor } from './template';

export const BUILTIN_WORDS = wordsFor<BuiltinTexts>()({
  'commands.helpDescription': 'Lists the commands, or says what one does.',
  'commands.helpHint': '[command]',
  'commands.newDescription': 'Starts a new chat.',
  'commands.resumeDescription': 'Opens an earlier chat.',
  'commands.resumeHint': '[title or id]',
  'commands.compactDescription': 'Summarizes the conversation now to free context, keeping what you name.',
  'commands.compactHint': '[focus]',
  'commands.contextDescription': 'Shows what the context holds, line by line.',
  'commands.modelDescription': 'Shows the model, or switches to another.',
  'commands.modelHint': '[model id]',
  'commands.modeDescription': 'Shows the mode, or switches (agent, plan, or a custom mode).',
  'commands.modeHint': '[mode]',
  'commands.thinkingDescription': 'Shows or sets extended thinking.',
  'commands.thinkingHint': '[off | auto | budget in tokens]',
  'commands.memoryDescription': "Opens this workspace's memory folder.",
  'commands.initDescription': 'Explores the workspace and proposes an AGENTS.md (written through the normal approval).',
  'modes.agentDescription': 'Works on the task: reads, edits files and runs commands under your approval settings.',
  'modes.planDescription': 'Researches and proposes a plan; changes nothing until you build it.',
  'modes.customDescription': 'Custom mode from {file}',
});

/**
 * Slash commands in `-p`: each prompt is read as the chat reads what is typed
 * (frontends/slashCommands.ts). A command file is expanded into the turn it starts; the built-ins
 * that make sense for one run act here (/help, /compact, /context, /memory, /init, /mode, and /model
 * and /thinking to show what the session runs with); those that switch a chat say which flag
 * does it in the terminal. An unknown command stops the run before anything is sent, naming the
 * near ones.
 */
import type { AttachmentSpec } from '../core/agent/attachments';
import type { StartedSession } from '../core/agent/factory';
import type { TurnOptions } from '../core/agent/session';
import type { BuiltInCommand } from '../core/commands/builtin';
import { INIT_PROMPT } from '../core/commands/init';
import { memoryListing } from '../core/memory/view';
import { NodeWorkspace } from '../core/workspace/workspace';
import { errorMessage } from '../core/logger';
import { UnknownModeError } from '../core/agent/modes';
import { word } from '../frontends/words';
import { renderContextBreakdown } from '../frontends/contextBreakdown';
import { planSlash, prepareCommandTurn, slashHelp, type CommandCatalog } from '../frontends/slashCommands';

/** What one prompt of the run does. */
export type PromptStep =
  /** Send a message (the prompt, a command's turn, /init's prompt). */
  | { kind: 'send'; text: string; attachments: AttachmentSpec[]; turn: TurnOptions; notices: string[] }
  /** Compact now (`/compact [focus]`). */
  | { kind: 'compact'; focus: string | undefined }
  /** Print `text` on stdout and go on. */
  | { kind: 'print'; text: string }
  /** Nothing runs: the run stops with a usage error. */
  | { kind: 'refuse'; message: string };

export interface SlashRun {
  started: StartedSession;
  catalog: CommandCatalog;
  workspaceRoot: string;
  /** The memory folder (undefined: --no-memory). */
  memoryFolder: string | undefined;
  /** What the run was started with, for /model and /thinking. */
  thinking: string;
}

/** What `prompt` does in this run. */
export async function promptStep(prompt: string, run: SlashRun): Promise<PromptStep> {
  const plan = planSlash(prompt, run.catalog);
  switch (plan.kind) {
    case 'message':
      return { kind: 'send', text: plan.text, attachments: [], turn: {}, notices: [] };
    case 'error':
      return { kind: 'refuse', message: `${plan.message} Nothing was sent.` };
    case 'command':
    case 'skill': {
      let turn;
      try {
        turn = await prepareCommandTurn(plan, { catalog: run.catalog, workspace: new NodeWorkspace(run.workspaceRoot), substitution: { workspaceFolder: run.workspaceRoot }, target: { tools: run.started.tools, model: run.started.client.model } });
      } catch (error) {
        // A skill this session cannot load: nothing is sent.
        return { kind: 'refuse', message: `${errorMessage(error)} Nothing was sent.` };
      }
      return { kind: 'send', text: turn.text, attachments: turn.attachments, turn: turn.gate ? { gate: turn.gate } : {}, notices: turn.notices };
    }
    case 'built-in':
      return builtInStep(plan.command, run);
  }
}

async function builtInStep(command: BuiltInCommand, run: SlashRun): Promise<PromptStep> {
  const { started } = run;
  switch (command.name) {
    case 'help':
      return { kind: 'print', text: slashHelp(command.topic, run.catalog, 'cli') };
    case 'compact':
      return { kind: 'compact', focus: command.focus };
    case 'context': {
      const { session, handle, client } = started;
      return { kind: 'print', text: renderContextBreakdown({ gauge: session.context.gauge(), savings: session.context.tierSavings?.(), sessionId: handle.id, model: client.model, at: new Date(), word, voice: 'cli' }) };
    }
    case 'memory':
      if (run.memoryFolder === undefined) return { kind: 'print', text: 'Memory is off for this run (--no-memory).' };
      return { kind: 'print', text: `Memory folder: ${run.memoryFolder}\n\n${await memoryListing(run.memoryFolder)}` };
    case 'init':
      return { kind: 'send', text: INIT_PROMPT, attachments: [], turn: {}, notices: [] };
    case 'model':
      if (command.model === undefined) return { kind: 'print', text: `Model: ${started.client.model}` };
      return { kind: 'refuse', message: `/model switches a chat's model; in the terminal, start the run with --model ${command.model} (--resume SESSION_ID goes on with a session).` };
    case 'thinking':
      if (command.setting === undefined) return { kind: 'print', text: `Thinking: ${run.thinking}` };
      return { kind: 'refuse', message: `/thinking changes a chat's setting; in the terminal, start the run with --thinking ${command.setting}.` };
    case 'mode':
      return modeStep(command.mode, started);
    case 'new':
    case 'resume':
      return { kind: 'refuse', message: `/${command.name} switches chats in VS Code; in the terminal, run without --resume for a new session, or with --resume SESSION_ID to go on with one.` };
  }
}

/** `/mode` prints the session's mode and the others; `/mode NAME` switches for the prompts that follow (an unknown name stops the run, naming the modes). */
function modeStep(name: string | undefined, started: StartedSession): PromptStep {
  const modes = started.session.modes;
  if (!modes) return { kind: 'refuse', message: 'This session has no modes.' };
  if (name === undefined) return { kind: 'print', text: `Mode: ${modes.current.name}. The modes: ${modes.all.map((mode) => mode.name).join(', ')}.` };
  try {
    return { kind: 'print', text: `Mode: ${modes.switchTo(name, 'switch').name} (from the next prompt).` };
  } catch (error) {
    if (error instanceof UnknownModeError) return { kind: 'refuse', message: word(error.said) };
    throw error;
  }
}

/**
 * Slash commands in the chat: the command files as the picker and a send see them (read again at
 * most every few seconds, so a file saved a moment ago is there), a command file's turn with what
 * the editor knows, and the built-in commands, each run through the chat it was typed in. Reading
 * what was typed and a command file's turn are the front ends' shared code (frontends/slashCommands.ts).
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { StartedSession } from '../core/agent/factory';
import type { BuiltInCommand } from '../core/commands/builtin';
import { INIT_FILE, INIT_PROMPT } from '../core/commands/init';
import { defaultModelFor } from '../core/model/models';
import type { FileSessionStore } from '../core/storage/sessionStore';
import { NodeWorkspace } from '../core/workspace/workspace';
import { commandOptions, loadCommandCatalog, prepareCommandTurn, slashHelp, type CommandCatalog, type CommandTurn, type SlashPlan } from '../frontends/slashCommands';
import type { CommandOption } from '../protocol';
import type { ChatOverrides, ChatState } from './chatState';
import type { ChatModes } from './chatModes';
import { errorText } from './errorHints';
import { reloadRefusal } from './instructionsReload';
import { readSettings } from './settings';

/** How long a read of the command folders is reused: the picker asks at every keystroke. */
const CATALOG_TTL_MS = 2_000;

/** The command files of the open workspace (only the user's own when it is not trusted). */
export class CommandFiles {
  private cached: { at: number; key: string; catalog: Promise<CommandCatalog> } | undefined;

  constructor(
    private readonly where: () => { workspaceRoot: string | undefined; trusted: boolean },
    private readonly home: string = os.homedir(),
  ) {}

  catalog(): Promise<CommandCatalog> {
    const { workspaceRoot, trusted } = this.where();
    const key = `${workspaceRoot ?? ''}\0${trusted}`;
    const now = Date.now();
    if (!this.cached || this.cached.key !== key || now - this.cached.at > CATALOG_TTL_MS) {
      this.cached = { at: now, key, catalog: loadCommandCatalog({ workspaceRoot, workspaceTrusted: trusted, home: this.home }) };
    }
    return this.cached.catalog;
  }

  async options(query: string): Promise<CommandOption[]> {
    return commandOptions(query, await this.catalog());
  }
}

/** What the chat lends its commands (the controller's own actions). */
export interface SlashCommandHost {
  chat: ChatState;
  store: FileSessionStore;
  /** A line in the chat that stays when the panel reloads. */
  say(level: 'info' | 'warning', message: string): void;
  /** The chat rebuilt on its own transcript with what it runs with now (its overrides). */
  restart(sessionId: string): Promise<StartedSession>;
  newChat(): Promise<void>;
  resumeSession(): Promise<void>;
  resumeSessionById(sessionId: string): Promise<void>;
  compact(focus: string): Promise<void>;
  showContextBreakdown(): Promise<void>;
  openMemory(): Promise<void>;
  /** The chat's modes: `/mode` shows them or switches, as the picker does. */
  modes: Pick<ChatModes, 'picker' | 'switchTo'>;
  /** Sends `text` as the user's message. */
  send(text: string): Promise<void>;
}

/** The workspace folder Evergreen works in (the first, on disk); undefined without one. */
export function workspaceFolder(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}

export class ChatSlashCommands {
  constructor(private readonly host: SlashCommandHost) {}

  /** Runs a built-in command (its arguments already checked by the parser). */
  async run(command: BuiltInCommand, catalog: CommandCatalog): Promise<void> {
    const { host } = this;
    switch (command.name) {
      case 'help':
        return host.say('info', slashHelp(command.topic, catalog, 'extension'));
      case 'new':
        return host.newChat();
      case 'resume':
        return this.resume(command.query);
      case 'compact':
        return host.compact(command.focus ?? '');
      case 'context':
        return host.showContextBreakdown();
      case 'memory':
        return host.openMemory();
      case 'model':
        return this.switchChat('model', command.model);
      case 'thinking':
        return this.switchChat('thinking', command.setting);
      case 'mode':
        return this.mode(command.mode);
      case 'init':
        // The model writes the file with write_file: the user sees the diff and approves it like any write.
        if (!vscode.workspace.isTrusted) return host.say('warning', vscode.l10n.t('/init writes {0}, and this workspace is not trusted: Evergreen does not write files here. Trust the workspace, then run /init again.', INIT_FILE));
        return host.send(INIT_PROMPT);
    }
  }

  /** `/mode` alone names the chat's mode and the others; `/mode NAME` switches as the picker does (refused while a turn runs, an unknown name listing the modes). */
  private async mode(name: string | undefined): Promise<void> {
    const { host } = this;
    if (name === undefined) {
      const picker = await host.modes.picker();
      return host.say('info', vscode.l10n.t('Mode: {0}. The modes: {1}. Switch with /mode followed by a name.', picker.current, picker.options.map((option) => option.name).join(', ')));
    }
    try {
      const picker = await host.modes.switchTo(name);
      host.say('info', host.chat.active ? vscode.l10n.t('The {0} mode is on from your next message.', picker.current) : vscode.l10n.t('The {0} mode is on for the next chat.', picker.current));
    } catch (error) {
      host.say('warning', errorText(error));
    }
  }

  /** What a message or a command file sends, on the session that runs it (a command gets the editor's file and selection). */
  async turnOf(plan: Extract<SlashPlan, { kind: 'message' | 'command' | 'skill' }>, catalog: CommandCatalog, started: StartedSession): Promise<CommandTurn> {
    if (plan.kind === 'message') return { text: plan.text, attachments: [], notices: [] };
    const root = workspaceFolder();
    if (!root) throw new Error(vscode.l10n.t('Open a folder first: a command works on the files of a workspace folder.'));
    const editor = vscode.window.activeTextEditor;
    const file = editor?.document.uri;
    const selection = editor && !editor.selection.isEmpty ? { selection: editor.document.getText(editor.selection) } : {};
    return prepareCommandTurn(plan, {
      catalog,
      workspace: new NodeWorkspace(root),
      substitution: { workspaceFolder: root, ...(file?.scheme === 'file' ? { editor: { file: file.fsPath, ...selection } } : {}) },
      target: { tools: started.tools, model: started.client.model },
    });
  }

  /**
   * `/model id`, `/thinking x`: this chat runs with it from the next message, rebuilt on its own
   * transcript now (a model that cannot be used is refused here, and the chat stays as it was).
   * Without a value: what it runs with.
   */
  private async switchChat<K extends keyof ChatOverrides>(key: K, value: ChatOverrides[K] | undefined): Promise<void> {
    const { chat, say } = this.host;
    const { active, overrides } = chat;
    const settings = readSettings();
    const label = key === 'model' ? vscode.l10n.t('Model') : vscode.l10n.t('Thinking');
    const current = String(key === 'model' ? (active?.client.model ?? overrides.model ?? settings.model ?? defaultModelFor(settings.provider)) : (overrides.thinking ?? settings.thinking));
    if (value === undefined) {
      return say(
        'info',
        key === 'model'
          ? vscode.l10n.t('{0}: {1}. Switch this chat with /model followed by a model id; your settings keep their value.', label, current)
          : vscode.l10n.t('{0}: {1}. Change it for this chat with /thinking off, auto or a budget in tokens; your settings keep their value.', label, current),
      );
    }
    if (String(value) === current) return say('info', vscode.l10n.t('{0} is {1} already.', label, current));
    const refused = reloadRefusal(active, chat.sending, key);
    if (refused) return say('warning', refused.message);
    const previous = overrides[key];
    overrides[key] = value;
    if (!active) return say('info', vscode.l10n.t('{0}: {1} for this chat, from its first message.', label, String(value)));
    try {
      await this.host.restart(active.handle.id);
      say(
        'info',
        key === 'model'
          ? vscode.l10n.t('{0}: {1} for this chat, from the next message (the next request reads the conversation again without the cache). New Chat goes back to your settings.', label, String(value))
          : vscode.l10n.t('{0}: {1} for this chat, from the next message (the next request may write the cache again once). New Chat goes back to your settings.', label, String(value)),
      );
    } catch (error) {
      overrides[key] = previous;
      say('warning', vscode.l10n.t('{0} stays {1}: {2}', label, current, errorText(error)));
    }
  }

  /** `/resume query`: the one session whose id or title matches, else the picker. */
  private async resume(query: string | undefined): Promise<void> {
    const { host } = this;
    const wanted = query?.toLowerCase();
    const matches = wanted === undefined ? [] : (await host.store.list()).filter((meta) => meta.id === query || meta.title.toLowerCase().includes(wanted));
    if (matches.length === 1) return host.resumeSessionById(matches[0]!.id);
    if (query !== undefined) host.say('info', matches.length === 0 ? vscode.l10n.t('No saved session matches "{0}": pick one.', query) : vscode.l10n.t('{0} sessions match "{1}": pick one.', matches.length, query));
    return host.resumeSession();
  }
}

/**
 * Modes in VS Code (issue 28): the composer's picker and "Evergreen: Switch Mode…" switch the
 * chat's session (the core records the mode and tells the model with the next message), or choose
 * the next chat's mode before one began. A mode that runs on another model than the one running
 * restarts the session on its transcript with the next message, as a changed setting does. The
 * modes come from the core (agent, plan, the user's and, in a trusted workspace, the workspace's
 * files); this file only adapts them to the picker and the quick pick.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { ModeOption, ModePicker } from '../protocol';
import { AGENT_MODE, findMode, loadModes, type ModeDefinition } from '../core/modes/modes';
import { settingName } from '../frontends/settingsTable';
import type { ChatState } from './chatState';
import { readSettings } from './settings';

function optionOf(mode: ModeDefinition): ModeOption {
  return { name: mode.name, description: mode.description, ...(mode.origin ? { source: mode.origin.file } : {}) };
}

export class ChatModes {
  /** The default mode named by the settings that no longer exists: warned about once. */
  private warnedDefault: string | undefined;

  constructor(
    private readonly chat: ChatState,
    /** Tells the panel's chat (a notice in the transcript). */
    private readonly notify: (message: string) => void,
  ) {}

  /** The picker as it stands: the running session's modes, or (before a chat began) the modes on disk and the next chat's. */
  async picker(): Promise<ModePicker> {
    const modes = this.chat.active?.session.modes;
    if (modes) return { current: modes.current.name, options: modes.all.map(optionOf) };
    const all = await this.load();
    return { current: this.nextMode(all).name, options: all.map(optionOf) };
  }

  /** The mode a new chat starts in: the one picked before it began, else `evergreen.defaultMode` (agent when that names no mode). */
  async startMode(): Promise<string> {
    return this.nextMode(await this.load()).name;
  }

  /**
   * Switches to `name` (the picker, the command): the running session's mode from now on, or the
   * next chat's. Refused while a turn runs; an unknown name is an error that lists the modes.
   */
  async switchTo(name: string): Promise<ModePicker> {
    if (this.chat.busy) throw new Error('Evergreen is working: switch the mode when the turn has ended (or cancel it first).');
    const modes = this.chat.active?.session.modes;
    if (modes) {
      const mode = modes.switchTo(name, 'switch');
      // A back end serves one model: the session restarts on its transcript with the next message.
      if (modes.wantsOtherModel() && !this.chat.needsRestart) {
        this.chat.needsRestart = true;
        this.notify(`The ${mode.name} mode runs on another model: it takes over from your next message (the chat continues on its transcript).`);
      }
      return this.picker();
    }
    const all = await this.load();
    const mode = findMode(all, name);
    if (!mode) throw new Error(`There is no mode "${name}". The modes are: ${all.map((candidate) => candidate.name).join(', ')}.`);
    this.chat.nextMode = mode.name;
    return this.picker();
  }

  /** "Evergreen: Switch Mode…": a quick pick of the modes, the current one marked. */
  async pick(): Promise<void> {
    const picker = await this.picker();
    const items = picker.options.map((option) => ({
      label: option.name,
      description: option.name === picker.current ? `(current) ${option.description}` : option.description,
      ...(option.source ? { detail: option.source } : {}),
    }));
    const chosen = await vscode.window.showQuickPick(items, { title: 'Evergreen: Switch Mode', placeHolder: `The chat is in the ${picker.current} mode. Switch to…` });
    if (!chosen || chosen.label === picker.current) return;
    try {
      await this.switchTo(chosen.label);
      void vscode.window.showInformationMessage(`Evergreen: the ${chosen.label} mode is on.`);
    } catch (error) {
      void vscode.window.showWarningMessage(`Evergreen: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private nextMode(all: readonly ModeDefinition[]): ModeDefinition {
    const wanted = this.chat.nextMode ?? readSettings().modes.defaultMode;
    const mode = findMode(all, wanted);
    if (mode) return mode;
    if (this.warnedDefault !== wanted) {
      this.warnedDefault = wanted;
      void vscode.window.showWarningMessage(`Evergreen: "${settingName('defaultMode')}" names the mode "${wanted}", which does not exist here; new chats start in the agent mode. The modes are: ${all.map((candidate) => candidate.name).join(', ')}.`);
    }
    return findMode(all, AGENT_MODE)!;
  }

  /** The modes on disk, as a session starting now would load them (problems in their files are said when it starts). */
  private async load(): Promise<ModeDefinition[]> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const workspaceRoot = folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
    return (await loadModes({ workspaceRoot, workspaceTrusted: vscode.workspace.isTrusted, home: os.homedir() })).modes;
  }
}

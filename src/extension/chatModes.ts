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
import { word } from '../frontends/words';
import type { ChatState } from './chatState';
import { readSettings } from './settings';
import { errorText } from './errorHints';
import { UnknownModeError } from '../core/agent/modes';

function optionOf(mode: ModeDefinition): ModeOption {
  return { name: mode.name, description: word(mode.description), ...(mode.origin ? { source: mode.origin.file } : {}) };
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
    if (this.chat.busy) throw new Error(vscode.l10n.t('Evergreen is working: switch the mode when the turn has ended (or cancel it first).'));
    const modes = this.chat.active?.session.modes;
    if (modes) {
      const mode = modes.switchTo(name, 'switch');
      // A back end serves one model: the session restarts on its transcript with the next message.
      if (modes.wantsOtherModel() && !this.chat.needsRestart) {
        this.chat.needsRestart = true;
        this.notify(vscode.l10n.t('The {0} mode runs on another model: it takes over from your next message (the chat continues on its transcript).', mode.name));
      }
      return this.picker();
    }
    const all = await this.load();
    const mode = findMode(all, name);
    if (!mode) throw new UnknownModeError(name, all.map((candidate) => candidate.name));
    this.chat.nextMode = mode.name;
    return this.picker();
  }

  /** "Evergreen: Switch Mode…": a quick pick of the modes, the current one marked. */
  async pick(): Promise<void> {
    const picker = await this.picker();
    const items = picker.options.map((option) => ({
      label: option.name,
      description: option.name === picker.current ? vscode.l10n.t('(current) {0}', option.description) : option.description,
      ...(option.source ? { detail: option.source } : {}),
    }));
    const chosen = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Evergreen: Switch Mode'), placeHolder: vscode.l10n.t('The chat is in the {0} mode. Switch to…', picker.current) });
    if (!chosen || chosen.label === picker.current) return;
    try {
      await this.switchTo(chosen.label);
      void vscode.window.showInformationMessage(vscode.l10n.t('Evergreen: the {0} mode is on.', chosen.label));
    } catch (error) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: {0}', errorText(error)));
    }
  }

  private nextMode(all: readonly ModeDefinition[]): ModeDefinition {
    const wanted = this.chat.nextMode ?? readSettings().modes.defaultMode;
    const mode = findMode(all, wanted);
    if (mode) return mode;
    if (this.warnedDefault !== wanted) {
      this.warnedDefault = wanted;
      void vscode.window.showWarningMessage(vscode.l10n.t('Evergreen: "{0}" names the mode "{1}", which does not exist here; new chats start in the agent mode. The modes are: {2}.', settingName('defaultMode'), wanted, all.map((candidate) => candidate.name).join(', ')));
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
